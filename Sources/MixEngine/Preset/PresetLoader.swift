import Foundation  // Data
import MixIO

/// Loads preset files (format version 1, see docs/presets.md) into validated `Preset` values.
///
/// Every problem is a `PresetError` naming the file and the JSON path:
/// `presets/night.json: tracks[2].fadeIn.curve: unknown curve 'cubic'; expected one of ...`.
/// Source files are resolved against the preset's folder but not opened: whether they exist and can be
/// decoded is checked when the engine opens them.
///
/// No state: any thread may load at once. Its functions allocate (the file's bytes, the JSON tree,
/// the `Preset`).
public enum PresetLoader {
    /// Reads and validates the preset at `path` and merges `overrides` into it: the final preset, which nothing
    /// patches afterwards. Relative source paths in it are resolved against the folder `path` is in (so they stay
    /// relative if `path` is). The overrides are checked first (errors name the setting); the length they give
    /// stands in for the document's `duration` and is checked as it would be (fades that fit, tracks that start in
    /// time); a render made loopable leaves the master fades out (a warning in `Preset.warnings`), so they need
    /// not fit the length.
    /// A template (docs/templates.md) is filled with `variables` first (those it declares, each checked; a missing one
    /// takes its default); a preset given variables is an error.
    public static func load(path: String, overrides: RenderOverrides = RenderOverrides(),
                            variables: [String: JSONValue]? = nil) throws -> Preset {
        try overrides.check()
        var preset = try load(path: path, overrides: overrides, bedChain: [], variables: variables)
        preset.warnings += try overrides.merge(into: &preset, file: path)
        return preset
    }

    /// The longest preset mixrender reads: 64 MiB, room for the most tags a preset may carry (docs/presets.md).
    public static let maximumBytes = 64 << 20

    /// `load`, for a bed reached through the presets in `bedChain`.
    static func load(path: String, overrides: RenderOverrides = RenderOverrides(), bedChain: [String],
                     sources: SourceResolver? = nil, variables: [String: JSONValue]? = nil) throws -> Preset {
        guard !path.isEmpty else {
            throw EngineError.preset(PresetError(file: "", jsonPath: "", message: "no preset file given"))
        }
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readDocument(path: path, maximumBytes: maximumBytes)
        } catch let error as AudioIOError {
            let problem: String
            switch error.cause {
            case .noSuchFile: problem = "no such file"
            case .isFolder: problem = "it is a folder, not a file"
            case .permissionDenied: problem = "permission denied"
            case .symbolicLink, .notRegularFile, .tooLarge, .alreadyExists, .other: problem = error.function.isEmpty ? error.reason : "\(error.reason) (\(error.function))"
            }
            throw EngineError.preset(PresetError(file: path, jsonPath: "", message: "cannot read preset: \(problem)"))
        }
        return try parse(bytes, file: path, baseDirectory: folder(of: path), overrides: overrides, bedChain: bedChain,
                         sources: sources, variables: variables)
    }

    /// Parses and validates a preset held in memory.
    ///
    /// - Parameters:
    ///   - data: the JSON document, UTF-8.
    ///   - file: the name errors give for the document (usually its path).
    ///   - baseDirectory: the folder relative source paths are resolved against; empty leaves them as written.
    public static func parse(_ data: Data, file: String, baseDirectory: String) throws -> Preset {
        try parse([UInt8](data), file: file, baseDirectory: baseDirectory)
    }

    /// Parses and validates a preset held in memory as UTF-8 bytes (see `parse(_:file:baseDirectory:)`), with
    /// `overrides` merged as `load(path:overrides:)` does.
    public static func parse(_ bytes: [UInt8], file: String, baseDirectory: String,
                             overrides: RenderOverrides = RenderOverrides()) throws -> Preset {
        try overrides.check()
        var preset = try parse(bytes, file: file, baseDirectory: baseDirectory, overrides: overrides, bedChain: [])
        preset.warnings += try overrides.merge(into: &preset, file: file)
        return preset
    }

    /// Reads and validates a preset given as a value (a `JSONValue` a program built or changed), with `overrides`
    /// merged as `load(path:overrides:)` does: the same reader as a document's, so errors name the JSON path.
    /// `sources`, when given, names the preset's files instead of `baseDirectory` (`SourceResolver`).
    public static func read(_ document: JSONValue, file: String, baseDirectory: String,
                            overrides: RenderOverrides = RenderOverrides(), sources: SourceResolver? = nil) throws -> Preset {
        try overrides.check()
        var preset = try read(document, file: file, baseDirectory: baseDirectory, overrides: overrides, bedChain: [],
                              sources: sources)
        preset.warnings += try overrides.merge(into: &preset, file: file)
        return preset
    }

    /// The document read with the overrides that change how it is checked (its length, loopable); the rest are
    /// merged by the public entry points.
    static func parse(_ bytes: [UInt8], file: String, baseDirectory: String, overrides: RenderOverrides,
                      bedChain: [String], sources: SourceResolver? = nil, variables: [String: JSONValue]? = nil) throws -> Preset {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch let error as JSONSyntaxError {
            throw EngineError.preset(PresetError(file: file, jsonPath: error.jsonPath, message: error.message))
        }
        return try read(filled(root, file: file, variables: variables), file: file, baseDirectory: baseDirectory, overrides: overrides, bedChain: bedChain,
                        sources: sources)
    }

    /// `root` itself for a preset; for a template (docs/templates.md), its preset filled with `variables`.
    public static func filled(_ root: JSONValue, file: String, variables: [String: JSONValue]?) throws -> JSONValue {
        guard PresetTemplate.isTemplate(root) else {
            if let variables, !variables.isEmpty {
                throw EngineError.preset(PresetError(file: file, jsonPath: "", message: "is a preset, not a template: it has no variables to fill (given: \(variables.keys.sorted().map(PresetTemplate.shown).joined(separator: ", ")))"))
            }
            return root
        }
        return try PresetTemplate(root, file: file).resolve(variables ?? [:], file: file)
    }

    /// `root` read as a preset, with the overrides that change how it is checked.
    static func read(_ root: JSONValue, file: String, baseDirectory: String, overrides: RenderOverrides,
                     bedChain: [String], sources: SourceResolver? = nil) throws -> Preset {
        var reader = PresetReader(baseDirectory: baseDirectory, overrides: overrides)
        reader.bedChain = bedChain
        reader.sources = sources
        return try reader.preset(JSONCursor(root, file: file))
    }

    /// The folder part of `path`: `presets` for `presets/night.json`, empty for `night.json`, `/` for `/night.json`.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` resolved against `baseDirectory` unless it is absolute, with `.` parts and doubled slashes
    /// removed (`..` is kept: folding it away would be wrong across symbolic links). `~` is not expanded.
    static func resolve(_ path: String, against baseDirectory: String) -> String {
        let joined = path.hasPrefix("/") || baseDirectory.isEmpty ? path : baseDirectory + "/" + path
        let parts = joined.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        let body = parts.joined(separator: "/")
        if joined.hasPrefix("/") { return "/" + body }
        return body.isEmpty ? "." : body
    }
}
