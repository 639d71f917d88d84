/// A voice heard in a render, as an app credits it: what the render report's and the timeline's `voices` list
/// (`VoiceCredit.json`, in MixEngine) and the server's result keeps and gives (the API's `VoiceCredit`). Its
/// properties are its JSON keys. A value of strings; `Sendable`.
public struct VoiceCredit: Sendable, Equatable, Codable {
    /// The voice as a preset names it (`kokoro:jf_alpha`).
    public var id: String
    public var languages: [String]
    /// `natural` (a neural voice) or `draft` (espeak-ng's).
    public var quality: String
    public var licence: String
    public var attribution: String
    public var origin: String

    public init(_ voice: SpeechVoice) {
        id = voice.id; languages = voice.languages; quality = voice.quality
        licence = voice.licence; attribution = voice.attribution; origin = voice.origin
    }
}
