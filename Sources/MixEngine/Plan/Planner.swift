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

    /// Where syntheses are kept between processes (`--cache-dir`); nil: synthesised in every process.
    public var store: MaterialStore?

    public init(presetFile: String, store: MaterialStore? = nil) { self.presetFile = presetFile; self.store = store }

    public func plan(_ preset: Preset) throws -> RenderPlan {
        let rate = preset.output.sampleRate
        let channels = preset.output.channelCount
        let voiceSpec = preset.voice ?? VoiceSpec()
        let session = PlanningContext(presetFile: presetFile, sampleRate: rate, channelCount: channels, voice: voiceSpec)
        session.store = store

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
        var timeline = Timeline(sampleRate: rate, frameCount: total - (loop?.crossfadeFrames ?? 0))   // the file's length

        var tracks: [PlannedTrack] = []
        var speech: [Range<Int64>] = []
        var speaking = Set<Int>()          // indices into `tracks` of the tracks that speak: never ducked
        var ducked = Set<Int>()
        var bedGains: [(from: Int, envelopes: [Envelope])] = []
        var named: [(track: Int, spec: TrackSpec, jsonPath: String)] = []   // tracks with a name or a loudness
        for (index, spec) in preset.tracks.enumerated() {
            let planning = try trackPlanning(spec, index: index, total: total, context: context, session: session)
            guard let (track, source) = try planTrack(spec, index: index, planning) else {
                session.warn("tracks[\(index)]", "starts at or after the end of the render; it will not sound")
                continue
            }
            if !source.speech.isEmpty { speaking.insert(tracks.count); speech += source.speech }
            else if spec.ducks { ducked.insert(tracks.count) }
            for note in source.notes { timeline.notes.append((track.name, note)) }
            if !source.bedGains.isEmpty { bedGains.append((tracks.count, source.bedGains)) }
            if spec.loudness != nil || spec.name != nil { named.append((tracks.count, spec, "tracks[\(index)]")) }
            tracks.append(track)
        }
        // Tracks that give a loudness are measured by the job, not here (`LoudnessMeasuring.applyTrackLoudness`):
        // the plan records them as they are now, before later passes share their files.
        let trackLoudness = named.contains { $0.spec.loudness != nil }
            ? named.map { LoudnessMeasuring.TrackRequest(track: $0.track, solo: tracks[$0.track], spec: $0.spec, jsonPath: $0.jsonPath) } : []

        for (from, envelopes) in bedGains {
            for t in tracks.indices where t != from && !speaking.contains(t) { tracks[t].gains.envelopes += envelopes }
        }
        if let layout {
            timeline.sections = layout.sections
            timeline.segments = layout.segments.map(\.segment)
            let events = layout.segments.map(\.event).sorted { $0.start < $1.start }
            if !events.isEmpty {
                speaking.insert(tracks.count)
                tracks.append(PlannedTrack(name: "voice", start: events.map(\.start).min()!, end: min(events.map(\.end).max()!, total),
                                           events: events.map { $0.cut(at: total) }.filter { $0.end > $0.start },
                                           gains: GainStack(), balance: balanceGains(pan: voiceSpec.pan, channelCount: channels)))
                speech += layout.segments.flatMap(\.segment.speech)
            }
            if let ending = layout.ending {
                try applyEnding(ending, tracks: &tracks, bed: Set(tracks.indices).subtracting(speaking), master: &masterEnvelopes,
                                timeline: &timeline, chimePlanning: { start in
                                    TrackPlanning(jsonPath: "ending.chime", start: start, explicitEnd: nil, loop: nil, frameCount: total,
                                                  context: context, session: session)
                                })
            }
        }
        if let spec = voiceSpec.ducking {
            let duck = ducking(spec, session: session)
            let spans = duck.spans(speech)
            if let envelope = duck.envelope(spans) {
                for t in ducked { tracks[t].gains.envelopes.append(envelope) }
            }
            timeline.ducked = spans.map { Timeline.Ducked(downFrom: $0.downFrom, down: $0.down, upFrom: $0.upFrom, up: $0.up) }
        }

        shareRepeatedFiles(&tracks, context: context, session: session)
        let master = GainStack(constant: Float(gain(fromDecibels: preset.master.gainDb)), envelopes: masterEnvelopes)
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
        plan.trackLoudness = trackLoudness
        plan.needsSeparateChannels = preset.tracks.contains { type(of: $0.source.kind).needsSeparateChannels }
        plan.loop = loop
        plan.warnings = session.warnings
        plan.sourceFiles = session.files
        plan.synthesis = session.synthesis
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

    /// A short file that several events play once each (the same sound placed on many tracks, a playlist
    /// item repeated) is decoded and resampled once, before the render, and shared from memory: each event
    /// then costs a copy and a gain, not its own decoder and resampler. A thousand one-shots of one 3 s file
    /// took 16 s and 430 MB for 2 s of audio when each streamed. Files up to `sharedFileLimitBytes` each
    /// (decoded, at the output rate), and `sharedFilesBudgetBytes` in all, are shared, shortest first; the
    /// rest stream as before, so memory stays bounded whatever the preset.
    static let sharedFileLimitBytes = 32 << 20
    static let sharedFilesBudgetBytes = 512 << 20

    private func shareRepeatedFiles(_ tracks: inout [PlannedTrack], context: RenderFormat, session: PlanningContext) {
        var uses: [String: Int] = [:]
        for track in tracks { for event in track.events { if let file = event.material as? StreamedFile { uses[file.path, default: 0] += 1 } } }
        var shared: [String: PreparedFile] = [:]
        var budget = Self.sharedFilesBudgetBytes
        let candidates = uses.filter { $0.value > 1 }.keys.compactMap { path -> (String, AudioFileInfo, Int)? in
            guard let info = session.files[path] else { return nil }
            let frames = StreamingSource.outputLength(inputFrames: info.frameCount, inputRate: info.sampleRate, outputRate: context.sampleRate)
            let bytes = Int(clamping: frames) &* context.channelCount &* MemoryLayout<Float>.size
            return bytes <= Self.sharedFileLimitBytes ? (path, info, bytes) : nil
        }
        for (path, info, bytes) in candidates.sorted(by: { ($0.2, $0.0) < ($1.2, $1.0) }) where bytes <= budget {
            shared[path] = PreparedFile(file: info, context: context)
            budget -= bytes
        }
        guard !shared.isEmpty else { return }
        for t in tracks.indices {
            for v in tracks[t].events.indices {
                if let file = tracks[t].events[v].material as? StreamedFile, let prepared = shared[file.path] {
                    tracks[t].events[v].material = prepared
                }
            }
        }
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

    private func ducking(_ spec: DuckingSpec, session: PlanningContext) -> Ducking {
        Ducking(depth: Float(gain(fromDecibels: spec.depthDb)), lookahead: session.frames(spec.lookaheadSeconds),
                attack: min(session.frames(spec.attackSeconds), session.frames(spec.lookaheadSeconds)),
                hold: session.frames(spec.holdSeconds), release: session.frames(spec.releaseSeconds),
                attackCurve: spec.attackCurve, releaseCurve: spec.releaseCurve)
    }

    /// A session's master fades are checked once its length is known, as a mix's are when it is read.
    private func checkMasterFades(_ master: MasterSpec, total: Int64, session: PlanningContext) throws {
        for (key, fade) in [("fadeIn", master.fadeIn), ("fadeOut", master.fadeOut)] {
            if let fade, session.frames(fade.seconds) > total {
                throw session.error("master.\(key)", "\(TimeParser.string(fromSeconds: fade.seconds)) is longer than the session (\(session.clock(total)))")
            }
        }
    }

    /// The ending: a sleep fade on the master, or a wake's rise of the bed and its chime.
    private func applyEnding(_ ending: SessionLayout.Ending, tracks: inout [PlannedTrack], bed: Set<Int>,
                             master: inout [Envelope], timeline: inout Timeline,
                             chimePlanning: (Int64) -> TrackPlanning) throws {
        switch ending.kind {
        case nil:
            return
        case .sleep(_, let fade)?:
            let from = ending.fadeFrom ?? ending.start
            master.append(.fadeOut(end: ending.end, length: ending.end - from, curve: fade.curve))
            timeline.ending = Timeline.Ending(kind: "sleep", start: ending.start, end: ending.end, fadeFrom: from, chime: nil)
        case .wake(_, let riseDb, let chime)?:
            let riseFrom = ending.riseFrom ?? ending.start, chimeAt = ending.chime ?? ending.end
            let top = Float(gain(fromDecibels: riseDb))
            // The bed (and the beats) rise, then fade out under the chime.
            let rise = Envelope(points: [.init(position: riseFrom, value: 1), .init(position: chimeAt, value: top, curve: .sCurve),
                                         .init(position: ending.end, value: 0, curve: .sCurve)])
            for t in bed { tracks[t].gains.envelopes.append(rise) }
            if let chime {
                let kind = ChimeKind(sound: chime)
                let source = try kind.plan(chimePlanning(chimeAt))
                tracks.append(PlannedTrack(name: "chime", start: chimeAt, end: min(source.end, ending.end), events: source.events,
                                           gains: GainStack(), balance: balanceGains(pan: 0, channelCount: tracks.first?.balance.count ?? 2)))
                for note in source.notes { timeline.notes.append(("chime", note)) }
            }
            timeline.ending = Timeline.Ending(kind: "wake", start: ending.start, end: ending.end, fadeFrom: nil, chime: chime == nil ? nil : chimeAt)
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
                Envelope.Point(position: frames($0.seconds), value: Float(gain(fromDecibels: $0.gainDb)), curve: $0.curve)
            }))
        }
        let span = end - start
        if frames((spec.fadeIn?.seconds ?? 0) + (spec.fadeOut?.seconds ?? 0)) > span {
            planning.session.warn(planning.jsonPath, "fade-in and fade-out overlap in the track's \(planning.seconds(frames: span))")
        }
        if let f = spec.fadeIn { envelopes.append(.fadeIn(start: start, length: min(frames(f.seconds), span), curve: f.curve)) }
        if let f = spec.fadeOut { envelopes.append(.fadeOut(end: end, length: min(frames(f.seconds), span), curve: f.curve)) }
        var balance = balanceGains(pan: spec.pan, channelCount: planning.channelCount)
        if let drift = spec.drift {
            let seed = drift.seed ?? UInt64(index), spacing = max(frames(drift.timeScaleSeconds), 1)
            if drift.gainDb > 0 { envelopes.append(drift.gainEnvelope(seed: seed, spacing: spacing, from: start, to: end)) }
            if drift.pan > 0 && planning.channelCount == 2 {
                // The events carry the whole balance, drifting; the track's own is then unity.
                let pan = drift.panEnvelope(seed: seed, spacing: spacing, centre: spec.pan, from: start, to: end)
                for i in events.indices {
                    events[i].material = PanDriftMaterial(inner: events[i].material, pan: pan,
                                                       timelineOffset: events[i].start - events[i].sourceOffset)
                }
                balance = [1, 1]
            }
        }

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
