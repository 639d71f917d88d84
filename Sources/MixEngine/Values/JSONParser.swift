/// A strict JSON parser (RFC 8259) for UTF-8 bytes that knows where it is: one pass of recursive descent
/// over the bytes, building a `JSONValue` tree, with every problem reported as a `JSONSyntaxError` that
/// says where it is.
///
/// **Layout.** The result is a plain `JSONValue` tree: an array per JSON array, a `JSONObject` per object
/// (its members in the document's order),
/// a `String` per string (unescaped, so `"a"` and `"\u0061"` are the same key) and a `Double` per number.
/// Booleans stay `.bool`, never numbers. Syntax errors carry a line and a column (lines from 1; columns
/// count characters, not bytes, from 1) pointing at the offending token, and the text found there:
/// `malformed JSON: invalid value at line 3, column 19 (near ', 3]')`. A duplicate key, or a number that
/// rounds to 0 although it is not 0, is an error at the JSON path of its object or value instead; those
/// are reported only when the document has no syntax error (syntax first, then the first duplicate key,
/// then the first such number). A UTF-8 byte order mark at the start is skipped.
///
/// **Allocation.** The input is read in place, not copied. Besides the tree itself (one array, or one array
/// and one key index, per container, one `String` per string longer than 15 bytes, one per number literal longer than 15
/// bytes while converting it), the parser keeps one scratch buffer for strings with escapes, reused, and two
/// stacks as deep as the nesting. Time is linear in the input; position (line and column) is worked out
/// only when there is an error.
///
/// **Thread safety.** A value type with no shared state: `JSONParser.parse` may be called from any
/// thread, any number at once.
///
/// **Limits.** Arrays and objects nest at most `maximumDepth` (512) deep; the 513th is an error, not a stack
/// overflow. Each level takes two stack frames, about 200 bytes optimised and 1 KB in a debug build, so the
/// deepest document fits in a 1 MiB thread stack even unoptimised (a test checks this). Numbers are
/// `Double`s, so integers are exact up to 2^53; a literal beyond Double's range (`1e999`) is an error, and so
/// is a non-zero literal that rounds to 0 (`1e-400`); subnormals are kept. Keys are `String`s, which compare
/// by canonical equivalence: two spellings of `é` in one object are a duplicate key, as the tree could hold
/// only one of them. Only UTF-8 is read; a document in UTF-16 or UTF-32 is invalid UTF-8 or an invalid value.
struct JSONParser {
    /// How deep arrays and objects may nest.
    static let maximumDepth = 512

