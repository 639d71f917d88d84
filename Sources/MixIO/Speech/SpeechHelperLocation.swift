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

    static func hibariEnvironment() -> [String] {
        ["PATH=/nonexistent", "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1", "OMP_NUM_THREADS=1",
         "HIBARI_HOME=/nonexistent"]
    }

    /// The virtual environment holding the neural voice: `MIXRENDER_SPEECH_VENV`, else the first `.venv-speech`
    /// in this program's folder or a folder above it (the project's, for a program built in `.build/`);
    /// nil when none holds its Python and the helper script.
    public static func hibariEnvironmentFolder() -> String? {
        func usable(_ folder: String) -> Bool {
            FileSystem.identity(of: folder + "/bin/python") != nil && FileSystem.identity(of: folder + "/mixrender_hibari_helper.py")?.kind == .regular
        }
        if let chosen = LibC.getenv("MIXRENDER_SPEECH_VENV"), !chosen.isEmpty { return usable(chosen) ? chosen : nil }
        return FileSystem.foldersAboveProgram().lazy.map { $0 + "/.venv-speech" }.first(where: usable)
    }

    static func hibariMissing() -> AudioIOError {
        SpeechSynthesizer.failure("the neural voice (hibari-tts) is not installed: run scripts/install-speech.sh in mixrender's folder, or name an espeak-ng voice such as \"espeak:en-us\"")
    }
}
