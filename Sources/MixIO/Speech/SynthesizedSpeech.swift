/// Speech as an engine makes it: mono 16-bit samples at the engine's rate (espeak-ng 22050 Hz, hibari 24000 Hz).
/// A value holding one array (shared, copy-on-write); allocates only that. `Sendable`, safe to share.
public struct SynthesizedSpeech: Sendable, Equatable {
    public let samples: [Int16]
    public let sampleRate: Int
    public var durationSeconds: Double { Double(samples.count) / Double(sampleRate) }

    public init(samples: [Int16], sampleRate: Int) {
        self.samples = samples; self.sampleRate = sampleRate
    }
}
