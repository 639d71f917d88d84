import ArgumentParser
import Foundation
import MixIO

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print the format, rate, channels, duration, tags and chapters of audio files.")

    @Argument(help: "Audio files.")
    var files: [String]

    /// Describes every file it can, reports each one it cannot on stderr (one line each), and fails at the
    /// end if any could not be read.
    func run() throws {
        var printed = 0, failed = 0
        for file in files {
            do {
                let info = try AudioFileInfo.read(path: file)
                if printed > 0 { print("") }
                // Tags are extra: a file TagLib cannot read is still described.
                let comments = info.commentFormat.flatMap { try? FileTags.read(path: info.path, format: $0) } ?? []
                print(Report.info(info, comments: comments))
                printed += 1
            } catch {
                FileHandle.standardError.write("Error: \(ErrorMessage.translate(error))\n".data(using: .utf8)!)
                failed += 1
            }
        }
        if failed > 0 { throw ExitCode.failure }
    }}
