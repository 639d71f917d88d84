/// One text-to-speech engine: the key its voices are named by, the rate it speaks at, its default pace, what a
/// synthesis depends on, its voices, and how it says a text. An engine is a value with no state of its own: what
/// lasts from one text to the next (the neural voice's helper process) is kept by the `SpeechSynthesizer` that asks
/// (`keptHelper`). A new engine is one conformance and one line in `SpeechEngines.all`; nothing switches on engines.
/// Conformances: `NeuralSpeechEngine` (the neural voices, `hibari` and `kokoro`) and `EspeakSpeechEngine` (espeak-ng).
public protocol SpeechEngine: Sendable {
    /// What its voices' ids start with: `hibari` in `hibari:heart`.
    var key: String { get }
    /// The rate it speaks at. A synthesis at another rate is not kept in a store (`Analyzer`), so what a store holds is
    /// read back at this rate.
    var sampleRate: Int { get }
    /// The pace factor when none is given.
    var defaultSpeed: Double { get }
    /// Whether its syntheses say where each sentence is (`SynthesizedSpeech.sentences`), so a store keeps them beside
    /// the samples: the neural voices do, espeak-ng does not (false unless an engine says so).
    var givesSentences: Bool { get }
    /// The engine as exactly as a synthesis depends on it, for the key of a stored synthesis; nil when it is not
    /// installed or cannot be loaded.
    func identity() -> String?
    /// Its own name for a voice named without an engine (`heart`), when it has such a voice; nil otherwise.
    /// `VoiceID(parsing:)` offers a bare name to the engines in `SpeechEngines.all`'s order.
    func claims(bareName: String) -> String?
    /// The language its voice `name` speaks (BCP 47: `en-us`, `ja`), when it knows; no voice is listed to find it.
    func language(ofVoice name: String) -> String?
    /// Its voices, and the variants a voice may take (`espeak:en-us+f3`).
    func voices() throws -> (voices: [SpeechVoice], variants: [String])
    /// Checks that its voice `name` exists and can be used here: `SpeechSynthesizer.UnknownVoice` with the names a
    /// caller may suggest from, or why it cannot speak (not installed).
    func check(name: String, voice: String) throws
    /// How it reads a lexicon's phonemes for `word` (`ipa`, checked by `IPA.problem`), written into the text in place
    /// of the word (`Lexicon.apply`): `[word](/phonemes/)` in espeak-ng's IPA unless an engine says otherwise.
    func phonemes(of word: String, ipa: String) -> String
    /// Says `text` (SSML in `SSMLSubset` when `ssml`, already split into `pieces`) in its voice `name` with `settings`,
    /// through the helpers `synthesizer` keeps and within its limits.
    func synthesize(_ text: String, pieces: [SSMLSubset.Piece], ssml: Bool, name: String, settings: SpeechSettings,
                    for synthesizer: SpeechSynthesizer) throws -> SynthesizedSpeech
}

extension SpeechEngine {
    public var givesSentences: Bool { false }
    public func phonemes(of word: String, ipa: String) -> String { "[\(word)](/\(IPA.espeakIPA(ipa))/)" }
}

/// The engines, registered once. A constant table: any thread may read it.
public enum SpeechEngines {
    public static let hibari = NeuralSpeechEngine.hibari
    public static let kokoro = NeuralSpeechEngine.kokoroJapanese
    public static let piper = NeuralSpeechEngine.piper
    public static let espeak = EspeakSpeechEngine()
    /// Every engine, in the order a voice named without an engine is offered to them: the neural voices' names first,
    /// then espeak-ng, which takes any name (presets written before the neural voice keep their sound).
    public static let all: [any SpeechEngine] = [hibari, kokoro, piper, espeak]
    /// The natural ones, in the order a language's best voice is looked for among them.
    public static let natural: [NeuralSpeechEngine] = [hibari, kokoro, piper]

    /// The engine whose key is `key` (lower case).
    public static func engine(forKey key: String) -> (any SpeechEngine)? { all.first { $0.key == key } }
}

/// A voice named exactly: the engine that says it and its name there. Written `engine:name` (`hibari:heart`,
/// `espeak:en-gb`, `espeak:en-us+f3`); a bare name is the first engine's that claims it (`heart` is the neural
/// voice's, `en-gb` espeak-ng's). What a voice is called, as against the narration's settings (a preset's `voice`
/// object, `NarrationSpec`) and a listed voice (`SpeechVoice`). A value of two strings; `Sendable`.
public struct VoiceID: Hashable, Sendable, CustomStringConvertible {
    /// The engine's key (`SpeechEngine.key`).
    public let engine: String
    /// The engine's own name for the voice.
    public let name: String
    public var description: String { "\(engine):\(name)" }

    public init(engine: String, name: String) { self.engine = engine; self.name = name }

    /// The voice `text` names (see the type's comment).
    public init(parsing text: String) {
        if let colon = text.firstIndex(of: ":"), let engine = SpeechEngines.engine(forKey: String(text[..<colon]).lowercased()) {
            self.init(engine: engine.key, name: String(text[text.index(after: colon)...]))
            return
        }
        for engine in SpeechEngines.all {
            if let name = engine.claims(bareName: text) { self.init(engine: engine.key, name: name); return }
        }
        self.init(engine: SpeechEngines.espeak.key, name: text)
    }

    /// Its engine. An id parsed from text always names a registered one; one made with a key no engine has is
    /// given to espeak-ng, the engine that takes any name, whose `check` then refuses it with the voices there are.
    public var speechEngine: any SpeechEngine { SpeechEngines.engine(forKey: engine) ?? SpeechEngines.espeak }
}
