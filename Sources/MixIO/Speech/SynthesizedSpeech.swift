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
    public var durationSeconds: Double { Double(samples.count) / Double(sampleRate) }

    public init(samples: [Int16], sampleRate: Int, sentences: [Range<Int>] = [], guessed: [String] = []) {
        self.samples = samples; self.sampleRate = sampleRate; self.sentences = sentences; self.guessed = guessed
    }
}
