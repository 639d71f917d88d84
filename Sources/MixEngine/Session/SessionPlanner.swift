import MixDSP
import MixIO

/// Lays a session's voice out on the timeline, in frames: every segment synthesised or measured (once),
/// placed one after another with its gaps and pauses or at its own time, the sections around them, the
/// ending after the last words; then, when the session is rendered to a fixed length, the stretching
/// sections (or, without any, the ending) grow so that it ends exactly there.
///
/// A value holding the spec and the planning session it uses (not `Sendable`: it runs on the planning
/// thread, inside `Planner.plan`). `layout` allocates the layout and, through the session, the speech.
struct SessionPlanner {
    let spec: SessionSpec
    let voice: NarrationSpec
    let session: PlanningContext

    /// How long a chime rings (`wake` ending), and the quiet after it before the render ends.
    static let tailSeconds = 1.0

    /// The voice placed, the sections around it, the ending, and the render's length: `requested` frames
    /// when given (an error if the voice and ending need more), otherwise what they need.
    func layout(requested: Int64?, requestedIsOverride: Bool) throws -> SessionLayout {
        let frames = session.frames
        var sections: [Timeline.Section] = []
        var placed: [(segment: Timeline.Segment, event: PlannedEvent)] = []
        var cursor: Int64 = 0

        // 1. The natural timeline: every section as long as its voice (or its `length`).
        for (i, section) in spec.sections.enumerated() {
            let start = cursor
            var next = start, end = start
            for (j, segment) in section.segments.enumerated() {
                let path = "sections[\(i)].segments[\(j)]"
                let clip = try self.clip(segment, path: path)
                let at: Int64
                if let seconds = segment.atSeconds {
                    at = frames(seconds)
                    guard at >= start else {
                        throw session.error("\(path).at", "\(TimeParser.string(fromSeconds: seconds)) is before its section '\(section.name)' starts (\(session.clock(start)))")
                    }
                } else {
                    at = next + frames(segment.gapBefore)
                }
                let event = clip.event(at: at, voice: voice, extraDb: segment.gainDb, sampleRate: session.sampleRate)
                placed.append((Timeline.Segment(section: i, caption: clip.caption, isText: segment.isText, start: at,
                                                end: event.end, speech: clip.speech.map { (at + $0.lowerBound)..<(at + $0.upperBound) },
                                                gainDb: decibels(fromGain: Double(event.gains.constant)), voice: clip.voice,
                                                sentences: clip.sentences.map { (at + $0.lowerBound)..<(at + $0.upperBound) },
                                                words: clip.words.map { $0.moved(by: at) }), event))
                // Segments after one placed `at` a time follow whichever ends last.
                next = max(next, event.end + frames(segment.pauseAfter))
                end = max(end, next)
            }
            let minimum = start + frames(section.minimumSeconds)
            if section.minimumSeconds > 0, end > minimum {
                session.warn("sections[\(i)].length", "the voice takes \(session.clock(end - start)), longer than the section's length; the section lasts that long")
            }
            end = max(end, minimum)
            sections.append(Timeline.Section(name: section.name, start: start, end: end, addedFrames: 0))
            cursor = end
        }
        let voiceEnd = cursor
        var ending = endingLayout(from: voiceEnd)
        let natural = ending?.end ?? voiceEnd

        // 2. A fixed length: the stretching sections (or else the ending, or else the bed after the
        //    last section) take up the difference, in equal parts (the last takes the odd frames); inside
        //    each, its pacing spreads its part over the pauses after its segments.
        var total = natural
        if let requested {
            guard requested >= natural else {
                let need = "shorter than the session's voice, pauses and ending need; the shortest it can be is \(session.clock(natural))"
                if requestedIsOverride { throw EngineError.setting(.duration, reason: "(\(session.clock(requested))) is \(need)") }
                throw session.error("duration", "\(session.clock(requested)) is \(need)")
            }
            total = requested
            let extra = requested - natural
            let stretching = sections.indices.filter { spec.sections[$0].stretch }
            if !stretching.isEmpty {
                var share = [Int64](repeating: 0, count: sections.count)
                for (k, index) in stretching.enumerated() {
                    share[index] = extra / Int64(stretching.count) + (k == stretching.count - 1 ? extra % Int64(stretching.count) : 0)
                }
                // What each section moves by: the growth of the sections before it.
                var shift = [Int64](repeating: 0, count: sections.count)
                for i in sections.indices.dropFirst() { shift[i] = shift[i - 1] + share[i - 1] }
                for i in sections.indices {
                    sections[i].start += shift[i]
                    sections[i].end += shift[i] + share[i]
                    sections[i].addedFrames = share[i]
                }
                // Within a stretching section, its added time goes to the pauses after its segments (`pacing`).
                var inner = [Int64](repeating: 0, count: placed.count)
                for index in stretching where share[index] > 0 {
                    let members = placed.indices.filter { placed[$0].segment.section == index }
                    guard !members.isEmpty else { continue }
                    let section = spec.sections[index]
                    let natural = members.enumerated().map { m, k in
                        max(0, (m + 1 < members.count ? placed[members[m + 1]].segment.start : sections[index].end - shift[index] - share[index])
                               - placed[k].segment.end)
                    }
                    let added = section.pacing.added(to: natural, extra: share[index], shortest: frames(section.shortestPauseSeconds),
                                                     longest: section.longestPauseSeconds.map(frames))
                    var sum: Int64 = 0
                    for (m, k) in members.enumerated() {
                        inner[k] = sum
                        sum += added[m]
                    }
                }
                for k in placed.indices {
                    let offset = shift[placed[k].segment.section] + inner[k]
                    placed[k].segment.start += offset; placed[k].segment.end += offset
                    placed[k].segment.speech = placed[k].segment.speech.map { ($0.lowerBound + offset)..<($0.upperBound + offset) }
                    placed[k].segment.sentences = placed[k].segment.sentences.map { ($0.lowerBound + offset)..<($0.upperBound + offset) }
                    placed[k].segment.words = placed[k].segment.words.map { $0.moved(by: offset) }
                    placed[k].event = placed[k].event.moved(by: offset)
                }
                ending = endingLayout(from: voiceEnd + extra)
            } else {
                ending = endingLayout(from: voiceEnd, absorbing: extra)
            }
        }
        return SessionLayout(sections: sections, segments: placed, ending: ending, frameCount: total)
    }

