/// The hot loops of waveform analysis, over raw `Float` pointers; none allocates.
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
            low = pointwiseMin(low, v)
            high = pointwiseMax(high, v)
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

    /// The periodic Hann window: w[n] = 0.5 - 0.5 cos(2π n / N), n = 0 ..< N. Frames of it spaced N/4
    /// apart add up to a constant (1.5), so every sample of a stream counts equally.
    public static func hannWindow(into dst: UnsafeMutablePointer<Float>, count n: Int) {
        for i in 0..<n { dst[i] = Float(0.5 - 0.5 * _cos(2 * Double.pi * Double(i) / Double(n))) }
    }
}
