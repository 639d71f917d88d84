import MixDSP

/// A track's `drift`: its gain wanders slowly (an envelope added to its gains), and in stereo its pan too
/// (each event wrapped to follow the pan; the track's own balance is then unity). Runs before the loudness
/// pass, which measures the track as it will sound.
struct DriftPass: PlanPass {
    func apply(to draft: inout PlanDraft, session: PlanningContext) throws {
        for t in draft.tracks.indices {
            guard let spec = draft.tracks[t].spec, let index = draft.tracks[t].index, let drift = spec.drift else { continue }
            var track = draft.tracks[t].planned
            let seed = drift.seed ?? UInt64(index), spacing = max(session.frames(drift.timeScaleSeconds), 1)
            if drift.gainDb > 0 {
                track.gains.envelopes.append(drift.gainEnvelope(seed: seed, spacing: spacing, from: track.start, to: track.end))
            }
            if drift.pan > 0 && draft.context.channelCount == 2 {
                // The events carry the whole balance, drifting; the track's own is then unity.
                let pan = drift.panEnvelope(seed: seed, spacing: spacing, centre: spec.pan, from: track.start, to: track.end)
                for i in track.events.indices {
                    track.events[i].material = PanDriftMaterial(inner: track.events[i].material, pan: pan,
                                                             timelineOffset: track.events[i].start - track.events[i].sourceOffset)
                }
                track.balance = [1, 1]
            }
            draft.tracks[t].planned = track
        }
    }
}
