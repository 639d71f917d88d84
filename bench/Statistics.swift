/// Median and spread of repeated measurements.
struct Spread: Encodable {
    var median: Double
    var min: Double
    var max: Double
    /// First and third quartiles (linear interpolation between order statistics).
    var q1: Double
    var q3: Double
    var runs: Int

    init(_ values: [Double]) {
        precondition(!values.isEmpty, "no measurements")
        let v = values.sorted()
        func quantile(_ q: Double) -> Double {
            let x = q * Double(v.count - 1)
            let lo = Int(x), hi = Swift.min(lo + 1, v.count - 1)
            return v[lo] + (v[hi] - v[lo]) * (x - Double(lo))
        }
        median = quantile(0.5); min = v[0]; max = v[v.count - 1]
        q1 = quantile(0.25); q3 = quantile(0.75); runs = v.count
    }

    /// Whether every statistic is a finite number (a ratio over a zero time, or of nothing, is not).
    var isFinite: Bool { [median, min, max, q1, q3].allSatisfy(\.isFinite) }

    /// A single value (a count, a setting): no spread.
    init(exactly value: Double) { self.init([value]) }

    /// The same figure in another unit: every statistic through `f` (which must be monotonic;
    /// a decreasing `f` swaps min and max).
    func map(_ f: (Double) -> Double) -> Spread {
        var s = self
        let (a, b) = (f(min), f(max)), (c, d) = (f(q1), f(q3))
        s.median = f(median); s.min = Swift.min(a, b); s.max = Swift.max(a, b)
        s.q1 = Swift.min(c, d); s.q3 = Swift.max(c, d)
        return s
    }
}
