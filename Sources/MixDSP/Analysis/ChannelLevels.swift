/// The level of one output channel over one waveform column.
/// A value of three `Float`s; allocates nothing; `Sendable`, safe to share.
public struct ChannelLevels: Equatable, Sendable {
    /// Lowest and highest sample of the column (full scale is ±1).
    public var min: Float
    public var max: Float
    /// Root mean square of the column's samples: sqrt(Σ x² / n).
    public var rms: Float

    public init(min: Float, max: Float, rms: Float) {
        self.min = min
        self.max = max
        self.rms = rms
    }

    /// The larger of |min| and |max|.
    @inlinable public var peak: Float { Swift.max(-min, max) }
}
