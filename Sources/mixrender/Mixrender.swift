import ArgumentParser
import Foundation
import MixRender

@main
struct Mixrender: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mixrender",
        abstract: "Render relaxation and sleep mixes from JSON presets, and inspect audio files.",
        discussion: """
            mixrender presets/night.json -o night.m4a      render a mix, as AAC
            mixrender presets/sleep-hypnosis.json -o s.m4a render a session, with chapters
            mixrender validate presets/night.json          check a preset, render nothing
            mixrender waveform night.m4a -o night.png      a waveform preview (.png, .json)
            mixrender info night.m4a                       what a file is
            mixrender loudness night.m4a                   its loudness (EBU R128)
            mixrender key presets/night.json               a render's cache key
            mixrender batch presets/jobs.jsonl             many renders, sharing sounds
            mixrender join a.flac b.flac -o whole.flac     join windows (--start/--end)
            mixrender presets                              the presets that ship
            mixrender kinds                                the sounds a track may play
            mixrender voices                               the voices a session may name
            mixrender serve                                the render service (HTTP)

            Formats: \(OutputFileFormat.extensionList(dotted: true)), from the
            output's extension. Docs: README.md and docs/ in mixrender's folder.
            """,
        version: MixrenderVersion.string,
        subcommands: [RenderCommand.self, ValidateCommand.self, InfoCommand.self, LoudnessCommand.self, WaveformCommand.self,
                      KeyCommand.self, BatchCommand.self, MergeResultsCommand.self, JoinCommand.self, PresetsCommand.self, KindsCommand.self,
                      VoicesCommand.self, ServeCommand.self,
                      SpeechHelperCommand.self],
        defaultSubcommand: RenderCommand.self)

    /// ArgumentParser's main, with the engine's structured errors worded for the command line. Every command's
    /// standard output is checked here, once, when it ends: what `print` wrote is flushed, and output that could
    /// not be written (`> /dev/full`, a closed pipe) fails the command with one line on stderr, whatever the
    /// command (a command that failed already reports that too).
    static func main() {
        SpeechHelperLocation.servesSpeechHelper()
        let arguments = Array(CommandLine.arguments.dropFirst())
        // Bare `mixrender` shows what it can do, rather than "Missing expected argument '<preset>'".
        if arguments.isEmpty {
            print(helpMessage())
            return
        }
        if let first = arguments.first, let message = misspeltCommand(first) {
            FileHandle.standardError.write("Error: \(message)\n".data(using: .utf8)!)
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            var command = try parseAsRoot(ProgressOptions.normalised(arguments))
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

    /// The commands a user may type (the hidden speech helper is not one of them).
    static var commandNames: [String] {
        var names = ["help"]
        for command in configuration.subcommands where command.configuration.shouldDisplay {
            if let name = command.configuration.commandName { names.append(name) }
        }
        return names
    }

    /// The error for a first argument that is neither a command nor a preset but reads like a misspelt command
    /// (`mixrender valdate mix.json` would otherwise render a preset named "valdate" and ask for `--output`); nil
    /// for anything else: an option, a command, a path (it holds a `/` or a `.`, or names an existing file),
    /// or a word close to no command, which the render then reports as a missing preset.
    static func misspeltCommand(_ word: String) -> String? {
        guard !word.hasPrefix("-"), !commandNames.contains(word), !word.contains("/"), !word.contains("."),
              !FileManager.default.fileExists(atPath: word),
              let meant = NameSuggestion.closest(to: word, among: commandNames) else { return nil }
        return "'\(PrintableText.escaped(word))' is neither a command nor a preset file; did you mean 'mixrender \(meant)'? "
            + "(mixrender --help lists the commands)"
    }

    /// Standard output's error once flushed (`Terminal.flushStandardOutput`), worded for the command line; nil
    /// when all of it was written.
    private static func standardOutputFailure() -> Error? {
        do { try Terminal.flushStandardOutput(); return nil } catch { return ErrorMessage.translate(error) }
    }
}
