/// The hot loops of waveform analysis, over raw `Float` pointers; none allocates.
///
/// Reductions are written over `SIMD8<Float>` lanes: the optimiser does not vectorise a scalar float
/// sum or min/max (it would change the order of operations), and the stdlib's generic `pointwiseMin`
/// is not inlined (measured 8x slower than `replace(with:where:)`).
///
/// Stateless: any thread may call them at once, on buffers no other thread is writing.
public enum AnalysisKernels {
    /// (min x[i], max x[i], Σ x[i]²) over `count` samples, in 8-wide SIMD lanes.
    /// An empty range gives (+inf, -inf, 0). The sum is accumulated in `Float` per lane: callers pass
    /// at most a few thousand samples and add the result into a `Double`.
    @inlinable
    public static func minMaxSumOfSquares(_ src: UnsafePointer<Float>, count: Int)
        -> (min: Float, max: Float, sumOfSquares: Float) {
        var i = 0
        var low = SIMD8<Float>(repeating: .infinity)
        var high = SIMD8<Float>(repeating: -.infinity)
        var sum = SIMD8<Float>(repeating: 0)
        let raw = UnsafeRawPointer(src)
        while i + 8 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            low.replace(with: v, where: v .< low)
            high.replace(with: v, where: v .> high)
            sum += v * v
            i &+= 8
        }
        var mn = low.min(), mx = high.max(), s = sum.sum()
        while i < count {
            let x = src[i]
            mn = Swift.min(mn, x)
            mx = Swift.max(mx, x)
            s += x * x
            i &+= 1
        }
        return (mn, mx, s)
    }

    /// Σ x[i], in 8 lanes.
    @inlinable
    public static func sum(_ src: UnsafePointer<Float>, count: Int) -> Float {
        var lanes = SIMD8<Float>(repeating: 0)
        let raw = UnsafeRawPointer(src)
        var i = 0
        while i + 8 <= count {
            lanes += raw.loadUnaligned(fromByteOffset: i &* 4, as: SIMD8<Float>.self)
            i &+= 8
        }
        var s = lanes.sum()
        while i < count { s += src[i]; i &+= 1 }
        return s
    }

    /// power[k] = re[k]² + im[k]² for k in 0 ..< count; returns (Σ |X_k|, Σ k |X_k|), |X_k| = sqrt(power[k]).
    @inlinable
    public static func powerSpectrum(real: UnsafePointer<Float>, imaginary: UnsafePointer<Float>,
                                     into power: UnsafeMutablePointer<Float>, count: Int)
        -> (magnitudeSum: Float, binWeightedSum: Float) {
        var magnitude = SIMD8<Float>(repeating: 0), weighted = SIMD8<Float>(repeating: 0)
        var index = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        let step = SIMD8<Float>(repeating: 8)
        let re = UnsafeRawPointer(real), im = UnsafeRawPointer(imaginary), out = UnsafeMutableRawPointer(power)
        var k = 0
        while k + 8 <= count {
            let a = re.loadUnaligned(fromByteOffset: k &* 4, as: SIMD8<Float>.self)
            let b = im.loadUnaligned(fromByteOffset: k &* 4, as: SIMD8<Float>.self)
            let p = a * a + b * b
            out.storeBytes(of: p, toByteOffset: k &* 4, as: SIMD8<Float>.self)
            let m = p.squareRoot()
            magnitude += m
            weighted += index * m
            index += step
            k &+= 8
        }
        var m = magnitude.sum(), w = weighted.sum()
        while k < count {
            let p = real[k] * real[k] + imaginary[k] * imaginary[k]
            power[k] = p
            let r = p.squareRoot()
            m += r
            w += Float(k) * r
            k &+= 1
        }
        return (m, w)
    }

    /// dst[i] = (a[i] + b[i]) / 2: the mono mix of a stereo pair.
    @inlinable
    public static func average(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                               into dst: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { dst[i] = (a[i] + b[i]) * 0.5 }
    }

    /// dst[i] *= src[i]
    @inlinable
    public static func multiply(_ dst: UnsafeMutablePointer<Float>, by src: UnsafePointer<Float>, count: Int) {
        for i in 0..<count { dst[i] *= src[i] }
    }

    /// The periodic Hann window: w[n] = 0.5 - 0.5 cos(2π n / N), n = 0 ..< N. Frames of it spaced N/2
    /// apart add up to a constant (1), so every sample of a stream counts equally.
    public static func hannWindow(into dst: UnsafeMutablePointer<Float>, count n: Int) {
        for i in 0..<n { dst[i] = Float(0.5 - 0.5 * _cos(2 * Double.pi * Double(i) / Double(n))) }
    }
}
