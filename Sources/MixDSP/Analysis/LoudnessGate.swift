/// BS.1770-4's gating of 400 ms blocks into an integrated loudness, kept as it goes (`LoudnessHistogram`): the
/// blocks above the absolute gate (-70 LUFS), then those above the relative gate (10 LU under their mean), averaged
/// as powers. Only blocks within 0.01 LU of the relative gate can be counted on the wrong side, so the integrated
/// loudness is that of a list of every block to within a few thousandths of a LU (`LoudnessGateTests`).
///
/// Layout: one `LoudnessHistogram` (120 KB, made in `init`); memory does not grow with the programme's length.
/// `add` allocates nothing. A value type with copy-on-write storage; not shared between threads while it is being
/// added to.
public struct LoudnessGate: Sendable {
    private var blocks = LoudnessHistogram()

    public init() {}

    /// Adds one 400 ms block's weighted mean square (`-0.691 + 10 log10(power)` LUFS).
    public mutating func add(power: Double) {
        blocks.add(lufs: LoudnessHistogram.lufs(power: power), power: power)
    }

    /// Adds another gate's blocks (another part of the same programme).
    public mutating func add(_ other: LoudnessGate) { blocks.add(other.blocks) }

    /// The integrated loudness in LUFS; -infinity when no block passes the gates.
    public var integrated: Double {
        guard let first = blocks.firstBin(gatedBelowMeanBy: 10) else { return -.infinity }
        var gatedCount = 0, gatedPower = 0.0
        for b in first..<blocks.counts.count where blocks.counts[b] > 0 {
            gatedCount += Int(blocks.counts[b])
            gatedPower += blocks.powers[b]
        }
        return gatedCount > 0 ? LoudnessHistogram.lufs(power: gatedPower / Double(gatedCount)) : -.infinity
    }
}
