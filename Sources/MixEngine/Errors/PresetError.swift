/// A problem with a preset, found when it is loaded or planned, before any audio is rendered; thrown as
/// `EngineError.preset`.
///
/// `description` is one line, written for a person at a terminal:
///
///     presets/night.json: tracks[2].fadeIn.curve: unknown curve 'cubic'; expected one of linear, equalPower, sCurve, logarithmic, exponential
///     presets/night.json: missing required key 'duration' (the length of the render, e.g. "8h")
///
/// The JSON path part is left out when the problem is with the whole document (`jsonPath` is empty).
///
/// A value of three `String`s; allocates only those when made. `Sendable`, safe to share.
public struct PresetError: CustomStringConvertible, Equatable, Sendable {
    /// The preset's path, as it was given to the loader.
    public var file: String
    /// Where in the document the problem is, e.g. `tracks[2].fadeIn.curve`; empty for the whole document.
    public var jsonPath: String
    /// What is wrong, and what would be right.
    public var message: String

    public init(file: String, jsonPath: String, message: String) {
        self.file = file
        self.jsonPath = jsonPath
        self.message = message
    }

    /// `file: jsonPath: message`, without the parts that are empty; always a single line.
    public var description: String {
        var parts: [String] = []
        if !file.isEmpty { parts.append(file) }
        if !jsonPath.isEmpty { parts.append(jsonPath) }
        parts.append(message)
        return EngineError.singleLine(parts.joined(separator: ": "))
    }
}
