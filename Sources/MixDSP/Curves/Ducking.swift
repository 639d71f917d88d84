/// Ducking computed offline: where speech is (ranges of frames) becomes a gain envelope for the bed
/// under it. Knowing the future, it does what no reactive ducker can: the bed starts down before the
/// first syllable.
///
/// For each stretch of speech `[s, e)` the bed goes down over `[s − lookahead, s − lookahead + attack)`
/// (so with `attack ≤ lookahead` it is down before the voice starts), stays down to `e`, and comes back up
/// over `[e, e + release)`. Two stretches are one (the bed stays down between them) when the pause between
/// them is shorter than `hold`, or too short for the bed to come up and go down again (shorter than
/// `release + lookahead`).
///
/// A value of frame counts, a depth and two curves; allocates nothing. `envelope` allocates the envelope's
/// points and the list of ducked spans. `Sendable`, safe to share.
public struct Ducking: Sendable, Equatable {
    /// The bed's gain while ducked (linear, below 1).
    public var depth: Float
    public var lookahead: Int64
    public var attack: Int64
    public var hold: Int64
    public var release: Int64
    public var attackCurve: Curve
    public var releaseCurve: Curve

    public init(depth: Float, lookahead: Int64, attack: Int64, hold: Int64, release: Int64,
                attackCurve: Curve = .sCurve, releaseCurve: Curve = .sCurve) {
        precondition(depth >= 0 && depth < 1, "a ducking depth is a gain below 1")
        precondition(lookahead >= 0 && attack >= 0 && attack <= lookahead && hold >= 0 && release >= 0,
                     "ducking times are 0 or more, and the attack fits in the look-ahead")
        self.depth = depth; self.lookahead = lookahead; self.attack = attack; self.hold = hold; self.release = release
        self.attackCurve = attackCurve; self.releaseCurve = releaseCurve
    }

    /// One ducked stretch: down over `[downFrom, down)`, down until `upFrom`, back to unity at `up`.
    public struct Span: Sendable, Equatable {
        public var downFrom: Int64
        public var down: Int64
        public var upFrom: Int64
        public var up: Int64
    }

    /// The stretches where the bed is ducked under `speech` (ranges in any order, possibly overlapping).
    public func spans(_ speech: [Range<Int64>]) -> [Span] {
        let sorted = speech.filter { !$0.isEmpty }.sorted { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int64>] = []
        for range in sorted {
            if let last = merged.last {
                let pause = range.lowerBound - last.upperBound
                if pause < hold || pause < release + lookahead {
                    merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
                    continue
                }
            }
            merged.append(range)
        }
        return merged.map { Span(downFrom: $0.lowerBound - lookahead, down: $0.lowerBound - lookahead + attack,
                                 upFrom: $0.upperBound, up: $0.upperBound + release) }
    }

    /// The bed's gain envelope for `spans` (from `spans(_:)`): unity, down to `depth` at every span; nil when
    /// there are none.
    public func envelope(_ spans: [Span]) -> Envelope? {
        guard !spans.isEmpty else { return nil }
        var points: [Envelope.Point] = []
        for span in spans {
            points.append(Envelope.Point(position: span.downFrom, value: 1))
            points.append(Envelope.Point(position: span.down, value: depth, curve: attackCurve))
            points.append(Envelope.Point(position: span.upFrom, value: depth))
            points.append(Envelope.Point(position: span.up, value: 1, curve: releaseCurve))
        }
        return Envelope(points: points)
    }
}
