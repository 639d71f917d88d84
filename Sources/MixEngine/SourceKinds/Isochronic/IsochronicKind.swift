import MixDSP

/// `"isochronic": {"carrierHz": 200, "pulseHz": 10, "duty": 0.5}`: a tone switched on and off at a pulse
/// rate, for listening without headphones (binaural beats need one tone per ear). Each pulse is on for
/// `duty` of its cycle with raised-cosine edges (`edges` of the cycle each), so nothing clicks. The pulse
/// rate follows a schedule, phase-continuously, like a binaural beat's (`IsochronicGenerator` in MixDSP).
/// See README.md beside this file.
///
/// A value of a carrier, a schedule and two fractions; allocates only the schedule's points.
/// `Sendable`, safe to share.
public struct IsochronicKind: DeclaredSourceKind {
    public static let key = "isochronic"
    public static let isEndless = true

    public var carrierHz: Double
    public var pulse: ScheduleSpec
    /// The part of each pulse cycle the tone is on (edges included).
    public var duty: Double
    /// The length of each edge (rise and fall), as a part of the cycle.
    public var edges: Double

    public init(carrierHz: Double, pulse: ScheduleSpec, duty: Double = 0.5, edges: Double = 0.15) {
        self.carrierHz = carrierHz; self.pulse = pulse; self.duty = duty; self.edges = edges
    }

    /// Its settings, declared once for the reader and the schema (defaults from `init`): a carrier and a scheduled
    /// rate (`ScheduleSpec`), and its pulse's shape. Edges left out shrink to fit the duty.
    static var settings: DeclaredSettings<IsochronicKind> {
        let example = "pulses per second, e.g. 10"
        return DeclaredSettings(description: "A tone pulsing at a scheduled rate.",
                            defaults: IsochronicKind(carrierHz: ScheduleSpec.carrierRange.lowerBound, pulse: .constant(1)), settings: [
            ScheduleSpec.carrier(\.carrierHz, tone: "the tone that pulses", what: "isochronic tones"),
        ] + ScheduleSpec.rate("pulseHz", \.pulse, below: \.carrierHz, example: example) + [
            .number("duty", \.duty, in: 0.1...0.9, "The part of each pulse cycle the tone is on, edges included."),
            .number("edges", \.edges, in: 0.01...0.45, "Each edge's length (rise and fall, raised cosine) as a part of the cycle; at most half the duty."),
        ], exactlyOne: ScheduleSpec.exactlyOne("pulseHz", example: example), finish: { object, kind in
            guard let edges = object["edges"] else { kind.edges = min(kind.edges, kind.duty / 2); return }
            guard 2 * kind.edges <= kind.duty else {
                throw edges.error("two edges of \(JSONValue.format(kind.edges)) do not fit in the pulse's on part (duty \(JSONValue.format(kind.duty))); expected at most half the duty")
            }
        })
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        guard carrierHz < Double(track.sampleRate) / 2 else {
            throw track.error("\(Self.key).carrierHz", "\(JSONValue.format(carrierHz)) Hz is not below half the output rate (\(track.sampleRate) Hz)")
        }
        let (schedule, points) = try pulse.resolve(track, key: Self.key)
        let end = track.explicitEnd ?? track.frameCount
        var plan = SourcePlan(events: [PlannedEvent(start: track.start, end: end, sourceOffset: track.start,
                                                    material: IsochronicMaterial(kind: self, pulse: schedule))], end: end)
        plan.notes = [ScheduleNote(what: "pulse", carrierHz: carrierHz, points: points)]
        return plan
    }
}

/// An isochronic tone computed as it plays; nothing to prepare.
struct IsochronicMaterial: EventMaterial {
    let kind: IsochronicKind
    let pulse: RateSchedule
    func describe(into key: inout CacheKeyWriter) {
        key.field("material", "isochronic")
        key.field("carrierHz", kind.carrierHz)
        key.schedule("pulse", pulse)
        key.field("duty", kind.duty)
        key.field("edges", kind.edges)
    }
    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        // Peak at the sine's for -18 dBFS RMS while on.
        IsochronicGenerator(carrierHz: kind.carrierHz, pulse: pulse, duty: kind.duty, edge: kind.edges,
                            sampleRate: context.sampleRate, amplitude: Float(GeneratorLevels.rms * 2.0.squareRoot()),
                            channelCount: context.channelCount)
    }
}

extension SourceSpec {
    /// An isochronic tone (`IsochronicKind`), with the kind's settings: `.isochronic(IsochronicKind(...))`.
    public static func isochronic(_ kind: IsochronicKind) -> SourceSpec { SourceSpec(kind) }
}
