/// A frequency that follows a schedule, on the timeline (`binaural`'s beat, `isochronic`'s pulse).
/// A value; allocates only its points. `Sendable`.
public struct ScheduleNote: TimelineNote, Equatable {
    /// `beat` (binaural) or `pulse` (isochronic).
    public var what: String
    public var carrierHz: Double
    public var points: [SchedulePoint]
    public var type: String { "schedule" }

    public func members(_ json: TimelineJSON.Writer) -> String {
        let list = points.map { "{\"at\": \(json.time($0.frame)), \"hz\": \(json.number($0.hz)), \"curve\": \(json.quote($0.curve))}" }
        return "\"of\": \(json.quote(what)), \"carrierHz\": \(json.number(carrierHz)),\n      \"points\": [" + list.joined(separator: ", ") + "]"
    }
}

/// A point of a schedule, resolved: at `frame` the rate is `hz`. A value; allocates nothing.
public struct SchedulePoint: Sendable, Equatable {
    public var frame: Int64
    public var hz: Double
    public var curve: String
    public init(frame: Int64, hz: Double, curve: String) { self.frame = frame; self.hz = hz; self.curve = curve }
}
