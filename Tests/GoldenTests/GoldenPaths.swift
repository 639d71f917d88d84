import Foundation

/// Where the golden suite reads and writes, and whether this run records.
///
/// - `golden/` (at the package root) holds the references and the tiny presets that make the feature goldens.
/// - `test-output/golden-failures/` receives, for each failing golden, the actual render and a
///   difference file (git-ignored through `/test-output/`). Files of a golden that passes are removed.
/// - `MIXRENDER_RECORD_GOLDENS=1` (or `all`) rewrites every golden the run reaches; a comma-separated
///   list of golden names (`night-start,limiter`) rewrites only those. A recording run always fails.
enum GoldenPaths {
    /// The package root: this file is `<root>/Tests/GoldenTests/GoldenPaths.swift`.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let golden: URL = root.appendingPathComponent("golden", isDirectory: true)
    static let presets: URL = root.appendingPathComponent("presets", isDirectory: true)
    static let failures: URL = root.appendingPathComponent("test-output/golden-failures", isDirectory: true)

    /// `golden/<relative>`.
    static func golden(_ relative: String) -> String { golden.appendingPathComponent(relative).path }
    /// `presets/<relative>`.
    static func preset(_ relative: String) -> String { presets.appendingPathComponent(relative).path }

    /// A path relative to the package root, for messages.
    static func display(_ path: String) -> String {
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// The name of the environment variable that turns recording on.
    static let recordVariable = "MIXRENDER_RECORD_GOLDENS"

    /// Whether this run rewrites the golden called `name`.
    static func isRecording(_ name: String) -> Bool {
        isRecording(name, setting: ProcessInfo.processInfo.environment[recordVariable])
    }

    /// `setting` is the variable's value: unset, empty or `0` records nothing; `1`, `all` or `true` all;
    /// otherwise a comma-separated list of golden names.
    static func isRecording(_ name: String, setting: String?) -> Bool {
        guard let value = setting?.trimmingCharacters(in: .whitespaces), !value.isEmpty, value != "0" else { return false }
        if ["1", "all", "true", "yes"].contains(value.lowercased()) { return true }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains(name)
    }

    /// `test-output/golden-failures/<name>.<suffix>`, with the folder created.
    static func failureFile(_ name: String, _ suffix: String) throws -> String {
        try FileManager.default.createDirectory(at: failures, withIntermediateDirectories: true)
        return failures.appendingPathComponent("\(name).\(suffix)").path
    }

    /// Removes what an earlier failing run left for `name`.
    static func clearFailures(_ name: String) {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: failures.path) else { return }
        // Only `<name>.actual.*` and `<name>.diff.*`: `everything.waveform.actual.json` is not `everything`'s.
        for file in files where file.hasPrefix(name + ".actual.") || file.hasPrefix(name + ".diff.") {
            try? FileManager.default.removeItem(at: failures.appendingPathComponent(file))
        }
    }
}
