/// The hot loops of mixrender: a few named kernels over raw `Float` pointers.
///
/// They are written as plain counted loops over unsafe pointers, which the optimiser turns
/// into SIMD code (SSE on baseline x86-64, AVX with a wider target); `bench` measures them
/// against a plain read-add-write baseline over the same buffers. None of them allocates.
public enum Kernels {
    /// dst[i] = 0
    @inlinable
    public static func zero(_ dst: UnsafeMutablePointer<Float>, count: Int) {
        dst.update(repeating: 0, count: count)
    }

    /// dst[i] = value
    @inlinable
    public static func fill(_ dst: UnsafeMutablePointer<Float>, with value: Float, count: Int) {
        dst.update(repeating: value, count: count)
    }

    /// dst[i] = src[i]
    @inlinable
    public static func copy(_ src: UnsafePointer<Float>, to dst: UnsafeMutablePointer<Float>, count: Int) {
        dst.update(from: src, count: count)
    }

    /// dst[i] *= k
    @inlinable
    public static func scale(_ dst: UnsafeMutablePointer<Float>, by k: Float, count: Int) {
        if k == 1 { return }
        for i in 0..<count { dst[i] *= k }
    }

    /// dst[i] *= gains[i]
    @inlinable
    public static func multiply(_ dst: UnsafeMutablePointer<Float>, by gains: UnsafePointer<Float>, count: Int) {
        for i in 0..<count { dst[i] *= gains[i] }
    }

    /// dst[i] += src[i]  (the memory-bandwidth baseline: a plain read-add-write)
    @inlinable
    public static func add(_ src: UnsafePointer<Float>, into dst: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { dst[i] += src[i] }
    }

    /// dst[i] += k * src[i]  (constant gain; unity gain takes the plain add)
    @inlinable
    public static func addScaled(_ src: UnsafePointer<Float>, by k: Float, into dst: UnsafeMutablePointer<Float>, count: Int) {
        if k == 0 { return }
        if k == 1 { add(src, into: dst, count: count); return }
        for i in 0..<count { dst[i] += k * src[i] }
    }

    /// dst[i] += k * gains[i] * src[i]  (per-sample gain envelope times a constant)
    @inlinable
    public static func addProduct(_ src: UnsafePointer<Float>, gains: UnsafePointer<Float>, by k: Float,
                                  into dst: UnsafeMutablePointer<Float>, count: Int) {
        if k == 0 { return }
        if k == 1 {
            for i in 0..<count { dst[i] += gains[i] * src[i] }
        } else {
            for i in 0..<count { dst[i] += k * gains[i] * src[i] }
        }
    }

    /// max |src[i]|
    @inlinable
    public static func peak(_ src: UnsafePointer<Float>, count: Int) -> Float {
        var m: Float = 0
        for i in 0..<count { m = Swift.max(m, Swift.abs(src[i])) }
        return m
    }

    /// sum of src[i]^2, accumulated in Double
    @inlinable
    public static func sumOfSquares(_ src: UnsafePointer<Float>, count: Int) -> Double {
        var s: Double = 0
        for i in 0..<count { let x = Double(src[i]); s += x * x }
        return s
    }

    /// dst[i * n + c] = channels[c][offset + i]
    @inlinable
    public static func interleave(_ block: AudioBlock, offset: Int = 0, count: Int, into dst: UnsafeMutablePointer<Float>) {
        let n = block.channelCount
        if n == 1 { dst.update(from: block.channel(0).baseAddress! + offset, count: count); return }
        if n == 2 {
            let l = block.channel(0).baseAddress! + offset, r = block.channel(1).baseAddress! + offset
            for i in 0..<count { dst[2 * i] = l[i]; dst[2 * i + 1] = r[i] }
            return
        }
        for c in 0..<n {
            let s = block.channel(c).baseAddress! + offset
            for i in 0..<count { dst[i * n + c] = s[i] }
        }
    }

    /// channels[c][offset + i] = src[i * n + c], for the block's first `n` channels
    @inlinable
    public static func deinterleave(_ src: UnsafePointer<Float>, channelCount n: Int, count: Int,
                                    into block: AudioBlock, offset: Int = 0) {
        if n == 1 { block.channel(0).baseAddress!.advanced(by: offset).update(from: src, count: count); return }
        if n == 2 {
            let l = block.channel(0).baseAddress! + offset, r = block.channel(1).baseAddress! + offset
            for i in 0..<count { l[i] = src[2 * i]; r[i] = src[2 * i + 1] }
            return
        }
        for c in 0..<n {
            let d = block.channel(c).baseAddress! + offset
            for i in 0..<count { d[i] = src[i * n + c] }
        }
    }
}
