/// A pronunciation lexicon: words a voice would guess wrong (a listener's name, a place, a brand) and a respelling of
/// each that every engine reads right (`"Aoife": "Eefa"`, `"Siobhan": "Shiv-awn"`), or its phonemes in IPA between
/// slashes (`"Aoife": "/ˈiːfə/"`). A value of a dictionary; `Sendable`, safe to share. Applied to a text before any
/// engine sees it (`SpeechSynthesizer.synthesize`), so it is honoured by every engine alike: a respelling as it is,
/// phonemes as the engine reads them (`SpeechEngine.phonemes(of:ipa:)`).
public struct Lexicon: Sendable, Hashable {
    /// Each word (folded to lower case) and its respelling, or its IPA between slashes.
    public private(set) var entries: [String: String] = [:]

    public init(_ entries: [String: String] = [:]) {
        for (word, respelling) in entries { self.entries[word.lowercased()] = respelling }
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// `other`'s entries over these (a segment's over the voice's).
    public func merging(_ other: Lexicon) -> Lexicon {
        var merged = self
        merged.entries.merge(other.entries) { _, new in new }
        return merged
    }

    /// The most entries, and the longest word and respelling.
    public static let maximumEntries = 1_000
    public static let maximumWordLength = 64
    public static let maximumRespellingLength = 256

    /// The IPA of an entry written between slashes (`/ˈiːfə/`), or nil for a respelling.
    static func ipa(_ value: String) -> String? {
        value.count > 2 && value.hasPrefix("/") && value.hasSuffix("/") ? String(value.dropFirst().dropLast()) : nil
    }

    /// Why `word` and `respelling` cannot be an entry, or nil when they can: a word is one word (no space, no
    /// markup), a respelling plain text with no markup or control character, IPA between slashes symbols `IPA` reads.
    public static func problem(word: String, respelling: String) -> String? {
        if word.isEmpty || word.count > maximumWordLength { return "a word is 1 to \(maximumWordLength) characters" }
        if word.contains(where: { $0.isWhitespace || "<>&\"".contains($0) }) { return "'\(word)' is not one word (no spaces or markup)" }
        if respelling.isEmpty || respelling.count > maximumRespellingLength { return "a respelling is 1 to \(maximumRespellingLength) characters" }
        if respelling.unicodeScalars.contains(where: { "<>&".unicodeScalars.contains($0) || $0.properties.generalCategory == .control }) {
            return "the respelling of '\(word)' holds markup or a control character"
        }
        if let ipa = ipa(respelling), let problem = IPA.problem(ipa) { return "the IPA of '\(word)' \(problem)" }
        if respelling.contains("[") || respelling.contains("]") { return "the respelling of '\(word)' holds '[' or ']' (phonemes are IPA between slashes: \"/ˈiːfə/\")" }
        return nil
    }

    /// `text` with each of its words that is an entry (whole words, any case) replaced by the entry's respelling, or
    /// by `phonemes(word, ipa)` for an entry in IPA. A word in a script written without spaces (Japanese, Chinese) is
    /// replaced wherever it occurs. In SSML only the text is changed, never a tag.
    public func apply(to text: String, ssml: Bool, phonemes: (String, String) -> String = { word, _ in word }) -> String {
        guard !entries.isEmpty else { return text }
        func saying(_ word: String, _ value: String) -> String { Self.ipa(value).map { phonemes(word, $0) } ?? value }
        let unspaced = entries.filter { $0.key.unicodeScalars.contains { UnspacedScript($0) != nil } }
        var out = ""
        var word = ""
        var inTag = false
        func flush() {
            guard !word.isEmpty else { return }
            out += entries[word.lowercased()].map { saying(word, $0) } ?? Self.replacingUnspaced(word, unspaced, saying)
            word = ""
        }
        for character in text {
            if ssml && character == "<" { flush(); inTag = true }
            if inTag {
                out.append(character)
                if character == ">" { inTag = false }
                continue
            }
            if character.isLetter || character.isNumber || character == "'" || character == "’" || character == "-" {
                word.append(character)
            } else {
                flush()
                out.append(character)
            }
        }
        flush()
        return out
    }

    /// `word` with every entry of `unspaced` in it replaced, longest entries first.
    private static func replacingUnspaced(_ word: String, _ unspaced: [String: String], _ saying: (String, String) -> String) -> String {
        guard !unspaced.isEmpty else { return word }
        var result = word
        for (key, value) in unspaced.sorted(by: { $0.key.count != $1.key.count ? $0.key.count > $1.key.count : $0.key < $1.key }) {
            result = result.replacingAll(key, with: saying(key, value))
        }
        return result
    }

    /// What a synthesis depends on of it, for a store's key: the entries in order.
    public var identity: String {
        entries.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
    }
}

private extension String {
    /// Every occurrence of `target` replaced by `replacement`, left to right.
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = "", rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
