/// Where to start a segment of a recording so that it joins the segment before it smoothly: among
/// candidate start frames near a target, the one whose opening best matches, over a short window, what
/// the outgoing segment plays at the same moment of the crossfade (normalised cross-correlation of a
/// mono downmix). Joining in phase, the crossfade neither cancels (a dip) nor beats.
///
/// A caseless enum of pure functions over a buffer the caller holds; allocates nothing. Safe from any thread.
public enum JoinSearch {
    /// The candidate `c` in `candidates` maximising
    ///   r(c) = sum_j a[e + j] a[c + j] / sqrt(sum_j a[e + j]^2 * sum_j a[c + j]^2),  j in [from, from + window)
    /// where `e` is `outgoing` (the source frame the outgoing segment plays when the incoming starts).
    /// Candidates whose window falls outside `material` are skipped; the first of equals wins; `fallback`
    /// when none is usable or the material is silent there.
    public static func bestStart(material a: UnsafeBufferPointer<Float>, outgoing e: Int, candidates: ClosedRange<Int>,
                                 windowFrom from: Int, window: Int, isAllowed: (Int) -> Bool, fallback: Int) -> Int {
        guard window > 0, e + from >= 0, e + from + window <= a.count else { return fallback }
        var energyE = 0.0
        for j in 0..<window { let x = Double(a[e + from + j]); energyE += x * x }
        guard energyE > 0 else { return fallback }
        var best = fallback, bestScore = -Double.infinity
        for c in candidates where c + from >= 0 && c + from + window <= a.count && isAllowed(c) {
            var dot = 0.0, energyC = 0.0
            for j in 0..<window {
                let x = Double(a[e + from + j]), y = Double(a[c + from + j])
                dot += x * y
                energyC += y * y
            }
            guard energyC > 0 else { continue }
            let score = dot / (energyE * energyC).squareRoot()
            if score > bestScore { bestScore = score; best = c }
        }
        return best
    }
}
