/// Levels and limits the generator kinds share, so that no kind names another's type for them.
/// Constants only; any thread may read them.
enum GeneratorLevels {
    /// RMS level of a generator before its track's gain: -18 dBFS (noise, tones, beats, ambiences).
    static let rms = 0.125_892_541   // 10^(-18/20)
    /// A sine's peak at `rms`: a sine's RMS is A/√2 (tones, sweeps).
    static let sinePeak = Float(rms * 2.0.squareRoot())
    /// A triangle's peak at `rms`: a triangle's RMS is A/√3.
    static let trianglePeak = Float(rms * 3.0.squareRoot())
    /// The highest frequency a preset may give a tone or a sweep; it must also lie below half the output rate.
    static let maximumFrequencyHz = 24_000.0
    /// Seeds are whole numbers up to 2^53, the largest range JSON numbers carry exactly.
    static let maximumSeed = 9_007_199_254_740_992.0
}
