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

/// The settings of a kind built on a schedule (`binaural`, `isochronic`), declared once for the reader and the
/// schema: a carrier, and the rate as a constant `valueKey` or a `schedule` of points (exactly one of them),
/// every rate greater than 0 and below the carrier (an error at that rate's own path).
extension ScheduleSpec {
    /// `carrierHz`, required, within `carrierRange`; `tone` says what it is when it is missing, `what` names the
    /// sound in the message for one out of range.
    static func carrier<Kind>(_ path: WritableKeyPath<Kind, Double>, tone: String, what: String) -> DeclaredSetting<Kind> {
        let range = "\(JSONValue.format(carrierRange.lowerBound)) to \(JSONValue.format(carrierRange.upperBound)) Hz"
        return .custom("carrierHz", required: "\(tone), \(range), e.g. 200", schema: { _ in
            .object(["description": .string("The carrier in Hz: \(tone)."), "type": .string("number"),
                     "minimum": .number(carrierRange.lowerBound), "maximum": .number(carrierRange.upperBound)])
        }, read: { cursor, kind, _ in
            let carrier = try cursor.number(in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
            guard carrierRange.contains(carrier) else {
                throw cursor.error("\(JSONValue.format(carrier)) Hz is outside \(range), where a carrier for \(what) lies")
            }
            kind[keyPath: path] = carrier
        })
    }

    /// The rate at `valueKey`, constant, or the `schedule` of points `{"at": ..., valueKey: ..., "curve": ...}`; each
    /// rate below the carrier at `carrier` (read before them: it is required). `example` is the hint for a point's rate.
    static func rate<Kind>(_ valueKey: String, _ path: WritableKeyPath<Kind, ScheduleSpec>, below carrier: KeyPath<Kind, Double>,
                           example: String) -> [DeclaredSetting<Kind>] {
        let rateSchema = SchemaValue.object(["type": .string("number"), "exclusiveMinimum": .number(0), "maximum": .number(carrierRange.upperBound)])
        let constant = rateSchema.setting("description", to: .string("The rate in Hz, the same all through (below the carrier); or a schedule."))
        let pointSchema = SchemaValue.object([
            "type": .string("object"), "additionalProperties": .bool(false), "required": .array([.string("at"), .string(valueKey)]),
            "properties": .object(["at": .object(["$ref": .string("#/$defs/timelinePoint")]), valueKey: rateSchema,
                                   "curve": .object(["$ref": .string("#/$defs/curve")])]),
        ])
        return [
            .custom(valueKey, schema: { _ in constant }, read: { cursor, kind, _ in
                kind[keyPath: path] = .constant(try rate(cursor, below: kind[keyPath: carrier]))
            }),
            .custom("schedule", schema: { _ in
                .object(["description": .string("Instead of \(valueKey): points [{\"at\": a time, \"\(valueKey)\": Hz, \"curve\": ...}], the rate moving from each to the next."),
                         "type": .string("array"), "minItems": .number(1), "items": pointSchema])
            },
                    read: { list, kind, _ in
                let elements = try list.array()
                guard !elements.isEmpty else { throw list.error("a schedule needs at least one point") }
                kind[keyPath: path] = ScheduleSpec(points: try elements.map { element in
                    let point = try element.object(allowing: ["at", valueKey, "curve"])
                    let at = try point.required("at", hint: "a time or {\"section\": \"name\", \"edge\": \"end\"}").timelinePoint()
                    let hz = try rate(try point.required(valueKey, hint: example), below: kind[keyPath: carrier])
                    let curve = try point["curve"]?.curve(allowingEqualGain: false) ?? .linear
                    return Point(position: at, value: hz, curve: curve)
                })
            }),
        ]
    }

    /// That a kind gives its rate as `valueKey` or as `schedule`, exactly one.
    static func exactlyOne<Kind>(_ valueKey: String, example: String) -> DeclaredSettings<Kind>.ExactlyOne {
        .init(keys: [valueKey, "schedule"], missing: "missing required key '\(valueKey)' (\(example)) or 'schedule' (points over time)",
              several: "give '\(valueKey)' (a constant) or 'schedule' (points over time), not both")
    }

    /// A rate greater than 0 and below `carrier`.
    private static func rate(_ cursor: JSONCursor, below carrier: Double) throws -> Double {
        let hz = try cursor.positiveNumber(upTo: carrierRange.upperBound)
        guard hz < carrier else {
            throw cursor.error("\(JSONValue.format(hz)) Hz is at or above the carrier (\(JSONValue.format(carrier)) Hz); it must be below it")
        }
        return hz
    }
}
