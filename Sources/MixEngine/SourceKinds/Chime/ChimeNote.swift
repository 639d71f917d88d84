/// A chime (a bell, a rising tone) sounding over `[start, end)`, on the timeline. A value. `Sendable`.
public struct ChimeNote: TimelineNote, Equatable {
    public var sound: String
    public var start: Int64
    public var end: Int64
    public var type: String { "chime" }

    public func members(_ times: TimelineJSON.Times) -> [JSONValue.Member] { [JSONValue.Member("sound", .string(sound))] + times.span(start, end) }
}
