import Foundation  // Data

/// A JSON value as plain Swift values: what `JSONParser` reads presets and schema documents into (and the
/// readers walk with a `JSONCursor`), and what every JSON document mixrender writes is built as before
/// `JSONWriter` writes it (the timeline, the report, the loudness scan, a batch's result lines, the preset
/// schema).
///
/// Numbers are `Double`s, so integers are exact up to 2^53; booleans stay booleans, never numbers. An object
/// keeps its members in order (`JSONObject`: the parser keeps the document's order, a writer the order it
/// was built in), so a document written from a value always has the same bytes.
///
/// A value of nested arrays; allocates only those. `Sendable`, safe to share.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in order; keys are unique.
    case object(JSONObject)

    /// One member of an object: a key and its value.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
        public init(_ key: String, _ value: JSONValue) { self.key = key; self.value = value }
    }

    /// An object from `(key, value)` pairs in order, leaving out the nil values. Keys must be unique.
    static func object(_ members: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        .object(members.compactMap { key, value in value.map { Member(key, $0) } })
    }

    /// An object from members in order. Keys must be unique.
    static func object(_ members: [Member]) -> JSONValue {
        .object(JSONObject(members))
    }

    /// A number rounded to `places` decimals (`(x * 10^places).rounded() / 10^places`; six unless told), as the
    /// documents write measured times and levels (the timeline, the report, batch results, the loudness scan);
    /// null for what JSON cannot write (-infinity: silence; NaN).
    static func rounded(_ x: Double, places: Int = 6) -> JSONValue {
        guard x.isFinite else { return .null }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return .number((x * scale).rounded() / scale)
    }

    /// A whole number (frames, counts, bytes): exact up to 2^53.
    static func integer<Integer: BinaryInteger>(_ n: Integer) -> JSONValue {
        .number(Double(n))
    }

    /// The member `key` of an object, or nil (nil for any other value too). Setting it sets or appends the member
    /// (nil removes nothing: it sets `null`); setting a key of a value that is not an object is a programming error.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let object) = self else { return nil }
            return object[key]
        }
        set {
            guard case .object(var object) = self else { preconditionFailure("a key set on a JSON value that is not an object") }
            object.set(key, to: newValue ?? .null)
            self = .object(object)
        }
    }

    /// Element `index` of an array (an index out of range, or a value that is not an array, is a programming error).
    public subscript(index: Int) -> JSONValue {
        get {
            guard case .array(let elements) = self else { preconditionFailure("an index into a JSON value that is not an array") }
            return elements[index]
        }
        set {
            guard case .array(var elements) = self else { preconditionFailure("an index into a JSON value that is not an array") }
            elements[index] = newValue
            self = .array(elements)
        }
    }

    /// The object's members in order, or none.
    var members: [Member] {
        if case .object(let object) = self { return object.members }
        return []
    }

    /// The object with member `key` set to `value`: in place if it is there, else appended (after `after`, when
    /// that member is there). A non-object is returned unchanged.
    func setting(_ key: String, to value: JSONValue, after: String? = nil) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object.set(key, to: value, after: after)
        return .object(object)
    }

    /// The object without the members whose keys `drop` accepts. A non-object is returned unchanged.
    func removing(where drop: (String) -> Bool) -> JSONValue {
        guard case .object(let object) = self else { return self }
        return .object(object.members.filter { !drop($0.key) })
    }

    /// What the value is, for messages: `the string '90x'`, `true`, `a number (3)`, `an array`.
    var summary: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return "the number \(JSONValue.format(n))"
        case .string(let s): return "the string \(JSONValue.quote(s))"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The string, if this is one.
    var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A number as a person would write it in a message: `48000`, not `48000.0`.
    static func format(_ n: Double) -> String {
        if n.isFinite, n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)
    }

    /// `'text'`, with control characters escaped and long text shortened, so it can go into a one-line message.
    static func quote(_ text: String) -> String {
        var out = ""
        for (count, scalar) in text.unicodeScalars.enumerated() {
            if count == 60 { out += "..."; break }
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.properties.generalCategory == .control {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return "'" + out + "'"
    }
}

/// Why a document is not JSON (or not JSON a reader can take), and where.
public struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    /// Where the problem is when it is at a value (the object holding a duplicate key, an unreadable
    /// number); empty for syntax errors, which carry a line and column in the message instead.
    public internal(set) var jsonPath: String = ""
    /// E.g. `malformed JSON: invalid value at line 3, column 19 (near ', 3]')`.
    public internal(set) var message: String
    /// The key that appears twice in the object at `jsonPath`, when that is the problem (I-JSON, RFC 7493, 2.3).
    public internal(set) var duplicateKey: String? = nil

    public var description: String { jsonPath.isEmpty ? message : "\(jsonPath): \(message)" }
}

extension JSONValue {
    /// Parses a UTF-8 JSON document (strict RFC 8259, see `JSONParser`); a problem is a `JSONSyntaxError`.
    static func parse(_ data: Data) throws -> JSONValue {
        try JSONParser.parse([UInt8](data))
    }

    /// Parses a UTF-8 JSON document held as bytes (see `parse(_ data:)`).
    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONParser.parse(bytes)
    }

    /// Parses a JSON document held as text (see `parse(_ data:)`).
    public static func parse(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }
}
