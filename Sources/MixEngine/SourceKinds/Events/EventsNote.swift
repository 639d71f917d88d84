/// One-shot sounds played at random times (an `events` track), in order, on the timeline.
/// A value; allocates only its events. `Sendable`.
public struct EventsNote: TimelineNote, Equatable {
    public var events: [TimelineEvent]
    public var type: String { "events" }

    public func members(_ times: TimelineJSON.Times) -> [JSONValue.Member] {
        let events = events.map { event in
            JSONValue.object([JSONValue.Member("file", .string(event.file))] + times.span(event.start, event.end)
                             + [JSONValue.Member("gainDb", JSONValue.rounded(event.gainDb)),
                                JSONValue.Member("pan", JSONValue.rounded(event.pan))])
        }
        return [JSONValue.Member("events", .array(events))]
    }
}

/// One event of an `events` track: which file played over `[start, end)`, at what gain and pan.
/// A value; allocates only the file's name. `Sendable`.
public struct TimelineEvent: Sendable, Equatable {
    public var file: String
    public var start: Int64
    public var end: Int64
    public var gainDb: Double
    public var pan: Double
    public init(file: String, start: Int64, end: Int64, gainDb: Double, pan: Double) {
        self.file = file; self.start = start; self.end = end; self.gainDb = gainDb; self.pan = pan
    }
}
