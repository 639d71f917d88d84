/// A slow, smooth random curve: seeded random values at breakpoints every `spacing` frames of the
/// timeline, joined by raised-cosine segments (`Curve.sCurve`, zero slope at every breakpoint).
///
/// Between breakpoints k and k+1 the value is v_k + (v_{k+1} - v_k) (1 - cos(pi t)) / 2, so it never
/// leaves the range of the breakpoint values, and its slope is at most (pi / 2) |v_{k+1} - v_k| / spacing
/// per frame: a drift over the range [lo, hi] moves at most (pi / 2) (hi - lo) / spacing per frame, and
/// never jumps. Breakpoint k sits at `origin + k * spacing` and its value depends only on the seed and k,
/// so a partial render reads the same curve as the full one.
///
/// A caseless enum of pure functions; `envelope` allocates the envelope's points (one per `spacing`).
/// Safe from any thread.
public enum Drift {
    /// The breakpoint values, uniform in [-1, 1], for positions `[start, end]`, mapped by `value`, as an
    /// envelope (at least two points). `spacing` must be positive.
    public static func envelope(seed: UInt64, stream: UInt64 = 0, spacing: Int64, origin: Int64 = 0,
                                from start: Int64, to end: Int64, value: (Double) -> Float) -> Envelope {
        precondition(spacing > 0)
        let first = floorDivide(start - origin, spacing)
        let last = max(first + 1, ceilDivide(end - origin, spacing))
        var points: [Envelope.Point] = []
        points.reserveCapacity(Int(last - first + 1))
        for k in first...last {
            let u = SeededRandom.unit(seed: seed, stream: stream, index: UInt64(bitPattern: k)) * 2 - 1
            points.append(Envelope.Point(position: origin + k * spacing, value: value(u), curve: .sCurve))
        }
        return Envelope(points: points)
    }

    /// The steepest a drift across `range` (the distance between its lowest and highest value) can
    /// move per frame with breakpoints `spacing` frames apart: (pi / 2) range / spacing.
    public static func maximumSlope(range: Double, spacing: Int64) -> Double {
        Double.pi / 2 * range / Double(spacing)
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
    static func ceilDivide(_ a: Int64, _ b: Int64) -> Int64 { -floorDivide(-a, b) }
}
