import ArgumentParser
import MixRender

/// `--cache-dir` and `--cache-dir-mb`, the same for `render` and `batch`: a folder of prepared sounds, syntheses and
/// loudness measurements kept between processes (`MaterialStore`).
struct CacheDirOptions: ParsableArguments {
    @Option(help: "A folder that keeps prepared sounds and loudness measurements between renders and processes (made if missing; safe to share): a window, another format or another machine with the same folder measures nothing again.")
    var cacheDir: String?

    @Option(name: .customLong("cache-dir-mb"), parsing: .unconditional, help: "MiB the --cache-dir folder's entries may take on disk; least recently used go first (default 4096).")
    var cacheDirMB = 4096

    func validate() throws {
        guard cacheDirMB >= 1 && cacheDirMB <= 1 << 30 else { throw CLIError("--cache-dir-mb must be between 1 and \(1 << 30)") }
    }

    /// The folder's store, made (and trimmed to its budget) if it was given.
    func store() throws -> MaterialStore? {
        try cacheDir.map { try MaterialStore(folder: $0, budgetBytes: Int64(cacheDirMB) << 20) }
    }
}
