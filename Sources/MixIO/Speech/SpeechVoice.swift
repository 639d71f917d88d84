/// One voice an engine has: what `mixrender voices` lists. A value of strings; `Sendable`.
public struct SpeechVoice: Sendable, Equatable, Codable {
    /// What a preset names it by: `hibari:heart`, `espeak:en-gb`.
    public let id: String
    public let engine: String
    /// Its display name (`English_(Great_Britain)`).
    public let name: String
    /// Its languages, most preferred first (`en-gb`).
    public let languages: [String]
    /// `female`, `male`, or empty when the engine does not say.
    public let gender: String
    /// Where it comes from: the package and its licence.
    public let origin: String

    public init(id: String, engine: String, name: String, languages: [String], gender: String, origin: String) {
        self.id = id; self.engine = engine; self.name = name; self.languages = languages; self.gender = gender; self.origin = origin
    }
}
