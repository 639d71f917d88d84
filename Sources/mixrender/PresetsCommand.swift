import ArgumentParser
import MixRender

/// `mixrender presets`: the presets that ship (or those in the folders and files given), one line each, read and
/// checked as a render reads them (`PresetCatalog`).
struct PresetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presets",
        abstract: "List the presets that ship (or those given): name, mix or session, length, output and the kinds of their tracks.")

    @Argument(help: "Preset files or folders of presets (default: the presets folder that ships with mixrender).")
    var paths: [String] = []

    @Flag(help: "Print JSON for a program: {\"presets\": [{path, name, kind, duration, sampleRate, channels, sections, tracks: [{name, kind}]}]}; a preset that does not read is {path, error}.")
    var json = false

    func run() throws {
        var chosen = paths
        if chosen.isEmpty {
            // The project's own folder, named as the user would, when run from it; else the one beside the program.
            guard let shipped = PresetCatalog.defaultFolder() else {
                throw CLIError("no presets folder found beside this program; name a folder or preset files (mixrender presets path/to/presets)")
            }
            chosen = [shipped]
        }
        let catalog = try PresetCatalog(paths: chosen)
        print(json ? catalog.json : catalog.text, terminator: "")
        // A preset that does not read is listed with its error; the command still fails, so a script notices.
        if !catalog.allRead { throw ExitCode.failure }
    }
}
