import Foundation  // Data

/// A parsed JSON document, as plain Swift values: what the preset (and session) readers walk with a `JSONCursor`.
///
/// `JSONParser` builds it. Numbers are `Double`s, so integers are exact up to 2^53; booleans stay booleans,
/// never numbers.
enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

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

    /// A number as a person would write it: `48000`, not `48000.0`.
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
struct JSONSyntaxError: Error, Equatable {
    /// Where the problem is when it is at a value (the object holding a duplicate key, an unreadable
    /// number); empty for syntax errors, which carry a line and column in the message instead.
    var jsonPath: String = ""
    /// E.g. `malformed JSON: invalid value at line 3, column 19 (near ', 3]')`.
    var message: String
}

extension JSONValue {
    /// Parses a UTF-8 JSON document (strict RFC 8259, see `JSONParser`); a problem is a `JSONSyntaxError`.
    static func parse(_ data: Data) throws -> JSONValue {
        try JSONParser.parse([UInt8](data))
    }

    /// Parses a UTF-8 JSON document held as bytes (see `parse(_ data:)`).
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONParser.parse(bytes)
    }
}
