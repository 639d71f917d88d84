/// The shape of a fade, a crossfade or an envelope segment.
///
/// `shape(t)` is the rising shape on t in [0, 1]: 0 at t = 0, 1 at t = 1, monotonic.
/// A falling segment is the rising shape played backwards, `shape(1 - t)`, so a fade-out is the
/// mirror image of a fade-in and a crossfade of the two keeps what the curve's name says:
/// `linear` keeps gain constant (fadeIn + fadeOut = 1, for correlated material),
/// `equalPower` keeps power constant (fadeIn^2 + fadeOut^2 = 1, for unrelated material).
///
/// A plain enum value (`Sendable`, safe to share); `shape` and `interpolate` allocate nothing.
public enum Curve: String, CaseIterable, Sendable {
    case linear
    case equalPower
    case sCurve
    case logarithmic
    case exponential

    /// The range an `exponential` fade covers: linear in dB from -60 dB to 0 dB.
    public static let exponentialRangeDb: Double = 60

    /// Names a crossfade may also use: `equalGain` is `linear` under the name of what it keeps constant.
    public static func named(_ name: String) -> Curve? {
        if name == "equalGain" { return .linear }
        return Curve(rawValue: name)
    }

    @inlinable
    public func shape(_ t: Double) -> Double {
        let t = min(max(t, 0), 1)
        switch self {
        case .linear:
            // g = t
            return t
        case .equalPower:
            // g = sin(t * pi/2)   (quarter sine; with its mirror cos, g_in^2 + g_out^2 = 1)
            return _sin(t * Double.pi / 2)
        case .sCurve:
            // g = (1 - cos(pi * t)) / 2   (raised cosine; zero slope at both ends)
            return (1 - _cos(Double.pi * t)) / 2
        case .logarithmic:
            // g = log10(1 + 9 t)   (fast rise, slow finish)
            return _log10(1 + 9 * t)
        case .exponential:
            // g = (10^(R (t - 1) / 20) - 10^(-R/20)) / (1 - 10^(-R/20)), R = 60 dB
            // linear in dB over the top 60 dB, shifted so it starts at exactly 0
            let floor = _pow10(-Curve.exponentialRangeDb / 20)
            return (_pow10(Curve.exponentialRangeDb * (t - 1) / 20) - floor) / (1 - floor)
        }
    }

    /// The value between `from` and `to` at fraction `t` of the segment.
    /// Rising segments follow `shape(t)`, falling ones the mirror `shape(1 - t)`.
    /// `exponential` between two non-zero gains interpolates geometrically (linear in dB).
    @inlinable
    public func interpolate(from a: Double, to b: Double, at t: Double) -> Double {
        if self == .exponential && a > 0 && b > 0 {
            // g = a * (b / a)^t
            return a * _pow(b / a, min(max(t, 0), 1))
        }
        if b >= a { return a + (b - a) * shape(t) }
        return b + (a - b) * shape(1 - t)
    }
}
