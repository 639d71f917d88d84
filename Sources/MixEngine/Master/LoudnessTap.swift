import MixDSP
import MixIO

/// Measures the loudness of what passes (EBU R128, `LoudnessMeter`): at the output, what a render writes;
/// before the limiter, where a normalising pass measures (the level there scales linearly with gain).
///
/// On the render thread, MixDSP's meters: `GatedLoudness` (BS.1770 on both channels at once; within 0.06
/// LU of libebur128) and `TruePeakDetector` (4x, 24 taps per phase, vectorised: about 7 ns a stereo frame where
/// it computes; it computes only frames that could raise the true peak so far, about a quarter of a night mix's).
/// libebur128 through MixIO cost a render to Ogg a third more wall time here; it stays what
/// `mixrender loudness` measures files with.
///
/// Below 44.1 kHz both meters hear the signal resampled to 48 kHz (`LoudnessResampler`, as `LoudnessMeter` does:
/// BS.1770's filters are its own there, and the true peak is read at 192 kHz); the sample peak is the signal's own.
///
/// Holds a `GatedLoudness` (whose list of hop powers grows by 8 bytes per 100 ms), a detector, a block of
/// silence for the flush, and below 44.1 kHz a resampler with its buffers, made in `init`;
/// `receive` allocates only when that list grows. Not thread-safe: it receives on the render thread; read `measurement` after `finish`.
public final class LoudnessTap: MixTap {
    let meter: GatedLoudness
    private let detector: TruePeakDetector?
    private var samplePeak: Float = 0
    private let silence: AudioBlock
    private var truePeak: Float = 0
    private static let runFrames = 4096
    /// Below 44.1 kHz: the converter to 48 kHz, the input interleaved, and the converted frames made planar.
    private let resampler: LoudnessResampler?
    private let interleaved: UnsafeMutablePointer<Float>?
    private let converted: AudioBlock?

    /// `truePeak: false` leaves the true peak out (a measuring pass needs the loudness only).
    public init(channelCount: Int, sampleRate: Int, truePeak: Bool = true) {
        let measuringRate = LoudnessResampler.measuringRate(for: sampleRate)
        meter = GatedLoudness(channelCount: channelCount, sampleRate: measuringRate)
        // libsoxr refuses only rates and channel counts no render has.
        resampler = measuringRate == sampleRate ? nil : try! LoudnessResampler(channelCount: channelCount, inputRate: sampleRate)
        interleaved = resampler == nil ? nil : .allocate(capacity: Self.runFrames * channelCount)
        converted = resampler.map { AudioBlock(channelCount: channelCount, capacity: $0.maximumRunFrames) }
        detector = truePeak ? TruePeakDetector(channelCount: channelCount) : nil
        silence = AudioBlock(channelCount: channelCount, capacity: TruePeakDetector.supportRadius)
        silence.clear(offset: 0, count: TruePeakDetector.supportRadius)
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

    /// Both meters over frames at the measuring rate.
    private func measure(_ block: AudioBlock, offset: Int, count: Int) {
        meter.add(block, offset: offset, count: count)
        if detector != nil { detect(block, offset: offset, count: count) }
    }

    /// The values the detector still holds (its last `latency` frames) come out behind silence.
    public func finish() throws {
        if let resampler, let converted {
            try resampler.finish { frames, n in
                Kernels.deinterleave(frames, channelCount: converted.channelCount, count: n, into: converted)
                measure(converted, offset: 0, count: n)
            }
        }
        if detector != nil { detect(silence, offset: 0, count: TruePeakDetector.supportRadius) }
    }

    /// Only the largest value counts: the detector leaves out frames that cannot raise the true peak so far.
    private func detect(_ block: AudioBlock, offset: Int, count: Int) {
        truePeak = detector!.largestValue(block, offset: offset, count: count, above: truePeak)
    }

    public var measurement: LoudnessMeasurement {
        let sample = decibels(fromGain: Double(samplePeak))
        return LoudnessMeasurement(integrated: meter.integrated, range: meter.range,
                                   truePeak: detector == nil ? sample : max(sample, decibels(fromGain: Double(truePeak))),
                                   samplePeak: sample, momentaryMax: meter.momentaryMax, shortTermMax: meter.shortTermMax)
    }
}
