import MixDSP

/// `"chime": {"sound": "bell", "pitchHz": 220}`: one synthesised chime from the track's start: a bell
/// (inharmonic partials, each decaying exponentially: `BellGenerator` in MixDSP) or a rising tone (a sine
/// gliding up an octave, swelling in and out). It ends a `wake` session, and marks the start or end of a
/// timed meditation. See README.md beside this file.
///
/// A value of a sound and two `Double`s; allocates nothing. `Sendable`, safe to share.
public struct ChimeKind: DeclaredSourceKind, WordReadableSourceKind {
    public static let canLoop = false
    public static let key = "chime"
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

    /// A session's wake ending names its chime by its sound alone: `"chime": "rise"`.
    static var words: [String] { Sound.allCases.map(\.rawValue) }
    init?(word: String) {
        guard let sound = Sound(rawValue: word) else { return nil }
        self.init(sound: sound)
    }

    /// A chime rings for its length wherever it is placed.
    public var soundingSeconds: Double? { seconds }

    /// Where a chime's pitch may lie, in Hz, and how long it may sound, in seconds.
    static let pitchRange = 40.0...4000.0
    static let maximumSeconds = 60.0

    /// The sound is required and read first: it sets the defaults of the pitch and the length, which follow it.
    static var settings: DeclaredSettings<ChimeKind> {
        let t = TimeParser.string(fromSeconds:)
        /// "220 (bell), 330 (rise)": a default that follows the sound.
        func perSound(_ value: (Sound) -> String) -> String { Sound.allCases.map { "\(value($0)) (\($0.rawValue))" }.joined(separator: ", ") }
        return DeclaredSettings(description: "A synthesised bell or rising tone.", defaults: ChimeKind(sound: .bell), settings: [
            .custom("sound", required: words.map { "\"\($0)\"" }.joined(separator: " or "), schema: { _ in
                .object(["description": .string("Which chime: a struck bell, or a rising glide."), "enum": .array(Sound.allCases.map { .string($0.rawValue) })])
            }, read: { cursor, kind, _ in kind = ChimeKind(sound: try cursor.choice("chime", Sound.allCases.map { ($0.rawValue, $0) })) }),
            .custom("pitchHz", schema: { _ in
                .object(["description": .string("The bell's fundamental or the rise's first pitch, in Hz; default \(perSound { JSONValue.format($0.defaultPitchHz) })."),
                         "type": .string("number"), "minimum": .number(pitchRange.lowerBound), "maximum": .number(pitchRange.upperBound)])
            }, read: { cursor, kind, _ in kind.pitchHz = try cursor.number(in: pitchRange) }),
            .custom("length", schema: { _ in
                .object(["description": .string("How long it sounds (the bell's ring to -60 dB, the rise's glide), at most \(t(maximumSeconds)); default \(perSound { t($0.defaultSeconds) })."),
                         "$ref": .string("#/$defs/positiveTime")])
            }, read: { cursor, kind, _ in
                let s = try cursor.time(allowingZero: false)
                guard s <= maximumSeconds else { throw cursor.error("\(t(s)) is longer than \(t(maximumSeconds)), the longest chime") }
                kind.seconds = s
            }),
        ])
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        let nyquist = Double(track.sampleRate) / 2
        guard pitchHz * 2 < nyquist else {
            throw track.error("\(Self.key).pitchHz", "\(JSONValue.format(pitchHz)) Hz is too high for the output rate (\(track.sampleRate) Hz): the chime's octave must lie below \(JSONValue.format(nyquist)) Hz")
        }
        let length = track.frames(seconds)
        let end = min(track.explicitEnd ?? (track.start + length), track.start + length)
        var plan = SourcePlan(events: [PlannedEvent(start: track.start, end: end, material: ChimeMaterial(kind: self))], end: end)
        plan.notes = [ChimeNote(sound: sound.rawValue, start: track.start, end: end)]
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
    /// A synthesised bell or rising tone (`ChimeKind`), with the kind's settings: `.chime(ChimeKind(...))`.
    public static func chime(_ kind: ChimeKind) -> SourceSpec { SourceSpec(kind) }
}
