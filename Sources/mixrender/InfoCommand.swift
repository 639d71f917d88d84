import ArgumentParser
import MixRender
import Foundation

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print the format, rate, channels, duration, tags and chapters of audio files.")

    @Argument(help: "Audio files: \(OutputFileFormat.extensionList(dotted: true)), or anything else FFmpeg reads.")
    var files: [String]

    @Flag(help: "Print a JSON array, one object per file: format, rate, channels, frames, duration, every tag, chapters, warnings (an unreadable file gets an \"error\").")
    var json = false

    /// Describes every file it can, reports each one it cannot on stderr (one line each), and fails at the
    /// end if any could not be read.
    func run() throws {
        var printed = 0, failed = 0
        var documents: [JSONValue] = []
        for file in files {
            do {
                let info = try AudioFileInfo.read(path: file)
                // Tags are extra: a file the tagger cannot read (or an RF64 WAV) is still described. The tag
                // format comes from the file's first bytes, not its name.
                let tags = FileTags.detectFormat(path: info.path).flatMap { try? FileTags.contents(path: info.path, format: $0) }
                if json {
                    documents.append(FileDescription.json(info, comments: tags?.fields ?? [], chapters: tags?.chapters ?? []))
                } else {
                    if printed > 0 { print("") }
                    print(Printout.info(info, comments: tags?.fields ?? [], chapters: tags?.chapters ?? []))
                }
                printed += 1
            } catch {
                let message = "\(ErrorMessage.translate(error))"
                if json { documents.append(FileDescription.json(path: file, error: message)) }
                else { FileHandle.standardError.write("Error: \(message)\n".data(using: .utf8)!) }
                failed += 1
            }
        }
        if json { print(FileDescription.document(documents), terminator: "") }
        if failed > 0 { throw ExitCode.failure }
    }}
