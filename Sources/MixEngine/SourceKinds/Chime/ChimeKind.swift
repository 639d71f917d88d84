import MixDSP

/// `"chime": {"sound": "bell", "pitchHz": 220}`: one synthesised chime from the track's start: a bell
/// (inharmonic partials, each decaying exponentially: `BellGenerator` in MixDSP) or a rising tone (a sine
/// gliding up an octave, swelling in and out). It ends a `wake` session, and marks the start or end of a
/// timed meditation. See README.md beside this file.
///
/// A value of a sound and two `Double`s; allocates nothing. `Sendable`, safe to share.
public struct ChimeKind: ReadableSourceKind {
    public static let canLoop = false
    public static let key = "chime"
    public static let settingsKeys: [String]? = ["sound", "pitchHz", "length"]
    /// Peak level of a chime before the track's gain: -12 dBFS, clearly above a bed at -18 dBFS RMS.
    public static let peakLevel = 0.251_188_643   // 10^(-12/20)

    /// A plain enum (`Sendable`); its raw value is the preset's name for it.
    public enum Sound: String, Sendable, CaseIterable {
        case bell, rise
        /// Its fundamental (bell) or starting pitch (rise) when the preset gives none.
        var defaultPitchHz: Double { self == .bell ? 220 : 330 }
        /// How long it sounds when the preset does not say: a bell's ring to -60 dB, a rise's glide.
        var defaultSeconds: Double { self == .bell ? 8 : 4 }
    }

    public var sound: Sound
    public var pitchHz: Double
    /// How long it sounds: the bell's decay to -60 dB, or the rise's length.
    public var seconds: Double

    public init(sound: Sound, pitchHz: Double? = nil, seconds: Double? = nil) {
        self.sound = sound
        self.pitchHz = pitchHz ?? sound.defaultPitchHz
        self.seconds = seconds ?? sound.defaultSeconds
    }

    /// How long the default chime of `sound` lasts, in seconds.
    static func length(of sound: Sound) -> Double { sound.defaultSeconds }

    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> ChimeKind {
        let object = try cursor.object(allowing: settingsKeys!)
        let sound = try object.required("sound", hint: "\"bell\" or \"rise\"").choice("chime", Sound.allCases.map { ($0.rawValue, $0) })
        let pitch = try object["pitchHz"]?.number(in: 40...4000)
        let seconds = try object["length"].map { cursor -> Double in
            let s = try cursor.time(allowingZero: false)
            guard s <= 60 else { throw cursor.error("\(TimeParser.string(fromSeconds: s)) is longer than 1m, the longest chime") }
            return s
        }
        return ChimeKind(sound: sound, pitchHz: pitch, seconds: seconds)
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        let nyquist = Double(track.sampleRate) / 2
        guard pitchHz * 2 < nyquist else {
            throw track.error("\(Self.key).pitchHz", "\(JSONValue.format(pitchHz)) Hz is too high for the output rate (\(track.sampleRate) Hz): the chime's octave must lie below \(JSONValue.format(nyquist)) Hz")
        }
        let length = track.frames(seconds)
        let end = min(track.explicitEnd ?? (track.start + length), track.start + length)
        var plan = SourcePlan(events: [PlannedEvent(start: track.start, end: end, material: ChimeMaterial(kind: self))], end: end)
        plan.notes = [.chime(sound: sound.rawValue, start: track.start, end: end)]
        return plan
    }
}

/// A chime computed as it plays, from its own start; nothing to prepare.
struct ChimeMaterial: EventMaterial {
    let kind: ChimeKind
    func describe(into key: inout CacheKeyWriter) {
        key.field("material", "chime")
        key.field("sound", kind.sound.rawValue)
        key.field("pitchHz", kind.pitchHz)
        key.field("seconds", kind.seconds)
    }
    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        switch kind.sound {
        case .bell:
            return BellGenerator(fundamentalHz: kind.pitchHz, decaySeconds: kind.seconds, sampleRate: context.sampleRate,
                                 amplitude: Float(ChimeKind.peakLevel), channelCount: context.channelCount)
        case .rise:
            return RisingTone(startHz: kind.pitchHz, endHz: kind.pitchHz * 2, frames: Int64((kind.seconds * Double(context.sampleRate)).rounded()),
                              sampleRate: context.sampleRate, amplitude: Float(ChimeKind.peakLevel), channelCount: context.channelCount)
        }
    }
}

extension SourceSpec {
    /// A synthesised bell or rising tone (`ChimeKind`).
    public static func chime(_ sound: ChimeKind.Sound, pitchHz: Double? = nil, seconds: Double? = nil) -> SourceSpec {
        SourceSpec(ChimeKind(sound: sound, pitchHz: pitchHz, seconds: seconds))
    }
}
