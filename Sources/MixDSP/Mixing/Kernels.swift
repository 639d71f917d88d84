/// The hot loops of mixrender: a few named kernels over raw `Float` pointers.
///
/// They are written as plain counted loops over unsafe pointers, which the optimiser turns
/// into SIMD code (SSE on baseline x86-64, AVX with a wider target); `bench` measures them
/// against a plain read-add-write baseline over the same buffers. None of them allocates.
/// Stateless: any thread may call them at once, on buffers no other thread is writing.
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

    /// dst[i] += term_1(i) + term_2(i) + ... + term_n(i), added one after another in the order given, where
    /// term(i) = (scale * gains[i]) * source[i], or scale * source[i] for a term without gains.
    ///
    /// These are the operations, in the order and with the rounding, of calling `addProduct` (or
    /// `addScaled`) once per term, so the result is bit-identical; but `dst` is read and written once
    /// instead of once per term, and the sum stays in registers. Leave out terms whose scale is 0
    /// (`addProduct` and `addScaled` skip them). Explicit `SIMD8<Float>`: two SSE or one AVX register.
    @inlinable
    public static func mix(_ terms: UnsafeBufferPointer<MixTerm>, into dst: UnsafeMutablePointer<Float>, count: Int) {
        guard let base = terms.baseAddress else { return }
        // At most 8 terms per pass: 16 or more input streams at once defeat the hardware prefetchers
        // (measured: 16 tracks in one pass ran at half the speed of two passes of 8).
        var start = 0
        while start < terms.count {
            let n = min(8, terms.count - start)
            mixPass(base + start, n, into: dst, count: count)
            start += n
        }
    }

    @inlinable
    static func mixPass(_ first: UnsafePointer<MixTerm>, _ n: Int, into dst: UnsafeMutablePointer<Float>, count: Int) {
        typealias V = SIMD8<Float>
        let width = V.scalarCount
        var i = 0
        // Two vectors per step: enough independent work to hide the latency of the adds.
        while i + 2 * width <= count {
            var a = UnsafeRawPointer(dst + i).loadUnaligned(as: V.self)
            var b = UnsafeRawPointer(dst + i + width).loadUnaligned(as: V.self)
            for t in 0..<n {
                let term = first[t]
                let s = UnsafeRawPointer(term.source + i)
                if let gains = term.gains {
                    let g = UnsafeRawPointer(gains + i)
                    a += (term.scale * g.loadUnaligned(as: V.self)) * s.loadUnaligned(as: V.self)
                    b += (term.scale * g.loadUnaligned(fromByteOffset: width * 4, as: V.self))
                        * s.loadUnaligned(fromByteOffset: width * 4, as: V.self)
                } else {
                    a += term.scale * s.loadUnaligned(as: V.self)
                    b += term.scale * s.loadUnaligned(fromByteOffset: width * 4, as: V.self)
                }
            }
            UnsafeMutableRawPointer(dst + i).storeBytes(of: a, as: V.self)
            UnsafeMutableRawPointer(dst + i + width).storeBytes(of: b, as: V.self)
            i += 2 * width
        }
        while i < count {
            var x = dst[i]
            for t in 0..<n {
                let term = first[t]
                if let gains = term.gains { x += (term.scale * gains[i]) * term.source[i] } else { x += term.scale * term.source[i] }
            }
            dst[i] = x
            i += 1
        }
    }

    /// max |src[i]|, ignoring NaNs.
    ///
    /// Eight running maxima, then the largest of them: the maximum does not depend on the order, so
    /// this is the value of the plain loop `m = max(m, abs(x))` (which the compiler does not vectorise).
    @inlinable
    public static func peak(_ src: UnsafePointer<Float>, count: Int) -> Float {
        typealias V = SIMD8<Float>
        let magnitude = SIMD8<UInt32>(repeating: 0x7FFF_FFFF)
        var lanes = V()
        var i = 0
        while i + V.scalarCount <= count {
            let x = UnsafeRawPointer(src + i).loadUnaligned(as: V.self)
            let a = unsafeBitCast(unsafeBitCast(x, to: SIMD8<UInt32>.self) & magnitude, to: V.self)   // |x|
            lanes.replace(with: a, where: lanes .< a)                   // a NaN compares false: ignored
            i += V.scalarCount
        }
        var m = lanes.max()
        while i < count { m = Swift.max(m, Swift.abs(src[i])); i += 1 }
        return m
    }

    /// sum of src[i]^2, accumulated in Double
    @inlinable
    public static func sumOfSquares(_ src: UnsafePointer<Float>, count: Int) -> Double {
        var s: Double = 0
        for i in 0..<count { let x = Double(src[i]); s += x * x }
        return s
    }

    /// The sums of squares of two buffers, each exactly as `sumOfSquares` computes it (in order, in
    /// Double). The two sums are independent chains of additions; computing them side by side lets
    /// each addition overlap the other chain's, twice the speed of two calls in a row.
    @inlinable
    public static func sumOfSquares(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> (Double, Double) {
        var s: Double = 0, t: Double = 0
        for i in 0..<count {
            let x = Double(a[i]), y = Double(b[i])
            s += x * x
            t += y * y
        }
        return (s, t)
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

/// One input of `Kernels.mix`: a source, a constant scale and, optionally, a per-sample gain.
/// A value of two pointers and a `Float` (it owns none of the memory); allocates nothing. Not
/// `Sendable`: it points at buffers the caller owns, so use it on the thread that made it.
@frozen
public struct MixTerm {
    public var source: UnsafePointer<Float>
    /// Per-sample gains, or nil for a constant gain (`scale` alone).
    public var gains: UnsafePointer<Float>?
    public var scale: Float

    @inlinable
    public init(source: UnsafePointer<Float>, gains: UnsafePointer<Float>?, scale: Float) {
        self.source = source; self.gains = gains; self.scale = scale
    }
}
