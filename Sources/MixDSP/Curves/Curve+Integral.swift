import RealModule

/// The area under a curve, in closed form: what a phase is when a frequency follows the curve.
extension Curve {
    /// ∫₀ᵗ shape(s) ds, the antiderivative of the rising shape that is 0 at t = 0 (t clamped to [0, 1]).
    @inlinable
    public func integral(_ t: Double) -> Double {
        let t = min(max(t, 0), 1)
        switch self {
        case .linear:
            // ∫ s ds = t² / 2
            return t * t / 2
        case .equalPower:
            // ∫ sin(πs/2) ds = (2/π) (1 − cos(πt/2))
            return 2 / Double.pi * (1 - _cos(t * Double.pi / 2))
        case .sCurve:
            // ∫ (1 − cos πs) / 2 ds = t/2 − sin(πt) / (2π)
            return t / 2 - _sin(Double.pi * t) / (2 * Double.pi)
        case .logarithmic:
            // ∫ log10(1 + 9s) ds = ((1 + 9t) ln(1 + 9t) − 9t) / (9 ln 10)
            let u = 9 * t
            return ((1 + u) * Double.log(onePlus: u) - u) / (9 * Double.log(10))
        case .exponential:
            // with k = R ln10 / 20 and floor = e^(−k): shape = (e^(k(s − 1)) − floor) / (1 − floor), so
            // ∫ = ((e^(k(t − 1)) − e^(−k)) / k − floor · t) / (1 − floor)
            let k = Curve.exponentialRangeDb * Double.log(10) / 20
            let floor = _exp(-k)
            return ((_exp(k * (t - 1)) - floor) / k - floor * t) / (1 - floor)
        }
    }

    /// ∫₀ᵗ interpolate(from: a, to: b, at: s) ds: the area under a segment from `a` to `b`, up to fraction `t`
    /// (t clamped to [0, 1]; a segment of unit length, so multiply by its length).
    /// Rising: a t + (b − a) S(t). Falling, along the mirror shape(1 − s): ∫₀ᵗ shape(1 − s) ds = S(1) − S(1 − t),
    /// so b t + (a − b) (S(1) − S(1 − t)). `exponential` between two non-zero values is geometric:
    /// ∫ a (b/a)^s ds = a ((b/a)^t − 1) / ln(b/a), written with expm1 so that b close to a loses no digits.
    @inlinable
    public func integral(from a: Double, to b: Double, upTo t: Double) -> Double {
        let t = min(max(t, 0), 1)
        if a == b { return a * t }
        if self == .exponential && a > 0 && b > 0 {
            let r = Double.log(b / a)
            return a * Double.expMinusOne(r * t) / r
        }
        if b >= a { return a * t + (b - a) * integral(t) }
        return b * t + (a - b) * (integral(1) - integral(1 - t))
    }
}
