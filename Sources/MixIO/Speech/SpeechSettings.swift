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

    /// The voice, parsed: its engine and the engine's own name for it.
    public var voiceID: VoiceID { VoiceID(parsing: voice) }
    /// The pace factor in effect.
    public var effectiveSpeed: Double { speed ?? voiceID.speechEngine.defaultSpeed }
}
