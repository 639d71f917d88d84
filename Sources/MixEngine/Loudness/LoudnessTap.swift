import MixDSP
import MixIO

/// Measures the loudness of what passes (EBU R128, `LoudnessMeter`): at the output, what a render writes;
/// before the limiter, where a normalising pass measures (the level there scales linearly with gain).
///
/// MixDSP's meters: `GatedLoudness` (BS.1770 on both channels at once; within 0.06
/// LU of libebur128) and `TruePeakDetector` (4x, 24 taps per phase, vectorised: about 7 ns a stereo frame where
/// it computes; it computes only frames that could raise the true peak so far, about a quarter of a night mix's).
/// libebur128 through MixIO cost a render to Ogg a third more wall time here; it stays what
/// `mixrender loudness` measures files with.
///
/// Below 44.1 kHz both meters hear the signal resampled to 48 kHz (`LoudnessResampler`, as `LoudnessMeter` does:
/// BS.1770's filters are its own there, and the true peak is read at 192 kHz); the sample peak is the signal's own.
///
/// At 44.1 kHz and up the true peak can run apart (`truePeakApart`): the tap leaves its detector, a `TruePeakTap`,
/// for the caller to run beside it on the same blocks, on a thread of its own (the detector is about half of the
/// meter's work: with both on one thread, a render to WAV waited for the meter).
///
/// Holds a `GatedLoudness` (whose list of hop powers grows by 8 bytes per 100 ms), a `TruePeakTap`, and below
/// 44.1 kHz a resampler with its buffers, made in `init`; `receive` allocates only when that list grows. Not
/// thread-safe: one thread receives; read `measurement` after `finish` (and the apart true peak's `finish`).
public final class LoudnessTap: MixTap {
    let meter: GatedLoudness
    private let truePeak: TruePeakTap?
    /// The true peak, left for the caller to run (`truePeakApart` at 44.1 kHz and up); nil when this tap runs it.
    public let apartTruePeak: TruePeakTap?
    private var samplePeak: Float = 0
    private static let runFrames = 4096
    /// Below 44.1 kHz: the converter to 48 kHz, the input interleaved, and the converted frames made planar.
    private let resampler: LoudnessResampler?
    private let interleaved: UnsafeMutablePointer<Float>?
    private let converted: AudioBlock?

    /// `truePeak: false` leaves the true peak out (a measuring pass needs the loudness only); `truePeakApart: true`
    /// gives it to `apartTruePeak` where the signal is measured at its own rate (44.1 kHz and up).
    public init(channelCount: Int, sampleRate: Int, truePeak: Bool = true, truePeakApart: Bool = false) {
        let measuringRate = LoudnessResampler.measuringRate(for: sampleRate)
        meter = GatedLoudness(channelCount: channelCount, sampleRate: measuringRate)
        // libsoxr refuses only rates and channel counts no render has.
        resampler = measuringRate == sampleRate ? nil : try! LoudnessResampler(channelCount: channelCount, inputRate: sampleRate)
        interleaved = resampler == nil ? nil : .allocate(capacity: Self.runFrames * channelCount)
        converted = resampler.map { AudioBlock(channelCount: channelCount, capacity: $0.maximumRunFrames) }
        self.truePeak = truePeak ? TruePeakTap(channelCount: channelCount) : nil
        apartTruePeak = truePeakApart && resampler == nil ? self.truePeak : nil
    }

    deinit { interleaved?.deallocate() }

    public func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        for c in 0..<block.channelCount { samplePeak = max(samplePeak, Kernels.peak(block.channel(c).baseAddress! + offset, count: count)) }
        guard let resampler, let interleaved, let converted else { return measure(block, offset: offset, count: count) }
        var done = 0
        while done < count {
            let run = min(count - done, Self.runFrames)
            Kernels.interleave(block, offset: offset + done, count: run, into: interleaved)
            try resampler.process(interleaved, frames: run) { frames, n in
                Kernels.deinterleave(frames, channelCount: converted.channelCount, count: n, into: converted)
                measure(converted, offset: 0, count: n)
            }
            done += run
        }
    }

    /// Both meters over frames at the measuring rate (the true peak unless it runs apart).
    private func measure(_ block: AudioBlock, offset: Int, count: Int) {
        meter.add(block, offset: offset, count: count)
        if apartTruePeak == nil { truePeak?.receive(block, offset: offset, count: count) }
    }

    public func finish() throws {
        if let resampler, let converted {
            try resampler.finish { frames, n in
                Kernels.deinterleave(frames, channelCount: converted.channelCount, count: n, into: converted)
                measure(converted, offset: 0, count: n)
            }
        }
        if apartTruePeak == nil { truePeak?.finish() }
    }

    public var measurement: LoudnessMeasurement {
        let sample = decibels(fromGain: Double(samplePeak))
        return LoudnessMeasurement(integrated: meter.integrated, range: meter.range,
                                   truePeak: truePeak.map { max(sample, decibels(fromGain: Double($0.value))) } ?? sample,
                                   samplePeak: sample, momentaryMax: meter.momentaryMax, shortTermMax: meter.shortTermMax)
    }
}

/// The true peak of what passes (`TruePeakDetector`, channels linked): the largest value so far, against which the
/// detector leaves out the frames that cannot raise it. A `LoudnessTap`'s, run by it or, apart, beside it.
/// Not thread-safe: one thread receives; read `value` after `finish`.
public final class TruePeakTap: MixTap {
    private let detector: TruePeakDetector
    /// A block of silence, behind which `finish` brings out the values the detector still holds.
    private let silence: AudioBlock
    /// The largest value so far (a gain; 0 before any).
    public private(set) var value: Float = 0

    init(channelCount: Int) {
        detector = TruePeakDetector(channelCount: channelCount)
        silence = AudioBlock(channelCount: channelCount, capacity: TruePeakDetector.supportRadius)
        silence.clear(offset: 0, count: TruePeakDetector.supportRadius)
    }

    public func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64 = 0) {
        value = detector.largestValue(block, offset: offset, count: count, above: value)
    }

    /// The values the detector still holds (its last `latency` frames) come out behind silence.
    public func finish() {
        value = detector.largestValue(silence, offset: 0, count: TruePeakDetector.supportRadius, above: value)
    }
}
