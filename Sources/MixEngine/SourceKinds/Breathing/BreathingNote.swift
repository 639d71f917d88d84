/// Each phase of each breathing cycle, on the timeline. A value; allocates only its phases. `Sendable`.
public struct BreathingNote: TimelineNote, Equatable {
    /// The pattern's name (`4-7-8`, or the phases' seconds).
    public var pattern: String
    public var phases: [BreathingPhase]
    public var type: String { "breathing" }

    public func members(_ times: TimelineJSON.Times) -> [JSONValue.Member] {
        let phases = phases.map { phase in
            JSONValue.object([JSONValue.Member("phase", .string(phase.name)), JSONValue.Member("cycle", .integer(phase.cycle))]
                             + times.span(phase.start, phase.end))
        }
        return [JSONValue.Member("pattern", .string(pattern)), JSONValue.Member("phases", .array(phases))]
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
