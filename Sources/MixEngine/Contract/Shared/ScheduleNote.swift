import MixDSP

/// A frequency that follows a schedule, on the timeline (`binaural`'s beat, `isochronic`'s pulse).
/// A value; allocates only its points. `Sendable`.
public struct ScheduleNote: TimelineNote, Equatable {
    /// `beat` (binaural) or `pulse` (isochronic).
    public var what: String
    public var carrierHz: Double
    /// The points in frames, as the tone follows them.
    public var points: [RateSchedule.Point]
    public var type: String { "schedule" }

    public func members(_ times: TimelineJSON.Times) -> [JSONValue.Member] {
        let points = points.map { point in
            JSONValue.object(["at": times.time(point.position), "hz": JSONValue.rounded(point.value), "curve": .string(point.curve.rawValue)])
        }
        return [JSONValue.Member("of", .string(what)), JSONValue.Member("carrierHz", JSONValue.rounded(carrierHz)),
                JSONValue.Member("points", .array(points))]
    }
}
