import MixDSP

/// `"binaural": {"carrierHz": 200, "schedule": [{"at": 0, "beatHz": 10}, {"at": "10m", "beatHz": 4}]}`:
/// binaural beats: a tone at carrier − beat/2 in the left ear and carrier + beat/2 in the right, so the
/// listener hears the difference as a beat. The beat follows a schedule; both tones are phase-continuous
/// (their phase is the integral of the scheduled frequency, from the absolute frame position:
/// `BinauralGenerator` in MixDSP). Needs stereo output and headphones. See README.md beside this file.
///
/// A value of a carrier and a schedule; allocates only the schedule's points. `Sendable`, safe to share.
public struct BinauralKind: ReadableSourceKind {
    public static let key = "binaural"
    public static let settingsKeys: [String]? = ["carrierHz", "beatHz", "schedule"]
    public static let isEndless = true
    /// Where a carrier may lie: beats are heard best on carriers of a few hundred Hz.
    public static let carrierRange = 20.0...1500.0
    /// RMS level of each ear before the track's gain: -18 dBFS, as the other generators.
    public static let rmsLevel = 0.125_892_541

    public var carrierHz: Double
    public var beat: ScheduleSpec

    public init(carrierHz: Double, beat: ScheduleSpec) { self.carrierHz = carrierHz; self.beat = beat }

    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> BinauralKind {
        let object = try cursor.object(allowing: settingsKeys!)
        let carrierCursor = try object.required("carrierHz", hint: "the tone both ears hear around, 20 to 1500 Hz, e.g. 200")
        let carrier = try carrierCursor.number(in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
        guard carrierRange.contains(carrier) else {
            throw carrierCursor.error("\(JSONValue.format(carrier)) Hz is outside 20 to 1500 Hz, where a carrier for binaural beats lies")
        }
        let beat = try ScheduleSpec.read(object, valueKey: "beatHz", range: 0...1500, example: "the beat in Hz, e.g. 10")
        try checkBelowCarrier(beat, carrier: carrier, object: object, valueKey: "beatHz")
        return BinauralKind(carrierHz: carrier, beat: beat)
    }

    /// A beat (or pulse) at or above the carrier is an error at its JSON path.
    static func checkBelowCarrier(_ schedule: ScheduleSpec, carrier: Double, object: JSONObjectCursor, valueKey: String) throws {
        for (k, point) in schedule.points.enumerated() where point.hz >= carrier {
            let cursor = object[valueKey] ?? JSONCursor(.null, path: "\(object.path).schedule[\(k)].\(valueKey)", file: object.cursor.file)
            throw cursor.error("\(JSONValue.format(point.hz)) Hz is at or above the carrier (\(JSONValue.format(carrier)) Hz); it must be below it")
        }
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        guard track.channelCount == 2 else {
            throw track.error(Self.key, "binaural beats need stereo output (output.channels 2), one tone per ear; for mono use 'isochronic'")
        }
        guard carrierHz + beat.maximumHz / 2 < Double(track.sampleRate) / 2 else {
            throw track.error("\(Self.key).carrierHz", "the right ear's tone lies above half the output rate (\(track.sampleRate) Hz)")
        }
        let (schedule, points) = try beat.resolve(track, key: Self.key, what: "beat")
        let end = track.explicitEnd ?? track.frameCount
        // Read at the timeline's position, so the schedule's frames are the timeline's.
        var plan = SourcePlan(voices: [PlannedVoice(start: track.start, end: end, sourceOffset: track.start,
                                                    material: BinauralVoice(carrierHz: carrierHz, beat: schedule))], end: end)
        plan.notes = [.schedule(what: "beat", carrierHz: carrierHz, points: points)]
        return plan
    }
}

/// Binaural tones computed as they play; nothing to prepare.
struct BinauralVoice: VoiceMaterial {
    let carrierHz: Double
    let beat: RateSchedule
    func makeSource(_ context: VoiceContext, prepared: FrameSource?) throws -> FrameSource {
        BinauralGenerator(carrierHz: carrierHz, beat: beat, sampleRate: context.sampleRate,
                          amplitude: Float(BinauralKind.rmsLevel * 2.0.squareRoot()))
    }
}

extension SourceSpec {
    /// Binaural beats (`BinauralKind`).
    public static func binaural(carrierHz: Double, beat: ScheduleSpec) -> SourceSpec {
        SourceSpec(BinauralKind(carrierHz: carrierHz, beat: beat))
    }
}
