import MixDSP
import MixIO

/// Turns a final `Preset` and its `Analysis` into a `RenderPlan`: every time becomes an integer frame position at
/// the output rate, every fade an envelope. It reads nothing: each file's length, rate and channels, each
/// utterance and each decoded file come from the analysis (`Analyzer`), and a missing or broken file is
/// reported, at its JSON path, where planning looks it up, before any audio is written.
/// Each track's kind places its events; then the plan passes (`PlanPasses.all`) complete the plan in one
/// order over a `PlanDraft`, and the `RenderPlan` is built from it once. Sessions and mixes take this one path.
///
/// A value holding one `String`; allocates nothing itself. `plan` allocates the plan with state of its own, so
/// several threads may plan at once.
public struct Planner {
    /// The preset's file name, for error messages.
    public var presetFile: String

    public init(presetFile: String) { self.presetFile = presetFile }

    /// `preset` laid out in frames from what `analysis` (of this preset: `Analyzer.analyse`) found.
    public func plan(_ preset: Preset, analysis: Analysis) throws -> RenderPlan {
        let rate = preset.output.sampleRate
        let channels = preset.output.channelCount
        let voiceSpec = preset.voice ?? NarrationSpec()
        let session = PlanningContext(presetFile: presetFile, sampleRate: rate, channelCount: channels, voice: voiceSpec,
                                      analysis: analysis)

        // A session's voice is laid out first: it sets the render's length and the sections' times.
        var layout: SessionLayout?
        var total: Int64
        if let spec = preset.session {
            let requested = preset.durationSeconds.map(session.frames)
            if let requested, requested <= 0 { throw session.error("duration", "the render is shorter than one frame") }
            layout = try SessionPlanner(spec: spec, voice: voiceSpec, session: session)
                .layout(requested: requested, requestedIsOverride: preset.durationIsOverride)
            total = layout!.frameCount
            session.sections = layout!.sections
            try checkMasterFades(preset.master, total: total, session: session)
        } else {
            guard let seconds = preset.durationSeconds else { throw session.error("", "missing required key 'duration'") }
            total = session.frames(seconds)
        }
        guard total > 0 else { throw session.error("duration", "the render is shorter than one frame") }
        // A loopable render plans its crossfade's length past the end: that mix is crossfaded into the start.
        let loop = try loopOutput(preset, length: total, session: session)
        total += loop?.crossfadeFrames ?? 0

        var masterEnvelopes: [Envelope] = []
        if let f = preset.master.fadeIn {
            masterEnvelopes.append(.fadeIn(start: 0, length: min(session.frames(f.seconds), total), curve: f.curve))
        }
        if let f = preset.master.fadeOut {
            masterEnvelopes.append(.fadeOut(end: total, length: min(session.frames(f.seconds), total), curve: f.curve))
        }
        let context = RenderFormat(sampleRate: rate, channelCount: channels, resampler: preset.output.resampler)
        var draft = PlanDraft(masterEnvelopes: masterEnvelopes,
                              timeline: Timeline(sampleRate: rate, frameCount: total - (loop?.crossfadeFrames ?? 0)),   // the file's length
                              layout: layout, frameCount: total, context: context, voice: voiceSpec)

        // Each kind places its track's events; then the passes complete the plan, in their one order.
        for (index, spec) in preset.tracks.enumerated() {
            let planning = try trackPlanning(spec, index: index, total: total, context: context, session: session)
            guard let (track, source) = try planTrack(spec, index: index, planning) else {
                session.warn("tracks[\(index)]", "starts at or after the end of the render; it will not sound")
                continue
            }
            draft.speech += source.speech
            for note in source.notes { draft.timeline.notes.append((track.name, note)) }
            draft.tracks.append(PlanDraft.Track(planned: track, spec: spec, index: index, speaks: !source.speech.isEmpty,
                                                bedGains: source.bedGains))
        }
        for pass in PlanPasses.all { try pass.apply(to: &draft, session: session) }

        let tracks = draft.tracks.map(\.planned), timeline = draft.timeline
        let master = GainStack(constant: Float(gain(fromDecibels: preset.master.gainDb)), envelopes: draft.masterEnvelopes)
        // Normalising, the limiter holds the true-peak ceiling instead of its own, detecting peaks between samples.
        var limiter = preset.master.limiter
        if let loudness = preset.output.loudness {
            limiter.ceilingDb = loudness.truePeakDb - LoudnessSpec.detectorMarginDb
            limiter.detection = .truePeak
        }
        var plan = RenderPlan(sampleRate: rate, channelCount: channels, frameCount: total,
                              resampler: preset.output.resampler, tracks: tracks, master: master,
                              limiter: limiter, timeline: timeline)
        plan.loudness = preset.output.loudness
        plan.trackLoudness = draft.trackLoudness
        plan.needsSeparateChannels = preset.tracks.contains { $0.source.needsSeparateChannels }
        plan.loop = loop
        plan.warnings = session.warnings
        plan.timeline.voices = session.voices.map(SpeechSynthesizer.credit(forVoice:))
        plan.timeline.guessedWords = session.guessedWords
        plan.sourceFiles = session.files
        plan.synthesis = analysis.synthesis
        return plan
    }

