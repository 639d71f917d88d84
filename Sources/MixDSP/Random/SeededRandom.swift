/// Reproducible random numbers addressed by (seed, stream, index): the n-th number of a stream is a
/// SplitMix64 hash of the three, so it depends on nothing drawn before it. A plan that lays out events,
/// segments or drift from a seed gets the same layout however it is computed, and one stream (event
/// times, say) does not shift when another (their gains) is drawn more or less often.
///
/// A caseless enum of pure functions: no state, allocates nothing, safe from any thread.
public enum SeededRandom {
    /// 64 random bits for number `index` of `stream` under `seed` (SplitMix64's finaliser over a mix of the three).
    @inlinable
    public static func bits(seed: UInt64, stream: UInt64, index: UInt64) -> UInt64 {
        var z = seed &+ 0x9E37_79B9_7F4A_7C15 &* (stream &* 0x1_0000_0001 &+ 1)
        z = (z ^ (z >> 31)) &* 0xD6E8_FEB8_6659_FD93
        z = z &+ index &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform number in [0, 1) (53 random bits).
    @inlinable
    public static func unit(seed: UInt64, stream: UInt64, index: UInt64) -> Double {
        Double(bits(seed: seed, stream: stream, index: index) >> 11) * 0x1p-53
    }

    /// A uniform number in `range` (its lower bound when the range is one value).
    @inlinable
    public static func uniform(_ range: ClosedRange<Double>, seed: UInt64, stream: UInt64, index: UInt64) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * unit(seed: seed, stream: stream, index: index)
    }

    /// 64 random bits for item `index` (a slot of the timeline, which may be negative) of `stream`; `draw` picks
    /// one of several independent values of the same item (its time, its level, its pan, ...).
    @inlinable
    public static func bits(seed: UInt64, stream: UInt64, index: Int64, draw: UInt64 = 0) -> UInt64 {
        bits(seed: seed, stream: stream &+ (draw << 32), index: UInt64(bitPattern: index))
    }

    /// A uniform number in [0, 1) for item `index` of `stream`, value `draw` of it.
    @inlinable
    public static func unit(seed: UInt64, stream: UInt64, index: Int64, draw: UInt64 = 0) -> Double {
        unit(bits(seed: seed, stream: stream, index: index, draw: draw))
    }

    /// A uniform number in [0, 1) from 64 random bits (their top 53).
    @inlinable
    public static func unit(_ bits: UInt64) -> Double { Double(bits >> 11) * 0x1p-53 }

    /// A uniform integer in `0..<count` (`count` > 0).
    @inlinable
    public static func below(_ count: Int, seed: UInt64, stream: UInt64, index: UInt64) -> Int {
        precondition(count > 0)
        return Int(bits(seed: seed, stream: stream, index: index).multipliedFullWidth(by: UInt64(count)).high)
    }
}
