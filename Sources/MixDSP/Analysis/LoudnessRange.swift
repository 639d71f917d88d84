/// Loudness range (EBU Tech 3342), in LU, from short-term (3 s) loudness values taken every 100 ms: the spread
/// between the 10th and the 95th percentile of the values that pass two gates, -70 LUFS absolute and 20 LU under
/// their power mean relative.
///
/// Tech 3342 (since version 3, 2016) asks for the short-term loudness at 10 Hz at least ("a minimum block overlap
/// of 2.9 s"); libebur128 takes one value a second, which on gusty or short recordings read up to 4.7 LU off
/// FFmpeg's (which takes ten). Both of mixrender's meters feed this one definition: `GatedLoudness` (the render's)
/// its windows of 30 hops, `LoudnessMeter` (files', in MixIO) libebur128's short-term reading every 100 ms. A
/// value is added only once a whole 3 s window stands behind it: a reading over a window not yet filled would
/// count the silence before the programme.
///
/// Layout: one `LoudnessHistogram` of the values (120 KB, made in `init`), the same storage `LoudnessGate` keeps
/// blocks in; memory does not grow with the programme's length (8 hours take what 8 seconds take), and the
/// percentiles it gives are within 0.01 LU of a sort's. `add` allocates nothing. A value type with copy-on-write
/// storage; not shared between threads while it is being added to.
public struct LoudnessRange: Sendable {
    private var values = LoudnessHistogram()

    public init() {}

    /// Adds one short-term loudness value, in LUFS (those at or under the absolute gate, -infinity too, count for nothing).
    public mutating func add(lufs value: Double) {
        values.add(lufs: value, power: LoudnessHistogram.power(lufs: value))
    }

    /// Adds a short-term window's weighted mean square (the BS.1770 power: `-0.691 + 10 log10(power)` LUFS).
    public mutating func add(power: Double) {
        add(lufs: LoudnessHistogram.lufs(power: power))
    }

    /// The range in LU; 0 when fewer than two values pass the gates.
    public var value: Double {
        guard let first = values.firstBin(gatedBelowMeanBy: 20) else { return 0 }
        let bins = values.counts
        var gated = 0
        for b in first..<bins.count { gated += Int(bins[b]) }
        guard gated > 1 else { return 0 }
        // Nearest rank, as libebur128 and `GatedLoudness` took it: the value at index round(p (n - 1)) of the sorted list.
        func percentile(_ p: Double) -> Double {
            let rank = Int((p * Double(gated - 1)).rounded())
            var seen = 0
            for b in first..<bins.count {
                seen += Int(bins[b])
                if seen > rank { return LoudnessHistogram.centre(ofBin: b) }
            }
            return LoudnessHistogram.highest
        }
        return percentile(0.95) - percentile(0.10)
    }
}