    /// Parses a UTF-8 JSON document.
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        var parser = JSONParser(bytes)
        return try parser.document()
    }

    private enum PathComponent {
        case key(String)
        case index(Int)
    }

    private let bytes: [UInt8]
    /// The first byte after a byte order mark.
    private let start: Int
    private var position: Int
    /// Where each array or object enclosing `position` opens, outermost first.
    private var openings: [Int] = []
    /// The JSON path of the value being read.
    private var path: [PathComponent] = []
    /// A string with escapes, being unescaped.
    private var scratch: [UInt8] = []
    /// The first duplicate key and the first number that rounds to 0, reported if the syntax is right.
    private var duplicateKey: JSONSyntaxError?
    private var unreadableNumber: JSONSyntaxError?

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
        start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        position = start
    }

    // MARK: - Grammar

    private mutating func document() throws -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw JSONSyntaxError(message: "malformed JSON: the file is empty") }
        let root = try value()
        skipWhitespace()
        if position < bytes.count { throw unexpected("unexpected text after the JSON document", at: position) }
        if let duplicateKey { throw duplicateKey }
        if let unreadableNumber { throw unreadableNumber }
        return root
    }

    /// A value, after any whitespace.
    @inline(never)
    private mutating func value() throws -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw endOfFile() }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: return try literal()
        }
    }

    // object() and array() recurse through value(): they keep their frames small by leaving every step
    // but the recursion itself to helpers that are not inlined.

    private mutating func object() throws -> JSONValue {
        var members = JSONObject()
        guard try open(closingWith: UInt8(ascii: "}")) else { return .object(members) }
        while true {
            let key = try memberKey(first: members.isEmpty)
            let member = try value()
            add(member, for: key, to: &members)
            if try closes(UInt8(ascii: "}")) { return .object(members) }
        }
    }

    private mutating func array() throws -> JSONValue {
        var elements: [JSONValue] = []
        guard try open(closingWith: UInt8(ascii: "]")) else { return .array(elements) }
        while true {
            pushIndex(elements.count)
            let element = try value()
            append(element, to: &elements)
            if try closes(UInt8(ascii: "]")) { return .array(elements) }
        }
    }

    /// Steps into the array or object at `position`, if the nesting limit allows; false (and past it) if
    /// it is empty.
    @inline(never)
    private mutating func open(closingWith close: UInt8) throws -> Bool {
        guard openings.count < JSONParser.maximumDepth else { throw tooDeep(at: position) }
        openings.append(position)
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == close {
            position += 1
            openings.removeLast()
            return false
        }
        return true
    }

    /// After an element or member: true (and past it) at the `close` that ends the array or object, false
    /// past a comma that a value follows.
    @inline(never)
    private mutating func closes(_ close: UInt8) throws -> Bool {
        skipWhitespace()
        guard position < bytes.count else { throw endOfFile() }
        switch bytes[position] {
        case close:
            position += 1
            openings.removeLast()
            return true
        case UInt8(ascii: ","):
            let comma = position
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == close { throw trailingComma(at: comma) }
            return false
        default:
            throw expectedSeparator(at: position)
        }
    }

    /// A member's key and its colon; its path goes on `path` (for `add` to take off).
    @inline(never)
    private mutating func memberKey(first: Bool) throws -> String {
        if first { skipWhitespace() }   // after a comma, `closes` has skipped it
        guard position < bytes.count else { throw endOfFile() }
        guard bytes[position] == UInt8(ascii: "\"") else { throw expectedKey(at: position, afterComma: !first) }
        let key = try string()
        skipWhitespace()
        guard position < bytes.count else { throw endOfFile() }
        guard bytes[position] == UInt8(ascii: ":") else { throw expectedColon(at: position, after: key) }
        position += 1
        path.append(.key(key))
        return key
    }

    /// Adds a member read after `memberKey`, noting the first duplicate key.
    @inline(never)
    private mutating func add(_ member: JSONValue, for key: String, to members: inout JSONObject) {
        path.removeLast()
        if !members.set(key, to: member), duplicateKey == nil {
            duplicateKey = JSONSyntaxError(jsonPath: currentPath(),
                                           message: "duplicate key \(JSONValue.quote(key)); each key may appear once in an object",
                                           duplicateKey: key)
        }
    }

    /// An element's index goes on `path` (for `append` to take off).
    @inline(never)
    private mutating func pushIndex(_ index: Int) {
        path.append(.index(index))
    }

    @inline(never)
    private mutating func append(_ element: JSONValue, to elements: inout [JSONValue]) {
        path.removeLast()
        elements.append(element)
    }

    /// `true`, `false` or `null`; anything else where a value should be is an invalid value.
    @inline(never)
    private mutating func literal() throws -> JSONValue {
        let word = wordEnd(from: position)
        let text = bytes[position..<word]
        let found: JSONValue
        if text.elementsEqual("true".utf8) {
            found = .bool(true)
        } else if text.elementsEqual("false".utf8) {
            found = .bool(false)
        } else if text.elementsEqual("null".utf8) {
            found = .null
        } else {
            throw invalidValue(at: position)
        }
        position = word
        return found
    }

    // MARK: - Strings

    /// The string whose opening quote is at `position`, unescaped.
    @inline(never)
    private mutating func string() throws -> String {
        let quote = position
        var i = quote + 1
        // Most strings have no escapes: they are taken as they are, once their UTF-8 is checked.
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                position = i + 1
                return String(decoding: bytes[(quote + 1)..<i], as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            i += try byte < 0x80 ? 1 : utf8Sequence(at: i)
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: bytes[(quote + 1)..<i])
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "\""):
                position = i + 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                i = try escape(at: i, inStringAt: quote)
            case 0..<0x20:
                throw controlCharacter(at: i)
            case 0x80...:
                let length = try utf8Sequence(at: i)
                scratch.append(contentsOf: bytes[i..<(i + length)])
                i += length
            default:
                scratch.append(byte)
                i += 1
            }
        }
        throw syntax("unexpected end of file: the string starting at \(lineAndColumn(of: quote)) is not closed")
    }

    /// Appends what the escape at `i` (a backslash) stands for to `scratch`; returns where the string goes on.
    private mutating func escape(at i: Int, inStringAt quote: Int) throws -> Int {
        guard i + 1 < bytes.count else {
            throw syntax("unexpected end of file: the string starting at \(lineAndColumn(of: quote)) is not closed")
        }
        let simple: UInt8
        switch bytes[i + 1] {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            let unit = try hexEscape(at: i, inStringAt: quote)
            var scalar = UInt32(unit)
            var next = i + 6
            switch unit {
            case 0xD800...0xDBFF:
                guard next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\\"), bytes[next + 1] == UInt8(ascii: "u") else {
                    throw syntax("unpaired surrogate \(escapeText(at: i)) in a string", at: i,
                                 hint: "a \\uD800-\\uDBFF escape must be followed by a \\uDC00-\\uDFFF one")
                }
                let low = try hexEscape(at: next, inStringAt: quote)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw syntax("unpaired surrogate \(escapeText(at: i)) in a string", at: i,
                                 hint: "a \\uD800-\\uDBFF escape must be followed by a \\uDC00-\\uDFFF one")
                }
                scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                next += 6
            case 0xDC00...0xDFFF:
                throw syntax("unpaired surrogate \(escapeText(at: i)) in a string", at: i,
                             hint: "a \\uDC00-\\uDFFF escape must follow a \\uD800-\\uDBFF one")
            default:
                break
            }
            appendUTF8(scalar)
            return next
        case 0..<0x20:
            throw controlCharacter(at: i + 1)
        default:
            let shown = String(decoding: bytes[i...].prefix(5), as: UTF8.self).prefix(2)
            throw syntax("invalid escape \(JSONValue.quote(String(shown))) in a string", at: i,
                         hint: "JSON's escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
        }
        scratch.append(simple)
        return i + 2
    }

    /// The code unit of the `\uXXXX` escape at `i` (a backslash).
    private func hexEscape(at i: Int, inStringAt quote: Int) throws -> UInt16 {
        var unit: UInt16 = 0
        for k in (i + 2)..<(i + 6) {
            guard k < bytes.count else {
                throw syntax("unexpected end of file: the string starting at \(lineAndColumn(of: quote)) is not closed")
            }
            let byte = bytes[k]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw syntax("invalid escape \(escapeText(at: i)) in a string", at: i, hint: "\\u takes 4 hexadecimal digits")
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// `'\uD800'`: the `\u` escape at `i` as written, for messages.
    private func escapeText(at i: Int) -> String {
        let text = String(decoding: bytes[i...].prefix(6).prefix(while: { $0 >= 0x20 && $0 < 0x80 }), as: UTF8.self)
        return JSONValue.quote(text)
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// The length of the well-formed UTF-8 sequence at `i`, whose first byte is 0x80 or more
    /// (the Unicode Standard's table 3-7: no overlong forms, no surrogates, nothing past U+10FFFF).
    private func utf8Sequence(at i: Int) throws -> Int {
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch bytes[i] {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; second = 0x80...0x8F
        default: throw invalidUTF8(at: i, through: i)
        }
        for k in 1..<length {
            guard i + k < bytes.count else { throw invalidUTF8(at: i, through: i + k - 1) }
            guard (k == 1 ? second : 0x80...0xBF).contains(bytes[i + k]) else { throw invalidUTF8(at: i, through: i + k) }
        }
        return length
    }

    // MARK: - Numbers

    /// The number at `position` (a `-` or a digit): its grammar checked here, its value converted by the
    /// standard library (correctly rounded).
    @inline(never)
    private mutating func number() throws -> Double {
        let first = position
        var i = first
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else {
            if i < bytes.count, isLetter(bytes[i]) { throw invalidValue(at: first) }   // -Infinity
            throw invalidNumber(at: first, hint: "a '-' must be followed by digits")
        }
        let integerStart = i
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count, isDigit(bytes[i]) {
                throw invalidNumber(at: first, hint: "JSON numbers have no leading zeros")
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "x") || bytes[i] == UInt8(ascii: "X") {
                throw invalidNumber(at: first, hint: "JSON numbers are decimal")
            }
        } else {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        let integerEnd = i
        var mantissaEnd = i
        var isInteger = true
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else {
                throw invalidNumber(at: first, hint: "a '.' must be followed by digits")
            }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
            mantissaEnd = i
            isInteger = false
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else {
                throw invalidNumber(at: first, hint: "an exponent must have digits, as in 1e6 or 2.5E-3")
            }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
            isInteger = false
        }
        if i < bytes.count, isWordByte(bytes[i]) { throw invalidNumber(at: first, hint: nil) }   // 1.5.2, 12ab
        position = i

        // Whole numbers of up to 15 digits are exact as Doubles: no need for a String.
        if isInteger, integerEnd - integerStart <= 15 {
            var whole = 0
            for k in integerStart..<integerEnd { whole = whole * 10 + Int(bytes[k] - UInt8(ascii: "0")) }
            return negative ? -Double(whole) : Double(whole)
        }
        let literal = String(decoding: bytes[first..<i], as: UTF8.self)
        guard let number = Double(literal), number.isFinite else {
            throw syntax("number \(shortened(literal)) is too large", at: first)
        }
        if number == 0, bytes[integerStart..<mantissaEnd].contains(where: { $0 > UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
           unreadableNumber == nil {
            unreadableNumber = JSONSyntaxError(jsonPath: currentPath(),
                                               message: "cannot read this number: it is too large or too close to 0 for a 64-bit float")
        }
        return number
    }

    // MARK: - Bytes

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// A byte that can continue a word or a number a person may have meant as a value: `NaN`, `1.5.2`, `0x1F`.
    private func isWordByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || isLetter(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }

    private func wordEnd(from i: Int) -> Int {
        var end = i
        while end < bytes.count, isWordByte(bytes[end]) { end += 1 }
        return end
    }

    private func startsComment(at i: Int) -> Bool {
        i + 1 < bytes.count && bytes[i] == UInt8(ascii: "/")
            && (bytes[i + 1] == UInt8(ascii: "/") || bytes[i + 1] == UInt8(ascii: "*"))
    }

    // MARK: - Errors

    /// `tracks[1].envelope`: the JSON path of the value being read.
    private func currentPath() -> String {
        var text = ""
        for component in path {
            switch component {
            case .key(let key): text = JSONPath.path(text, key: key)
            case .index(let index): text = JSONPath.path(text, index: index)
            }
        }
        return text
    }

    // The errors are built out of line (@inline(never)), so that the recursive functions keep small stack frames.

    @inline(never)
    private func expectedKey(at offset: Int, afterComma: Bool) -> JSONSyntaxError {
        unexpected(afterComma ? "expected a key (a string in double quotes) after ','"
                              : "expected a key (a string in double quotes) or '}'", at: offset)
    }

    @inline(never)
    private func expectedColon(at offset: Int, after key: String) -> JSONSyntaxError {
        unexpected("expected ':' after the key \(JSONValue.quote(key))", at: offset)
    }

    /// After an element or member: `expected ',' or ']' after an array element`, or for objects.
    @inline(never)
    private func expectedSeparator(at offset: Int) -> JSONSyntaxError {
        unexpected(bytes[openings[openings.count - 1]] == UInt8(ascii: "[") ? "expected ',' or ']' after an array element"
                                                                             : "expected ',' or '}' after an object member", at: offset)
    }

    /// The comma at `offset` is followed by the `]` or `}` closing its array or object.
    @inline(never)
    private func trailingComma(at offset: Int) -> JSONSyntaxError {
        syntax(bytes[openings[openings.count - 1]] == UInt8(ascii: "[") ? "trailing comma after the last element of an array"
                                                                         : "trailing comma after the last member of an object", at: offset)
    }

    @inline(never)
    private func tooDeep(at offset: Int) -> JSONSyntaxError {
        syntax("arrays and objects nested too deep", at: offset, hint: "the limit is \(JSONParser.maximumDepth) levels")
    }

    /// `malformed JSON: <what> at line L, column C (<hint>, or near '<text>')`.
    private func syntax(_ what: String, at offset: Int, hint: String? = nil) -> JSONSyntaxError {
        var message = "malformed JSON: \(what) at \(lineAndColumn(of: offset))"
        if let hint {
            message += " (\(hint))"
        } else if let near = nearHint(at: offset) {
            message += " (\(near))"
        }
        return JSONSyntaxError(message: message)
    }

    /// `malformed JSON: <what>`, for messages that place themselves.
    private func syntax(_ what: String) -> JSONSyntaxError {
        JSONSyntaxError(message: "malformed JSON: " + what)
    }

    /// Something other than what the grammar expects at `offset`: a comment, bad UTF-8, or `what`.
    @inline(never)
    private func unexpected(_ what: String, at offset: Int) -> JSONSyntaxError {
        if bytes[offset] >= 0x80, let error = utf8Error(at: offset) { return error }
        if startsComment(at: offset) { return syntax("unexpected comment", at: offset, hint: "JSON has no comments") }
        return syntax(what, at: offset)
    }

    /// No value starts at `offset`; says why when it can (`NaN`, `True`, `.5`, `+1`).
    private func invalidValue(at offset: Int) -> JSONSyntaxError {
        let byte = bytes[offset]
        if byte >= 0x80, let error = utf8Error(at: offset) { return error }
        if startsComment(at: offset) { return syntax("unexpected comment", at: offset, hint: "JSON has no comments") }
        let word = String(decoding: bytes[offset..<wordEnd(from: offset)], as: UTF8.self)
        let name = String(word.drop(while: { $0 == "-" || $0 == "+" })).lowercased()
        if ["nan", "inf", "infinity"].contains(name) {
            return syntax("invalid value", at: offset, hint: "JSON has no NaN or Infinity")
        }
        if ["true", "false", "null"].contains(name), word.first != "-", word.first != "+" {
            return syntax("invalid value", at: offset, hint: "JSON writes true, false and null in lower case")
        }
        if byte == UInt8(ascii: "."), offset + 1 < bytes.count, isDigit(bytes[offset + 1]) {
            return invalidNumber(at: offset, hint: "a number starts with a digit: write 0\(shortened(word)), not \(shortened(word))")
        }
        if byte == UInt8(ascii: "+"), offset + 1 < bytes.count, isDigit(bytes[offset + 1]) {
            return invalidNumber(at: offset, hint: "JSON numbers take no '+' sign")
        }
        return syntax("invalid value", at: offset)
    }

    /// `invalid number '01'`, the number as far as it looks like one.
    private func invalidNumber(at offset: Int, hint: String?) -> JSONSyntaxError {
        let word = String(decoding: bytes[offset..<max(wordEnd(from: offset), offset + 1)], as: UTF8.self)
        return syntax("invalid number \(JSONValue.quote(shortened(word)))", at: offset, hint: hint)
    }

    private func controlCharacter(at offset: Int) -> JSONSyntaxError {
        let byte = bytes[offset]
        if byte == 0x0A || byte == 0x0D {
            return syntax("line break in a string", at: offset,
                          hint: "is a closing '\"' missing? Inside a string, write a line break as \\n")
        }
        let names: [UInt8: String] = [0x08: "\\b", 0x09: "\\t", 0x0C: "\\f"]
        let code = "U+00" + Self.hex(byte)
        return syntax("control character \(code) in a string", at: offset,
                      hint: "write it as \(names[byte] ?? "\\u00" + Self.hex(byte))")
    }

    /// The error for the bytes at `offset` if they are not well-formed UTF-8.
    private func utf8Error(at offset: Int) -> JSONSyntaxError? {
        do {
            _ = try utf8Sequence(at: offset)
            return nil
        } catch {
            return error as? JSONSyntaxError
        }
    }

    private func invalidUTF8(at offset: Int, through last: Int) -> JSONSyntaxError {
        let shown = bytes[offset...last].map { "0x" + Self.hex($0) }.joined(separator: " ")
        return syntax("invalid UTF-8", at: offset, hint: (offset == last ? "byte " : "bytes ") + shown)
    }

    /// The file ends inside an array or object (the innermost open one is named).
    @inline(never)
    private func endOfFile() -> JSONSyntaxError {
        guard let opening = openings.last else { return syntax("unexpected end of file") }
        let kind = bytes[opening] == UInt8(ascii: "[") ? "array" : "object"
        return syntax("unexpected end of file: the \(kind) opened at \(lineAndColumn(of: opening)) is not closed")
    }

    /// `line 3, column 19`; lines count line feeds, columns count characters, both from 1.
    private func lineAndColumn(of offset: Int) -> String {
        var line = 1
        var lineStart = start
        for i in start..<offset where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        let column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1
        return "line \(line), column \(column)"
    }

    /// `near ', 3]'`: up to 16 characters from `offset` to the end of its line; or a hint for what is there
    /// (a comment, single or curly quotes).
    private func nearHint(at offset: Int) -> String? {
        let rest = bytes[offset...].prefix(128).prefix(while: { $0 != 0x0A && $0 != 0x0D })
        var near = String(String(decoding: rest, as: UTF8.self).prefix(16))
        while let last = near.last, last == " " || last == "\t" { near.removeLast() }
        if near.hasPrefix("//") || near.hasPrefix("/*") { return "JSON has no comments" }
        if near.hasPrefix("'") { return "JSON strings take double quotes" }
        if near.hasPrefix("\u{201C}") || near.hasPrefix("\u{201D}") || near.hasPrefix("\u{2018}") || near.hasPrefix("\u{2019}") {
            return "JSON strings take straight double quotes (\")"
        }
        return near.isEmpty ? nil : "near \(JSONValue.quote(near))"
    }

    /// A literal short enough for a one-line message.
    private func shortened(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(40)) + "..."
    }

    /// Two uppercase hexadecimal digits.
    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }
}
