/// Words spoken over `[start, end)`, on the timeline. A value; allocates only the text. `Sendable`.
public struct SpeechNote: TimelineNote, Equatable {
    public var text: String
    public var start: Int64
    public var end: Int64
    public var type: String { "speech" }

    public func members(_ times: TimelineJSON.Times) -> [JSONValue.Member] { [JSONValue.Member("text", .string(text))] + times.span(start, end) }
}
