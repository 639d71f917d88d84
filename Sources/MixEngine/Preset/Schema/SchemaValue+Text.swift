/// `SchemaValue` as text and back: written with two spaces of indentation, one member or element per line
/// (the layout Python's `json.dumps(indent=2, ensure_ascii=False)` gives, so a schema edited by either tool
/// stays the same bytes), and read by a small recursive-descent parser that keeps members in order.
/// Only for schema documents this project writes: presets are read by `JSONParser`, whose errors name
/// lines, columns and JSON paths.
extension SchemaValue {
    /// The document's text, ending with a newline.
    public var text: String {
        var out = ""
        write(into: &out, indent: "")
        return out + "\n"
    }

    private func write(into out: inout String, indent: String) {
        let inner = indent + "  "
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += SchemaValue.format(n)
        case .string(let s): out += TimelineJSON.quote(s)
        case .array(let elements):
            guard !elements.isEmpty else { out += "[]"; return }
            out += "[\n"
            for (i, element) in elements.enumerated() {
                out += inner
                element.write(into: &out, indent: inner)
                out += i == elements.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{\n"
            for (i, member) in members.enumerated() {
                out += inner + TimelineJSON.quote(member.key) + ": "
                member.value.write(into: &out, indent: inner)
                out += i == members.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        }
    }

    /// A whole number without a fraction (`1`, `9007199254740992`), any other the shortest that reads back (`0.5`).
    static func format(_ n: Double) -> String {
        n == n.rounded() && abs(n) <= 9_007_199_254_740_992 ? String(Int64(n)) : String(n)
    }

    /// Reads a schema document (UTF-8 JSON), members in order. Throws `SchemaValue.SyntaxError` at the first
    /// byte it cannot read.
    public static func parse(_ text: String) throws -> SchemaValue {
        var reader = Reader(bytes: Array(text.utf8))
        let value = try reader.value()
        reader.skipSpace()
        guard reader.position == reader.bytes.count else { throw reader.failure("text after the document") }
        return value
    }

    /// Where a schema document could not be read, and why.
    public struct SyntaxError: Error, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "malformed schema JSON at byte \(offset): \(reason)" }
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        func failure(_ reason: String) -> SyntaxError { SyntaxError(offset: position, reason: reason) }

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            skipSpace()
            guard position < bytes.count, bytes[position] == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
            position += 1
        }

        /// Whether the next byte (after space) is `byte`; steps past it if so.
        mutating func takes(_ byte: UInt8) -> Bool {
            skipSpace()
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        mutating func value() throws -> SchemaValue {
            skipSpace()
            guard position < bytes.count else { throw failure("the document ends early") }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                position += 1
                var members: [Member] = []
                if takes(UInt8(ascii: "}")) { return .object(members) }
                repeat {
                    skipSpace()
                    let key = try string()
                    try expect(UInt8(ascii: ":"))
                    members.append(Member(key, try value()))
                } while takes(UInt8(ascii: ","))
                try expect(UInt8(ascii: "}"))
                return .object(members)
            case UInt8(ascii: "["):
                position += 1
                var elements: [SchemaValue] = []
                if takes(UInt8(ascii: "]")) { return .array(elements) }
                repeat { elements.append(try value()) } while takes(UInt8(ascii: ","))
                try expect(UInt8(ascii: "]"))
                return .array(elements)
            case UInt8(ascii: "\""):
                return .string(try string())
            default:
                let start = position
                while position < bytes.count, !Set(",]} \n\r\t".utf8).contains(bytes[position]) { position += 1 }
                let word = String(decoding: bytes[start..<position], as: UTF8.self)
                switch word {
                case "null": return .null
                case "true": return .bool(true)
                case "false": return .bool(false)
                default:
                    guard let n = Double(word) else { position = start; throw failure("not a JSON value") }
                    return .number(n)
                }
            }
        }

        mutating func string() throws -> String {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a string") }
            position += 1
            var out: [UInt8] = []
            while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                if bytes[position] == UInt8(ascii: "\\") {
                    position += 1
                    guard position < bytes.count else { break }
                    switch bytes[position] {
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        let hex = String(decoding: bytes[(position + 1)..<min(position + 5, bytes.count)], as: UTF8.self)
                        guard hex.count == 4, let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                            throw failure("a \\u escape this reader does not take")
                        }
                        out += Array(String(Character(scalar)).utf8)
                        position += 4
                    default: out.append(bytes[position])   // \" \\ \/
                    }
                } else {
                    out.append(bytes[position])
                }
                position += 1
            }
            guard position < bytes.count else { throw failure("the string does not end") }
            position += 1
            return String(decoding: out, as: UTF8.self)
        }
    }
}

extension SchemaValue {
    /// A schema written as JSON text in the source (a kind's `$defs` entry): a constant of the program, so a
    /// mistake in it is the program's, found by the schema test, not a preset's.
    static func declared(_ text: String) -> SchemaValue {
        do { return try parse(text) } catch { preconditionFailure("a schema in the source is not JSON: \(error)") }
    }
}
