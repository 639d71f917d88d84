import ArgumentParser
import Foundation
import MixRender

struct LoudnessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loudness",
        abstract: "Measure audio files' loudness (EBU R128): integrated, range, true and sample peak, momentary and short-term maxima.",
        discussion: "Files are measured in parallel, one per core. Silence reads -inf.")

    @Argument(help: "Audio files: \(OutputFileFormat.extensionList(dotted: true)), or anything else FFmpeg reads.")
    var files: [String]

    @Flag(help: "Print a JSON array, one object per file (an unreadable file gets an \"error\").")
    var json = false

    /// Measures every file; reports each one it cannot read (one line each on stderr, or as an "error" in
    /// JSON) and fails at the end if any could not be read.
    func run() throws {
        let entries = LoudnessScan.measure(files)
        if json {
            print(LoudnessScan.json(entries), terminator: "")
        } else {
            var printed = 0
            for entry in entries {
                switch entry.result {
                case .success(let measurement):
                    if printed > 0 { print("") }
                    print(LoudnessScan.text(path: entry.path, measurement))
                    printed += 1
                case .failure(let error):
                    FileHandle.standardError.write("Error: \(ErrorMessage.translate(error))\n".data(using: .utf8)!)
                }
            }
        }
        if entries.contains(where: { if case .failure = $0.result { return true } else { return false } }) { throw ExitCode.failure }
    }
}
