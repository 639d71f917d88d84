/// A frequency (a carrier, a beat, a pulse rate) that changes over time, and the phase it builds up:
/// breakpoints at integer frame positions, each reached along a curve, like `Envelope` but in Hz and with
/// the running phase in closed form.
///
///   hz(n)     = the segment's curve between its two points (`Curve.interpolate`); before the first point
///               the first value, after the last the last value (a repeated position is a step)
///   cycles(n) = ∫₀ⁿ hz(x) dx / rate        (in cycles; negative for n < 0)
///
/// `cycles` is exact per segment: the cycles at every point are added up once, in `init`, and within a
/// segment the exact integral of its curve is added (`Curve.integral(from:to:upTo:)`). Nothing accumulates
/// from frame to frame, so the phase at a frame depends on that frame only, and it is continuous through
/// every point, steps included (the frequency jumps, the phase does not).
///
/// Precision: `cycles` is a Double. At the worst a render allows (100 hours at 24 kHz, 8.6e9 cycles) its
/// spacing is 2^-19 of a cycle (1.2e-5 rad, about 98 dB below the tone); at 8 hours of a 1 kHz carrier
/// (2.9e7 cycles) it is 2^-28 of a cycle (2.3e-8 rad). A generator takes the fraction of it in Double before going to Float.
///
/// A value holding two arrays (the points and the cycles at each), allocated in `init`; `hz`, `cycles` and
/// `segment` allocate nothing. `Sendable`, safe to share and to read from several threads.
public struct RateSchedule: Sendable, Equatable {
    /// A frequency in Hz (its `value`) reached at a frame along a curve.
    public typealias Point = Breakpoint<Int64, Double>

    public let points: [Point]
    public let sampleRate: Int
    /// cycles(at: points[k].position), from frame 0.
    private let cyclesAtPoint: [Double]

    /// Points must be in non-decreasing position order (a repeated position is a step) and every value a
    /// finite frequency above 0.
    public init(points: [Point], sampleRate: Int) {
        precondition(!points.isEmpty, "a rate schedule needs at least one point")
        precondition(sampleRate > 0, "a rate schedule needs a positive sample rate")
        for (k, point) in points.enumerated() {
            precondition(point.value.isFinite && point.value > 0, "a rate must be finite and above 0")
            precondition(k == 0 || point.position >= points[k - 1].position, "rate schedule points must be in order")
        }
        self.points = points
        self.sampleRate = sampleRate
        let rate = Double(sampleRate)
        // cycles at the first point: the first value held from frame 0
        var cycles = [Double(points[0].position) * points[0].value / rate]
        cycles.reserveCapacity(points.count)
        for k in 1..<points.count {
            let a = points[k - 1], b = points[k]
            // the whole segment: length · ∫₀¹ f(t) dt / rate
            let area = b.curve.integral(from: a.value, to: b.value, upTo: 1)
            cycles.append(cycles[k - 1] + Double(b.position - a.position) * area / rate)
        }
        cyclesAtPoint = cycles
    }

    /// The same rate everywhere.
    public static func constant(_ hz: Double, sampleRate: Int) -> RateSchedule {
        RateSchedule(points: [Point(position: 0, value: hz)], sampleRate: sampleRate)
    }

    /// The highest and lowest rates it reaches (every curve is monotonic, so these are values of points).
    public var maximumHz: Double { points.lazy.map(\.value).max()! }
    public var minimumHz: Double { points.lazy.map(\.value).min()! }

    /// The rate at frame `n`, in Hz.
    public func hz(at n: Int64) -> Double { segment(at: n).hz(at: n) }

    /// The phase at frame `n`: ∫₀ⁿ hz(x) dx / rate, in cycles.
    public func cycles(at n: Int64) -> Double { segment(at: n).cycles(at: n) }

    /// One stretch of the schedule on which a single formula holds: before the first point, between two
    /// points, or after the last. A generator finds the segment once and reads it for every frame up to
    /// `end`, which gives the same values as `cycles(at:)` (that function reads the same segment).
    /// A value of a few words; allocates nothing.
    @usableFromInline
    struct Segment {
        /// The first frame after the segment (Int64.max for the last).
        let end: Int64
        /// The frame the segment is measured from, and the cycles there.
        let origin: Int64
        let originCycles: Double
        /// Length in frames (0 for a constant stretch), the rates at both ends and the curve between them.
        let length: Int64
        let from: Double
        let to: Double
        let curve: Curve
        let rate: Double

