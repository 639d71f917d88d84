import Foundation

/// Runs `body` with a new empty folder (its real path), deleted afterwards.
func withTemporaryFolder<T>(_ body: (String) async throws -> T) async throws -> T {
    let template = NSTemporaryDirectory() + "/servekit-XXXXXX"
    var bytes = Array(template.utf8CString)
    guard mkdtemp(&bytes) != nil else { throw CocoaError(.fileWriteUnknown) }
    guard let resolved = realpath(bytes, nil) else { throw CocoaError(.fileWriteUnknown) }
    let path = String(cString: resolved)
    free(resolved)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// Writes `text` to the file at `path`, making its folder.
func write(_ text: String, to path: String) throws {
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                            withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

/// The entries of the folder at `path`, sorted.
func entries(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
}
