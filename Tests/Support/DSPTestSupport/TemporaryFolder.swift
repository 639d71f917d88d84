import Foundation

/// A fresh folder under the system's temporary folder, removed with everything in it when the value goes away.
/// The one temporary folder of the tests and the bench; `TestSupport` adds writing a WAV made in code.
public final class TemporaryFolder {
    public let url: URL

    /// `prefix` names the folder (`<prefix>-<UUID>`), so that one left behind by a crash says whose it is.
    public init(prefix: String = "mixrender-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` (a file name or a relative path) in the folder.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` (UTF-8) to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let p = path(name)
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    /// Writes a preset and returns its path.
    public func preset(_ json: String, name: String = "preset.json") throws -> String { try write(name, json) }

    /// Every file in the folder, hidden ones included, sorted.
    public var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }
}
