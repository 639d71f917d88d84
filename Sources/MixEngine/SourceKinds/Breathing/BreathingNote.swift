/// Each phase of each breathing cycle, on the timeline. A value; allocates only its phases. `Sendable`.
public struct BreathingNote: TimelineNote, Equatable {
    /// The pattern's name (`4-7-8`, or the phases' seconds).
    public var pattern: String
    public var phases: [BreathingPhase]
    public var type: String { "breathing" }

    public func members(_ json: TimelineJSON.Writer) -> String {
        "\"pattern\": \(json.quote(pattern)), " + json.list("phases", phases.map {
            "      {\"phase\": \(json.quote($0.name)), \"cycle\": \($0.cycle), \(json.span($0.start, $0.end))}"
        })
    }
}

/// One phase of one breathing cycle, `[start, end)`: `inhale`, `hold`, `exhale` or `rest`. A value.
public struct BreathingPhase: Sendable, Equatable {
    public var name: String
    public var cycle: Int
    public var start: Int64
    public var end: Int64
    public init(name: String, cycle: Int, start: Int64, end: Int64) {
        self.name = name; self.cycle = cycle; self.start = start; self.end = end
    }
}
