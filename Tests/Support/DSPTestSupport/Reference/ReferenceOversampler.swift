import Foundation
import MixDSP

/// An independent true-peak meter for the tests: what MixDSP's `TruePeakDetector` is checked against.
///
/// Interpolates `factor` values per sample (the sample itself and `factor` − 1 after it) with a
/// Kaiser-windowed sinc of ±`halfWidth` samples, computed and summed in Double; samples outside the
/// signal are 0. With the defaults (16x, ±64 samples, β = 12) every interpolated value of a sine up to
/// 20 kHz at 48 kHz is within 1e-6 of the exact one (the design's worst error; `ReferenceOversamplerTests`
/// checks 2e-6 on sines), so it stands for the ideal interpolator. `factor: 4` gives the points a BS.1770
/// meter reads. Slow (2 × `halfWidth` multiplications per value): for stretches of a few thousand frames.
///
/// Layout: `factor` rows of 2 × `halfWidth` coefficients, one array. Immutable after `init`; safe to share.
public struct ReferenceOversampler: Sendable {
    public let factor: Int
    public let halfWidth: Int
    /// coefficients[p * 2 halfWidth + d + halfWidth]: weight of sample n − d in the value at n + p / factor.
    private let coefficients: [Double]

    public init(factor: Int = 16, halfWidth: Int = 64, beta: Double = 12) {
        self.factor = factor
        self.halfWidth = halfWidth
        func i0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0, m = 1.0
            while term * term > sum * 1e-18 { term *= x / 2 / m; sum += term * term; m += 1 }
            return sum
        }
        coefficients = (0..<factor).flatMap { p in
            (-halfWidth..<halfWidth).map { d -> Double in
                let tau = Double(p) / Double(factor) + Double(d)
                if tau == 0 { return 1 }
                if p == 0 { return 0 }
                let x = tau / Double(halfWidth)
                let window = i0(beta * max(0, 1 - x * x).squareRoot()) / i0(beta)
                return sin(Double.pi * tau) / (Double.pi * tau) * window
            }
        }
    }

    /// The value at n + p / factor (0 ≤ p < factor).
    public func value(_ x: UnsafeBufferPointer<Float>, at n: Int, phase p: Int) -> Double {
        coefficients.withUnsafeBufferPointer { c in
            let row = c.baseAddress! + p * 2 * halfWidth + halfWidth
            let samples = x.baseAddress! + n
            var sum = 0.0
            for d in max(-halfWidth, n - x.count + 1)..<min(halfWidth, n + 1) { sum += row[d] * Double(samples[-d]) }
            return sum
        }
    }

    /// The largest |value| over the samples at `frames` and the values after each (up to the next sample).
    public func truePeak(_ x: UnsafeBufferPointer<Float>, frames: Range<Int>) -> Double {
        var peak = 0.0
        for n in frames { for p in 0..<factor { peak = max(peak, abs(value(x, at: n, phase: p))) } }
        return peak
    }

    /// The same over every channel of `block`, whose first `count` frames are the signal.
    public func truePeak(_ block: AudioBlock, count: Int, frames: Range<Int>) -> Double {
        (0..<block.channelCount).map { c in
            truePeak(UnsafeBufferPointer(start: block.channel(c).baseAddress!, count: count), frames: frames)
        }.max() ?? 0
    }
}
