import Testing
import Foundation
import DSPTestSupport
import MixDSP

@Suite struct LimiterTests {
    @Test func nothingExceedsTheCeilingAndTheGainNeverJumps() {
        let rate = 48_000, n = 96_000
        let ceiling = gain(fromDecibels: -1)
        // A sine at 0.5 with bursts up to 2.0 (+6 dBFS).
        let input = TestSignals.block(channels: 2, frames: n) { i, c in
            let burst: Float = (i / 12_000) % 2 == 1 ? 4 : 1
            let phase: Double = Double(i) * 2 * Double.pi * 440 / Double(rate) + Double(c)
            return 0.5 * burst * Float(sin(phase))
        }
        let limiter = Limiter(channelCount: 2, sampleRate: rate, ceilingDb: -1, lookaheadMs: 5, releaseMs: 100)
        let original = TestSignals.block(channels: 2, frames: n) { i, c in input.channel(c)[i] }
        // Process in uneven blocks.
        var p = 0
        for size in [1000, 4096, 7, 30_000, 60_897] where p < n {
            let k = min(size, n - p); limiter.process(input, offset: p, count: k); p += k
        }
        let out = input
        #expect(Kernels.peak(out.channel(0).baseAddress!, count: n) <= Float(ceiling) + 1e-6)
        #expect(limiter.clampedSamples == 0)
        #expect(limiter.maximumReductionDb > 6 && limiter.maximumReductionDb < 8)
        // Quiet passages before the first burst come through delayed and untouched.
        let d = limiter.latency
        #expect(d == 240)
        for i in d..<10_000 { #expect(abs(out.channel(0)[i] - original.channel(0)[i - d]) < 1e-6) }
        // The applied gain (out / in where the input is large enough) changes smoothly.
        // The gain ramps down over the look-ahead (d frames), so it moves at most 1/d per frame.
        var previous: (frame: Int, gain: Float)? = nil
        for i in d..<n where abs(original.channel(0)[i - d]) > 0.2 {
            let g = out.channel(0)[i] / original.channel(0)[i - d]
            if let previous {
                #expect(abs(g - previous.gain) <= Float(i - previous.frame) / Float(d) + 1e-4, "gain jumps at \(i)")
            }
            previous = (i, g)
        }
    }

    @Test func idleLimiterIsAPureDelay() {
        let limiter = Limiter(channelCount: 1, sampleRate: 48_000, ceilingDb: 0, lookaheadMs: 1, releaseMs: 50)
        let b = TestSignals.block(channels: 1, frames: 1000) { i, _ in Float(i) / 2000 }
        limiter.process(b, count: 1000)
        #expect(limiter.maximumReductionDb == 0)
        for i in 48..<1000 { #expect(b.channel(0)[i] == Float(i - 48) / 2000) }
    }
}
