/// A gain that changes over time: breakpoints at integer frame positions, each reached along a curve.
///
/// Like Web Audio's `AudioParam` automation, but evaluated from the absolute frame position only:
/// the value at frame p depends on p and the breakpoints, never on what was rendered before, so
/// the result is the same for any block size and an 8-hour render cannot drift. (Long segments are read
/// through anchors fixed on the timeline: see `anchoredLength`.)
/// Before the first point the envelope holds the first value; after the last, the last value.
///
/// A value holding one array of points; allocates only that array when made (`value` and `render`
/// allocate nothing). `Sendable`, safe to share.
public struct Envelope: Sendable, Equatable {
    /// A gain reached at a frame along a curve.
    public typealias Point = Breakpoint<Int64, Float>

    public let points: [Point]

    /// Points must be in non-decreasing position order (a repeated position is a step).
    public init(points: [Point]) {
        precondition(!points.isEmpty, "an envelope needs at least one point")
        for k in 1..<points.count {
            precondition(points[k].position >= points[k - 1].position, "envelope points must be in order")
        }
        self.points = points
    }

    public static func constant(_ value: Float) -> Envelope { Envelope(points: [Point(position: 0, value: value)]) }

    /// A fade from silence to unity over `[start, start + length)`.
    public static func fadeIn(start: Int64, length: Int64, curve: Curve) -> Envelope {
        Envelope(points: [Point(position: start, value: 0), Point(position: start + length, value: 1, curve: curve)])
    }

    /// A fade from unity to silence that reaches silence at `end`.
    public static func fadeOut(end: Int64, length: Int64, curve: Curve) -> Envelope {
        Envelope(points: [Point(position: end - length, value: 1), Point(position: end, value: 0, curve: curve)])
    }

    /// True if the envelope is the same everywhere.
    public var isConstant: Bool { points.allSatisfy { $0.value == points[0].value } }

    /// Index of the first point whose position is greater than `position` (0...count).
    @usableFromInline
    func upperIndex(_ position: Int64) -> Int {
        var lo = 0, hi = points.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if points[mid].position <= position { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The value at frame `position`.
    public func value(at position: Int64) -> Float {
        let k = upperIndex(position)
        if k == 0 { return points[0].value }
        if k == points.count { return points[k - 1].value }
        return segmentValue(k, position)
    }

    /// Segments at least this long (2^19 frames: 11 s at 48 kHz) are read through anchors: exact every
    /// `anchorSpacing` frames of the timeline (and at the segment's ends), straight lines between. Over 64
    /// frames of a segment that long, a line misses any of the curves by less than 1e-7 (the steepest bend,
    /// the logarithmic curve's at its start, 81 / ln 10 per unit², gives 35 · (64 / 2^19)² / 8 = 7e-8), and
    /// it spares the curve's transcendental function (a cosine for an sCurve) at every frame of a 40-minute
    /// ramp. Shorter segments (fades of a few seconds) are exact at every frame.
    public static let anchoredLength: Int64 = 1 << 19
    public static let anchorSpacing: Int64 = 64

    /// The curve's value at `position` in segment k, exactly.
    @inline(__always)
    func exactValue(_ k: Int, _ position: Int64) -> Double {
        let a = points[k - 1], b = points[k]
        // t = (p - p0) / (p1 - p0), from integers: exact wherever the block boundaries fall
        let t = Double(position - a.position) / Double(b.position - a.position)
        return b.curve.interpolate(from: Double(a.value), to: Double(b.value), at: t)
    }

    /// The anchors around `position` in segment k: `[lo, hi)` (see `anchoredLength`).
    @inline(__always)
    func anchors(_ k: Int, _ position: Int64) -> (lo: Int64, hi: Int64) {
        let spacing = Envelope.anchorSpacing
        let anchor = (position >= 0 ? position / spacing : (position - spacing + 1) / spacing) * spacing
        return (max(anchor, points[k - 1].position), min(anchor + spacing, points[k].position))
    }

    @inline(__always)
    func segmentValue(_ k: Int, _ position: Int64) -> Float {
        guard points[k].position - points[k - 1].position >= Envelope.anchoredLength else { return Float(exactValue(k, position)) }
        let (lo, hi) = anchors(k, position)
        let start = exactValue(k, lo)
        let step = (exactValue(k, hi) - start) / Double(hi - lo)
        return Float(start + step * Double(position - lo))
    }

    /// Writes the values for frames `[position, position + count)` into `gains`, or, when they are all
    /// the same, leaves `gains` alone and returns that value (the caller can use a constant-gain kernel).
    public func render(into gains: UnsafeMutablePointer<Float>, count: Int, at position: Int64) -> Float? {
        let end = position + Int64(count)
        var k = upperIndex(position)
        // Whole block in one constant stretch?
        let nextChange = k < points.count ? points[k].position : Int64.max
        if end <= nextChange {
            if k == 0 { return points[0].value }
            if k == points.count || points[k - 1].value == points[k].value { return points[k - 1].value }
        }
        var p = position
        var i = 0
        while i < count {
            let stop = min(end, k < points.count ? points[k].position : end)
            let n = Int(stop - p)
            if k == 0 || k == points.count || points[k - 1].value == points[k].value {
                Kernels.fill(gains + i, with: points[k == 0 ? 0 : k - 1].value, count: n)
            } else if points[k].position - points[k - 1].position >= Envelope.anchoredLength {
                // a long segment: one exact value per 64 frames, lines between (the same values as `value(at:)`)
                var j = 0
                while j < n {
                    let (lo, hi) = anchors(k, p + Int64(j))
                    let start = exactValue(k, lo), step = (exactValue(k, hi) - start) / Double(hi - lo)
                    let stretch = min(n - j, Int(hi - (p + Int64(j))))
                    for m in 0..<stretch { gains[i + j + m] = Float(start + step * Double(p + Int64(j + m) - lo)) }
                    j += stretch
                }
            } else {
                for j in 0..<n { gains[i + j] = segmentValue(k, p + Int64(j)) }
            }
            i += n; p += Int64(n)
            while k < points.count && points[k].position <= p { k += 1 }
        }
        return nil
    }
}
