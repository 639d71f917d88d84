/// Every error the engine throws: the facts of what went wrong, for the caller to word.
///
/// Errors of the C libraries come from MixIO as `AudioIOError` and pass through unchanged; everything
/// the engine finds itself is one of these cases. The engine never names a command-line flag: a
/// setting is an `EngineSetting`, and a reason that mentions one carries it as a part of its
/// `EngineReason`. The CLI turns each case into its one-line message (`ErrorMessage` in mixrender);
/// `description` words it in the engine's own terms, for logs and tests.
///
/// A value (`Sendable`, safe to share); it allocates only the strings and reasons its cases hold.
public enum EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A problem in a preset (its file, the JSON path, the reason), found before any audio is written.
    case preset(PresetError)
    /// An output that cannot be written: `cannot write '<path>': <reason>`.
    case output(path: String, reason: EngineReason)
    /// An input that cannot be used: `cannot read '<path>': <reason>`.
    case input(path: String, reason: EngineReason)
    /// A part that cannot be joined to the others (`mixrender join`): `cannot join '<path>': <reason>`.
    case part(path: String, reason: EngineReason)
    /// A setting the caller gave (a render range, a waveform resolution) that cannot work:
    /// `<setting> <reason>`.
    case setting(EngineSetting, reason: EngineReason)

    public var description: String { words { $0.rawValue } }

    /// The error in one line, each setting named by `name`.
    public func words(naming name: (EngineSetting) -> String) -> String {
        switch self {
        case .preset(let error): return error.description
        case .output(let path, let reason): return Self.singleLine("cannot write '\(path)': \(reason.words(naming: name))")
        case .input(let path, let reason):
            let what = path.isEmpty ? "the audio" : "'\(path)'"
            return Self.singleLine("cannot read \(what): \(reason.words(naming: name))")
        case .part(let path, let reason): return Self.singleLine("cannot join '\(path)': \(reason.words(naming: name))")
        case .setting(let setting, let reason): return Self.singleLine("\(name(setting)) \(reason.words(naming: name))")
        }
    }

    /// Replaces line breaks and other control characters, so a message never spans lines.
    public static func singleLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append(scalar.properties.generalCategory == .control ? " " : scalar)
        }
        return String(out)
    }
}

/// The settings a caller of the engine chooses besides the preset (the CLI maps each to its option).
/// A plain enum value (`Sendable`); allocates nothing.
public enum EngineSetting: String, Sendable, Equatable, CaseIterable {
    /// The render's length, format and range, given besides the preset.
    case duration, sampleRate, quality, bitrate, format, start, end, loudness, truePeak
    /// The output file.
    case output
    /// Waveform resolution and style.
    case samplesPerPixel, pixelsPerSecond, width, bits, height, amplitudeScale, decibelRange, spectrogram
    /// A batch: how many jobs run at once, the material cache's budget and folder, the slice.
    case jobs, cacheSize, cacheDir, shard, results
    /// merge-results: the job list the merged results are checked against.
    case jobList
}

/// A reason, in words that may name settings: `"must be after \(setting: .start)"`.
/// A value holding an array of parts; allocates only that array and its strings. `Sendable`, safe to share.
public struct EngineReason: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// A value: a `String` or a setting; allocates only its text. `Sendable`.
    public enum Part: Sendable, Equatable {
        case text(String)
        case setting(EngineSetting)
    }

    public var parts: [Part]

    public init(parts: [Part]) { self.parts = parts }
    public init(stringLiteral value: String) { parts = [.text(value)] }
    public init(stringInterpolation: StringInterpolation) { parts = stringInterpolation.parts }

    /// The parts of a literal being built: a value holding one growing array (it allocates as parts are
    /// appended); not marked `Sendable`, it lives only while the literal is built, on one thread.
    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []
        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) { if !literal.isEmpty { parts.append(.text(literal)) } }
        public mutating func appendInterpolation<T>(_ value: T) { parts.append(.text("\(value)")) }
        public mutating func appendInterpolation(setting: EngineSetting) { parts.append(.setting(setting)) }
    }

    /// The reason with each setting named by `name`.
    public func words(naming name: (EngineSetting) -> String) -> String {
        parts.map { part in
            switch part {
            case .text(let text): return text
            case .setting(let setting): return name(setting)
            }
        }.joined()
    }

    public var description: String { words { $0.rawValue } }
}
