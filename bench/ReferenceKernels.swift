import Foundation
import MixDSP

// The implementations this bench replaced, kept so that the kernels table shows "before" and "after"
// measured in the same run. Each is the previous code (before the commits that added this bench),
// with the same results; Tests/MixDSPTests/Kernel*Tests.swift check the new code against copies.
enum ReferenceKernels {
    /// `Kernels.peak` before: the plain loop (the compiler does not vectorise it).
    @inline(never)
    static func peak(_ src: UnsafePointer<Float>, count: Int) -> Float {
        var m: Float = 0
        for i in 0..<count { m = Swift.max(m, Swift.abs(src[i])) }
        return m
    }

    /// The renderer's meters before: peak, then the sum of squares, one channel after the other.
    @inline(never)
    static func meters(_ l: UnsafePointer<Float>, _ r: UnsafePointer<Float>, count: Int) -> (Float, Double) {
        var sum = 0.0
        let p = max(peak(l, count: count), peak(r, count: count))
        sum += Kernels.sumOfSquares(l, count: count)
        sum += Kernels.sumOfSquares(r, count: count)
        return (p, sum)
    }

    /// `NoiseGenerator`'s brown noise before: one channel after the other.
    static func brownNoise(seed: UInt64, into block: AudioBlock, count: Int, at start: Int64, state: inout (Double, Double)) {
        for c in 0..<2 {
            let out = block.channel(c).baseAddress!
            var b = c == 0 ? state.0 : state.1
            for i in 0..<count {
                let w = white(seed: seed, frame: start + Int64(i), channel: c)
                b = (b + 0.02 * w) / 1.02
                out[i] = Float(b * 2.188)
            }
            if c == 0 { state.0 = b } else { state.1 = b }
        }
    }

    @inline(__always)
    static func white(seed: UInt64, frame n: Int64, channel c: Int) -> Double {
        var z = seed &+ (UInt64(bitPattern: n) &* 8 &+ UInt64(c)) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z = z ^ (z >> 31)
        return Double(z >> 11) * (1.0 / 9_007_199_254_740_992.0) * 2 - 1
    }
}

/// `Limiter.process` before the idle fast path (the per-frame loop with `%` ring indices).
final class ReferenceLimiter {
    let channelCount: Int
    let ceiling: Float
    let latency: Int
    private let releaseCoefficient: Double
    private let delay: AudioBlock
    private var delayIndex = 0
    private let dequeValues: UnsafeMutablePointer<Float>
    private let dequeFrames: UnsafeMutablePointer<Int64>
    private var dequeHead = 0, dequeCount = 0
    private var frame: Int64 = 0
    private var released: Double = 1
    private let averageRing: UnsafeMutablePointer<Double>
    private var averageIndex = 0
    private var averageSum: Double
    var statisticsWindow: Range<Int64> = 0..<Int64.max
    private(set) var inputPeak: Float = 0
    private(set) var minimumGain: Float = 1
    private(set) var limitedFrames: Int64 = 0
    private(set) var clampedSamples: Int64 = 0

    init(channelCount: Int, sampleRate: Int, ceilingDb: Double, lookaheadMs: Double, releaseMs: Double) {
        self.channelCount = channelCount
        self.ceiling = Float(gain(fromDecibels: ceilingDb))
        self.latency = max(1, Int((lookaheadMs * Double(sampleRate) / 1000).rounded()))
        self.releaseCoefficient = 1 - exp(-1 / (releaseMs / 1000 * Double(sampleRate)))
        let window = latency + 1
        delay = AudioBlock(channelCount: channelCount, capacity: latency)
        dequeValues = .allocate(capacity: window + 1)
        dequeFrames = .allocate(capacity: window + 1)
        averageRing = .allocate(capacity: window)
        averageRing.initialize(repeating: 1, count: window)
        averageSum = Double(window)
    }

    deinit { dequeValues.deallocate(); dequeFrames.deallocate(); averageRing.deallocate() }

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
                if g < 0.998849 { limitedFrames += 1 }
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
