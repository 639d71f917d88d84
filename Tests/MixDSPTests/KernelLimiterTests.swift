import Testing
import Foundation
import DSPTestSupport
import MixDSP

/// The limiter's idle fast path must not change a single bit of the output or of the statistics:
/// compare with the per-frame algorithm as it was before the fast path (`ReferenceLimiter`, DSPTestSupport).
@Suite struct KernelLimiterTests {
    /// Loud bursts (above the ceiling) with quiet passages between them long enough for the release
    /// to settle (so the fast path takes over), and a NaN in a quiet passage.
    func signal(frames: Int, seed: UInt64) -> AudioBlock {
        var noise = TestSignals.Noise(seed: seed)
        return TestSignals.block(channels: 2, frames: frames) { i, c in
            let loud = (i % 40_000) >= 10_000 && (i % 40_000) < 12_000
            if i == 23_456 && c == 1 { return .nan }
            return noise.sample() * (loud ? 2.5 : 0.6)
        }
    }

    @Test(arguments: [[4096], [1, 4096, 7, 30_000, 240, 241, 1000], [64, 333], [150_000]])
    func fastPathIsBitIdenticalToThePerFrameLoop(blockSizes: [Int]) {
        let frames = 150_000
        for window in [0..<Int64.max, 30_000..<70_000, 125_000..<Int64.max] {
            let input = signal(frames: frames, seed: 3)
            let expected = TestSignals.block(channels: 2, frames: frames) { i, c in input.channel(c)[i] }
            let limiter = Limiter(channelCount: 2, sampleRate: 48_000, ceilingDb: -1, lookaheadMs: 5, releaseMs: 10)
            let reference = ReferenceLimiter(channelCount: 2, sampleRate: 48_000, ceilingDb: -1, lookaheadMs: 5, releaseMs: 10)
            limiter.statisticsWindow = window
            reference.statisticsWindow = window
            var p = 0, k = 0
            while p < frames {
                let n = min(blockSizes[k % blockSizes.count], frames - p)
                limiter.process(input, offset: p, count: n)
                reference.process(expected, offset: p, count: n)
                p += n; k += 1
            }
            for c in 0..<2 {
                let same = (0..<frames).allSatisfy { input.channel(c)[$0].bitPattern == expected.channel(c)[$0].bitPattern }
                #expect(same, "channel \(c), window \(window)")
            }
            #expect(limiter.inputPeak == reference.inputPeak)
            #expect(limiter.minimumGain == reference.minimumGain)
            #expect(limiter.limitedFrames == reference.limitedFrames)
            #expect(limiter.clampedSamples == reference.clampedSamples)
            #expect(limiter.limitedFrames > 0)
        }
    }
}
