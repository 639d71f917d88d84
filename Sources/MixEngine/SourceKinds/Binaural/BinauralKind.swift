import MixDSP

/// `"binaural": {"carrierHz": 200, "schedule": [{"at": 0, "beatHz": 10}, {"at": "10m", "beatHz": 4}]}`:
/// binaural beats: a tone at carrier − beat/2 in the left ear and carrier + beat/2 in the right, so the
/// listener hears the difference as a beat. The beat follows a schedule; both tones are phase-continuous
/// (their phase is the integral of the scheduled frequency, from the absolute frame position:
/// `BinauralGenerator` in MixDSP). Needs stereo output and headphones. See README.md beside this file.
///
/// A value of a carrier and a schedule; allocates only the schedule's points. `Sendable`, safe to share.
public struct BinauralKind: DeclaredSourceKind {
    public static let key = "binaural"
    public static let isEndless = true
    /// Each ear is a tone of its own: a lossy encoder that codes the channels jointly would blur the beat.
    public static let needsSeparateChannels = true

    public var carrierHz: Double
    public var beat: ScheduleSpec

    public init(carrierHz: Double, beat: ScheduleSpec) { self.carrierHz = carrierHz; self.beat = beat }

    /// Its settings, declared once for the reader and the schema: a carrier and a scheduled rate (`ScheduleSpec`).
    static var settings: DeclaredSettings<BinauralKind> {
        let example = "the beat in Hz, e.g. 10"
        return DeclaredSettings(description: "Binaural beats: carrier - beat/2 left, carrier + beat/2 right.",
                            defaults: BinauralKind(carrierHz: ScheduleSpec.carrierRange.lowerBound, beat: .constant(1)), settings: [
            ScheduleSpec.carrier(\.carrierHz, tone: "the tone both ears hear around", what: "binaural beats"),
        ] + ScheduleSpec.rate("beatHz", \.beat, below: \.carrierHz, example: example), exactlyOne: ScheduleSpec.exactlyOne("beatHz", example: example))
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        guard track.channelCount == 2 else {
            throw track.error(Self.key, "binaural beats need stereo output (output.channels 2), one tone per ear; for mono use 'isochronic'")
        }
        guard carrierHz + beat.maximumHz / 2 < Double(track.sampleRate) / 2 else {
            throw track.error("\(Self.key).carrierHz", "the right ear's tone lies above half the output rate (\(track.sampleRate) Hz)")
        }
        let (schedule, points) = try beat.resolve(track, key: Self.key)
        let end = track.explicitEnd ?? track.frameCount
        // Read at the timeline's position, so the schedule's frames are the timeline's.
        var plan = SourcePlan(events: [PlannedEvent(start: track.start, end: end, sourceOffset: track.start,
                                                    material: BinauralMaterial(carrierHz: carrierHz, beat: schedule))], end: end)
        plan.notes = [ScheduleNote(what: "beat", carrierHz: carrierHz, points: points)]
        return plan
    }
}

/// Binaural tones computed as they play; nothing to prepare.
struct BinauralMaterial: EventMaterial {
    let carrierHz: Double
    let beat: RateSchedule
    func describe(into key: inout CacheKeyWriter) {
        key.field("material", "binaural")
        key.field("carrierHz", carrierHz)
        key.schedule("beat", beat)
    }
    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        BinauralGenerator(carrierHz: carrierHz, beat: beat, sampleRate: context.sampleRate,
                          amplitude: Float(GeneratorLevels.rms * 2.0.squareRoot()))
    }
}

extension SourceSpec {
    /// Binaural beats (`BinauralKind`).
    public static func binaural(carrierHz: Double, beat: ScheduleSpec) -> SourceSpec {
        SourceSpec(BinauralKind(carrierHz: carrierHz, beat: beat))
    }
}
