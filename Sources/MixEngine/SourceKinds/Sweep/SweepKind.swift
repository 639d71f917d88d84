import MixDSP

/// `"sweep": {"fromHz": 220, "toHz": 55, "over": "20m"}`: a sine that glides from one frequency to another over a
/// time from the track's start, along equal musical steps, then holds the last (`SweepGenerator` in MixDSP): a tone
/// that sinks as the listener does. See README.md beside this file.
///
/// A value of three `Double`s; allocates nothing. `Sendable`, safe to share.
public struct SweepKind: DeclaredSourceKind {
    public static let key = "sweep"
    public static let isEndless = true
    /// The highest frequency a preset may ask for, as a tone's; it must also lie below half the output rate.
    public static let maximumFrequencyHz = GeneratorLevels.maximumFrequencyHz

    public var fromHz: Double
    public var toHz: Double
    /// How long the glide takes from the track's start, in seconds; then `toHz` holds.
    public var overSeconds: Double

    public init(fromHz: Double, toHz: Double, overSeconds: Double) {
        self.fromHz = fromHz
        self.toHz = toHz
        self.overSeconds = overSeconds
    }

    static var settings: DeclaredSettings<SweepKind> {
        let most = maximumFrequencyHz
        return DeclaredSettings(description: "A sine at -18 dBFS RMS gliding from one frequency to another over a time from the track's start, then holding the last.",
                                defaults: SweepKind(fromHz: 0, toHz: 0, overSeconds: 0), settings: [
            .positiveNumber("fromHz", \.fromHz, upTo: most, required: "the frequency it starts at, in Hz, e.g. 220",
                            "The frequency at the track's start, in Hz; also below half the output rate."),
            .positiveNumber("toHz", \.toHz, upTo: most, required: "the frequency it glides to, in Hz, e.g. 55",
                            "The frequency it glides to and then holds, in Hz; also below half the output rate."),
            .custom("over", required: "how long the glide takes, e.g. \"20m\"", schema: { _ in
                .object(["description": .string("How long the glide takes from the track's start (equal musical steps per second)."),
                         "$ref": .string("#/$defs/time")])
            }, read: { cursor, kind, _ in kind.overSeconds = try cursor.time(allowingZero: false) }),
        ])
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        let nyquist = Double(track.sampleRate) / 2
        for (key, hz) in [("fromHz", fromHz), ("toHz", toHz)] where hz >= nyquist {
            throw track.error("\(Self.key).\(key)",
                              "\(JSONValue.format(hz)) Hz is not below half the output rate (\(JSONValue.format(nyquist)) Hz at \(track.sampleRate) Hz)")
        }
        let end = track.explicitEnd ?? track.frameCount
        // The glide starts with the track: the source is read from its own frame 0 at the track's start.
        let glideFrames = Int64((overSeconds * Double(track.sampleRate)).rounded())
        return SourcePlan(events: [PlannedEvent(start: track.start, end: end, material: SweepMaterial(kind: self, glideFrames: glideFrames))], end: end)
    }
}

/// A sweep computed as it plays; nothing to prepare.
struct SweepMaterial: EventMaterial {
    let kind: SweepKind
    let glideFrames: Int64
    /// A sine's peak for the generators' RMS level.
    var amplitude: Float { GeneratorLevels.sinePeak }

    func describe(into key: inout CacheKeyWriter) {
        key.field("material", "sweep")
        key.field("fromHz", kind.fromHz)
        key.field("toHz", kind.toHz)
        key.field("glideFrames", glideFrames)
        key.field("amplitude", amplitude)
    }
    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        SweepGenerator(fromHz: kind.fromHz, toHz: kind.toHz, glideFrames: glideFrames, sampleRate: context.sampleRate,
                       amplitude: amplitude, channelCount: context.channelCount)
    }
}

extension SourceSpec {
    /// A gliding sine (`SweepKind`): `.sweep(SweepKind(fromHz: 220, toHz: 55, overSeconds: 1200))`.
    public static func sweep(_ kind: SweepKind) -> SourceSpec { SourceSpec(kind) }
}
