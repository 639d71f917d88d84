/// The rate a loudness meter measures at, and the converter that takes a signal there.
///
/// ITU-R BS.1770 gives the K-weighting filter's coefficients at 48 kHz and asks other rates for "the same
/// frequency response that the specified filter provides at 48 kHz"; for the true peak it asks for an
/// oversampled rate of at least 192 kHz. The filters redesigned for the rate (libebur128's, and `GatedLoudness`'s,
/// which follows it) hold the 48 kHz response within 0.005 dB at 44.1 kHz, but within only 0.03 dB at 32 kHz, 0.08
/// at 22.05 kHz and 0.27 at 11.025 kHz (the high-pass's unnormalised numerator gains 0.15 dB, and the shelf warps
/// toward the lower Nyquist); and a 4x true-peak detector at 11.025 kHz looks at 44.1 kHz. So below 44.1 kHz both
/// meters measure the signal resampled to 48 kHz (libsoxr, `soxr-vhq`): the filters are then BS.1770's own, and
/// the true peak is read at 192 kHz. At 44.1 kHz and above they measure at the signal's own rate.
///
/// Layout: a `SoxrResampler` and an output buffer of `chunkFrames` frames, made in `init`; `process` allocates
/// nothing. Not thread-safe: one thread at a time.
public final class LoudnessResampler {
    /// The rate a signal at `rate` is measured at.
    public static func measuringRate(for rate: Int) -> Int { rate < 44_100 ? 48_000 : rate }

    public let channelCount: Int
    private let converter: SoxrResampler
    private let output: UnsafeMutablePointer<Float>
    private let outputCapacity: Int
    /// The most frames one run handed to `process`'s or `finish`'s body holds.
    public var maximumRunFrames: Int { outputCapacity }
    private var flushed = false
    static let chunkFrames = 4096

    /// A converter from `inputRate` to 48 kHz, for `channelCount` interleaved channels.
    public init(channelCount: Int, inputRate: Int) throws {
        self.channelCount = channelCount
        converter = try SoxrResampler(channelCount: channelCount, inputRate: inputRate, outputRate: 48_000, quality: .soxrVHQ)
        outputCapacity = Int((Double(Self.chunkFrames) * converter.ratio).rounded(.up)) + 64
        output = .allocate(capacity: outputCapacity * channelCount)
    }

    deinit { output.deallocate() }

    /// Converts `frames` interleaved frames, handing each converted run to `body`.
    public func process(_ input: UnsafePointer<Float>, frames: Int, _ body: (UnsafePointer<Float>, Int) throws -> Void) throws {
        var done = 0
        while done < frames {
            let run = min(frames - done, Self.chunkFrames)
            var fed = 0
            while fed < run {
                let (consumed, produced) = try converter.process(input: input + (done + fed) * channelCount, inputFrames: run - fed,
                                                                 output: output, outputCapacity: outputCapacity, endOfInput: false)
                fed += consumed
                if produced > 0 { try body(output, produced) }
                if consumed == 0 && produced == 0 { break }
            }
            done += run
        }
    }

    /// Flushes what the converter still holds (the last frames' filter tail) to `body`; once.
    public func finish(_ body: (UnsafePointer<Float>, Int) throws -> Void) throws {
        guard !flushed else { return }
        flushed = true
        while true {
            let (_, produced) = try converter.process(input: output, inputFrames: 0, output: output,
                                                      outputCapacity: outputCapacity, endOfInput: true)
            if produced == 0 { break }
            try body(output, produced)
        }
    }
}
