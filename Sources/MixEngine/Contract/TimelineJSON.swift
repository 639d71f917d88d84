import MixIO

/// The `--timeline` file: a render's `Timeline` as JSON, every moment in seconds and in frames, so an app
/// can show progress and captions and a test can find the voice's frames (see docs/sessions.md).
///
/// No state: any thread may call it. `document` allocates the text; `write` writes it through a temporary
/// file beside the destination, renamed into place when complete.
public enum TimelineJSON {
    /// The timeline as a JSON document (`.readable`); `range` is the part of it rendered (all of it by default),
    /// given in the document as `rendered`.
    public static func document(_ timeline: Timeline, range: Range<Int64>? = nil) -> String {
        value(timeline, range: range).document(.readable)
    }

    /// The timeline as a JSON value: the document `document` writes.
    static func value(_ timeline: Timeline, range: Range<Int64>? = nil) -> JSONValue {
        let times = Times(sampleRate: timeline.sampleRate)
        let rendered = range ?? 0..<timeline.frameCount
        let sections = timeline.sections.enumerated().map { i, section -> JSONValue in
            let segments = timeline.segments.filter { $0.section == i }.map { segment -> JSONValue in
                let speech = segment.speech.map { JSONValue.object(times.span($0.lowerBound, $0.upperBound)) }
                let caption = JSONValue.Member(segment.isText ? "text" : "file", .string(segment.caption))
                return .object([caption] + times.span(segment.start, segment.end)
                               + [JSONValue.Member("gainDb", JSONValue.rounded(segment.gainDb)), JSONValue.Member("speech", .array(speech))]
                               + (segment.voice.map { [JSONValue.Member("voice", .string($0))] } ?? [])
                               + (segment.sentences.isEmpty ? [] : [JSONValue.Member("sentences", .array(segment.sentences.map {
                                   JSONValue.object(times.span($0.lowerBound, $0.upperBound))
                               }))])
                               + (segment.words.isEmpty ? [] : [JSONValue.Member("words", .array(segment.words.map {
                                   JSONValue.object([JSONValue.Member("word", .string($0.text))] + times.span($0.start, $0.end))
                               }))]))
            }
            return .object([JSONValue.Member("name", .string(section.name))] + times.span(section.start, section.end)
                           + [JSONValue.Member("stretchedBy", times.time(section.addedFrames)), JSONValue.Member("segments", .array(segments))])
        }
        let ending = timeline.ending.map { ending -> JSONValue in
            var members: [JSONValue.Member] = [JSONValue.Member("type", .string(ending.kind))] + times.span(ending.start, ending.end)
            if let fade = ending.fadeFrom { members.append(JSONValue.Member("fadeFrom", times.time(fade))) }
            if let chime = ending.chime { members.append(JSONValue.Member("chime", times.time(chime))) }
            return .object(members)
        }
        let ducked = timeline.ducked.map { duck -> JSONValue in
            .object(["downFrom": times.time(duck.downFrom), "down": times.time(duck.down), "upFrom": times.time(duck.upFrom), "up": times.time(duck.up)])
        }
        let tracks = timeline.notes.map { track, note -> JSONValue in
            .object([JSONValue.Member("track", .string(track)), JSONValue.Member("type", .string(note.type))] + note.members(times))
        }
        return .object([
            "sampleRate": .integer(timeline.sampleRate),
            "duration": times.time(timeline.frameCount),
            "rendered": .object(times.span(rendered.lowerBound, rendered.upperBound)),
            "sections": .array(sections),
            "ending": ending ?? .null,
            "ducked": .array(ducked),
            "tracks": .array(tracks),
            "voices": VoiceCredit.json(timeline.voices),
        ])
    }

    /// How a timeline document gives its moments, each in seconds and in frames: what a `TimelineNote` writes
    /// its members with. A value of one `Int`; its functions allocate the values they return.
    public struct Times: Sendable {
        public let sampleRate: Int
        /// `{"seconds": 1.5, "frame": 72000}`
        public func time(_ frame: Int64) -> JSONValue {
            .object(["seconds": JSONValue.rounded(Double(frame) / Double(sampleRate)), "frame": .integer(frame)])
        }
        /// `"start": {...}, "end": {...}`
        public func span(_ start: Int64, _ end: Int64) -> [JSONValue.Member] {
            [JSONValue.Member("start", time(start)), JSONValue.Member("end", time(end))]
        }
    }

    /// Writes `document(timeline, range:)` to `path`, atomically.
    public static func write(_ timeline: Timeline, range: Range<Int64>? = nil, to path: String) throws {
        try value(timeline, range: range).write(to: path, style: .readable)
    }
}
