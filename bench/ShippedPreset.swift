import Foundation

/// A preset that ships with mixrender (`presets/NAME`), found from the current folder: the bench runs from the
/// repository. `section` names the bench section in the error when it is not there.
enum ShippedPreset {
    static func path(_ name: String, section: String) throws -> String {
        let path = FileManager.default.currentDirectoryPath + "/presets/\(name)"
        guard FileManager.default.fileExists(atPath: path) else {
            throw BenchError(message: "\(section): no presets/\(name) in the current folder; run the bench from the repository")
        }
        return path
    }
}
