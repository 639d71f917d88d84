import ArgumentParser
import Foundation
import MixRender

@main
struct Mixrender: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mixrender",
        abstract: "Render relaxation and sleep mixes from JSON presets, and inspect audio files.",
        discussion: """
            mixrender presets/night.json -o night.ogg        render a mix
            mixrender validate presets/night.json            check a preset, render nothing
            mixrender info rain.ogg                          what a file is
            mixrender loudness rain.ogg                      its loudness (EBU R128)
            mixrender key presets/night.json                 its cache key, without rendering
            mixrender batch jobs.jsonl --jobs 2              many renders, sharing their sounds
            mixrender join a.flac b.flac -o whole.flac       join parts rendered with --start/--end
            mixrender voices                                 the voices a session may name
            mixrender serve                                  the render service (HTTP API and a page, docs/serve.md)
            """,
        version: MixrenderVersion.string,
        subcommands: [RenderCommand.self, ValidateCommand.self, InfoCommand.self, LoudnessCommand.self, WaveformCommand.self,
                      KeyCommand.self, BatchCommand.self, MergeResultsCommand.self, JoinCommand.self, VoicesCommand.self, ServeCommand.self,
                      SpeechHelperCommand.self],
        defaultSubcommand: RenderCommand.self)

    /// ArgumentParser's main, with the engine's structured errors worded for the command line. Every command's
    /// standard output is checked here, once, when it ends: what `print` wrote is flushed, and output that could
    /// not be written (`> /dev/full`, a closed pipe) fails the command with one line on stderr, whatever the
    /// command (a command that failed already reports that too).
    static func main() {
        SpeechHelperLocation.servesSpeechHelper()
        do {
            var command = try parseAsRoot()
            do {
                try command.run()
            } catch {
                if let lost = standardOutputFailure() { FileHandle.standardError.write("Error: \(lost)\n".data(using: .utf8)!) }
                throw error
            }
            if let lost = standardOutputFailure() { throw lost }
        } catch {
            let translated = ErrorMessage.translate(error)
            let code = exitCode(for: translated)
            guard code != .success, !(translated is CLIError), !(translated is ExitCode) else { exit(withError: translated) }
            // ArgumentParser's own errors (a missing or unreadable value, an unknown option): one line, as every
            // other error, without the usage text it would print below.
            let first = message(for: translated).split(separator: "\n").first.map(String.init) ?? "\(translated)"
            FileHandle.standardError.write(((first.hasPrefix("Error: ") ? first : "Error: " + first) + "\n").data(using: .utf8)!)
            Foundation.exit(code.rawValue)
        }
    }

    /// Standard output's error once flushed (`Terminal.flushStandardOutput`), worded for the command line; nil
    /// when all of it was written.
    private static func standardOutputFailure() -> Error? {
        do { try Terminal.flushStandardOutput(); return nil } catch { return ErrorMessage.translate(error) }
    }
}
