import Synchronization

/// Where the speech helpers are, and the environment they start with (nothing of this process's but the
/// espeak-ng data path and the language of text).
public enum SpeechHelperLocation {
    private static let selfServes = Atomic<Bool>(false)

    /// Called by an executable that answers `speech-helper espeak` itself (mixrender, bench), so that its
    /// own file is the espeak-ng helper; others (the test runners) use the `mixrender` beside them.
    public static func servesSpeechHelper() { selfServes.store(true, ordering: .relaxed) }

    /// The program to start as the espeak-ng helper.
    static func espeakExecutable() throws -> String {
        let me = try LibC.readlink("/proc/self/exe", operation: "find this program's file")
        if selfServes.load(ordering: .relaxed) { return me }
        let sibling = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)]) + "/mixrender"
        guard FileSystem.identity(of: sibling)?.kind == .regular else {
            throw SpeechSynthesizer.failure("the speech helper '\(sibling)' is missing; build mixrender (swift build --product mixrender)")
        }
        return sibling
    }

    static func espeakEnvironment() -> [String] {
        var environment = ["PATH=/nonexistent", "LANG=C.UTF-8"]
        if let data = LibC.getenv("ESPEAK_DATA_PATH") { environment.append("ESPEAK_DATA_PATH=" + data) }
        return environment
    }

    /// The neural voices' helper environment: nothing of this process's. The homes the packages would download into
    /// do not exist (they never download: `HIBARI_HOME`); the Japanese voice reads the model the set-up joined in
    /// `venv` (`KOKORO_JA_CACHE`).
    static func neuralEnvironment(venv: String) -> [String] {
        ["PATH=/nonexistent", "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1", "OMP_NUM_THREADS=1",
         "HIBARI_HOME=/nonexistent", "HOME=/nonexistent", "HF_HUB_OFFLINE=1", "KOKORO_JA_CACHE=" + venv + "/kokoro-ja"]
    }

    /// The helper script `scripts/install-speech.sh` copies into the virtual environment.
    static let neuralHelperScript = "mixrender_neural_helper.py"

    /// The virtual environment holding the neural voices: `MIXRENDER_SPEECH_VENV`, else the first `.venv-speech`
    /// in this program's folder or a folder above it (the project's, for a program built in `.build/`);
    /// nil when none holds its Python and the helper script.
    public static func neuralEnvironmentFolder() -> String? {
        func usable(_ folder: String) -> Bool {
            FileSystem.identity(of: folder + "/bin/python") != nil && FileSystem.identity(of: folder + "/" + neuralHelperScript)?.kind == .regular
        }
        if let chosen = LibC.getenv("MIXRENDER_SPEECH_VENV"), !chosen.isEmpty { return usable(chosen) ? chosen : nil }
        return FileSystem.foldersAboveProgram().lazy.map { $0 + "/.venv-speech" }.first(where: usable)
    }
}
