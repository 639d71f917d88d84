import MixDSP
import MixIO

/// Measures the loudness of what passes (EBU R128, `LoudnessMeter`): at the output, what a render writes;
/// before the limiter, where a normalising pass measures (the level there scales linearly with gain).
///
/// Holds one `LoudnessMeter` (libebur128's state and an interleaving buffer, made in `init`); `receive`
/// allocates nothing. Not thread-safe: it receives on the render thread; read `measurement` after the render.
public final class LoudnessTap: MixTap {
    private let meter: LoudnessMeter

    /// `truePeak: false` leaves out the 4x oversampled peak (a measuring pass needs the loudness only).
    public init(channelCount: Int, sampleRate: Int, truePeak: Bool = true) throws {
        meter = try LoudnessMeter(channelCount: channelCount, sampleRate: sampleRate, truePeak: truePeak)
    }

    public func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        try meter.add(block, offset: offset, count: count)
    }

    public var measurement: LoudnessMeasurement { meter.measurement }
}
