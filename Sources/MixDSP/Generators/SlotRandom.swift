import RealModule

/// Counter-based random numbers for the procedural generators (surf, fire, crickets): every value is a
/// SplitMix64 hash of (seed, stream, index), so the n-th swell, crackle or chirp is known without drawing
/// the ones before it, and any position can be rendered first.
///
/// A namespace of pure functions on integers; no state, allocates nothing; safe from any thread.
public enum SlotRandom {
    /// SplitMix64's finaliser: a bijection of 64 bits with full avalanche.
    @inline(__always)
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 64 random bits for item `index` of stream `stream` under `seed`.
    @inline(__always)
    public static func bits(_ seed: UInt64, _ stream: UInt64, _ index: Int64) -> UInt64 {
        mix(mix(seed ^ (stream &* 0xD6E8_FEB8_6659_FD93)) ^ UInt64(bitPattern: index))
    }

    /// Uniform in [0, 1) for item `index` of stream `stream`; `draw` picks one of several independent values of
    /// the same item (its time, its level, its pan, ...).
    @inline(__always)
    public static func uniform(_ seed: UInt64, _ stream: UInt64, _ index: Int64, draw: UInt64 = 0) -> Double {
        let z = mix(bits(seed, stream, index) ^ (draw &* 0xA24B_AED4_963E_E407))
        return Double(z >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Equal-power gains of a pan in [-1, 1] for channel `c` of `channelCount`: mono takes 1, and the
    /// channels of a wider layout alternate left, right.
    @inline(__always)
    public static func panGain(_ pan: Double, channel c: Int, of channelCount: Int) -> Double {
        guard channelCount > 1 else { return 1 }
        // equal power: left = cos(π/4 (1 + p)), right = sin(π/4 (1 + p)), both √½ at the centre
        let angle = Double.pi / 4 * (1 + pan)
        return (c % 2 == 0 ? Double.cos(angle) : Double.sin(angle)) * 2.0.squareRoot()
    }
}
