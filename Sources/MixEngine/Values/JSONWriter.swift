import MixIO

/// How a written JSON document is laid out. Only whitespace differs between styles: keys in their order,
/// numbers and strings are written the same way in all of them.
public enum JSONStyle: Sendable {
    /// One member or element per line, two spaces a level, `[]` and `{}` when empty (the layout of Python's
    /// `json.dumps(indent=2)`): the preset schema, edited by people and tools alike.
    case indented
    /// As `indented`, but an array or object holding no array or object goes on one line (`{"seconds": 1.5,
    /// "frame": 72000}`): the documents people read, the timeline, the report and the loudness scan.
    case readable
    /// One line, a space after each comma and colon: a record of JSON Lines (a batch's results).
    case line
    /// One line, no spaces: the waveform, as audiowaveform writes it.
    case compact

    /// Whether every container is written on one line.
    var isOneLine: Bool { self == .line || self == .compact }
}

/// Where `JSONWriter` writes: text in memory (`String`) or a file (`BufferedFileWriter`).
protocol JSONOutput {
    mutating func write(_ text: String) throws
    /// One ASCII character (a comma between a streamed array's integers).
    mutating func write(ascii: UInt8) throws
    mutating func write(integer: Int) throws
}

extension String: JSONOutput {
    mutating func write(_ text: String) { self += text }
    mutating func write(ascii: UInt8) { unicodeScalars.append(Unicode.Scalar(ascii)) }
    mutating func write(integer: Int) { self += String(integer) }
}

extension BufferedFileWriter: JSONOutput {
    func write(_ text: String) throws { try self.text(text) }
    func write(ascii: UInt8) throws { try byte(ascii) }
    func write(integer: Int) throws { try self.integer(integer) }
}

/// The one JSON writer: writes `JSONValue`s (whole documents, or members of one being streamed) as text in a
/// `JSONStyle`, numbers and strings always the same way (`number`, `quote`).
///
/// A document too large to build as a value first (the waveform's millions of integers) is streamed:
/// `beginObject`, `key`, `value`, `integer`, `endObject` and the array pair write it piece by piece, commas
/// and indentation kept by the writer (a streamed array or object is never put on one line by `.readable`:
/// it is written as it comes).
///
/// A value holding its output and the stack of open containers; allocates only what the output does.
/// Used by one thread.
struct JSONWriter<Output: JSONOutput> {
    private(set) var output: Output
    let style: JSONStyle
    /// For each streamed array or object open, outermost first: whether it has an element yet.
    private var open: [Bool] = []
    /// A key was just written: the next value is its member's, with no separator before it.
    private var afterKey = false

    init(_ output: Output, style: JSONStyle) {
        self.output = output
        self.style = style
    }

    // MARK: - Values

    /// Writes `value` whole: the document, an element of the streamed array or a member's value after `key`.
    mutating func value(_ value: JSONValue) throws {
        try separate()
        try write(value, level: open.count)
    }

    /// Writes a whole number, as an element or a member's value, without making a `JSONValue` of it.
    mutating func integer(_ n: Int) throws {
        try separate()
        try output.write(integer: n)
    }

    // MARK: - Streaming

    mutating func beginObject() throws { try begin("{") }
    mutating func endObject() throws { try end("}") }
    mutating func beginArray() throws { try begin("[") }
    mutating func endArray() throws { try end("]") }

    /// The key of the next member of the streamed object; its value follows (`value`, `integer`, `begin...`).
    mutating func key(_ key: String) throws {
        try separate()
        try output.write(JSONLiteral.string(key) + colon)
        afterKey = true
    }

    private mutating func begin(_ bracket: String) throws {
        try separate()
        try output.write(bracket)
        open.append(false)
    }

    private mutating func end(_ bracket: String) throws {
        let hadElements = open.removeLast()
        if hadElements, !style.isOneLine { try output.write("\n" + indent(open.count)) }
        try output.write(bracket)
    }

