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
    /// Reads and validates the preset at `path`; relative source paths in it are resolved against the
    /// folder `path` is in (so they stay relative if `path` is).
    /// `durationSeconds`, when given, stands in for the document's `duration` and is checked as it would be.
    /// `ignoringMasterFadeFit`: the caller will leave the master fades out (a render made loopable on the command
    /// line), so they need not fit the length.
    public static func load(path: String, durationSeconds: Double? = nil, ignoringMasterFadeFit: Bool = false) throws -> Preset {
        try load(path: path, durationSeconds: durationSeconds, ignoringMasterFadeFit: ignoringMasterFadeFit, bedChain: [])
    }

    /// The longest preset mixrender reads: 64 MiB, room for the most tags a preset may carry (docs/presets.md).
    public static let maximumBytes = 64 << 20

    /// `load`, for a bed reached through the presets in `bedChain`.
    static func load(path: String, durationSeconds: Double? = nil, ignoringMasterFadeFit: Bool = false,
                     bedChain: [String]) throws -> Preset {
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
            case .other: problem = error.function.isEmpty ? error.reason : "\(error.reason) (\(error.function))"
            }
            throw EngineError.preset(PresetError(file: path, jsonPath: "", message: "cannot read preset: \(problem)"))
        }
        return try parse(bytes, file: path, baseDirectory: folder(of: path), durationSeconds: durationSeconds,
                         ignoringMasterFadeFit: ignoringMasterFadeFit, bedChain: bedChain)
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

    /// Parses and validates a preset held in memory as UTF-8 bytes (see `parse(_:file:baseDirectory:)`).
    public static func parse(_ bytes: [UInt8], file: String, baseDirectory: String,
                             durationSeconds: Double? = nil, ignoringMasterFadeFit: Bool = false) throws -> Preset {
        try parse(bytes, file: file, baseDirectory: baseDirectory, durationSeconds: durationSeconds,
                  ignoringMasterFadeFit: ignoringMasterFadeFit, bedChain: [])
    }

    static func parse(_ bytes: [UInt8], file: String, baseDirectory: String, durationSeconds: Double?,
                      ignoringMasterFadeFit: Bool, bedChain: [String]) throws -> Preset {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch let error as JSONSyntaxError {
            throw EngineError.preset(PresetError(file: file, jsonPath: error.jsonPath, message: error.message))
        }
        var reader = PresetReader(baseDirectory: baseDirectory, durationOverride: durationSeconds)
        reader.ignoresMasterFadeFit = ignoringMasterFadeFit
        reader.bedChain = bedChain
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
