import MixDSP
import MixIO

/// Measures the loudness of what passes (EBU R128, `LoudnessMeter`): at the output, what a render writes;
/// before the limiter, where a normalising pass measures (the level there scales linearly with gain).
///
/// The true peak comes from MixDSP's `TruePeakDetector` (4x, 24 taps per phase, vectorised: about 7 ns a
/// stereo frame) rather than libebur128's, which would cost the render thread about 11 s an hour of audio.
///
/// Holds one `LoudnessMeter` (libebur128's state and an interleaving buffer), a detector, a block of
/// peaks and a block of silence for the flush, all made in `init`; `receive` allocates nothing. Not
/// thread-safe: it receives on the render thread; read `measurement` after `finish`.
public final class LoudnessTap: MixTap {
    let meter: LoudnessMeter
    private let detector: TruePeakDetector?
    private let peaks: UnsafeMutablePointer<Float>
    private let silence: AudioBlock
    private var truePeak: Float = 0
    private static let peakFrames = 4096

    /// `truePeak: false` leaves the true peak out (a measuring pass needs the loudness only).
    public init(channelCount: Int, sampleRate: Int, truePeak: Bool = true) throws {
        meter = try LoudnessMeter(channelCount: channelCount, sampleRate: sampleRate, truePeak: false)
        detector = truePeak ? TruePeakDetector(channelCount: channelCount) : nil
        peaks = .allocate(capacity: Self.peakFrames)
        silence = AudioBlock(channelCount: channelCount, capacity: TruePeakDetector.supportRadius)
        silence.clear(offset: 0, count: TruePeakDetector.supportRadius)
    }

    deinit { peaks.deallocate() }

    public func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        try meter.add(block, offset: offset, count: count)
        guard detector != nil else { return }
        var done = 0
        while done < count {
            let run = min(count - done, Self.peakFrames)
            detect(block, offset: offset + done, count: run)
            done += run
        }
    }

    /// The values the detector still holds (its last `latency` frames) come out behind silence.
    public func finish() throws {
        if detector != nil { detect(silence, offset: 0, count: TruePeakDetector.supportRadius) }
    }

    private func detect(_ block: AudioBlock, offset: Int, count: Int) {
        detector!.process(block, offset: offset, count: count, peaks: peaks)
        truePeak = max(truePeak, Kernels.peak(peaks, count: count))
    }

    public var measurement: LoudnessMeasurement {
        var m = meter.measurement
        m.truePeak = detector == nil ? m.samplePeak : max(m.samplePeak, decibels(fromGain: Double(truePeak)))
        return m
    }
}
