import Testing
import Foundation
import MixDSP

/// The limiter's idle fast path must not change a single bit of the output or of the statistics:
/// compare with the per-frame algorithm as it was before the fast path (a verbatim copy below).
@Suite struct KernelLimiterTests {
    /// Loud bursts (above the ceiling) with quiet passages between them long enough for the release
    /// to settle (so the fast path takes over), and a NaN in a quiet passage.
    func signal(frames: Int, seed: UInt64) -> AudioBlock {
        var noise = TestSignals.Noise(seed: seed)
        return TestSignals.block(channels: 2, frames: frames) { i, c in
            let loud = (i % 40_000) >= 10_000 && (i % 40_000) < 12_000
            if i == 23_456 && c == 1 { return .nan }
            return noise.next() * (loud ? 2.5 : 0.6)
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

/// `Limiter.process` as it was before the idle fast path (commit 51a0a8b), for comparison.
final class ReferenceLimiter {
    let channelCount: Int
    let ceiling: Float
    let latency: Int
    private let releaseCoefficient: Double
    private let delay: AudioBlock
    private var delayIndex = 0
    private var dequeValues: [Float]
    private var dequeFrames: [Int64]
    private var dequeHead = 0, dequeCount = 0
    private var frame: Int64 = 0
    private var released: Double = 1
    private var averageRing: [Double]
    private var averageIndex = 0
    private var averageSum: Double
    var statisticsWindow: Range<Int64> = 0..<Int64.max
    private(set) var inputPeak: Float = 0
    private(set) var minimumGain: Float = 1
    private(set) var limitedFrames: Int64 = 0
    private(set) var clampedSamples: Int64 = 0
    static let audibleGain: Float = 0.998849

    init(channelCount: Int, sampleRate: Int, ceilingDb: Double, lookaheadMs: Double, releaseMs: Double) {
        self.channelCount = channelCount
        self.ceiling = Float(gain(fromDecibels: ceilingDb))
        self.latency = max(1, Int((lookaheadMs * Double(sampleRate) / 1000).rounded()))
        self.releaseCoefficient = 1 - exp(-1 / (releaseMs / 1000 * Double(sampleRate)))
        let window = latency + 1
        delay = AudioBlock(channelCount: channelCount, capacity: latency)
        dequeValues = Array(repeating: 0, count: window + 1)
        dequeFrames = Array(repeating: 0, count: window + 1)
        averageRing = Array(repeating: 1, count: window)
        averageSum = Double(window)
    }

    func process(_ block: AudioBlock, offset: Int = 0, count: Int) {
        let window = latency + 1
        let capacity = window + 1
        for i in 0..<count {
            var peak: Float = 0
            for c in 0..<channelCount { peak = max(peak, abs(block.channel(c)[offset + i])) }
            if statisticsWindow.contains(frame) { inputPeak = max(inputPeak, peak) }
            let need: Float = peak > ceiling ? ceiling / peak : 1
            while dequeCount > 0 && dequeValues[(dequeHead + dequeCount - 1) % capacity] >= need { dequeCount -= 1 }
            dequeValues[(dequeHead + dequeCount) % capacity] = need
            dequeFrames[(dequeHead + dequeCount) % capacity] = frame
            dequeCount += 1
            if dequeFrames[dequeHead] <= frame - Int64(window) { dequeHead = (dequeHead + 1) % capacity; dequeCount -= 1 }
            let held = Double(dequeValues[dequeHead])
            released = held < released ? held : released + (held - released) * releaseCoefficient
            averageSum += released - averageRing[averageIndex]
            averageRing[averageIndex] = released
            averageIndex = (averageIndex + 1) % window
            let g = Float(min(1, averageSum / Double(window)))
            if g < 1 && statisticsWindow.contains(frame - Int64(latency)) {
                minimumGain = min(minimumGain, g)
                if g < ReferenceLimiter.audibleGain { limitedFrames += 1 }
            }
            for c in 0..<channelCount {
                let ch = block.channel(c)
                let line = delay.channel(c)
                let delayed = line[delayIndex]
                line[delayIndex] = ch[offset + i]
                var y = delayed * g
                if y > ceiling { y = ceiling; clampedSamples += 1 } else if y < -ceiling { y = -ceiling; clampedSamples += 1 }
                ch[offset + i] = y
            }
            delayIndex = (delayIndex + 1) % latency
            frame += 1
        }
    }
}