        @inline(__always)
        func hz(at n: Int64) -> Double {
            if length == 0 { return from }
            return curve.interpolate(from: from, to: to, at: Double(n - origin) / Double(length))
        }

        @inline(__always)
        func cycles(at n: Int64) -> Double {
            if length == 0 || from == to {
                // constant: c0 + (n − n0) f / rate
                return originCycles + Double(n - origin) * from / rate
            }
            // ramp: c0 + L ∫₀ᵗ f(s) ds / rate, t = (n − n0) / L
            let t = Double(n - origin) / Double(length)
            return originCycles + Double(length) * curve.integral(from: from, to: to, upTo: t) / rate
        }
    }

    /// The segment that holds frame `n`.
    @usableFromInline
    func segment(at n: Int64) -> Segment {
        // k: index of the first point whose position is greater than n (0...count)
        var lo = 0, hi = points.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if points[mid].position <= n { lo = mid + 1 } else { hi = mid }
        }
        let k = lo, rate = Double(sampleRate)
        if k == 0 {
            // before the first point: the first value, from frame 0 (exactly n · f / rate)
            return Segment(end: points[0].position, origin: 0, originCycles: 0, length: 0, from: points[0].value,
                           to: points[0].value, curve: .linear, rate: rate)
        }
        let a = points[k - 1]
        if k == points.count {
            return Segment(end: Int64.max, origin: a.position, originCycles: cyclesAtPoint[k - 1], length: 0, from: a.value,
                           to: a.value, curve: .linear, rate: rate)
        }
        let b = points[k]
        return Segment(end: b.position, origin: a.position, originCycles: cyclesAtPoint[k - 1],
                       length: b.position - a.position, from: a.value, to: b.value, curve: b.curve, rate: rate)
    }

    /// Reads the phase frame after frame, cheaply: exact (`cycles(at:)`) where the rate is constant, and on a
    /// ramp exact at every `anchorSpacing`-th frame of the timeline and at the ramp's ends, linear in between.
    /// The anchors are fixed on the timeline, so the value at a frame does not depend on where reading
    /// started: generators stay block-size independent. A ramp's phase is smooth; over 64 frames a straight
    /// line misses it by at most (rate change per second) · (64 / rate)² / 8 cycles: 2e-9 of a cycle for a
    /// beat moving 1 Hz a second at 48 kHz. It spares the transcendental function of a curved ramp's closed
    /// form (a cosine for an sCurve) at every frame. A value holding one segment; one reader per render call.
    public struct Reader {
        public static let anchorSpacing: Int64 = 64
        let schedule: RateSchedule
        var segment: Segment
        var lo: Int64 = 0, hi: Int64 = 0, start = 0.0, slope = 0.0

        public init(_ schedule: RateSchedule, at n: Int64) {
            self.schedule = schedule
            segment = schedule.segment(at: n)
        }

        /// The anchored stretch of the timeline that holds frame `n`: from `lo` up to `hi` (the next anchor, or
        /// the segment's end), the cycles at `lo`, and the cycles per frame across it, so that the phase at
        /// frame `lo + k` is `start + slope · k` (exactly so where the rate is constant; the ramp's straight
        /// line between anchors otherwise, the same values `cycles(at:)` gives).
        public mutating func stretch(at n: Int64) -> (lo: Int64, hi: Int64, start: Double, slope: Double) {
            _ = cycles(at: n)
            if segment.length == 0 || segment.from == segment.to {
                let spacing = Reader.anchorSpacing
                let anchor = (n >= 0 ? n / spacing : (n - spacing + 1) / spacing) * spacing
                let lo = max(anchor, segment.origin), hi = min(anchor + spacing, segment.end)
                return (lo, hi, segment.cycles(at: lo), segment.from / segment.rate)
            }
            return (lo, hi, start, slope)
        }

        /// The cycles at frame `n` (see the type's documentation).
        @inline(__always)
        public mutating func cycles(at n: Int64) -> Double {
            if n >= segment.end || n < segment.origin { segment = schedule.segment(at: n); hi = lo }
            if segment.length == 0 || segment.from == segment.to { return segment.cycles(at: n) }
            if n < lo || n >= hi {
                let spacing = Reader.anchorSpacing
                let anchor = (n >= 0 ? n / spacing : (n - spacing + 1) / spacing) * spacing
                lo = max(anchor, segment.origin)
                hi = min(anchor + spacing, segment.end)
                start = segment.cycles(at: lo)
                slope = (segment.cycles(at: hi) - start) / Double(hi - lo)
            }
            return start + slope * Double(n - lo)
        }
    }
}
