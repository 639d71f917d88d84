import MixDSP
import MixIO

/// The narration's settings: how everything spoken in a preset sounds, and how the bed makes room for it (the preset's
/// `voice` object, a JSON key kept for the presets written with it). It applies to a session's segments and to every
/// `speech` track. "Narration" is these settings; a voice is what says the words (`VoiceID`, `hibari:heart`), named in
/// its `speech` settings.
/// A value of numbers, a `SpeechSettings` and an optional `DuckingSpec`; allocates only the voice's name.
/// `Sendable`, safe to share.
public struct NarrationSpec: Sendable, Equatable {
    /// When `loudnessLUFS` is nil (a preset that gives `levelDb`): the level every segment is brought to, RMS over its
    /// speech only (pauses left out), in dBFS.
    public var levelDb: Double = -20
    /// The loudness every segment is brought to, in LUFS (EBU R128, gated, as it plays centred in the output: a mono
    /// voice in stereo counts both sides), the mechanism tracks' `loudness` uses. Nil when the preset gives `levelDb`.
    public var loudnessLUFS: Double? = NarrationSpec.defaultLoudnessLUFS
    /// A voice's loudness when the preset gives neither `loudness` nor `levelDb`: -16 LUFS, where Apple Podcasts and
    /// AES TD1004 put speech for phones, so a session's voice is as loud as the podcasts and spoken apps its listener
    /// hears before it, and the bed keeps the level its author gave it beside the voice (docs/sessions.md, "How loud").
    public static let defaultLoudnessLUFS = -16.0
    /// Fades at each segment's edges, so nothing clicks.
    public var edgeFadeSeconds: Double = 0.015
    /// Balance of the voice, as a track's `pan`.
    public var pan: Double = 0
    /// The defaults of text segments and `speech` tracks.
    public var speech = SpeechSettings()
    /// Ducking of the bed under the voice; nil leaves the bed alone.
    public var ducking: DuckingSpec?
    public init() {}
}

/// How the bed dips under the voice. Computed offline from where speech really is (frame energy), so
/// the bed can start down before the first syllable, which no reactive ducker can.
/// A value of four `Double`s and two curves; allocates nothing. `Sendable`, safe to share.
public struct DuckingSpec: Sendable, Equatable {
    /// How far the bed goes down, in dB (negative).
    public var depthDb: Double = -10
    /// How long before speech the bed starts going down.
    public var lookaheadSeconds: Double = 1
    /// How long the way down takes (at most the look-ahead, so the bed is down before the first word).
    public var attackSeconds: Double = 0.6
    /// Pauses in speech shorter than this keep the bed down.
    public var holdSeconds: Double = 2
    /// How long the way back up takes.
    public var releaseSeconds: Double = 1.5
    public var attackCurve: Curve = .sCurve
    public var releaseCurve: Curve = .sCurve
    public init() {}
}
