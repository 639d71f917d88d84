import MixDSP

/// A session's ending: a sleep fade on the master, or a wake's rise of the bed (every track that does not
/// speak) and its chime, a track of its own planned by the chime's kind. A mix has none.
struct EndingPass: PlanPass {
    func apply(to draft: inout PlanDraft, session: PlanningContext) throws {
        guard let ending = draft.layout?.ending else { return }
        switch ending.kind {
        case nil:
            return
        case .sleep(_, let fade)?:
            let from = ending.fadeFrom ?? ending.start
            draft.masterEnvelopes.append(.fadeOut(end: ending.end, length: ending.end - from, curve: fade.curve))
            draft.timeline.ending = Timeline.Ending(kind: "sleep", start: ending.start, end: ending.end, fadeFrom: from, chime: nil)
        case .wake(_, let riseDb, let chime)?:
            let riseFrom = ending.riseFrom ?? ending.start, chimeAt = ending.chime ?? ending.end
            let top = Float(gain(fromDecibels: riseDb))
            // The bed (and the beats) rise, then fade out under the chime.
            let rise = Envelope(points: [.init(position: riseFrom, value: 1), .init(position: chimeAt, value: top, curve: .sCurve),
                                         .init(position: ending.end, value: 0, curve: .sCurve)])
            let speaking = draft.speaking
            for t in draft.tracks.indices where !speaking.contains(t) { draft.tracks[t].planned.gains.envelopes.append(rise) }
            if let chime {
                let planning = TrackPlanning(jsonPath: "ending.chime", start: chimeAt, explicitEnd: nil, loop: nil,
                                             frameCount: draft.frameCount, context: draft.context, session: session)
                let source = try chime.kind.plan(planning)
                let channels = draft.tracks.first?.planned.balance.count ?? 2
                let track = PlannedTrack(name: "chime", start: chimeAt, end: min(source.end, ending.end), events: source.events,
                                         gains: GainStack(), balance: balanceGains(pan: 0, channelCount: channels))
                draft.tracks.append(PlanDraft.Track(planned: track, spec: nil, index: nil, speaks: false, bedGains: []))
                for note in source.notes { draft.timeline.notes.append(("chime", note)) }
            }
            draft.timeline.ending = Timeline.Ending(kind: "wake", start: ending.start, end: ending.end, fadeFrom: nil,
                                                    chime: chime == nil ? nil : chimeAt)
        }
    }
}
