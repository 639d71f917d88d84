/// The SSML mixrender accepts, and what it means: `<speak>`, `<break>`, `<prosody>`, `<emphasis>` and
/// `<say-as>` with their plain attributes, text, and the five XML entities and numeric character references.
/// Anything else (`<audio>`, which espeak-ng hands to `system()`, `<!DOCTYPE>` and entities, processing
/// instructions, any other element or attribute) is refused before a text reaches an engine: by the preset's
/// reader (with the JSON path), and again by the espeak-ng helper itself.
///
/// `pieces` turns accepted markup into what the neural voice says: runs of text at a pace factor, and pauses.
/// A value; allocates its pieces. `Sendable`.
public struct SSMLSubset: Sendable, Equatable {
    /// A run of text at a pace (a factor of the voice's speed), or a pause in seconds.
    public enum Piece: Sendable, Equatable {
        case text(String, speed: Double)
        case pause(Double)
    }

    public let pieces: [Piece]

    /// The elements and the attributes each may carry.
    public static let elements: [String: Set<String>] = [
        "speak": ["version", "xmlns", "xml:lang"],
        "break": ["time", "strength"],
        "prosody": ["rate", "pitch", "volume"],
        "emphasis": ["level"],
        "say-as": ["interpret-as", "format", "detail"],
    ]

    /// `text` as SSML text: `&`, `<` and `>` as entities, and with `quotes` (text that may stand inside an attribute's
    /// value) `"` and `'` too. Escaped text can never become markup: the one escaper for text put into SSML (espeak-ng's
    /// pauses, a template's text variables).
    public static func escaped(_ text: some StringProtocol, quotes: Bool = true) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "'" where quotes: out += "&apos;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The longest `<break>`: a minute (a section's `length` or a segment's `pauseAfter` makes longer silences).
    public static let longestBreak = 60.0

    /// Parses `markup`; throws `SSMLSubset.Refusal` naming the first thing outside the subset.
    public init(_ markup: String) throws {
        var pieces: [Piece] = []
        var rates: [Double] = [1]
        var open: [String] = []
        var text = ""
        func flush() {
            if text.contains(where: { !$0.isWhitespace }) { pieces.append(.text(text, speed: rates.last!)) }
            text = ""
        }
        var i = markup.startIndex
        while i < markup.endIndex {
            let c = markup[i]
            if c == "&" {
                guard let semicolon = markup[i...].firstIndex(of: ";"), markup.distance(from: i, to: semicolon) <= 10 else {
                    throw Refusal("'&' must start an entity such as &amp;")
                }
                text.append(try Self.entity(String(markup[markup.index(after: i)..<semicolon])))
                i = markup.index(after: semicolon)
                continue
            }
            guard c == "<" else { text.append(c); i = markup.index(after: i); continue }
            guard let close = markup[i...].firstIndex(of: ">") else { throw Refusal("a '<' without its '>'") }
            var tag = markup[markup.index(after: i)..<close]
            i = markup.index(after: close)
            if tag.hasPrefix("!") || tag.hasPrefix("?") {
                throw Refusal("'<\(tag.prefix(12))' (declarations, comments and processing instructions) is not allowed")
            }
            if tag.hasPrefix("/") {
                let name = tag.dropFirst().trimmingWhitespace()
                guard open.last == name else { throw Refusal("</\(name)> closes nothing open") }
                open.removeLast()
                if name == "prosody" { flush(); rates.removeLast() }
                continue
            }
            let selfClosing = tag.hasSuffix("/")
            if selfClosing { tag = tag.dropLast() }
            let (name, attributes) = try Self.parse(tag)
            guard let allowed = Self.elements[name] else {
                throw Refusal("<\(name)> is not allowed; SSML here is <speak>, <break>, <prosody>, <emphasis> and <say-as>")
            }
            for (key, _) in attributes where !allowed.contains(key) {
                throw Refusal("<\(name)> takes no '\(key)' attribute; it takes " + allowed.sorted().map { "'\($0)'" }.joined(separator: ", "))
            }
            switch name {
            case "break":
                guard selfClosing else { throw Refusal("<break> must be empty: <break time=\"1s\"/>") }
                flush()
                pieces.append(.pause(try Self.breakSeconds(attributes)))
            case "prosody":
                if !selfClosing {
                    flush()
                    rates.append(rates.last! * (try attributes.first(where: { $0.0 == "rate" }).map { try Self.rate($0.1) } ?? 1))
                    open.append(name)
                }
            default:
                if !selfClosing { open.append(name) }
            }
        }
        guard open.isEmpty else { throw Refusal("<\(open.last!)> is never closed") }
        flush()
        self.pieces = pieces
    }

