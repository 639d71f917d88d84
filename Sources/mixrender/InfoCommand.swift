import ArgumentParser
import MixRender
import Foundation

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
                // Tags are extra: a file the tagger cannot read (or an RF64 WAV) is still described. The tag
                // format comes from the file's first bytes, not its name.
                let tags = FileTags.detectFormat(path: info.path).flatMap { try? FileTags.contents(path: info.path, format: $0) }
                print(Printout.info(info, comments: tags?.fields ?? [], chapters: tags?.chapters ?? []))
                printed += 1
            } catch {
                FileHandle.standardError.write("Error: \(ErrorMessage.translate(error))\n".data(using: .utf8)!)
                failed += 1
            }
        }
        if failed > 0 { throw ExitCode.failure }
    }}
