import MixDSP

/// A rate that changes over the render (a binaural beat, an isochronic pulse): a constant, or points
/// `{"at": "5m", "beatHz": 4, "curve": "linear"}` whose times may be a session's section edges
/// (`{"section": "Deepener", "edge": "end"}`), so the schedule follows the script when sections stretch.
/// Between points the rate follows the curve; before the first and after the last it holds. The tones
/// built on it stay phase-continuous through every point (`RateSchedule` in MixDSP).
///
/// A value: an array of points (times unresolved); allocates only that. `Sendable`, safe to share.
public struct ScheduleSpec: Sendable, Equatable {
    /// A rate in Hz (its `value`) reached at a point of the timeline (its `position`, unresolved) along a curve.
    public typealias Point = Breakpoint<TimelinePoint, Double>
    public var points: [Point]
    public init(points: [Point]) { self.points = points }
    /// The same rate all the time.
    public static func constant(_ hz: Double) -> ScheduleSpec { ScheduleSpec(points: [Point(position: .seconds(0), value: hz)]) }

    /// Where a carrier may lie: beats and pulses are heard best on carriers of a few hundred Hz.
    public static let carrierRange = 20.0...1500.0

    /// `carrierHz`, required, within `carrierRange`; `what` names the tone in the message.
    static func carrier(_ object: JSONObjectCursor, hint: String, what: String) throws -> Double {
        let cursor = try object.required("carrierHz", hint: hint)
        let carrier = try cursor.number(in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
        guard carrierRange.contains(carrier) else {
            throw cursor.error("\(JSONValue.format(carrier)) Hz is outside 20 to 1500 Hz, where a carrier for \(what) lies")
        }
        return carrier
    }

    /// Reads `<valueKey>` (a constant) or `schedule` (a list of points) from `object`: exactly one of the two,
    /// every rate greater than 0 and below `carrier` (an error at that rate's own path).
    static func read(_ object: JSONObjectCursor, valueKey: String, below carrier: Double, example: String) throws -> ScheduleSpec {
        func rate(_ cursor: JSONCursor) throws -> Double {
            let hz = try cursor.positiveNumber(upTo: carrierRange.upperBound)
            guard hz < carrier else {
                throw cursor.error("\(JSONValue.format(hz)) Hz is at or above the carrier (\(JSONValue.format(carrier)) Hz); it must be below it")
            }
            return hz
        }
        switch (object[valueKey], object["schedule"]) {
        case (let value?, nil):
            return .constant(try rate(value))
        case (nil, let list?):
            let elements = try list.array()
            guard !elements.isEmpty else { throw list.error("a schedule needs at least one point") }
            return ScheduleSpec(points: try elements.map { element in
                let point = try element.object(allowing: ["at", valueKey, "curve"])
                let at = try point.required("at", hint: "a time or {\"section\": \"name\", \"edge\": \"end\"}").timelinePoint()
                let hz = try rate(try point.required(valueKey, hint: example))
                let curve = try point["curve"]?.curve(allowingEqualGain: false) ?? .linear
                return Point(position: at, value: hz, curve: curve)
            })
        case (_?, _?):
            throw object.cursor.error("give '\(valueKey)' (a constant) or 'schedule' (points over time), not both")
        case (nil, nil):
            throw object.cursor.error("missing required key '\(valueKey)' (\(example)) or 'schedule' (points over time)")
        }
    }

    /// The schedule in frames, its points in time order (an error at `schedule[k].at` for one out of order).
    func resolve(_ track: TrackPlanning, key: String) throws -> (RateSchedule, [RateSchedule.Point]) {
        var resolved: [RateSchedule.Point] = []
        for (k, point) in points.enumerated() {
            let frame = try track.frame(of: point.position, key: "\(key).schedule[\(k)].at")
            if let previous = resolved.last, frame < previous.position {
                throw track.error("\(key).schedule[\(k)].at", "comes at \(track.seconds(frames: frame)), before the previous point (\(track.seconds(frames: previous.position))); schedule points must be in time order")
            }
            resolved.append(RateSchedule.Point(position: frame, value: point.value, curve: point.curve))
        }
        return (RateSchedule(points: resolved, sampleRate: track.sampleRate), resolved)
    }

    /// The highest rate it reaches.
    var maximumHz: Double { points.map(\.value).max() ?? 0 }
}

extension ScheduleSpec {
    /// The schema of a kind built on a schedule (`binaural`, `isochronic`): a carrier, and the rate as a constant
    /// `valueKey` or a `schedule` of points (exactly one of them), then the kind's `extra` settings.
    static func schema(description: String, valueKey: String, extra: [SchemaValue.Member]) -> SchemaValue {
        let rate = SchemaValue.object(["type": .string("number"), "exclusiveMinimum": .number(0), "maximum": .number(carrierRange.upperBound)])
        let point = SchemaValue.object([
            "type": .string("object"), "additionalProperties": .bool(false), "required": .array([.string("at"), .string(valueKey)]),
            "properties": .object(["at": .object(["$ref": .string("#/$defs/timelinePoint")]), valueKey: rate,
                                   "curve": .object(["$ref": .string("#/$defs/curve")])]),
        ])
        let properties: [SchemaValue.Member] = [
            .init("carrierHz", .object(["type": .string("number"), "minimum": .number(carrierRange.lowerBound), "maximum": .number(carrierRange.upperBound)])),
            .init(valueKey, rate),
            .init("schedule", .object(["type": .string("array"), "minItems": .number(1), "items": point])),
        ]
        return .object([
            "description": .string(description), "type": .string("object"), "additionalProperties": .bool(false),
            "required": .array([.string("carrierHz")]),
            "oneOf": .array([.object(["required": .array([.string(valueKey)])]), .object(["required": .array([.string("schedule")])])]),
            "properties": .object(properties + extra),
        ])
    }
}