    /// The loop of a loopable render of `length` frames, checked: a mix (a session has a beginning and an end),
    /// no master fade, and at least twice the crossfade long.
    private func loopOutput(_ preset: Preset, length: Int64, session: PlanningContext) throws -> LoopOutput? {
        guard let fade = preset.output.loopable else { return nil }
        let t = TimeParser.string(fromSeconds:)
        if preset.session != nil {
            throw session.error("output.loopable", "a session has a beginning and an end, so it cannot loop; loopable output is for mixes")
        }
        for (key, f) in [("fadeIn", preset.master.fadeIn), ("fadeOut", preset.master.fadeOut)] where f != nil {
            throw session.error("output.loopable", "a loopable render cannot have a master fade (master.\(key)): the file would fade where it wraps around to its start; leave the fade to the player's timer")
        }
        let crossfade = session.frames(fade.seconds)
        guard length >= 2 * crossfade else {
            throw session.error("output.loopable", "a \(t(fade.seconds)) crossfade needs a render at least twice as long (\(t(2 * fade.seconds))); the render is \(t(Double(length) / Double(preset.output.sampleRate)))")
        }
        return LoopOutput(length: length, crossfadeFrames: crossfade, curve: fade.curve)
    }

    /// Where track `index` sits: from its `start` to its `end`, or over the sections it plays `during`.
    func trackPlanning(_ spec: TrackSpec, index: Int, total: Int64, context: RenderFormat,
                       session: PlanningContext) throws -> TrackPlanning {
        let path = "tracks[\(index)]"
        var start = session.frames(spec.startSeconds)
        var end = spec.endSeconds.map(session.frames)
        if let during = spec.during {
            let first = try session.frame(of: .section(during.first, edge: .start), jsonPath: "\(path).during")
            let last = try session.frame(of: .section(during.last, edge: .end), jsonPath: "\(path).during")
            guard last > first else {
                throw session.error("\(path).during", "'\(during.last)' ends before '\(during.first)' starts; list the first section, then the last")
            }
            (start, end) = (first, last)
            let span = last - first
            for (key, fade) in [("fadeIn", spec.fadeIn), ("fadeOut", spec.fadeOut)] {
                if let fade, session.frames(fade.seconds) > span {
                    throw session.error("\(path).\(key)", "\(TimeParser.string(fromSeconds: fade.seconds)) is longer than the track (during its sections, \(session.clock(span)))")
                }
            }
        }
        return TrackPlanning(jsonPath: path, start: start, explicitEnd: end, loop: spec.loop,
                             frameCount: total, context: context, session: session)
    }

    /// A session's master fades are checked once its length is known, as a mix's are when it is read.
    private func checkMasterFades(_ master: MasterSpec, total: Int64, session: PlanningContext) throws {
        for (key, fade) in [("fadeIn", master.fadeIn), ("fadeOut", master.fadeOut)] {
            if let fade, session.frames(fade.seconds) > total {
                throw session.error("master.\(key)", "\(TimeParser.string(fromSeconds: fade.seconds)) is longer than the session (\(session.clock(total)))")
            }
        }
    }

    /// The track's kind places its events; then the track is cut to the render, and gets its gains,
    /// fades and balance, whatever its kind.
    func planTrack(_ spec: TrackSpec, index: Int, _ planning: TrackPlanning) throws -> (PlannedTrack, SourcePlan)? {
        let source = try spec.source.kind.plan(planning)
        var events = source.events
        let start = planning.start
        let end = min(source.end, planning.frameCount)
        guard end > start else { return nil }
        for i in events.indices { events[i].end = min(events[i].end, end) }
        events.removeAll { $0.end <= $0.start }

        let frames = planning.frames
        var envelopes: [Envelope] = []
        if !spec.envelope.isEmpty {
            envelopes.append(Envelope(points: spec.envelope.map {
                Envelope.Point(position: frames($0.position), value: Float(gain(fromDecibels: $0.value)), curve: $0.curve)
            }))
        }
        let span = end - start
        if frames((spec.fadeIn?.seconds ?? 0) + (spec.fadeOut?.seconds ?? 0)) > span {
            planning.session.warn(planning.jsonPath, "fade-in and fade-out overlap in the track's \(planning.seconds(frames: span))")
        }
        if let f = spec.fadeIn { envelopes.append(.fadeIn(start: start, length: min(frames(f.seconds), span), curve: f.curve)) }
        if let f = spec.fadeOut { envelopes.append(.fadeOut(end: end, length: min(frames(f.seconds), span), curve: f.curve)) }
        let balance = balanceGains(pan: spec.pan, channelCount: planning.channelCount)
        return (PlannedTrack(name: spec.name ?? "track \(index + 1)", start: start, end: end, events: events,
                             gains: GainStack(constant: Float(gain(fromDecibels: spec.gainDb)), envelopes: envelopes),
                             balance: balance), source)
    }
}

extension PlannedEvent {
    /// The event cut to end by `end`.
    func cut(at end: Int64) -> PlannedEvent {
        var event = self
        event.end = min(event.end, end)
        return event
    }
}
