import DSPTestSupport
import Foundation
import TestSupport
import Testing

/// What a newcomer types first (issue 28): bare `mixrender` shows the help, and a misspelt command is answered
/// with the command meant, not read as a preset named so ("Missing expected argument '--output'").
@Suite struct CommandNameCLITests {
    @Test func bareMixrenderPrintsTheHelp() throws {
        let run = try CLI.run([])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("OVERVIEW:") && run.stdout.contains("SUBCOMMANDS:") && run.stdout.contains("waveform"), "\(run.stdout)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test(arguments: [("valdate", "validate"), ("wavefrom", "waveform"), ("rendr", "render"), ("merge-result", "merge-results"),
                      ("Info", "info"), ("voice", "voices")])
    func aMisspeltCommandIsNamed(_ typed: String, _ meant: String) throws {
        let run = try CLI.run([typed, "mix.json"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr == "Error: '\(typed)' is neither a command nor a preset file; did you mean 'mixrender \(meant)'? (mixrender --help lists the commands)\n")
        #expect(run.stdout.isEmpty)
    }

    /// A preset whose name looks like a command is still a preset: a file that exists, or any path.
    @Test func aPresetNamedLikeACommandIsRendered() throws {
        let s = try TemporaryFolder()
        _ = try s.write("valdate", #"{ "duration": 1, "output": { "sampleRate": 8000 }, "tracks": [ { "tone": { "frequencyHz": 440 }, "gainDb": -20 } ] }"#)
        let run = try CLI.run(["valdate", "-o", "out.wav", "-q"], in: s.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: s.path("out.wav")))
        // Not a file, but a path: the render says the preset is missing, not that a command is misspelt.
        let missing = try CLI.run(["./valdate.json", "-o", "out2.wav"], in: s.url)
        #expect(missing.status != 0 && !missing.stderr.contains("did you mean"), "\(missing.stderr)")
    }
}