    /// Why markup was refused, in one phrase.
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ description: String) { self.description = "SSML: " + description }
    }

    private static func entity(_ name: String) throws -> Character {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            let hex = name.hasPrefix("#x") || name.hasPrefix("#X")
            if name.hasPrefix("#"), let code = UInt32(name.dropFirst(hex ? 2 : 1), radix: hex ? 16 : 10),
               code != 0, let scalar = Unicode.Scalar(code) {
                return Character(scalar)
            }
            throw Refusal("the entity '&\(name);' is not allowed (only &amp; &lt; &gt; &quot; &apos; and &#...;)")
        }
    }

    /// `name a="1" b='2'`: the element's name and attributes.
    private static func parse(_ tag: Substring) throws -> (String, [(String, String)]) {
        var rest = tag.trimmingWhitespace()[...]
        let name = String(rest.prefix { !$0.isWhitespace })
        guard !name.isEmpty else { throw Refusal("an empty tag '<>'") }
        rest = rest.dropFirst(name.count)
        var attributes: [(String, String)] = []
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.isEmpty { break }
            guard let equals = rest.firstIndex(of: "=") else { throw Refusal("<\(name)>: an attribute without a value") }
            let key = String(rest[..<equals]).trimmingWhitespace()
            rest = rest[rest.index(after: equals)...].drop { $0.isWhitespace }
            guard let quote = rest.first, quote == "\"" || quote == "'",
                  let end = rest.dropFirst().firstIndex(of: quote) else { throw Refusal("<\(name)>: the value of '\(key)' must be quoted") }
            attributes.append((key, String(rest[rest.index(after: rest.startIndex)..<end])))
            rest = rest[rest.index(after: end)...]
        }
        return (name, attributes)
    }

    private static func breakSeconds(_ attributes: [(String, String)]) throws -> Double {
        if let time = attributes.first(where: { $0.0 == "time" })?.1 {
            let value = time.trimmingWhitespace()
            let seconds: Double?
            if value.hasSuffix("ms") { seconds = Double(value.dropLast(2)).map { $0 / 1000 } }
            else if value.hasSuffix("s") { seconds = Double(value.dropLast()) }
            else { seconds = nil }
            guard let seconds, seconds >= 0, seconds <= longestBreak else {
                throw Refusal("<break time=\"\(time)\"> must be a time such as \"500ms\" or \"2s\", at most \(Int(longestBreak))s")
            }
            return seconds
        }
        let strengths: [String: Double] = ["none": 0, "x-weak": 0.1, "weak": 0.25, "medium": 0.5, "strong": 1, "x-strong": 2]
        let strength = attributes.first(where: { $0.0 == "strength" })?.1 ?? "medium"
        guard let seconds = strengths[strength] else {
            throw Refusal("<break strength=\"\(strength)\"> must be one of " + strengths.keys.sorted().joined(separator: ", "))
        }
        return seconds
    }

    /// A `<prosody rate>`: a word (`x-slow` 0.6 ... `x-fast` 1.5) or a percentage (`80%`).
    private static func rate(_ value: String) throws -> Double {
        let words: [String: Double] = ["x-slow": 0.6, "slow": 0.8, "medium": 1, "default": 1, "fast": 1.25, "x-fast": 1.5]
        if let factor = words[value] { return factor }
        if value.hasSuffix("%"), let percent = Double(value.dropLast()), percent >= 25, percent <= 400 { return percent / 100 }
        throw Refusal("<prosody rate=\"\(value)\"> must be x-slow, slow, medium, fast, x-fast or a percentage (25% to 400%)")
    }
}

private extension StringProtocol {
    /// Without the white space at either end.
    func trimmingWhitespace() -> String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
