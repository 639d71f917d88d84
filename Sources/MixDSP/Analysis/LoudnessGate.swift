/// BS.1770-4's gating of 400 ms blocks into an integrated loudness, kept as it goes: the blocks above the
/// absolute gate (-70 LUFS) in a histogram of 0.01 LU bins up to +30 LUFS, each bin holding its blocks' count and
/// the sum of their powers, beside the exact running sum and count of them all. At the end the relative gate
/// (10 LU under the mean of those blocks) takes the bins above it whole, and the bin it falls in when that bin's
/// centre is above it; so only blocks within 0.01 LU of the gate can be counted on the wrong side, and the
/// integrated loudness is that of a list of every block to within a few thousandths of a LU (`LoudnessGateTests`).
/// `LoudnessRange` keeps the short-term values the same way.
///
/// Layout: 10,000 `Int32` counts and 10,000 `Double` sums (120 KB, made in `init`) and two running figures; memory
/// does not grow with the programme's length. `add` allocates nothing. A value type with copy-on-write storage;
/// not shared between threads while it is being added to.
public struct LoudnessGate: Sendable {
    static let lowest = -70.0, highest = 30.0, binsPerLU = 100.0
    private var counts: [Int32]
    private var sums: [Double]
    private var count = 0
    private var powerSum = 0.0

    public init() {
        let bins = Int((Self.highest - Self.lowest) * Self.binsPerLU)
        counts = [Int32](repeating: 0, count: bins)
        sums = [Double](repeating: 0, count: bins)
    }

    static func lufs(_ power: Double) -> Double { power > 0 ? -0.691 + 10 * _log10(power) : -.infinity }

    /// Adds one 400 ms block's weighted mean square (`-0.691 + 10 log10(power)` LUFS); blocks at or under the
    /// absolute gate count for nothing.
    public mutating func add(power: Double) {
        let value = Self.lufs(power)
        guard value > Self.lowest, value.isFinite else { return }
        let bin = min(counts.count - 1, Int((value - Self.lowest) * Self.binsPerLU))
        counts[bin] &+= 1
        sums[bin] += power
        count += 1
        powerSum += power
    }

    /// Adds another gate's blocks (another part of the same programme).
    public mutating func add(_ other: LoudnessGate) {
        for b in counts.indices { counts[b] &+= other.counts[b]; sums[b] += other.sums[b] }
        count += other.count
        powerSum += other.powerSum
    }

    /// The integrated loudness in LUFS; -infinity when no block passes the gates.
    public var integrated: Double {
        guard count > 0 else { return -.infinity }
        let threshold = Self.lufs(powerSum / Double(count)) - 10
        let first = max(0, Int(((threshold - Self.lowest) * Self.binsPerLU).rounded()))
        var gatedCount = 0, gatedSum = 0.0
        for b in first..<counts.count where counts[b] > 0 {
            gatedCount += Int(counts[b])
            gatedSum += sums[b]
        }
        guard gatedCount > 0 else { return -.infinity }
        return Self.lufs(gatedSum / Double(gatedCount))
    }
}
