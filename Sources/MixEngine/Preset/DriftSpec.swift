import MixDSP

/// A track's `drift`: slow, smooth random movement of its gain (and of its pan), laid out at planning
/// from a seed (`"drift": {"gainDb": 4, "timeScale": "3m", "pan": 0.3, "seed": 9}`, or `true` for the
/// defaults). The gain wanders within a band `gainDb` wide centred on the track's gain; the pan within
/// `pan` either side of the track's `pan` (kept within -1...1). Both are `Drift` curves: a seeded value
/// every `timeScale`, joined by raised-cosine segments, so they never leave their range and move at most
/// (pi/2) range / timeScale per second.
///
/// A value of four numbers; allocates nothing. `Sendable`.
public struct DriftSpec: Sendable, Equatable {
    public static let keys = ["gainDb", "timeScale", "pan", "seed"]
    public static let defaultGainDb = 3.0
    public static let defaultTimeScaleSeconds = 180.0
    public static let timeScaleRange = 10.0...3600.0

    /// Width of the band the gain moves in, in dB (half above the track's gain, half below).
    public var gainDb = DriftSpec.defaultGainDb
    /// Seconds between the curve's random points.
    public var timeScaleSeconds = DriftSpec.defaultTimeScaleSeconds
    /// How far the pan may move either side of the track's pan (0: it does not move).
    public var pan = 0.0
    /// nil: the track's index, so that tracks drift apart.
    public var seed: UInt64?
    public init(gainDb: Double = DriftSpec.defaultGainDb, timeScaleSeconds: Double = DriftSpec.defaultTimeScaleSeconds,
                pan: Double = 0, seed: UInt64? = nil) {
        self.gainDb = gainDb; self.timeScaleSeconds = timeScaleSeconds; self.pan = pan; self.seed = seed
    }

    /// Stream numbers of `SeededRandom`, so the gain and the pan move independently.
    static let gainStream: UInt64 = 0x6761_696E
    static let panStream: UInt64 = 0x7061_6E

    /// The gain curve over `[start, end]` (breakpoints on a grid from frame 0), in linear gain.
    func gainEnvelope(seed: UInt64, spacing: Int64, from start: Int64, to end: Int64) -> Envelope {
        let half = gainDb / 2
        return Drift.envelope(seed: seed, stream: Self.gainStream, spacing: spacing, from: start, to: end) { u in
            Float(gain(fromDecibels: u * half))
        }
    }

    /// The pan curve over `[start, end]` around `centre`, kept within -1...1.
    func panEnvelope(seed: UInt64, spacing: Int64, centre: Double, from start: Int64, to end: Int64) -> Envelope {
        Drift.envelope(seed: seed, stream: Self.panStream, spacing: spacing, from: start, to: end) { u in
            Float(min(max(centre + u * pan, -1), 1))
        }
    }
}

extension PresetReader {
    /// `true` (the defaults), `false` (none), or `{"gainDb": 4, "timeScale": "3m", "pan": 0.3, "seed": 9}`.
    static func drift(_ cursor: JSONCursor) throws -> DriftSpec? {
        if case .bool(let on) = cursor.value { return on ? DriftSpec() : nil }
        let object = try cursor.object(allowing: DriftSpec.keys)
        var drift = DriftSpec()
        if let g = object["gainDb"] { drift.gainDb = try g.number(in: 0...24) }
        if let t = object["timeScale"] {
            let seconds = try t.time(allowingZero: false)
            guard DriftSpec.timeScaleRange.contains(seconds) else {
                throw t.error("\(TimeParser.string(fromSeconds: seconds)) is outside 10s...1h, the time scales a drift may have")
            }
            drift.timeScaleSeconds = seconds
        }
        if let p = object["pan"] { drift.pan = try p.number(in: 0...1) }
        if let s = object["seed"] { drift.seed = try s.seed() }
        return drift
    }
}

/// An event of a track whose pan drifts: what it plays, put through the pan curve (`PanDriftSource`).
/// A value (`Sendable`); its source is made per event.
struct PanDriftMaterial: EventMaterial {
    let inner: any EventMaterial
    let pan: Envelope
    /// Timeline position of the inner source's frame 0.
    let timelineOffset: Int64
    var preparation: (any MaterialRequest)? { inner.preparation }

    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        PanDriftSource(try inner.makeSource(context, prepared: prepared), pan: pan, timelineOffset: timelineOffset)
    }

    func describe(into key: inout CacheKeyWriter) {
        inner.describe(into: &key)
        key.field("panDriftOffset", timelineOffset)
        for (k, point) in pan.points.enumerated() { key.field("panDrift\(k)", "\(point.position) \(point.value)") }
    }
}
