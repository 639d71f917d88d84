import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO
import Testing

/// `LoudnessTap` skips the interpolator on frames that cannot raise the true peak so far (their largest |sample|
/// times the detector's gain bound is not above it); its true peak must be the one every value gives.
@Suite struct LoudnessTapTruePeakTests {
    /// Noise whose level falls and rises (so that runs are both skipped and computed), then a quiet stretch holding
    /// a tone at a quarter of the rate, phased so that its peaks fall between samples (3 dB over them), that ends
    /// up as the loudest value: it is found behind long skipped stretches. Blocks of 1000 frames (runs do not line
    /// up with them), at 48 kHz and at 22.05 kHz (where the tap measures at 48 kHz after a resampler).
    @Test(arguments: [48_000, 22_050])
    func skippedRunsGiveTheTruePeakOfEveryValue(rate: Int) throws {
        let frames = 5 * rate
        var noise = TestSignals.Noise(seed: 41)
        let signal = TestSignals.block(channels: 2, frames: frames) { i, c in
            let t = Double(i) / Double(rate)
            if t >= 4 {
                let tone = Float(0.6 * sin(Double.pi / 2 * Double(i) + Double.pi / 4)) * Float(min(1, (5 - t) * 20, (t - 4) * 20))
                return c == 0 ? tone : 0.1 * tone
            }
            let level = Float(0.15 + 0.12 * cos(2 * Double.pi * t / 1.7))
            return level * noise.sample() * (c == 0 ? 1 : 0.8)
        }
        let tap = LoudnessTap(channelCount: 2, sampleRate: rate)
        var done = 0
        while done < frames {
            let n = min(1000, frames - done)
            try tap.receive(signal, offset: done, count: n, at: Int64(done))
            done += n
        }
        try tap.finish()

        // The reference: every value, over what the tap measures (the signal itself, or it resampled to 48 kHz).
        var measured = signal
        if rate != 48_000 {
            let resampler = try LoudnessResampler(channelCount: 2, inputRate: rate)
            var left: [Float] = [], right: [Float] = []
            let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: 2 * frames)
            defer { interleaved.deallocate() }
            Kernels.interleave(signal, count: frames, into: interleaved)
            let collect = { (frames: UnsafePointer<Float>, n: Int) in
                for i in 0..<n { left.append(frames[2 * i]); right.append(frames[2 * i + 1]) }
            }
            try resampler.process(interleaved, frames: frames, collect)
            try resampler.finish(collect)
            measured = TestSignals.block(channels: 2, frames: left.count) { i, c in c == 0 ? left[i] : right[i] }
        }
        let count = measured.capacity
        let detector = TruePeakDetector(channelCount: 2)
        let peaks = UnsafeMutablePointer<Float>.allocate(capacity: count + TruePeakDetector.supportRadius)
        defer { peaks.deallocate() }
        detector.process(measured, count: count, peaks: peaks)
        let silence = AudioBlock(channelCount: 2, capacity: TruePeakDetector.supportRadius)
        silence.clear(offset: 0, count: TruePeakDetector.supportRadius)
        detector.process(silence, count: TruePeakDetector.supportRadius, peaks: peaks + count)
        let everyValue = Kernels.peak(peaks, count: count + TruePeakDetector.supportRadius)

        let samplePeak = max(peak(UnsafeBufferPointer(start: signal.channel(0).baseAddress!, count: frames)),
                             peak(UnsafeBufferPointer(start: signal.channel(1).baseAddress!, count: frames)))
        #expect(everyValue > samplePeak * 1.3, "the tone's values between samples are the loudest")
        #expect(tap.measurement.truePeak == decibels(fromGain: Double(everyValue)))
    }
}
