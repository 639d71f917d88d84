/// How a text is spoken: the voice (which names its engine), the pace, and espeak-ng's own pitch and volume.
/// A value of strings and numbers; `Sendable`, safe to share.
///
/// Voices are named `engine:name`: `hibari:heart` (the neural voice, the default), `espeak:en-gb`,
/// `espeak:en-us+f3` (an espeak-ng voice or language with a variant). A bare name is the neural voice's if it
/// has one by that name (`heart`), otherwise espeak-ng's (`en-gb`: presets written before the neural voice
/// keep their sound).
public struct SpeechSettings: Sendable, Hashable {
    /// The voice as written (`hibari:heart`, `espeak:en-gb`, `en-gb`); the default when none is named.
    public var voice: String {
        get { namedVoice ?? SpeechSettings.defaultVoice }
        set { namedVoice = newValue }
    }
    /// The voice named, nil when none is: the voice is then chosen for the text's language (`choice(forText:)`).
    public var namedVoice: String?
    /// The language of the text (BCP 47: `ja`, `es`, `en-gb`), when given; without one it is found from the text.
    public var language: String?
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
    /// Words and how to say them (`Lexicon`), applied to the text before any engine reads it.
    public var lexicon = Lexicon()
    /// Whether an English neural voice's words are placed in time (`SynthesizedSpeech.words`, by the aligner in its
    /// helper: about 0.8 s of work per minute of speech, as much again as hibari's own), for the timeline's `words`.
    public var wordTimes = false

    public static let defaultVoice = "hibari:heart"
    public static let wordsPerMinuteRange = 80...450
    public static let pitchRange = 0...100
    public static let volumeRange = 0...200
    public static let speedRange = 0.5...2.0
    /// 0.45 s after a sentence and 1.2 s after a paragraph: the pace of a calm reading, where hibari alone
    /// runs sentences together as a newsreader would.
    public static let defaultSentencePause = 0.45
    public static let defaultParagraphPause = 1.2

    public init(voice: String? = nil, wordsPerMinute: Int = 150, pitch: Int = 50, volume: Int = 100,
                speed: Double? = nil, sentencePauseSeconds: Double? = nil, paragraphPauseSeconds: Double? = nil, seed: Int = 0) {
        self.namedVoice = voice; self.wordsPerMinute = wordsPerMinute; self.pitch = pitch; self.volume = volume
        self.speed = speed; self.sentencePauseSeconds = sentencePauseSeconds; self.paragraphPauseSeconds = paragraphPauseSeconds
        self.seed = seed
    }

    /// The voice, parsed: its engine and the engine's own name for it.
    public var voiceID: VoiceID { VoiceID(parsing: voice) }
    /// The pace factor in effect.
    public var effectiveSpeed: Double { speed ?? voiceID.speechEngine.defaultSpeed }

    /// The settings for `text`, with the voice that says it named: the named voice, or else the best installed voice
    /// for its language (`language`, or the language the text is plainly in: `SpeechLanguage.detect`), a natural one
    /// before espeak-ng's, and the default voice for English or a text of no plain language. With it, a warning
    /// when that voice is a draft for want of a natural one, or when the named voice does not speak the text's language.
    public func choice(forText text: String) -> VoiceChoice {
        let language = self.language ?? SpeechLanguage.detect(text)
        var settings = self
        guard let language else {
            settings.namedVoice = voice
            return VoiceChoice(settings: settings, language: nil, warning: nil)
        }
        let given = self.language != nil ? "is given as" : "looks like"
        let name = SpeechLanguage.name(of: language)
        if let named = namedVoice {
            let id = VoiceID(parsing: named)
            guard let spoken = id.speechEngine.language(ofVoice: id.name), !SpeechLanguage.speaks(spoken, language) else {
                return VoiceChoice(settings: settings, language: language, warning: nil)
            }
            let others = SpeechLanguage.installedVoices(for: language).prefix(4).map { $0.id + ($0.natural ? "" : " (draft)") }
            return VoiceChoice(settings: settings, language: language,
                               warning: "the text \(given) \(name), but its voice '\(named)' speaks \(SpeechLanguage.name(of: spoken)) (\(spoken)); "
                                   + (others.isEmpty ? "no installed voice speaks \(name)" : "voices for \(name): " + others.joined(separator: ", ")))
        }
        // English is the default voice's, installed or not (a missing one is an error that says how to install it).
        if SpeechLanguage.speaks(SpeechEngines.hibari.voiceList[0].language, language) {
            settings.namedVoice = SpeechSettings.defaultVoice
            return VoiceChoice(settings: settings, language: language, warning: nil)
        }
        guard let best = SpeechLanguage.installedVoices(for: language).first else {
            settings.namedVoice = SpeechSettings.defaultVoice
            return VoiceChoice(settings: settings, language: language,
                               warning: "the text \(given) \(name), and no installed voice speaks it; the default voice '\(SpeechSettings.defaultVoice)' reads it")
        }
        settings.namedVoice = best.id
        guard !best.natural else { return VoiceChoice(settings: settings, language: language, warning: nil) }
        let install = SpeechEngines.natural.first { engine in engine.voiceList.contains { SpeechLanguage.speaks($0.language, language) } }
            .map { "install its natural voice with scripts/install-speech.sh (\($0.package))" }
            ?? "no natural voice for it ships with mixrender (docs/sessions.md, \"Voices\")"
        return VoiceChoice(settings: settings, language: language,
                           warning: "the text \(given) \(name) and no natural voice for it is installed: espeak-ng's draft voice '\(best.id)' reads it; \(install)")
    }
}

/// The voice chosen for one text (`SpeechSettings.choice(forText:)`): the settings with it named, the language the
/// text was taken to be in, and a warning when the choice is worth one. A value; `Sendable`.
public struct VoiceChoice: Hashable, Sendable {
    public let settings: SpeechSettings
    public let language: String?
    public let warning: String?
}
