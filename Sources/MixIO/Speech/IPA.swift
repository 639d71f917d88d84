/// A word's pronunciation in the International Phonetic Alphabet, as a lexicon gives it between slashes
/// (`"Aoife": "/ˈiːfə/"`), checked, and written in each engine's phonemes (`Lexicon.apply`): misaki's set for hibari
/// (the set its model was trained on: diphthongs as one letter, no length marks), espeak-ng's IPA as it is for the
/// Kokoro and Piper voices (their models read espeak-ng's IPA), and espeak-ng's own ASCII phoneme names for espeak-ng
/// (read inside `[[ ]]`). Every engine takes the stress mark just before the stressed vowel, as their own phonemizers
/// write it, so a mark written before the syllable's first consonant, as IPA dictionaries do, is moved there.
///
/// The symbols read are English's and the common ones of the European languages; a symbol outside them is a
/// problem named at the lexicon entry. A namespace of pure functions.
public enum IPA {
    /// Vowel symbols (a stress mark moves to just before the first one after it).
    static let vowels: Set<Unicode.Scalar> = Set("iyɨʉɯuɪʏʊeøɘɵɤoəɛœɜɞʌɔæɐaɶɑɒɚɝ".unicodeScalars)
    static let consonants: Set<Unicode.Scalar> = Set("pbtdʈɖcɟkɡgqɢʔmɱnɳɲŋɴʙrʀⱱɾɽɸβfvθðszʃʒʂʐçʝxɣχʁħʕhɦɬɮʋɹɻjɰlɭʎʟɫw".unicodeScalars)
    /// Stress, length, syllable and linking marks, tie bars, and the combining tilde of a nasal vowel.
    static let marks: Set<Unicode.Scalar> = Set("ˈˌːˑ.‿ \u{0361}\u{035C}\u{0303}".unicodeScalars)

    /// Why `ipa` (without its slashes) cannot be a word's pronunciation, or nil when it can.
    public static func problem(_ ipa: String) -> String? {
        guard ipa.unicodeScalars.contains(where: { vowels.contains($0) || consonants.contains($0) }) else {
            return "holds no IPA sound"
        }
        if let odd = ipa.unicodeScalars.first(where: { !vowels.contains($0) && !consonants.contains($0) && !marks.contains($0) }) {
            return "holds '\(odd)' (U+\(String(odd.value, radix: 16, uppercase: true))), which is not an IPA symbol mixrender reads"
        }
        return nil
    }

    /// The sounds of `ipa` without syllable and linking marks, each stress mark just before its vowel.
    static func normalised(_ ipa: String) -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = [], held: Unicode.Scalar?
        for scalar in ipa.unicodeScalars where !". ‿".unicodeScalars.contains(scalar) {
            if scalar == "ˈ" || scalar == "ˌ" { held = scalar; continue }
            if vowels.contains(scalar), let mark = held { out.append(mark); held = nil }
            out.append(scalar)
        }
        return out
    }

    /// espeak-ng's IPA, as the Kokoro and Piper voices read it.
    public static func espeakIPA(_ ipa: String) -> String {
        String(String.UnicodeScalarView(normalised(ipa).filter { $0 != "\u{0361}" && $0 != "\u{035C}" }))
    }

    /// misaki's phonemes (American English), as hibari reads them: `ˈiːfə` → `ˈifə`, `həˈloʊ` → `həlˈO`.
    public static func misaki(_ ipa: String) -> String {
        replacing(normalised(ipa), [
            ("tʃ", "ʧ"), ("t\u{0361}ʃ", "ʧ"), ("dʒ", "ʤ"), ("d\u{0361}ʒ", "ʤ"),
            ("eɪ", "A"), ("aɪ", "I"), ("aʊ", "W"), ("ɔɪ", "Y"), ("oʊ", "O"), ("əʊ", "O"),
            ("ɚ", "əɹ"), ("ɝ", "ɜɹ"), ("r", "ɹ"), ("g", "ɡ"), ("ɫ", "l"), ("e", "ɛ"), ("ɒ", "ɑ"), ("o", "O"), ("a", "ɑ"),
            ("ɐ", "ə"), ("ː", ""), ("ˑ", ""), ("\u{0361}", ""), ("\u{035C}", ""),
        ])
    }

    /// espeak-ng's ASCII phoneme names (its English table's), read inside `[[ ]]`: `ˈiːfə` → `'i:f@`.
    public static func espeak(_ ipa: String) -> String {
        replacing(normalised(ipa), [
            ("t\u{0361}ʃ", "tS"), ("tʃ", "tS"), ("d\u{0361}ʒ", "dZ"), ("dʒ", "dZ"),
            ("eɪ", "eI"), ("aɪ", "aI"), ("aʊ", "aU"), ("ɔɪ", "OI"), ("oʊ", "oU"), ("əʊ", "oU"),
            ("ɪə", "i@"), ("eə", "e@"), ("ʊə", "U@"), ("ɝ", "3:"),
            ("ɡ", "g"), ("θ", "T"), ("ð", "D"), ("ʃ", "S"), ("ʒ", "Z"), ("ŋ", "N"), ("ɹ", "r"), ("ʔ", "?"), ("ɾ", "t"), ("ɫ", "l"),
            ("ɪ", "I"), ("ɛ", "E"), ("æ", "a"), ("ɑ", "A"), ("ɒ", "0"), ("ɔ", "O"), ("ʊ", "U"), ("ʌ", "V"), ("ə", "@"), ("ɐ", "@"),
            ("ɜ", "3"), ("ɚ", "3"), ("ç", "C"), ("ø", "Y"), ("œ", "W"), ("ɲ", "n^"), ("ʎ", "l^"), ("ʁ", "R"), ("β", "B"), ("ɣ", "Q"),
            ("ɨ", "i\""), ("ˈ", "'"), ("ˌ", ","), ("ː", ":"), ("ˑ", ""), ("\u{0361}", ""), ("\u{035C}", ""), ("\u{0303}", "~"),
        ])
    }

    /// `scalars` with each pattern replaced, longest first at each position (the table's order breaks ties); a
    /// symbol no pattern names is kept.
    private static func replacing(_ scalars: [Unicode.Scalar], _ table: [(String, String)]) -> String {
        let patterns = table.map { (Array($0.0.unicodeScalars), $0.1) }.enumerated()
            .sorted { $0.element.0.count != $1.element.0.count ? $0.element.0.count > $1.element.0.count : $0.offset < $1.offset }
            .map(\.element)
        var out = "", i = 0
        while i < scalars.count {
            if let (pattern, replacement) = patterns.first(where: { i + $0.0.count <= scalars.count && Array(scalars[i..<(i + $0.0.count)]) == $0.0 }) {
                out += replacement
                i += pattern.count
            } else {
                out.unicodeScalars.append(scalars[i])
                i += 1
            }
        }
        return out
    }
}
