import MixDSP

/// A position in a parsed JSON document: a value, its JSON path and the file it came from.
///
/// Its typed accessors check the value and throw a `PresetError` naming this path, so every reader
/// built on it reports problems as `file: path: message`.
struct JSONCursor {
    let value: JSONValue
    /// `tracks[2].fadeIn.curve`; empty for the document itself.
    let path: String
    let file: String

    init(_ value: JSONValue, path: String = "", file: String) {
        self.value = value
        self.path = path
        self.file = file
    }

    /// An error about this value.
    func error(_ message: String) -> EngineError {
        .preset(PresetError(file: file, jsonPath: path, message: message))
    }

    /// `base.key`, or `key` at the top (`JSONPath`).
    static func path(_ base: String, key: String) -> String { JSONPath.path(base, key: key) }
    /// `base[index]` (`JSONPath`).
    static func path(_ base: String, index: Int) -> String { JSONPath.path(base, index: index) }

    private func mismatch(_ expected: String) -> EngineError {
        error("expected \(expected), got \(value.summary)")
    }

    // MARK: - Containers

    /// This value as an object whose keys are all in `allowed`; an unknown key is an error that lists them.
    func object(allowing allowed: [String]) throws -> JSONObjectCursor {
        guard case .object(let members) = value else { throw mismatch("an object") }
        for key in members.keys.sorted() where !allowed.contains(key) {
            var message = "unknown key \(JSONValue.quote(key))"
            let suggestions = NameSuggestion.suggestions(for: key, among: allowed)
            if !suggestions.isEmpty {
                message += " (did you mean " + suggestions.map { "'\($0)'" }.joined(separator: " or ") + "?)"
            }
            message += "; expected one of " + allowed.joined(separator: ", ")
            throw error(message)
        }
        return JSONObjectCursor(cursor: self, members: members)
    }

    /// This value as an array, one cursor per element.
    func array() throws -> [JSONCursor] {
        guard case .array(let elements) = value else { throw mismatch("an array") }
        return elements.enumerated().map { JSONCursor($1, path: JSONCursor.path(path, index: $0), file: file) }
    }

    // MARK: - Scalars

    func string() throws -> String {
        guard case .string(let text) = value else { throw mismatch("a string") }
        return text
    }

    /// A string with at least one character other than spaces.
    func nonEmptyString() throws -> String {
        let text = try string()
        guard text.contains(where: { !$0.isWhitespace }) else { throw error("must not be empty") }
        return text
    }

