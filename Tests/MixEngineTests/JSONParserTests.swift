import Foundation  // Data, Thread, Date; JSONSerialization only as a cross-check
@testable import MixEngine
import Testing

/// `JSONParser`: every kind of value, escapes, numbers at Double's limits, the position and wording of every
/// syntax error, duplicate keys, the nesting limit, invalid UTF-8, speed; and agreement with Foundation's
/// `JSONSerialization` on what is JSON at all.
@Suite struct JSONParserTests {
    // MARK: - Helpers

    static func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    /// The error parsing `bytes` throws; records an issue if it parses.
    static func error(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> JSONSyntaxError? {
        do {
            let value = try JSONValue.parse(bytes)
            Issue.record("expected an error, got \(value)", sourceLocation: sourceLocation)
        } catch let error as JSONSyntaxError {
            return error
        } catch {
            Issue.record("expected a JSONSyntaxError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// Parsing `bytes` fails with exactly `message`, at the JSON path `path`.
    static func expectError(_ bytes: [UInt8], _ message: String, path: String = "",
                            sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = error(bytes, sourceLocation: sourceLocation) else { return }
        #expect(error.message == message, sourceLocation: sourceLocation)
        #expect(error.jsonPath == path, sourceLocation: sourceLocation)
    }

    static func expectError(_ text: String, _ message: String, path: String = "",
                            sourceLocation: SourceLocation = #_sourceLocation) {
        expectError(Array(text.utf8), message, path: path, sourceLocation: sourceLocation)
    }

    static func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    // MARK: - Values

    @Test func everyValueType() throws {
        let value = try Self.parse(#"""
            {"null": null, "true": true, "false": false, "int": 42, "negative": -7, "real": 2.5, "exponent": -1.5e3,
             "string": "text", "empty": "", "array": [1, "two", [], {}], "object": {"k": "v"}}
            """#)
        #expect(value == .object([
            "null": .null, "true": .bool(true), "false": .bool(false), "int": .number(42), "negative": .number(-7),
            "real": .number(2.5), "exponent": .number(-1500), "string": .string("text"), "empty": .string(""),
            "array": .array([.number(1), .string("two"), .array([]), .object([:])]), "object": .object(["k": .string("v")]),
        ]))
    }

    @Test(arguments: [
        ("null", JSONValue.null), (" true ", .bool(true)), ("false", .bool(false)), ("0", .number(0)),
        ("\"x\"", .string("x")), ("[]", .array([])), ("{}", .object([:])), ("\t\r\n 7 \n", .number(7)),
        ("[ 1 , [ ] , { } ]", .array([.number(1), .array([]), .object([:])])),
    ])
    func anyValueCanBeTheDocument(text: String, expected: JSONValue) throws {
        #expect(try Self.parse(text) == expected)
    }

    @Test func dataAndBytesParseAlike() throws {
        let text = #"{"a": [1, true, "é"]}"#
        #expect(try JSONValue.parse(Data(text.utf8)) == (try Self.parse(text)))
    }

    @Test func booleansStayApartFromNumbers() throws {
        #expect(try Self.parse("[true, false, 1, 0]") == .array([.bool(true), .bool(false), .number(1), .number(0)]))
        #expect(JSONValue.bool(true) != .number(1))
        #expect(JSONValue.bool(false) != .number(0))
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        #expect(try JSONValue.parse(Self.bom + Array("[1]".utf8)) == .array([.number(1)]))
        Self.expectError(Self.bom, "malformed JSON: the file is empty")
        // Positions count from after the mark.
        Self.expectError(Self.bom + Array(#"{"a": x}"#.utf8), "malformed JSON: invalid value at line 1, column 7 (near 'x}')")
    }

    // MARK: - Strings

    @Test func escapes() throws {
        #expect(try Self.parse(#""\" \\ \/ \b \f \n \r \t""#) == .string("\" \\ / \u{8} \u{C} \n \r \t"))
        #expect(try Self.parse(#""\u0041\u00e9\u00E9\u20AC\u0000""#) == .string("Aéé€\u{0}"))
        // Surrogate pairs: U+1F3B5 and the last code point, U+10FFFF.
        #expect(try Self.parse(#""\uD83C\uDFB5 \udbff\udfff""#) == .string("🎵 \u{10FFFF}"))
        // Raw UTF-8 is taken as it is, with or without escapes beside it; DEL needs no escape.
        #expect(try Self.parse("\"é€🎵\u{7F}\"") == .string("é€🎵\u{7F}"))
        #expect(try Self.parse("\"é\\n€\\u00e9🎵\"") == .string("é\n€é🎵"))
        #expect(try Self.parse(#"{"\u0061": "\u0062"}"#) == .object(["a": .string("b")]))
    }

    @Test func stringErrors() {
        Self.expectError("\"abc", "malformed JSON: unexpected end of file: the string starting at line 1, column 1 is not closed")
        Self.expectError("[\"a\", \"\\", "malformed JSON: unexpected end of file: the string starting at line 1, column 7 is not closed")
        Self.expectError("\"\\u12", "malformed JSON: unexpected end of file: the string starting at line 1, column 1 is not closed")
        Self.expectError("{\"name\": \"rain\n}",
                         "malformed JSON: line break in a string at line 1, column 15 (is a closing '\"' missing? Inside a string, write a line break as \\n)")
        Self.expectError("\"a\tb\"", "malformed JSON: control character U+0009 in a string at line 1, column 3 (write it as \\t)")
        Self.expectError("\"a\u{1}b\"", "malformed JSON: control character U+0001 in a string at line 1, column 3 (write it as \\u0001)")
        Self.expectError("\"a\u{1F}b\"", "malformed JSON: control character U+001F in a string at line 1, column 3 (write it as \\u001F)")
        Self.expectError(#"["ok", "\x"]"#,
                         #"malformed JSON: invalid escape '\x' in a string at line 1, column 9 (JSON's escapes are \" \\ \/ \b \f \n \r \t and \uXXXX)"#)
        Self.expectError(#""\'""#,
                         #"malformed JSON: invalid escape '\'' in a string at line 1, column 2 (JSON's escapes are \" \\ \/ \b \f \n \r \t and \uXXXX)"#)
        Self.expectError(#""\u12G4""#, #"malformed JSON: invalid escape '\u12G4' in a string at line 1, column 2 (\u takes 4 hexadecimal digits)"#)
        Self.expectError(#""\u""#, #"malformed JSON: invalid escape '\u"' in a string at line 1, column 2 (\u takes 4 hexadecimal digits)"#)
    }

    @Test func loneSurrogatesAreRejected() {
        let high = "a \\uD800-\\uDBFF escape must be followed by a \\uDC00-\\uDFFF one"
        Self.expectError(#""\uD800""#, #"malformed JSON: unpaired surrogate '\uD800' in a string at line 1, column 2 ("# + high + ")")
        Self.expectError(#""ab\uD83Cx""#, #"malformed JSON: unpaired surrogate '\uD83C' in a string at line 1, column 4 ("# + high + ")")
        Self.expectError(#""\uD800\u0041""#, #"malformed JSON: unpaired surrogate '\uD800' in a string at line 1, column 2 ("# + high + ")")
        Self.expectError(#""\uD800\uD800""#, #"malformed JSON: unpaired surrogate '\uD800' in a string at line 1, column 2 ("# + high + ")")
        Self.expectError(#""\uD800\n""#, #"malformed JSON: unpaired surrogate '\uD800' in a string at line 1, column 2 ("# + high + ")")
        Self.expectError(#""\uDC00x""#,
                         #"malformed JSON: unpaired surrogate '\uDC00' in a string at line 1, column 2 (a \uDC00-\uDFFF escape must follow a \uD800-\uDBFF one)"#)
        Self.expectError(#""\uD800\u12""#, #"malformed JSON: invalid escape '\u12"' in a string at line 1, column 8 (\u takes 4 hexadecimal digits)"#)
    }

    @Test func invalidUTF8IsRejectedWhereItIs() {
        let quote: UInt8 = 0x22
        Self.expectError([quote, 0xFF, quote], "malformed JSON: invalid UTF-8 at line 1, column 2 (byte 0xFF)")
        Self.expectError([quote, 0x80, quote], "malformed JSON: invalid UTF-8 at line 1, column 2 (byte 0x80)")       // a lone continuation byte
        Self.expectError([quote, 0xC0, 0xAF, quote], "malformed JSON: invalid UTF-8 at line 1, column 2 (byte 0xC0)") // overlong '/'
        Self.expectError([quote, 0xE0, 0x80, 0xAF, quote], "malformed JSON: invalid UTF-8 at line 1, column 2 (bytes 0xE0 0x80)")
        Self.expectError([quote, 0xED, 0xA0, 0x80, quote], "malformed JSON: invalid UTF-8 at line 1, column 2 (bytes 0xED 0xA0)") // U+D800
        Self.expectError([quote, 0xF4, 0x90, 0x80, 0x80, quote], "malformed JSON: invalid UTF-8 at line 1, column 2 (bytes 0xF4 0x90)") // past U+10FFFF
        Self.expectError([quote, 0xF0, 0x9F, 0x8E, quote], "malformed JSON: invalid UTF-8 at line 1, column 2 (bytes 0xF0 0x9F 0x8E 0x22)")
        Self.expectError([quote, 0xE2, 0x82], "malformed JSON: invalid UTF-8 at line 1, column 2 (bytes 0xE2 0x82)")  // cut short by the end
        Self.expectError(Array(#"{"a"#.utf8) + [0xFF] + Array(#"": 1}"#.utf8), "malformed JSON: invalid UTF-8 at line 1, column 4 (byte 0xFF)")
        Self.expectError([0x5B, 0xFF, 0x5D], "malformed JSON: invalid UTF-8 at line 1, column 2 (byte 0xFF)")            // outside a string
        Self.expectError(Array("[1] ".utf8) + [0xFE], "malformed JSON: invalid UTF-8 at line 1, column 5 (byte 0xFE)")
        // Columns count characters: é, € and 🎵 are one each.
        Self.expectError(Array("[\"é€🎵\",\n \"ü".utf8) + [0xFF, quote, 0x5D],
                         "malformed JSON: invalid UTF-8 at line 2, column 4 (byte 0xFF)")
        // UTF-16 is not read.
        Self.expectError([0xFE, 0xFF, 0x00, 0x31], "malformed JSON: invalid UTF-8 at line 1, column 1 (byte 0xFE)")
    }

    // MARK: - Numbers

    @Test(arguments: [
        ("0", 0.0), ("-1", -1), ("1.5", 1.5), ("1e2", 100), ("1E+2", 100), ("1e-2", 0.01), ("0.1", 0.1),
        ("2.5e-3", 0.0025), ("-0.0", 0), ("123456789012345", 123_456_789_012_345),
        ("1234567890123456789", 1_234_567_890_123_456_768), ("9007199254740993", 9_007_199_254_740_992),
        ("1.7976931348623157e308", .greatestFiniteMagnitude), ("-1.7976931348623157e308", -.greatestFiniteMagnitude),
        ("2.2250738585072014e-308", .leastNormalMagnitude), ("5e-324", .leastNonzeroMagnitude),
        ("4.9406564584124654e-324", .leastNonzeroMagnitude), ("1e-320", .leastNonzeroMagnitude * 2024), ("0e-999", 0), ("0.000e99999", 0),
        ("1" + String(repeating: "0", count: 300), 1e300),
    ])
    func numbersAreCorrectlyRounded(text: String, expected: Double) throws {
        #expect(try Self.parse(text) == .number(expected))
    }

    @Test func negativeZeroKeepsItsSign() throws {
        for text in ["-0", "-0.0", "-0e5"] {
            guard case .number(let zero) = try Self.parse(text) else { Issue.record("\(text) is not a number"); continue }
            #expect(zero == 0 && zero.sign == .minus, "\(text)")
        }
    }

    @Test func numbersBeyondDoubleAreErrors() {
        Self.expectError("1e999", "malformed JSON: number 1e999 is too large at line 1, column 1 (near '1e999')")
        Self.expectError("[\n  -1.8e308]", "malformed JSON: number -1.8e308 is too large at line 2, column 3 (near '-1.8e308]')")
        Self.expectError("1" + String(repeating: "0", count: 309),
                         "malformed JSON: number \("1" + String(repeating: "0", count: 39))... is too large at line 1, column 1 (near '1000000000000000')")
        // A literal that is not 0 but rounds to 0 is an error at its JSON path, once the syntax is known to be right.
        let tiny = "cannot read this number: it is too large or too close to 0 for a 64-bit float"
        Self.expectError(#"{"a": [1, -1e-400]}"#, tiny, path: "a[1]")
        Self.expectError("2e-324", tiny)
        Self.expectError("0.00001e-320", tiny)
        Self.expectError(#"{"a": 1e-400, "b": [1, ]}"#,
                         "malformed JSON: trailing comma after the last element of an array at line 1, column 22 (near ', ]}')")
    }

    @Test func numberErrors() {
        Self.expectError("[01]", "malformed JSON: invalid number '01' at line 1, column 2 (JSON numbers have no leading zeros)")
        Self.expectError("-007", "malformed JSON: invalid number '-007' at line 1, column 1 (JSON numbers have no leading zeros)")
        Self.expectError("[-]", "malformed JSON: invalid number '-' at line 1, column 2 (a '-' must be followed by digits)")
        Self.expectError("- 1", "malformed JSON: invalid number '-' at line 1, column 1 (a '-' must be followed by digits)")
        Self.expectError("-.5", "malformed JSON: invalid number '-.5' at line 1, column 1 (a '-' must be followed by digits)")
        Self.expectError(#"{"pan": .5}"#, "malformed JSON: invalid number '.5' at line 1, column 9 (a number starts with a digit: write 0.5, not .5)")
        Self.expectError("[1.]", "malformed JSON: invalid number '1.' at line 1, column 2 (a '.' must be followed by digits)")
        Self.expectError("1.e5", "malformed JSON: invalid number '1.e5' at line 1, column 1 (a '.' must be followed by digits)")
        Self.expectError("1e", "malformed JSON: invalid number '1e' at line 1, column 1 (an exponent must have digits, as in 1e6 or 2.5E-3)")
        Self.expectError("[2E+]", "malformed JSON: invalid number '2E+' at line 1, column 2 (an exponent must have digits, as in 1e6 or 2.5E-3)")
        Self.expectError("+1", "malformed JSON: invalid number '+1' at line 1, column 1 (JSON numbers take no '+' sign)")
        Self.expectError("0x1F", "malformed JSON: invalid number '0x1F' at line 1, column 1 (JSON numbers are decimal)")
        Self.expectError("[1.5.3]", "malformed JSON: invalid number '1.5.3' at line 1, column 2 (near '1.5.3]')")
        Self.expectError("12dB", "malformed JSON: invalid number '12dB' at line 1, column 1 (near '12dB')")
        for text in ["NaN", "nan", "Infinity", "-Infinity", "inf", "-inf"] {
            Self.expectError("[\(text)]", "malformed JSON: invalid value at line 1, column 2 (JSON has no NaN or Infinity)")
        }
    }

    // MARK: - Syntax errors

    @Test func structureErrors() {
        Self.expectError("[1, 2,]", "malformed JSON: trailing comma after the last element of an array at line 1, column 6 (near ',]')")
        Self.expectError("{\"a\": 1,\n}", "malformed JSON: trailing comma after the last member of an object at line 1, column 8 (near ',')")
        Self.expectError(#"{"a": 1 "b": 2}"#, #"malformed JSON: expected ',' or '}' after an object member at line 1, column 9 (near '"b": 2}')"#)
        Self.expectError("[1 2]", "malformed JSON: expected ',' or ']' after an array element at line 1, column 4 (near '2]')")
        Self.expectError("[{}}", "malformed JSON: expected ',' or ']' after an array element at line 1, column 4 (near '}')")
        Self.expectError(#"{"a" 1}"#, "malformed JSON: expected ':' after the key 'a' at line 1, column 6 (near '1}')")
        Self.expectError(#"{"a" = 1}"#, "malformed JSON: expected ':' after the key 'a' at line 1, column 6 (near '= 1}')")
        Self.expectError("{a: 1}", "malformed JSON: expected a key (a string in double quotes) or '}' at line 1, column 2 (near 'a: 1}')")
        Self.expectError(#"{"a": 1, b: 2}"#, "malformed JSON: expected a key (a string in double quotes) after ',' at line 1, column 10 (near 'b: 2}')")
        Self.expectError("{'a': 1}", "malformed JSON: expected a key (a string in double quotes) or '}' at line 1, column 2 (JSON strings take double quotes)")
        Self.expectError("{,}", "malformed JSON: expected a key (a string in double quotes) or '}' at line 1, column 2 (near ',}')")
        Self.expectError("[,]", "malformed JSON: invalid value at line 1, column 2 (near ',]')")
        Self.expectError(#"{"a": }"#, "malformed JSON: invalid value at line 1, column 7 (near '}')")
        Self.expectError("[1, }", "malformed JSON: invalid value at line 1, column 5 (near '}')")
        Self.expectError("[True]", "malformed JSON: invalid value at line 1, column 2 (JSON writes true, false and null in lower case)")
        Self.expectError("[tru]", "malformed JSON: invalid value at line 1, column 2 (near 'tru]')")
        Self.expectError("[truex]", "malformed JSON: invalid value at line 1, column 2 (near 'truex]')")
        Self.expectError(#"{"a": 'x'}"#, "malformed JSON: invalid value at line 1, column 7 (JSON strings take double quotes)")
        Self.expectError(#"{"a": “x”}"#, #"malformed JSON: invalid value at line 1, column 7 (JSON strings take straight double quotes ("))"#)
        Self.expectError("[\u{0}]", "malformed JSON: invalid value at line 1, column 2 (near '\\u{0}]')")
        Self.expectError("\u{C}1", "malformed JSON: invalid value at line 1, column 1 (near '\\u{c}1')")   // form feed is not whitespace
        Self.expectError("{\"a\": 1 // the gain\n}", "malformed JSON: unexpected comment at line 1, column 9 (JSON has no comments)")
        Self.expectError("/* preset */ {}", "malformed JSON: unexpected comment at line 1, column 1 (JSON has no comments)")
        Self.expectError("{} x", "malformed JSON: unexpected text after the JSON document at line 1, column 4 (near 'x')")
        Self.expectError("{}\n{}", "malformed JSON: unexpected text after the JSON document at line 2, column 1 (near '{}')")
        Self.expectError("1 2", "malformed JSON: unexpected text after the JSON document at line 1, column 3 (near '2')")
    }

    @Test func endOfFileErrors() {
        Self.expectError("", "malformed JSON: the file is empty")
        Self.expectError(" \n\t\r\n ", "malformed JSON: the file is empty")
        Self.expectError(#"{"duration": "8h", "tracks": ["#,
                         "malformed JSON: unexpected end of file: the array opened at line 1, column 30 is not closed")
        Self.expectError("{\n  \"a\":", "malformed JSON: unexpected end of file: the object opened at line 1, column 1 is not closed")
        Self.expectError(#"{"a""#, "malformed JSON: unexpected end of file: the object opened at line 1, column 1 is not closed")
        Self.expectError(#"{"a": [1], "#, "malformed JSON: unexpected end of file: the object opened at line 1, column 1 is not closed")
        Self.expectError("[[1], [2", "malformed JSON: unexpected end of file: the array opened at line 1, column 7 is not closed")
    }

    @Test func positionsCountLinesAndCharacters() {
        // Columns count characters, not bytes: é is 2 bytes, 👍🏽 is 8 bytes and 2 scalars, each one character.
        Self.expectError(#"{"é": x}"#, "malformed JSON: invalid value at line 1, column 7 (near 'x}')")
        Self.expectError(#"["👍🏽", x]"#, "malformed JSON: invalid value at line 1, column 7 (near 'x]')")
        // Lines end at line feeds, CR LF included; the near text stops at the end of the line.
        Self.expectError("\r\n[\r\n  1,,\r\n]", "malformed JSON: invalid value at line 3, column 5 (near ',')")
        Self.expectError("{\n  \"duration\": \"8h\",\n  \"tracks\": [1, 2,, 3]\n}",
                         "malformed JSON: invalid value at line 3, column 19 (near ', 3]')")
        // The near text is at most 16 characters.
        Self.expectError("[1, ?abcdefghijklmnopqrstuvwxyz]", "malformed JSON: invalid value at line 1, column 5 (near '?abcdefghijklmno')")
    }

    // MARK: - Duplicate keys

    @Test func duplicateKeysAreFoundAfterUnescaping() {
        let once = "; each key may appear once in an object"
        Self.expectError(#"{"a": 1, "\u0061": 2}"#, "duplicate key 'a'" + once)
        Self.expectError(#"{"é": 1, "\u00e9": 2}"#, "duplicate key 'é'" + once)
        Self.expectError(#"{"x": [{}, {"k": 1, "k": 2}]}"#, "duplicate key 'k'" + once, path: "x[1]")
        // The first one in the document is reported: an inner object is finished before its parent goes on.
        Self.expectError(#"{"a": {"b": 1, "b": 2}, "a": 3, "c": {"d": 1, "d": 2}}"#, "duplicate key 'b'" + once, path: "a")
        // Swift strings compare canonically equivalent spellings as equal; the tree could keep only one of them.
        Self.expectError(#"{"\u00e9": 1, "e\u0301": 2}"#, "duplicate key 'é'" + once)
        // A syntax error anywhere comes first; a duplicate key comes before an unreadable number.
        Self.expectError(#"{"a": 1, "a": 2, }"#, "malformed JSON: trailing comma after the last member of an object at line 1, column 16 (near ', }')")
        Self.expectError(#"[1e-400, {"a": 1, "a": 2}]"#, "duplicate key 'a'" + once, path: "[1]")
    }

    @Test func equalKeysInDifferentObjectsAreFine() throws {
        #expect(try Self.parse(#"[{"a": 1}, {"a": 2, "b": {"a": 3}}]"#)
                == .array([.object(["a": .number(1)]), .object(["a": .number(2), "b": .object(["a": .number(3)])])]))
        #expect(try Self.parse(#"{"a": 1, "A": 2, "a ": 3}"#) == .object(["a": .number(1), "A": .number(2), "a ": .number(3)]))
    }

    // MARK: - Limits

    @Test func nestingIsLimitedTo512() throws {
        #expect(JSONParser.maximumDepth == 512)
        // 512 levels parse, even unoptimised on a thread with a 1 MiB stack (they take about 0.5 MiB there,
        // about 100 KiB optimised).
        let deepest = Array((String(repeating: #"[{"a":"#, count: 256) + "1" + String(repeating: "}]", count: 256)).utf8)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var parsed: JSONValue?
        let thread = Thread { [done] in
            parsed = try? JSONValue.parse(deepest)
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        done.wait()
        var value = try #require(parsed)
        var depth = 0
        while true {
            switch value {
            case .array(let elements) where elements.count == 1: value = elements[0]
            case .object(let members) where members.count == 1 && members["a"] != nil: value = members["a"]!
            default: break
            }
            guard value != .number(1) else { depth += 1; break }   // the innermost container held the 1
            depth += 1
        }
        #expect(depth == 512 && value == .number(1))
        #expect(try Self.parse(Self.nested(512)) != .null)

        let limit = "malformed JSON: arrays and objects nested too deep at line 1, column 513 (the limit is 512 levels)"
        Self.expectError(Self.nested(513), limit)
        Self.expectError(String(repeating: "[", count: 1_000_000), limit)   // an error, not a stack overflow
        Self.expectError(String(repeating: #"{"a":"#, count: 600),
                         "malformed JSON: arrays and objects nested too deep at line 1, column 2561 (the limit is 512 levels)")
    }

    /// A 1 MB preset parses in milliseconds (about 15 ms optimised, 90 ms in a debug build); nothing is
    /// quadratic in the size of the document, an object, a string or the line an error is on.
    @Test func largeDocumentsParseQuickly() throws {
        var tracks: [String] = []
        var size = 0
        while size < 1_000_000 {
            let i = tracks.count
            let track = #"{"name": "Rain \u00e9 \#(i) café", "file": "sounds/rain-\#(i).ogg", "gainDb": -\#(i % 24).5, "pan": 0.25, "#
                + #""loop": true, "envelope": [{"time": \#(i), "gainDb": -3.0e0}, {"time": "1h30m", "gainDb": 1234567890123456789}]}"#
            tracks.append(track)
            size += track.utf8.count + 2
        }
        let preset = Array(#"{"duration": "8h", "tracks": ["#.utf8) + Array(tracks.joined(separator: ",\n").utf8) + Array("]}".utf8)
        let manyKeys = Array(("{" + (0..<50_000).map { #""key\#($0)": \#($0)"# }.joined(separator: ", ") + "}").utf8)
        let longString = Array(("\"" + String(repeating: #"abc\n\u00e9é"#, count: 100_000) + "\"").utf8)
        let errorAtTheEnd = Array(String(repeating: " ", count: 1_000_000).utf8) + Array("{\"a\": 1,}".utf8)

        let start = Date()
        guard case .object(let root) = try JSONValue.parse(preset), case .array(let parsedTracks)? = root["tracks"] else {
            Issue.record("not a preset")
            return
        }
        #expect(parsedTracks.count == tracks.count)
        guard case .object(let keys) = try JSONValue.parse(manyKeys) else { Issue.record("not an object"); return }
        #expect(keys.count == 50_000 && keys["key49999"] == .number(49_999))
        #expect(try JSONValue.parse(longString) == .string(String(repeating: "abc\néé", count: 100_000)))
        Self.expectError(errorAtTheEnd, "malformed JSON: trailing comma after the last member of an object at line 1, column 1000008 (near ',}')")
        let seconds = Date().timeIntervalSince(start)
        #expect(seconds < 2, "4 MB of JSON took \(seconds) s")
    }

    // MARK: - Agreement with Foundation

    /// Inputs Foundation's `JSONSerialization` and this parser both accept or both reject. (They differ, by
    /// design, on trailing commas, duplicate keys and non-zero numbers that round to 0, which Foundation takes:
    /// see `foundationIsLaxerOn`.)
    static let crossCheck: [[UInt8]] = [
        // Accepted.
        "0", "-0", "1.5e10", "1E-5", "-12.75E+2", "123456789012345678901234567890", "[]", "{}", "[1,[2,[3]]]", "\"\"",
        #""\u0000""#, #""\uD83C\uDFB5""#, #""\/\b\f\n\r\t\"\\""#, "\"\u{7F}\"", "\"é€🎵👍🏽\"", " \t\r\n[ ] ",
        #"{"a":{"b":[true,false,null]}}"#, #"{"a":1,"b":2}"#, "true", "null", nested(512),
        // Rejected.
        "", " ", "[", "]", "{", "}", "[1,,2]", "[,1]", "{,}", #"{"a"}"#, #"{"a":}"#, #"{"a" 1}"#, "{1:2}", "{'a':1}",
        "['a']", "[1 2]", "01", "-01", "00", "-", "--1", "+1", ".5", "1.", "1.e5", "1e", "1e+", "0x10", "NaN", "Infinity",
        "-Infinity", "nan", "tru", "True", "nul", "\"abc", "\"a\nb\"", "\"a\tb\"", #""\x""#, #""\u12G4""#, #""\uD800""#,
        #""\uDC00""#, #""\uD800\u0041""#, "[1] x", "{}{}", "1 2", "[1]//c", "/*c*/1", "\u{C}1", "\u{A0}1", "\"\\\"",
        "1e999", "-1e999", nested(513),
    ].map { Array($0.utf8) } + [
        bom + Array("{}".utf8),                         // accepted
        [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
        [0x22, 0xE2, 0x82, 0x22], [0x5B, 0x80, 0x5D],  // rejected: invalid UTF-8
    ]

    @Test(arguments: crossCheck)
    func acceptsWhatFoundationAccepts(bytes: [UInt8]) {
        let ours = Result { try JSONValue.parse(bytes) }
        let foundation = Result { try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) }
        let shown = String(decoding: bytes.prefix(40), as: UTF8.self).debugDescription
        switch (ours, foundation) {
        case (.success(let value), .success(let object)):
            #expect(Self.sameValue(value, object), "\(shown): \(value) vs \(object)")
        case (.failure, .failure):
            break
        case (.success(let value), .failure(let error)):
            Issue.record("\(shown): accepted as \(value); Foundation rejects it: \(error)")
        case (.failure(let error), .success(let object)):
            Issue.record("\(shown): rejected with \(error); Foundation accepts it as \(object)")
        }
    }

    /// `value` and what `JSONSerialization` made of the same text are alike (Foundation's booleans may be numbers).
    static func sameValue(_ value: JSONValue, _ object: Any) -> Bool {
        switch value {
        case .null: return object is NSNull
        case .bool(let flag): return (object as? Bool) == flag || (object as? NSNumber)?.intValue == (flag ? 1 : 0)
        case .number(let number): return (object as? NSNumber)?.doubleValue == number
        case .string(let text): return (object as? String) == text
        case .array(let elements):
            guard let objects = object as? [Any], objects.count == elements.count else { return false }
            return zip(elements, objects).allSatisfy { sameValue($0, $1) }
        case .object(let members):
            guard let objects = object as? [String: Any], objects.count == members.count else { return false }
            return members.allSatisfy { key, member in objects[key].map { sameValue(member, $0) } ?? false }
        }
    }

    /// Where this parser is stricter than Foundation on purpose: each of these is an error here.
    @Test(arguments: [
        ("[1,]", "malformed JSON: trailing comma after the last element of an array at line 1, column 3 (near ',]')", ""),
        (#"{"a":1,}"#, "malformed JSON: trailing comma after the last member of an object at line 1, column 7 (near ',}')", ""),
        (#"{"a":1,"a":2}"#, "duplicate key 'a'; each key may appear once in an object", ""),
        ("[1e-400]", "cannot read this number: it is too large or too close to 0 for a 64-bit float", "[0]"),
    ])
    func foundationIsLaxerOn(text: String, message: String, path: String) {
        Self.expectError(text, message, path: path)
    }
}
