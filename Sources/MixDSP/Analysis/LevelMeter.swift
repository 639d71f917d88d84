/// Peak and RMS of everything it has measured, for a render's summary.
///
/// The sum of squares is accumulated in `Double`, channel by channel in order, so the result does
/// not depend on how the audio was cut into blocks. Stereo blocks use the paired kernel, which runs
/// the two channels' (independent) chains of additions side by side.
///
/// A value (a `Float`, a `Double` and an `Int64`); allocates nothing, `measure` included. `Sendable`:
/// a copy is a separate meter, and a mutating `measure` needs the usual exclusive access.
public struct LevelMeter: Sendable {
    /// Largest |sample| measured.
    public private(set) var peak: Float = 0
    public private(set) var sumOfSquares: Double = 0
    public private(set) var sampleCount: Int64 = 0

    public init() {}

    /// sqrt(sum of squares / samples); 0 before anything was measured.
    public var rms: Double { sampleCount > 0 ? (sumOfSquares / Double(sampleCount)).squareRoot() : 0 }

    /// Measures frames `[offset, offset + count)` of every channel of `block`.
    public mutating func measure(_ block: AudioBlock, offset: Int, count: Int) {
        let channels = block.channelCount
        for c in 0..<channels { peak = max(peak, Kernels.peak(block.channel(c).baseAddress! + offset, count: count)) }
        if channels == 2 {
            let (l, r) = Kernels.sumOfSquares(block.channel(0).baseAddress! + offset, block.channel(1).baseAddress! + offset,
                                              count: count)
            sumOfSquares += l
            sumOfSquares += r
        } else {
            for c in 0..<channels { sumOfSquares += Kernels.sumOfSquares(block.channel(c).baseAddress! + offset, count: count) }
        }
        sampleCount += Int64(count * channels)
    }
}
