import Foundation
import MixDSP

// The implementations that faster code in MixDSP replaced, kept in one place for two users:
// - Tests/MixDSPTests/Kernel*Tests.swift check, bit for bit, that the new code gives what these give;
// - the bench's kernels table runs these as its "before" rows, in alternation with the "after" rows.
// Each is the previous code with its results (comments shortened); what had to change to live outside
// MixDSP is said at the type.

/// Plain loops that SIMD kernels replaced.
public enum ReferenceKernels {
    /// `Kernels.peak` before: the plain loop (the compiler does not vectorise it).
    @inline(never)
    public static func peak(_ src: UnsafePointer<Float>, count: Int) -> Float {
        var m: Float = 0
        for i in 0..<count { m = Swift.max(m, Swift.abs(src[i])) }
        return m
    }

    /// The renderer's meters before: peak, then the sum of squares, one channel after the other.
    @inline(never)
    public static func meters(_ l: UnsafePointer<Float>, _ r: UnsafePointer<Float>, count: Int) -> (Float, Double) {
        var sum = 0.0
        let p = max(peak(l, count: count), peak(r, count: count))
        sum += Kernels.sumOfSquares(l, count: count)
        sum += Kernels.sumOfSquares(r, count: count)
        return (p, sum)
    }
}

/// `Limiter.process` as it was before the idle fast path (commit 51a0a8b): the per-frame loop with `%` ring indices.
///
/// Outside MixDSP: the release coefficient uses Foundation's `exp` (the same libm function as MixDSP's
/// `_exp`), and the statistics are internal stored properties behind public read-only views. Public stored
/// properties of a class cost a dynamic exclusivity check at every access in `process` (seven a frame,
/// what made the original 30 ns/frame inside MixDSP); internal ones, all seen by the optimiser, do not, so
/// this copy measures the algorithm, as the bench's copy always did.
public final class ReferenceLimiter {
    public let channelCount: Int
    public let ceiling: Float
    public let latency: Int
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
    var _statisticsWindow: Range<Int64> = 0..<Int64.max
    var _inputPeak: Float = 0
    var _minimumGain: Float = 1
    var _limitedFrames: Int64 = 0
    var _clampedSamples: Int64 = 0
    static let audibleGain: Float = 0.998849

    public var statisticsWindow: Range<Int64> {
        get { _statisticsWindow }
        set { _statisticsWindow = newValue }
    }
    public var inputPeak: Float { _inputPeak }
    public var minimumGain: Float { _minimumGain }
    public var limitedFrames: Int64 { _limitedFrames }
    public var clampedSamples: Int64 { _clampedSamples }

    public init(channelCount: Int, sampleRate: Int, ceilingDb: Double, lookaheadMs: Double, releaseMs: Double) {
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

    public func process(_ block: AudioBlock, offset: Int = 0, count: Int) {
        let window = latency + 1
        let capacity = window + 1
        for i in 0..<count {
            var peak: Float = 0
            for c in 0..<channelCount { peak = max(peak, abs(block.channel(c)[offset + i])) }
            if _statisticsWindow.contains(frame) { _inputPeak = max(_inputPeak, peak) }
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
            if g < 1 && _statisticsWindow.contains(frame - Int64(latency)) {
                _minimumGain = min(_minimumGain, g)
                if g < ReferenceLimiter.audibleGain { _limitedFrames += 1 }
            }
            for c in 0..<channelCount {
                let ch = block.channel(c)
                let line = delay.channel(c)
                let delayed = line[delayIndex]
                line[delayIndex] = ch[offset + i]
                var y = delayed * g
                if y > ceiling { y = ceiling; _clampedSamples += 1 } else if y < -ceiling { y = -ceiling; _clampedSamples += 1 }
                ch[offset + i] = y
            }
            delayIndex = (delayIndex + 1) % latency
            frame += 1
        }
    }
}

/// `NoiseGenerator`'s loop as it was before its stereo brown path (commit fad8310): every colour, one channel
/// after the other. Without the generator's seeking: `generate` continues from where the last call stopped.
public final class ReferenceNoise {
    public let color: NoiseGenerator.Color
    public let seed: UInt64
    public let channelCount: Int

    private var nextPosition: Int64 = 0
    private var state: [Double]
    private static let stateSize = 7

    public init(color: NoiseGenerator.Color, seed: UInt64, channelCount: Int) {
        self.color = color
        self.seed = seed
        self.channelCount = channelCount
        self.state = Array(repeating: 0, count: channelCount * ReferenceNoise.stateSize)
    }

    @inline(__always)
    static func white(seed: UInt64, frame n: Int64, channel c: Int) -> Double {
        var z = seed &+ (UInt64(bitPattern: n) &* 8 &+ UInt64(c)) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z = z ^ (z >> 31)
        return Double(z >> 11) * (1.0 / 9_007_199_254_740_992.0) * 2 - 1
    }

    /// The next `count` frames, into frames `offset ..< offset + count` of `block`.
    public func generate(into block: AudioBlock, offset: Int = 0, count: Int) {
        let start = nextPosition
        state.withUnsafeMutableBufferPointer { st in
            for c in 0..<channelCount {
                let out = block.channel(c).baseAddress! + offset
                let s = st.baseAddress! + c * ReferenceNoise.stateSize
                switch color {
                case .white:
                    for i in 0..<count {
                        out[i] = Float(ReferenceNoise.white(seed: seed, frame: start + Int64(i), channel: c) * 0.218)
                    }
                case .pink:
                    var (b0, b1, b2, b3, b4, b5, b6) = (s[0], s[1], s[2], s[3], s[4], s[5], s[6])
                    for i in 0..<count {
                        let w = ReferenceNoise.white(seed: seed, frame: start + Int64(i), channel: c)
                        b0 = 0.99886 * b0 + w * 0.0555179
                        b1 = 0.99332 * b1 + w * 0.0750759
                        b2 = 0.96900 * b2 + w * 0.1538520
                        b3 = 0.86650 * b3 + w * 0.3104856
                        b4 = 0.55000 * b4 + w * 0.5329522
                        b5 = -0.7616 * b5 - w * 0.0168980
                        let pink = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362
                        b6 = w * 0.115926
                        out[i] = Float(pink * 0.0709)
                    }
                    (s[0], s[1], s[2], s[3], s[4], s[5], s[6]) = (b0, b1, b2, b3, b4, b5, b6)
                case .brown:
                    var b = s[0]
                    for i in 0..<count {
                        let w = ReferenceNoise.white(seed: seed, frame: start + Int64(i), channel: c)
                        b = (b + 0.02 * w) / 1.02
                        out[i] = Float(b * 2.188)
                    }
                    s[0] = b
                }
            }
        }
        nextPosition += Int64(count)
    }
}
