/// The spectral content of one column of the mono mix (see `SpectralFrameAnalyzer` for the formulas
/// and `SpectralColumnResolver` for how FFT frames become columns).
///
/// A value of four `Float`s; allocates nothing; `Sendable`, safe to share.
public struct BandLevels: Equatable, Sendable {
    /// RMS amplitude in each band: sqrt(P_band), where P_band is the band's part of the mean-square
    /// level, so low² + mid² + high² equals the mono mix's rms² (for a stationary signal) and the
    /// values share the scale of `ChannelLevels.rms`.
    public var low: Float
    public var mid: Float
    public var high: Float
    /// Spectral centroid in Hz, magnitude-weighted: Σ f_k |X_k| / Σ |X_k|; 0 for silence.
    public var centroidHz: Float

    public init(low: Float, mid: Float, high: Float, centroidHz: Float) {
        self.low = low
        self.mid = mid
        self.high = high
        self.centroidHz = centroidHz
    }

    public static let silent = BandLevels(low: 0, mid: 0, high: 0, centroidHz: 0)
}
