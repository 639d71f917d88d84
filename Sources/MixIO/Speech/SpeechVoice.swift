/// One voice an engine has: what `mixrender voices` lists, and what a render's credits name. A value of strings;
/// `Sendable`.
public struct SpeechVoice: Sendable, Equatable, Codable {
    /// What a preset names it by: `hibari:heart`, `kokoro:jf_alpha`, `espeak:en-gb`.
    public let id: String
    public let engine: String
    /// Its display name (`English_(Great_Britain)`).
    public let name: String
    /// Its languages (BCP 47 as the engine writes them), most preferred first (`en-gb`).
    public let languages: [String]
    /// `female`, `male`, or empty when the engine does not say.
    public let gender: String
    /// Where it comes from: the package and its licence.
    public let origin: String
    /// Whether it is a natural voice (a neural model) or a draft one (espeak-ng's formant synthesis).
    public let natural: Bool
    /// What `voices`, the report, the timeline and the server call it: `natural` or `draft`.
    public var quality: String { natural ? "natural" : "draft" }
    /// The licence of the voice and its data (SPDX), and the credit an app shows beside audio it speaks.
    public let licence: String
    public let attribution: String

    public init(id: String, engine: String, name: String, languages: [String], gender: String, origin: String,
                natural: Bool = false, licence: String = "", attribution: String = "") {
        self.id = id; self.engine = engine; self.name = name; self.languages = languages; self.gender = gender; self.origin = origin
        self.natural = natural; self.licence = licence; self.attribution = attribution
    }
}