    func bool() throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch("true or false") }
        return flag
    }

    /// A finite number in `range`.
    func number(in range: ClosedRange<Double>) throws -> Double {
        guard case .number(let number) = value else { throw mismatch("a number") }
        guard number.isFinite else { throw error("\(JSONValue.format(number)) is not a finite number") }
        guard range.contains(number) else {
            throw error("\(JSONValue.format(number)) is out of range; expected \(JSONValue.format(range.lowerBound))...\(JSONValue.format(range.upperBound))")
        }
        return number
    }

    /// A finite number greater than 0 and at most `maximum`.
    func positiveNumber(upTo maximum: Double) throws -> Double {
        let n = try number(in: 0...maximum)
        guard n > 0 else { throw error("must be greater than 0") }
        return n
    }

    /// A whole number, of any size.
    func wholeNumber() throws -> Double {
        guard case .number(let number) = value else { throw mismatch("a whole number") }
        guard number.isFinite, number == number.rounded() else {
            throw error("\(JSONValue.format(number)) is not a whole number")
        }
        return number
    }

    /// A whole number in `range` (which must lie within Int64's).
    func integer(in range: ClosedRange<Double>) throws -> Int64 {
        _ = try wholeNumber()
        return Int64(try number(in: range))
    }

    /// A time in seconds: a number of seconds, or a string such as `"90s"`, `"1h30m"`, `"1:30:00"` (see `TimeParser`).
    /// With `allowingZero: false` it must be greater than 0, otherwise 0 or more.
    func time(allowingZero: Bool) throws -> Double {
        let seconds: Double
        switch value {
        case .number(let number):
            guard number.isFinite else { throw error("\(JSONValue.format(number)) is not a finite number") }
            guard number >= 0 else { throw error("\(JSONValue.format(number)) is negative; times are 0 or more") }
            seconds = number
        case .string(let text):
            guard let parsed = TimeParser.seconds(text) else {
                if text.drop(while: { $0 == " " }).hasPrefix("-") {
                    throw error("\(JSONValue.quote(text)) is negative; times are 0 or more")
                }
                throw error("invalid time \(JSONValue.quote(text)); \(JSONCursor.timeForms)")
            }
            seconds = parsed
        default:
            throw error("expected a time, got \(value.summary); \(JSONCursor.timeForms)")
        }
        let written: String
        if case .number(let n) = value { written = JSONValue.format(n) } else { written = JSONValue.quote(value.stringValue ?? "") }
        if let problem = TimeLimit(allowingZero: allowingZero).problem(seconds, written: written) { throw error(problem) }
        return seconds
    }

    static let timeForms = "write seconds (90, 2.5) or a string such as \"90s\", \"45m\", \"8h\", \"500ms\", \"1h30m\", \"12:30\", \"1:30:00\""

    /// A curve name: `linear`, `equalPower`, `sCurve`, `logarithmic`, `exponential`, and for crossfades also
    /// `equalGain` (the same as `linear`).
    func curve(allowingEqualGain: Bool) throws -> Curve {
        var names = Curve.allCases.map(\.rawValue)
        if allowingEqualGain { names.append("equalGain") }
        let name = try string()
        guard names.contains(name), let curve = Curve.named(name) else {
            if name == "equalGain" {
                throw error("unknown curve 'equalGain' (it names a crossfade curve; here use 'linear', the same shape); expected one of "
                            + names.joined(separator: ", "))
            }
            throw unknown("curve", name, expected: names)
        }
        return curve
    }

    /// One of a fixed set of names.
    func choice<T>(_ kind: String, _ options: KeyValuePairs<String, T>) throws -> T {
        try choice(kind, options.map { ($0.key, $0.value) })
    }

    /// One of a fixed set of names, in the order messages list them.
    func choice<T>(_ kind: String, _ options: [(String, T)]) throws -> T {
        let name = try string()
        guard let match = options.first(where: { $0.0 == name }) else {
            throw unknown(kind, name, expected: options.map(\.0))
        }
        return match.1
    }

    /// `unknown curve 'cubic' (did you mean ...?); expected one of linear, equalPower, ...`
    func unknown(_ kind: String, _ name: String, expected names: [String]) -> EngineError {
        var message = "unknown \(kind) \(JSONValue.quote(name))"
        if let suggestion = NameSuggestion.closest(to: name, among: names) {
            message += " (did you mean '\(suggestion)'?)"
        }
        return error(message + "; expected one of " + names.joined(separator: ", "))
    }
}

/// An object whose keys have been checked; hands out cursors for its members.
struct JSONObjectCursor {
    let cursor: JSONCursor
    let members: JSONObject

    var path: String { cursor.path }

    /// The member `key`, or nil if it is absent.
    subscript(key: String) -> JSONCursor? {
        members[key].map { JSONCursor($0, path: JSONCursor.path(cursor.path, key: key), file: cursor.file) }
    }

    /// The member `key`; its absence is an error (`missing required key 'duration' (hint)`).
    func required(_ key: String, hint: String? = nil) throws -> JSONCursor {
        guard let member = self[key] else {
            throw cursor.error("missing required key '\(key)'" + (hint.map { " (\($0))" } ?? ""))
        }
        return member
    }

    func has(_ key: String) -> Bool { members[key] != nil }
}
