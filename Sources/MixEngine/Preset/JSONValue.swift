import Foundation

/// A parsed JSON document, as plain Swift values: what the preset (and session) readers walk with a `JSONCursor`.
///
/// Numbers are `Double`s, so integers are exact up to 2^53. Booleans stay booleans (Foundation's
/// `JSONSerialization` turns both into `NSNumber` on Linux; decoding this type with `JSONDecoder` does not).
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

extension JSONValue: Decodable {
    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {   // before Double: a number never decodes as Bool
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if var elements = try? decoder.unkeyedContainer() {
            // Containers are opened, not decoded with try?, so a failure inside one keeps its own path.
            var array: [JSONValue] = []
            while !elements.isAtEnd { array.append(try elements.decode(JSONValue.self)) }
            self = .array(array)
        } else {
            let members = try decoder.container(keyedBy: MemberKey.self)
            var object: [String: JSONValue] = [:]
            for key in members.allKeys { object[key.stringValue] = try members.decode(JSONValue.self, forKey: key) }
            self = .object(object)
        }
    }

    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
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
    /// Parses a UTF-8 JSON document.
    ///
    /// `JSONSerialization` checks the syntax first, because it says where a problem is (as a byte offset,
    /// turned here into a line and column); `JSONDecoder` then builds the value. Both quietly keep one of two
    /// equal keys in an object, so duplicates are looked for separately and are an error.
    static func parse(_ data: Data) throws -> JSONValue {
        try parse([UInt8](data))
    }

    /// Parses a UTF-8 JSON document held as bytes (see `parse(_ data:)`).
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        var bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }   // UTF-8 byte order mark
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw JSONSyntaxError(message: "malformed JSON: the file is empty")
        }
        let clean = Data(bytes)
        do {
            _ = try JSONSerialization.jsonObject(with: clean, options: [.fragmentsAllowed])
        } catch {
            throw JSONSyntaxError(message: "malformed JSON: " + describeSyntaxError(error, in: bytes))
        }
        if let duplicate = JSONValue.firstDuplicateKey(in: bytes) {
            throw JSONSyntaxError(jsonPath: duplicate.path,
                                  message: "duplicate key \(quote(duplicate.key)); each key may appear once in an object")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: clean)
        } catch let error as DecodingError {
            // Text JSONSerialization took but JSONDecoder cannot: a number beyond Double's range, like 1e-999.
            let context: DecodingError.Context?
            switch error {
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c): context = c
            @unknown default: context = nil
            }
            var path = ""
            for key in context?.codingPath ?? [] {
                path = key.intValue.map { JSONCursor.path(path, index: $0) } ?? JSONCursor.path(path, key: key.stringValue)
            }
            let isNumber = context?.debugDescription.contains("found number") ?? false
            throw JSONSyntaxError(jsonPath: path, message: isNumber
                ? "cannot read this number: it is too large or too close to 0 for a 64-bit float"
                : "malformed JSON: cannot read this value")
        } catch {
            throw JSONSyntaxError(message: "malformed JSON: \(error)")
        }
    }

    /// Foundation's description of a syntax error, with "around character N" replaced by a line, a column and
    /// the text found there.
    private static func describeSyntaxError(_ error: Error, in bytes: [UInt8]) -> String {
        let nsError = error as NSError
        var text = (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
        if text.hasSuffix(".") { text.removeLast() }
        if let first = text.first { text = first.lowercased() + text.dropFirst() }

        var offset: Int?
        for marker in [" around character ", " starting from character "] {
            if let range = text.range(of: marker) {
                offset = Int(text[range.upperBound...].prefix(while: { $0.isNumber }))
                text = String(text[..<range.lowerBound])
                break
            }
        }
        // "Number 1e999 is not representable in Swift": find the number to say where it is.
        if offset == nil, text.hasPrefix("number "), let end = text.range(of: " is not representable") {
            let literal = Array(text[text.index(text.startIndex, offsetBy: 7)..<end.lowerBound].utf8)
            offset = firstIndex(of: literal, in: bytes)
            text = "number " + String(decoding: literal, as: UTF8.self) + " is too large"
        }
        guard let at = offset, at >= 0, at <= bytes.count else { return text }
        return text + " at " + location(of: at, in: bytes)
    }

    /// `line 3, column 19 (near ', 3]')`; columns count characters, from 1.
    private static func location(of offset: Int, in bytes: [UInt8]) -> String {
        let before = bytes[..<offset]
        let line = before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        let lineStart = (before.lastIndex(of: 0x0A) ?? -1) + 1
        let column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1
        var text = "line \(line), column \(column)"
        let after = bytes[offset...].prefix(while: { $0 != 0x0A && $0 != 0x0D }).prefix(16)
        let near = String(decoding: after, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        if near.hasPrefix("//") || near.hasPrefix("/*") {
            text += " (JSON has no comments)"
        } else if near.hasPrefix("'") {
            text += " (JSON strings take double quotes)"
        } else if !near.isEmpty {
            text += " (near \(quote(near)))"
        }
        return text
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }

    /// The first key that appears twice in one object, and the path of that object.
    /// Works on text `JSONSerialization` has accepted, so it only needs to follow strings and brackets.
    /// Keys are compared as written (a key spelled once with and once without escapes is not caught).
    private static func firstDuplicateKey(in bytes: [UInt8]) -> (path: String, key: String)? {
        enum Container {
            case object(keys: Set<[UInt8]>, current: String?, expectingKey: Bool)
            case array(index: Int)
        }
        var stack: [Container] = []

        func path() -> String {
            var path = ""
            for container in stack.dropLast() {
                switch container {
                case .object(_, let current, _): path = JSONCursor.path(path, key: current ?? "")
                case .array(let index): path = JSONCursor.path(path, index: index)
                }
            }
            return path
        }

        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\""):
                var j = i + 1
                while j < bytes.count, bytes[j] != UInt8(ascii: "\"") {
                    j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1
                }
                if case .object(var keys, _, true)? = stack.last {
                    let key = Array(bytes[(i + 1)..<min(j, bytes.count)])
                    let name = String(decoding: key, as: UTF8.self)
                    if !keys.insert(key).inserted {
                        return (path(), name)
                    }
                    stack[stack.count - 1] = .object(keys: keys, current: name, expectingKey: false)
                }
                i = j + 1
            case UInt8(ascii: "{"):
                stack.append(.object(keys: [], current: nil, expectingKey: true))
                i += 1
            case UInt8(ascii: "["):
                stack.append(.array(index: 0))
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
                i += 1
            case UInt8(ascii: ","):
                switch stack.last {
                case .object(let keys, let current, _)?: stack[stack.count - 1] = .object(keys: keys, current: current, expectingKey: true)
                case .array(let index)?: stack[stack.count - 1] = .array(index: index + 1)
                case nil: break
                }
                i += 1
            default:
                i += 1
            }
        }
        return nil
    }
}