    private func clip(_ segment: SegmentSpec, path: String) throws -> Utterance {
        switch segment.source {
        case .file(let file):
            return try session.clip(recording: RecordingRequest(path: file, transcript: segment.transcript), jsonPath: "\(path).file")
        case .text(let text, let ssml, let settings):
            return try session.clip(SpeechRequest.Asked(text: text, ssml: ssml, settings: settings), jsonPath: "\(path).\(ssml ? "ssml" : "text")")
        }
    }

    /// The ending after the last words at `voiceEnd`, `absorbing` extra frames of a fixed length (the
    /// bed holds longer before a sleep fade, or before a wake's rise).
    private func endingLayout(from voiceEnd: Int64, absorbing extra: Int64 = 0) -> SessionLayout.Ending? {
        let frames = session.frames
        switch spec.ending {
        case nil:
            return extra > 0 ? SessionLayout.Ending(kind: nil, start: voiceEnd, end: voiceEnd + extra) : nil
        case .sleep(let hold, let fade)?:
            let fadeFrom = voiceEnd + frames(hold) + extra
            return SessionLayout.Ending(kind: spec.ending, start: voiceEnd, end: fadeFrom + frames(fade.seconds), fadeFrom: fadeFrom)
        case .wake(let rise, _, let chime)?:
            let riseFrom = voiceEnd + extra
            let chimeAt = riseFrom + frames(rise)
            let ring = chime.map { frames($0.kind.soundingSeconds ?? 0) } ?? 0
            return SessionLayout.Ending(kind: spec.ending, start: voiceEnd, end: chimeAt + ring + frames(Self.tailSeconds),
                                        riseFrom: riseFrom, chime: chimeAt)
        }
    }
}

/// A session laid out in frames (see `SessionPlanner`). A value; allocates only its arrays.
struct SessionLayout {
    /// The ending's span and its moments: `kind` nil is the bed playing on after the last section.
    struct Ending {
        var kind: EndingSpec?
        var start: Int64
        var end: Int64
        var fadeFrom: Int64? = nil
        var riseFrom: Int64? = nil
        var chime: Int64? = nil
    }

    var sections: [Timeline.Section]
    var segments: [(segment: Timeline.Segment, event: PlannedEvent)]
    var ending: Ending?
    var frameCount: Int64
}

extension SegmentSpec {
    var isText: Bool { if case .text = source { return true } else { return false } }
}

extension PlannedEvent {
    /// The same voice `offset` frames later.
    func moved(by offset: Int64) -> PlannedEvent {
        var event = self
        event.start += offset
        event.end += offset
        event.gains = GainStack(constant: gains.constant, envelopes: gains.envelopes.map { $0.moved(by: offset) })
        return event
    }
}

extension Envelope {
    /// The same envelope `offset` frames later.
    func moved(by offset: Int64) -> Envelope {
        Envelope(points: points.map { Point(position: $0.position + offset, value: $0.value, curve: $0.curve) })
    }
}
