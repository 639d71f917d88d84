/// The range of a number, above all one that a preset and the caller may both set (the output's sample rate, quality
/// and bitrate, a loudness target and true-peak ceiling), stated once: the preset reader reads it at a JSON path (`read`, with
/// `JSONCursor`'s words: `192001 is out of range; expected 8000...192000`), the caller's overrides check it under the
/// setting's name (`check`, `EngineError.setting`: `must be between 8000 and 192000 Hz`), and the schema says it
/// (`schema`). Same rule, two ways to name where the value came from.
///
/// A value of a range, a flag and a unit; allocates nothing. `Sendable`, safe to share.
struct NumberLimit: Sendable {
    let range: ClosedRange<Double>
    /// Whether it is a whole number (a rate, a bitrate).
    let isWhole: Bool
    /// What the caller's message puts after the range (" Hz"), or "".
    let unit: String

    init(_ range: ClosedRange<Double>, unit: String = "") { self.range = range; self.isWhole = false; self.unit = unit }
    init(_ range: ClosedRange<Int>, unit: String) {
        self.range = Double(range.lowerBound)...Double(range.upperBound); self.isWhole = true; self.unit = unit
    }

    /// The value at `cursor`, a finite number (a whole one if `isWhole`) within the range.
    func read(_ cursor: JSONCursor) throws -> Double {
        isWhole ? Double(try cursor.integer(in: range)) : try cursor.number(in: range)
    }

    /// Refuses `value`, given by the caller as `setting`, when it is not finite or outside the range.
    func check(_ value: Double?, as setting: EngineSetting) throws {
        guard let value, !(value.isFinite && range.contains(value)) else { return }
        throw EngineError.setting(setting, reason: "must be between \(JSONValue.format(range.lowerBound)) and \(JSONValue.format(range.upperBound))\(unit)")
    }

    /// Its schema: `{"type": "integer" or "number", "minimum": ..., "maximum": ...}`.
    var schema: [SchemaValue.Member] {
        [.init("type", .string(isWhole ? "integer" : "number")), .init("minimum", .number(range.lowerBound)),
         .init("maximum", .number(range.upperBound))]
    }
}

/// The rule every time follows, in a preset (`JSONCursor.time`) and from the caller (`--duration`, `--start`,
/// `--end`) alike: 0 or more (a position) or more than 0 (a length), and at most `TimeParser.maximumSeconds`.
///
/// A value of one flag; allocates nothing. `Sendable`, safe to share.
struct TimeLimit: Sendable {
    let allowingZero: Bool

    /// A length: more than 0.
    static let length = TimeLimit(allowingZero: false)
    /// A position on the timeline: 0 or more.
    static let position = TimeLimit(allowingZero: true)

    /// What is wrong with `seconds`, or nil; `written` is how it was given, for a message about its size.
    func problem(_ seconds: Double, written: String) -> String? {
        if !(seconds.isFinite && seconds >= 0) { return allowingZero ? "must not be negative" : "must be longer than 0" }
        if seconds == 0 && !allowingZero { return "must be longer than 0" }
        guard seconds <= TimeParser.maximumSeconds else {
            return "\(written) is longer than \(TimeParser.string(fromSeconds: TimeParser.maximumSeconds)), the longest time mixrender takes"
        }
        return nil
    }

    /// Refuses `seconds`, given by the caller as `setting`, when it breaks the rule.
    func check(_ seconds: Double?, as setting: EngineSetting) throws {
        guard let seconds, let problem = problem(seconds, written: TimeParser.string(fromSeconds: seconds)) else { return }
        throw EngineError.setting(setting, reason: EngineReason(stringLiteral: problem))
    }
}
