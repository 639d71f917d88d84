/// Languages of text and of voices: the language a text is plainly in (by its script, and for Latin script by the
/// short words every sentence has), and the best installed voice for a language (a natural one before espeak-ng's).
/// Pure functions of their arguments and of what is installed; no state.
public enum SpeechLanguage {
    /// The primary subtag of a BCP 47 tag (`en` of `en-GB`, `cmn` of `cmn-latn-pinyin`), lower case; nil when `tag`
    /// is not a tag (two or three ASCII letters, then subtags of letters and digits).
    public static func primary(of tag: String) -> String? {
        let parts = tag.lowercased().split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }),
              parts.dropFirst().allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        else { return nil }
        return String(first)
    }

    /// A language's English name, for messages (`ja` is Japanese); the tag itself for one not listed.
    public static func name(of tag: String) -> String {
        let names = ["en": "English", "ja": "Japanese", "zh": "Chinese", "cmn": "Mandarin", "ko": "Korean", "es": "Spanish",
                     "fr": "French", "de": "German", "it": "Italian", "pt": "Portuguese", "nl": "Dutch", "ru": "Russian",
                     "el": "Greek", "ar": "Arabic", "he": "Hebrew", "hi": "Hindi", "th": "Thai"]
        return names[primary(of: tag) ?? tag] ?? tag
    }

    /// The language `text` is plainly in (a primary subtag), or nil when it is too short or mixed to say. SSML's
    /// tags are left out. Japanese is any text with kana among mostly CJK letters; other scripts name their
    /// language (Han alone Chinese, Hangul Korean, Cyrillic Russian, ...); Latin script is told apart by the short
    /// words of English, Spanish, French, German, Italian, Portuguese and Dutch, and is said only when one language's
    /// words are at least a fifth of the text's and twice any other's.
    public static func detect(_ text: String) -> String? {
        var letters = 0, kana = 0, han = 0, latin = 0
        var scripts: [String: Int] = [:]
        var words: [Substring] = []
        var inTag = false
        var word = ""
        func endWord() { if !word.isEmpty { words.append(Substring(word)); word = "" } }
        for scalar in text.unicodeScalars {
            if scalar == "<" { inTag = true; endWord(); continue }
            if scalar == ">" { inTag = false; continue }
            if inTag { continue }
            let v = scalar.value
            guard scalar.properties.isAlphabetic else {
                if scalar != "'" && scalar != "’" { endWord() }
                continue
            }
            letters += 1
            switch UnspacedScript(scalar) {
            case .kana?: kana += 1; continue
            case .han?: han += 1; continue
            case nil: break
            }
            switch v {
            case 0xAC00...0xD7AF, 0x1100...0x11FF, 0x3130...0x318F: scripts["ko", default: 0] += 1
            case 0x0400...0x04FF: scripts["ru", default: 0] += 1
            case 0x0370...0x03FF: scripts["el", default: 0] += 1
            case 0x0600...0x06FF: scripts["ar", default: 0] += 1
            case 0x0590...0x05FF: scripts["he", default: 0] += 1
            case 0x0900...0x097F: scripts["hi", default: 0] += 1
            case 0x0E00...0x0E7F: scripts["th", default: 0] += 1
            default:
                if v < 0x0250 { latin += 1; word.unicodeScalars.append(scalar) }
            }
        }
        endWord()
        guard letters >= 4 else { return nil }
        if kana > 0, (kana + han) * 2 >= letters { return "ja" }
        if han * 2 >= letters { return "zh" }
        if let (language, count) = scripts.max(by: { $0.value < $1.value }), count * 2 >= letters { return language }
        guard latin * 2 >= letters, words.count >= 4 else { return nil }
        var hits: [String: Int] = [:]
        for word in words {
            let lower = word.lowercased()
            for (language, list) in functionWords where list.contains(lower) { hits[language, default: 0] += 1 }
        }
        let ranked = hits.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        guard let best = ranked.first, best.value >= 2, best.value * 5 >= words.count,
              best.value >= 2 * (ranked.dropFirst().first?.value ?? 0) else { return nil }
        return best.key
    }

    /// The short words that carry a language's sentences, a list each: enough to tell the languages apart in a
    /// sentence or two, never to tell a dialect.
    static let functionWords: [String: Set<String>] = [
        "en": ["the", "and", "of", "to", "is", "you", "your", "in", "that", "it", "with", "for", "this", "are", "be", "on",
               "as", "now", "let", "feel", "into", "breathe", "each", "every", "will", "can", "we", "i", "my", "what"],
        "es": ["el", "los", "las", "y", "que", "es", "tu", "con", "por", "para", "una", "un", "del", "se", "su", "muy", "ahora",
               "respira", "cada", "como", "está", "más", "lo", "al", "yo", "mi", "tus", "hacia"],
        "fr": ["le", "les", "et", "est", "vous", "votre", "des", "une", "dans", "pour", "avec", "qui", "du", "sur", "ce",
               "maintenant", "chaque", "au", "je", "tu", "ton", "ta", "vos", "respirez", "plus", "comme", "cette", "pas"],
        "de": ["der", "die", "das", "und", "ist", "du", "dein", "ich", "nicht", "mit", "ein", "eine", "zu", "den", "dem",
               "sich", "auf", "für", "jetzt", "atme", "deine", "wie", "jeder", "mehr", "sie", "wir", "auch", "im"],
        "it": ["il", "lo", "gli", "è", "che", "di", "per", "non", "della", "sono", "ti", "tuo", "ora", "ogni", "come",
               "respira", "nel", "alla", "questo", "più", "io", "mio", "tua", "anche"],
        "pt": ["os", "é", "que", "do", "da", "em", "um", "uma", "para", "com", "não", "você", "seu", "sua", "agora",
               "cada", "como", "mais", "no", "na", "respire", "eu", "meu", "também"],
        "nl": ["het", "een", "en", "van", "je", "jouw", "ik", "niet", "met", "op", "voor", "dat", "die", "te", "zijn", "nu",
               "adem", "elke", "hoe", "meer", "wij", "ook", "naar", "uw"],
    ]

    /// Whether `voiceLanguage` (a voice's, `en-us`) speaks `language` (a primary subtag or a tag): the same primary
    /// subtag, with Mandarin and Chinese taken as one.
    public static func speaks(_ voiceLanguage: String, _ language: String) -> Bool {
        guard let a = primary(of: voiceLanguage), let b = primary(of: language) else { return false }
        let chinese: Set<String> = ["zh", "cmn"]
        return a == b || (chinese.contains(a) && chinese.contains(b))
    }

    /// The installed voices for `language`: natural ones first (the neural engines in `SpeechEngines.natural`'s order,
    /// installed), then espeak-ng's (when it lists its voices here).
    public static func installedVoices(for language: String) -> [SpeechVoice] {
        var found: [SpeechVoice] = []
        for engine in SpeechEngines.natural where engine.isInstalled {
            found += ((try? engine.voices().voices) ?? []).filter { $0.languages.contains { speaks($0, language) } }
        }
        let espeak = ((try? SpeechEngines.espeak.voices().voices) ?? []).filter { $0.languages.contains { speaks($0, language) } }
        // espeak-ng's voice named exactly by the language first (`espeak:es` before `espeak:es-419`).
        found += espeak.sorted { a, b in
            let exactA = a.id == "espeak:" + language.lowercased(), exactB = b.id == "espeak:" + language.lowercased()
            return exactA != exactB ? exactA : a.id < b.id
        }
        return found
    }
}

/// The scripts written without spaces between words, told by code point: kana (hiragana, katakana, their phonetic
/// extensions and half-width katakana) and CJK ideographs. What `SpeechLanguage.detect` counts Japanese and Chinese
/// by, and where `Lexicon` replaces a word inside a longer run of letters.
enum UnspacedScript {
    case kana, han

    init?(_ scalar: Unicode.Scalar) {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9D: self = .kana
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0xF900...0xFAFF: self = .han
        default: return nil
        }
    }
}