    /// What goes before a value: nothing after a key or at the top, else a comma (and a new line in the
    /// indented styles) after an element, or the new line before the first.
    private mutating func separate() throws {
        if afterKey { afterKey = false; return }
        guard let hasElements = open.last else { return }
        open[open.count - 1] = true
        switch style {
        case .compact: if hasElements { try output.write(ascii: UInt8(ascii: ",")) }
        case .line: if hasElements { try output.write(", ") }
        case .indented, .readable: try output.write((hasElements ? ",\n" : "\n") + indent(open.count))
        }
    }

    // MARK: - Layout

    private var comma: String { style == .compact ? "," : ", " }
    private var colon: String { style == .compact ? ":" : ": " }
    private func indent(_ level: Int) -> String { String(repeating: "  ", count: level) }

    /// `value` at nesting `level`: scalars as they are; a container on one line or one part per line.
    private mutating func write(_ value: JSONValue, level: Int) throws {
        switch value {
        case .null: try output.write("null")
        case .bool(let flag): try output.write(flag ? "true" : "false")
        case .number(let n): try output.write(JSONLiteral.number(n))
        case .string(let text): try output.write(JSONLiteral.string(text))
        case .array(let elements):
            try container("[", "]", count: elements.count, oneLine: isOneLine(elements), level: level) { writer, i in
                try writer.write(elements[i], level: level + 1)
            }
        case .object(let object):
            let members = object.members
            try container("{", "}", count: members.count, oneLine: isOneLine(members.lazy.map(\.value)), level: level) { writer, i in
                try writer.output.write(JSONLiteral.string(members[i].key) + writer.colon)
                try writer.write(members[i].value, level: level + 1)
            }
        }
    }

    /// Whether a container of `parts` goes on one line in this style.
    private func isOneLine(_ parts: some Sequence<JSONValue>) -> Bool {
        switch style {
        case .line, .compact: return true
        case .indented: return false
        case .readable: return parts.allSatisfy { !$0.isContainer }
        }
    }

    private mutating func container(_ opening: String, _ closing: String, count: Int, oneLine: Bool, level: Int,
                                    part: (inout JSONWriter, Int) throws -> Void) throws {
        guard count > 0 else { try output.write(opening + closing); return }
        try output.write(opening)
        let inner = oneLine ? "" : "\n" + indent(level + 1)
        for i in 0..<count {
            try output.write(i == 0 ? inner : (oneLine ? comma : "," + inner))
            try part(&self, i)
        }
        try output.write(oneLine ? closing : "\n" + indent(level) + closing)
    }
}

extension JSONWriter where Output == String {
    /// A writer of text in memory.
    init(style: JSONStyle) { self.init("", style: style) }
}

extension JSONValue {
    /// The value as JSON text in `style`, without a final newline.
    public func json(_ style: JSONStyle) -> String {
        var writer = JSONWriter(style: style)
        try! writer.value(self)   // writing to a String never throws
        return writer.output
    }

    /// The value as a JSON file's text in `style`: `json(style)` and a newline.
    func document(_ style: JSONStyle) -> String { json(style) + "\n" }

    /// Writes `document(style)` to `path` through a temporary file beside it, renamed into place when complete
    /// (`AtomicOutputFile`): an error leaves nothing there.
    func write(to path: String, style: JSONStyle) throws {
        let output = try AtomicOutputFile(destination: path)
        do {
            try FileSystem.writeFile(path: output.temporaryPath, bytes: Array(document(style).utf8))
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }

    /// Whether this is an array or an object.
    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }
}

/// How every JSON document mixrender writes spells its scalars (`JSONWriter` and the cache key's text).
///
/// No state; allocates the text it returns. Any thread may call it.
enum JSONLiteral {
    /// A number as every document writes it: a whole number without a fraction (`48000`, `9007199254740992`),
    /// any other the shortest text that reads back as the same `Double` (`0.5`, `1e-07`); null for infinities
    /// and NaN, which JSON cannot write.
    static func number(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        return n == n.rounded() && abs(n) <= 9_007_199_254_740_992 ? String(Int64(n)) : String(n)
    }

    /// A JSON string literal. Besides what JSON requires (`"`, `\` and C0 escaped), DEL, C1 (U+009B is a CSI to
    /// some terminals) and the line separators U+2028 and U+2029 are written as `\u` escapes too, so that JSON
    /// printed on a terminal carries no control character from a file either.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
