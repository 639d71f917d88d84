/// A chime (a bell, a rising tone) sounding over `[start, end)`, on the timeline. A value. `Sendable`.
public struct ChimeNote: TimelineNote, Equatable {
    public var sound: String
    public var start: Int64
    public var end: Int64
    public var type: String { "chime" }

    public func members(_ json: TimelineJSON.Writer) -> String { "\"sound\": \(json.quote(sound)), \(json.span(start, end))" }
}
