/// Speech as an engine makes it: mono 16-bit samples at the engine's rate (espeak-ng 22050 Hz, the neural voices
/// 24000 Hz), and where each sentence is in them when the engine says (the neural voices do).
/// A value holding two arrays (shared, copy-on-write); allocates only those. `Sendable`, safe to share.
public struct SynthesizedSpeech: Sendable, Equatable {
    public let samples: [Int16]
    public let sampleRate: Int
    /// Each sentence's samples, in order (end exclusive); empty when the engine does not say.
    public let sentences: [Range<Int>]
    /// The words the engine found in no lexicon and read by rule (a listener's name, a place), each once, in the
    /// order the engine met them; empty when it found none or does not say (only hibari-tts says).
    public let guessed: [String]
    /// Each word's samples, in order, for an English voice (the aligner's, `WordAligner`: no engine says where its
    /// words are); empty for other languages, and for a paragraph the aligner could not follow.
    public let words: [SpokenWord]
    public var durationSeconds: Double { Double(samples.count) / Double(sampleRate) }

    public init(samples: [Int16], sampleRate: Int, sentences: [Range<Int>] = [], guessed: [String] = [], words: [SpokenWord] = []) {
        self.samples = samples; self.sampleRate = sampleRate; self.sentences = sentences; self.guessed = guessed; self.words = words
    }
}

/// One word where it is spoken: as written in the text, and its samples (end exclusive).
/// A value (`Sendable`).
public struct SpokenWord: Sendable, Equatable, Hashable {
    public let text: String
    public let span: Range<Int>
    public init(text: String, span: Range<Int>) { self.text = text; self.span = span }

    /// The most words an answer may hold, and the longest word (a helper's answer beyond either is not trusted).
    static let mostWords = 100_000, longestWord = 64

    /// Words as a helper gives them (`[[first, end, "word"], ...]`, in order, within `count` samples), or nil for
    /// anything else (a helper's odd answer is dropped, not trusted).
    static func parse(_ value: Any?, within count: Int) -> [SpokenWord]? {
        guard let items = value as? [[Any]], items.count <= mostWords else { return nil }
        var words: [SpokenWord] = [], end = 0
        words.reserveCapacity(items.count)
        for item in items {
            guard item.count == 3, let a = item[0] as? Int, let b = item[1] as? Int, let text = item[2] as? String,
                  a >= end, a <= b, b <= count, !text.isEmpty, text.count <= longestWord,
                  !text.contains(where: { $0.isWhitespace || $0.isNewline }) else { return nil }
            words.append(SpokenWord(text: text, span: a..<b))
            end = b
        }
        return words
    }
}
