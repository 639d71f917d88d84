/// Loudness values kept as BS.1770's gates need them, in memory that does not grow with the programme: bins of
/// 0.01 LU from -70 LUFS (the absolute gate: values at or under it count for nothing) to +30 LUFS, each holding its
/// values' count and the sum of their powers, beside the running count and power sum of them all. A relative gate
/// (some LU under the power mean of everything added) takes the bins above it whole, and the bin it falls in when
/// that bin's centre is above it, so only values within 0.01 LU of the gate can land on the wrong side.
/// `LoudnessGate` (integrated loudness, 400 ms blocks, gate 10 LU) and `LoudnessRange` (short-term values, gate
/// 20 LU) are both read from one.
///
/// Layout: 10,000 `Int32` counts and 10,000 `Double` sums (120 KB, made in `init`) and two running figures. `add`
/// allocates nothing. A value type with copy-on-write storage; not shared between threads while it is being added to.
struct LoudnessHistogram: Sendable {
    static let lowest = -70.0, highest = 30.0, binsPerLU = 100.0
    private(set) var counts: [Int32]
    private(set) var powers: [Double]
    private var count = 0
    private var powerSum = 0.0

    init() {
        let bins = Int((Self.highest - Self.lowest) * Self.binsPerLU)
        counts = [Int32](repeating: 0, count: bins)
        powers = [Double](repeating: 0, count: bins)
    }

    /// BS.1770's loudness of a weighted mean square, and back.
    static func lufs(power: Double) -> Double { power > 0 ? -0.691 + 10 * _log10(power) : -.infinity }
    static func power(lufs: Double) -> Double { _pow(10, (lufs + 0.691) / 10) }

    /// The loudness at the centre of bin `b`.
    static func centre(ofBin b: Int) -> Double { lowest + (Double(b) + 0.5) / binsPerLU }

    /// Adds one value, given both as loudness and as power.
    mutating func add(lufs value: Double, power: Double) {
        guard value > Self.lowest, value.isFinite else { return }
        let bin = min(counts.count - 1, Int((value - Self.lowest) * Self.binsPerLU))
        counts[bin] &+= 1
        powers[bin] += power
        count += 1
        powerSum += power
    }

    /// Adds another histogram's values (another part of the same programme).
    mutating func add(_ other: LoudnessHistogram) {
        for b in counts.indices { counts[b] &+= other.counts[b]; powers[b] += other.powers[b] }
        count += other.count
        powerSum += other.powerSum
    }

    /// The first bin a relative gate `lu` under the power mean of everything added lets through; nil when empty.
    func firstBin(gatedBelowMeanBy lu: Double) -> Int? {
        guard count > 0 else { return nil }
        let threshold = Self.lufs(power: powerSum / Double(count)) - lu
        return max(0, Int(((threshold - Self.lowest) * Self.binsPerLU).rounded()))
    }
}
