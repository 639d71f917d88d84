/// How a text is spoken: the voice (which names its engine), the pace, and espeak-ng's own pitch and volume.
/// A value of strings and numbers; `Sendable`, safe to share.
///
/// Voices are named `engine:name`: `hibari:heart` (the neural voice, the default), `espeak:en-gb`,
/// `espeak:en-us+f3` (an espeak-ng voice or language with a variant). A bare name is the neural voice's if it
/// has one by that name (`heart`), otherwise espeak-ng's (`en-gb`: presets written before the neural voice
/// keep their sound).
public struct SpeechSettings: Sendable, Hashable {
    /// The voice as written (`hibari:heart`, `espeak:en-gb`, `en-gb`).
    public var voice: String = SpeechSettings.defaultVoice
    /// espeak-ng's words per minute (`espeakRATE`), before `speed`.
    public var wordsPerMinute: Int = 150
    /// espeak-ng's pitch, 0 to 100 (`espeakPITCH`; 50 is the voice's own).
    public var pitch: Int = 50
    /// espeak-ng's volume, 0 to 200 (`espeakVOLUME`; 100 is normal).
    public var volume: Int = 100
    /// A pace factor for either engine (0.5 to 2; 1 is the voice's own); nil is the engine's default
    /// (`SpeechEngine.defaultSpeed`: calmer than a newsreader for the neural voice).
    public var speed: Double?
    /// Silence after each sentence and after each paragraph (a blank line) inside one text; nil is the default
    /// (the neural voice: `defaultSentencePause`, `defaultParagraphPause`; espeak-ng: its own pauses). For
    /// espeak-ng a given pause is an SSML break, which replaces its own pause there.
    public var sentencePauseSeconds: Double?
    public var paragraphPauseSeconds: Double?
    /// The seed of the neural voice's noise: the same seed gives the same samples.
    public var seed: Int = 0

    public static let defaultVoice = "hibari:heart"
    public static let wordsPerMinuteRange = 80...450
    public static let pitchRange = 0...100
    public static let volumeRange = 0...200
    public static let speedRange = 0.5...2.0
    /// 0.45 s after a sentence and 1.2 s after a paragraph: the pace of a calm reading, where hibari alone
    /// runs sentences together as a newsreader would.
    public static let defaultSentencePause = 0.45
    public static let defaultParagraphPause = 1.2

    public init(voice: String = SpeechSettings.defaultVoice, wordsPerMinute: Int = 150, pitch: Int = 50, volume: Int = 100,
                speed: Double? = nil, sentencePauseSeconds: Double? = nil, paragraphPauseSeconds: Double? = nil, seed: Int = 0) {
        self.voice = voice; self.wordsPerMinute = wordsPerMinute; self.pitch = pitch; self.volume = volume
        self.speed = speed; self.sentencePauseSeconds = sentencePauseSeconds; self.paragraphPauseSeconds = paragraphPauseSeconds
        self.seed = seed
    }

    /// The engine and the engine's own name for the voice.
    public var engineVoice: (engine: SpeechEngine, name: String) { SpeechEngine.resolve(voice) }
    /// The pace factor in effect.
    public var effectiveSpeed: Double { speed ?? engineVoice.engine.defaultSpeed }
}

/// The engines mixrender speaks with, each in a helper process (`SpeechHelperProcess`).
public enum SpeechEngine: String, Sendable, CaseIterable {
    /// hibari-tts (PyPI, Apache-2.0): a neural voice distilled from Kokoro-82M, run by the project's virtual
    /// environment's Python (`scripts/install-speech.sh`).
    case hibari
    /// espeak-ng (libespeak-ng, Debian's espeak-ng-data): every language, robotic; drafts and languages
    /// the neural voice lacks.
    case espeak

    /// The neural voices that need nothing downloaded (inside the hibari-tts wheel): name, language, gender.
    public static let hibariVoices: [(name: String, language: String, gender: String)] = [("heart", "en-us", "female")]

    /// The engine a voice name means, and its name there (see `SpeechSettings`).
    public static func resolve(_ voice: String) -> (engine: SpeechEngine, name: String) {
        if let colon = voice.firstIndex(of: ":"), let engine = SpeechEngine(rawValue: String(voice[..<colon]).lowercased()) {
            return (engine, String(voice[voice.index(after: colon)...]))
        }
        if hibariVoices.contains(where: { $0.name == voice.lowercased() }) { return (.hibari, voice.lowercased()) }
        return (.espeak, voice)
    }

    /// The pace when none is given: 0.9 for the neural voice (calm, not a newsreader's), espeak-ng's own
    /// words per minute for espeak-ng.
    public var defaultSpeed: Double { self == .hibari ? 0.9 : 1.0 }
}
