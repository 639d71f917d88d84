import ArgumentParser
import MixRender

/// `--voices`: the operator's voices folder (docs/sessions.md, "Voices an operator installs"), for every command
/// that speaks or lists voices. Without it, `MIXRENDER_VOICES`.
struct VoicesFolderOptions: ParsableArguments {
    @Option(name: .customLong("voices"), help: ArgumentHelp("A folder of voices the operator installed (Kokoro voice files, Piper voices), each in its own subfolder with a voice.json manifest (default: MIXRENDER_VOICES).", valueName: "folder"))
    var folder: String?

    func validate() throws {
        if let folder, folder.isEmpty || folder.utf8.count > 4096 || folder.utf8.contains(0) { throw CLIError("--voices: not a folder's path") }
    }

    /// Makes the folder this process's (`InstalledVoices.use(folder:)`), when one is given.
    func apply() {
        if let folder { InstalledVoices.use(folder: folder) }
    }
}
