/// Levels and limits the generator kinds share, so that no kind names another's type for them.
/// Constants only; any thread may read them.
enum GeneratorLevels {
    /// RMS level of a generator before its track's gain: -18 dBFS (noise, tones, beats, ambiences).
    static let rms = 0.125_892_541   // 10^(-18/20)
    /// Seeds are whole numbers up to 2^53, the largest range JSON numbers carry exactly.
    static let maximumSeed = 9_007_199_254_740_992.0
}
