import MixDSP
import MixIO

/// Turns a validated `Preset` into a `RenderPlan`: every time becomes an integer frame position at
/// the output rate, every fade an envelope, and every source file is opened once to learn its
/// length, rate and channels, so a missing or broken file is reported before any audio is written.
///
/// A value holding one `String`; allocates nothing itself. `plan` allocates the plan (and opens each
/// source file once) with state of its own, so several threads may plan at once.
public struct Planner {
    /// The preset's file name, for error messages.
    public var presetFile: String

    public init(presetFile: String) { self.presetFile = presetFile }

    public func plan(_ preset: Preset) throws -> RenderPlan {
        let rate = preset.output.sampleRate
        let channels = preset.output.channelCount
        let session = PlanningSession(presetFile: presetFile, sampleRate: rate)
        let total = session.frames(preset.durationSeconds)
        guard total > 0 else { throw EngineError.preset(PresetError(file: presetFile, jsonPath: "duration", message: "the render is shorter than one frame")) }

        var masterEnvelopes: [Envelope] = []
        if let f = preset.master.fadeIn {
            masterEnvelopes.append(.fadeIn(start: 0, length: min(session.frames(f.seconds), total), curve: f.curve))
        }
        if let f = preset.master.fadeOut {
            masterEnvelopes.append(.fadeOut(end: total, length: min(session.frames(f.seconds), total), curve: f.curve))
        }
        let master = GainStack(constant: Float(gain(fromDecibels: preset.master.gainDb)), envelopes: masterEnvelopes)
        let context = VoiceContext(sampleRate: rate, channelCount: channels, resampler: preset.output.resampler)

        var tracks: [PlannedTrack] = []
        for (index, spec) in preset.tracks.enumerated() {
            let planning = TrackPlanning(jsonPath: "tracks[\(index)]", start: session.frames(spec.startSeconds),
                                         explicitEnd: spec.endSeconds.map(session.frames), loop: spec.loop,
                                         frameCount: total, context: context, session: session)
            if let track = try planTrack(spec, index: index, planning) {
                tracks.append(track)
            } else {
                session.warn("tracks[\(index)]", "starts at or after the end of the render; it will not sound")
            }
        }
        var plan = RenderPlan(sampleRate: rate, channelCount: channels, frameCount: total,
                              resampler: preset.output.resampler, tracks: tracks, master: master,
                              limiter: preset.master.limiter)
        plan.warnings = session.warnings
        plan.sourceFiles = session.files
        return plan
    }

    /// The track's kind places its voices; then the track is cut to the render, and gets its gains,
    /// fades and balance, whatever its kind.
    func planTrack(_ spec: TrackSpec, index: Int, _ planning: TrackPlanning) throws -> PlannedTrack? {
        let source = try spec.source.kind.plan(planning)
        var voices = source.voices
        let start = planning.start
        let end = min(source.end, planning.frameCount)
        guard end > start else { return nil }
        for i in voices.indices { voices[i].end = min(voices[i].end, end) }
        voices.removeAll { $0.end <= $0.start }

        let frames = planning.frames
        var envelopes: [Envelope] = []
        if !spec.envelope.isEmpty {
            envelopes.append(Envelope(points: spec.envelope.map {
                Envelope.Point(position: frames($0.seconds), value: Float(gain(fromDecibels: $0.gainDb)), curve: $0.curve)
            }))
        }
        let span = end - start
        if frames((spec.fadeIn?.seconds ?? 0) + (spec.fadeOut?.seconds ?? 0)) > span {
            planning.session.warn(planning.jsonPath, "fade-in and fade-out overlap in the track's \(planning.seconds(frames: span))")
        }
        if let f = spec.fadeIn { envelopes.append(.fadeIn(start: start, length: min(frames(f.seconds), span), curve: f.curve)) }
        if let f = spec.fadeOut { envelopes.append(.fadeOut(end: end, length: min(frames(f.seconds), span), curve: f.curve)) }

        return PlannedTrack(name: spec.name ?? "track \(index + 1)", start: start, end: end, voices: voices,
                            gains: GainStack(constant: Float(gain(fromDecibels: spec.gainDb)), envelopes: envelopes),
                            balance: balanceGains(pan: spec.pan, channelCount: planning.channelCount))
    }
}
