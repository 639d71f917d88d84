import MixDSP

// The spec values a kind and the preset share: a fade and a loop. They sit below the kinds and the preset reader,
// which both use them (`Preset` holds them in its tracks and master; kinds declare them as settings).

/// How a track loops: a value holding one `FadeSpec`; allocates nothing. `Sendable`, safe to share.
public struct LoopSpec: Sendable, Equatable {
    /// Crossfade at the seam between the end of one repetition and the start of the next.
    public var crossfade: FadeSpec
    public init(crossfade: FadeSpec = FadeSpec(seconds: 1, curve: .equalPower)) { self.crossfade = crossfade }
}

/// A fade: how long, and the curve it follows.
/// A value of a `Double` and a `Curve`; allocates nothing. `Sendable`, safe to share.
public struct FadeSpec: Sendable, Equatable {
    public var seconds: Double
    public var curve: Curve
    public init(seconds: Double, curve: Curve) { self.seconds = seconds; self.curve = curve }
}

extension FadeSpec {
    /// The keys a fade's object takes.
    static let keys = ["duration", "curve"]
    /// The curve of a fade that names none.
    static let defaultCurve = Curve.sCurve
    /// The curve of a crossfade (a loop's seam, a playlist's) that names none.
    static let defaultCrossfadeCurve = Curve.equalPower
}

extension LoopSpec {
    /// The keys a loop's object takes.
    static let keys = ["crossfade"]
}

/// Fades and loops are JSON shapes of their own, read the same wherever they stand (a track, the master, a kind's
/// settings, a session's ending).
extension JSONCursor {
    /// A fade: `"5s"`, `5`, or `{"duration": "5s", "curve": "sCurve"}`.
    /// Crossfades also take the curve name `equalGain`, and (loop seams only) a duration of 0.
    func fade(defaultCurve: Curve = FadeSpec.defaultCurve, isCrossfade: Bool = false, allowingZero: Bool = false) throws -> FadeSpec {
        switch value {
        case .number, .string:
            return FadeSpec(seconds: try time(allowingZero: allowingZero), curve: defaultCurve)
        case .object:
            let object = try self.object(allowing: FadeSpec.keys)
            let seconds = try object.required("duration").time(allowingZero: allowingZero)
            let curve = try object["curve"]?.curve(allowingEqualGain: isCrossfade) ?? defaultCurve
            return FadeSpec(seconds: seconds, curve: curve)
        default:
            throw error("expected a fade (\"5s\", 5, or {\"duration\": \"5s\", \"curve\": \"\(defaultCurve.rawValue)\"}), got \(value.summary)")
        }
    }

    /// `true`, `false`, or `{"crossfade": FADE}` (a crossfade of 0 is a hard seam).
    func loop() throws -> LoopSpec? {
        switch value {
        case .bool(let isLooping):
            return isLooping ? LoopSpec() : nil
        case .object:
            let object = try self.object(allowing: LoopSpec.keys)
            guard let crossfade = object["crossfade"] else { return LoopSpec() }
            return LoopSpec(crossfade: try crossfade.fade(defaultCurve: FadeSpec.defaultCrossfadeCurve, isCrossfade: true, allowingZero: true))
        default:
            throw error("expected true, false or {\"crossfade\": \"1s\"}, got \(value.summary)")
        }
    }
}
