import ArgumentParser

@main
struct Mixrender: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mixrender",
        abstract: "Render relaxation and sleep mixes from JSON presets, and inspect audio files.",
        discussion: """
            mixrender presets/night.json -o night.ogg        render a mix
            mixrender validate presets/night.json            check a preset, render nothing
            mixrender info rain.ogg                          what a file is
            """,
        subcommands: [RenderCommand.self, ValidateCommand.self, InfoCommand.self, WaveformCommand.self],
        defaultSubcommand: RenderCommand.self)

    /// ArgumentParser's main, with the engine's structured errors worded for the command line.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: ErrorMessage.translate(error))
        }
    }
}
