import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// A batch's `--cache-dir` keeps what was said, keyed by engine version, voice, settings, seed and text: a later
/// batch renders the same samples without saying it again, and a damaged entry is said again with a warning.
@Suite struct SpeechCacheCLITests {
    @Test func aCacheFolderKeepsWhatWasSaid() throws {
        let s = try TemporaryFolder()
        _ = try s.write("s.json", """
            { "output": { "sampleRate": 16000, "channels": 1 },
              "tracks": [ { "generator": { "type": "pink", "seed": 3 }, "gainDb": -24 } ],
              "sections": [ { "name": "A", "segments": [ { "text": "Rest now.", "speech": { "voice": "espeak:en-gb" } } ] } ] }
            """)
        let lone = try CLI.run(["s.json", "-o", "lone.wav", "-q"], in: s.url)
        #expect(lone.status == 0, "\(lone.stderr)")
        let expected = try readAll(AudioFile.open(path: s.path("lone.wav")))

        _ = try s.write("jobs.jsonl", #"{"preset": "s.json", "output": "a.wav"}"#)
        let first = try CLI.run(["batch", "jobs.jsonl", "--cache-dir", "cache", "-q"], in: s.url)
        #expect(first.status == 0, "\(first.stderr)")
        let notes = try FileManager.default.contentsOfDirectory(atPath: s.path("cache")).filter { $0.hasSuffix(".txt") }
        let speechNotes = try notes.filter { try String(contentsOfFile: s.path("cache/\($0)"), encoding: .utf8).hasPrefix("speech; ") }
        #expect(speechNotes.count == 1, "\(notes)")
        #expect(try readAll(AudioFile.open(path: s.path("a.wav"))) == expected)

        // The second batch reads the kept speech: the entry is the same file (a synthesis would be stored anew,
        // renamed over it as a new file), and the samples are the lone render's.
        let entry = s.path("cache/" + speechNotes[0].dropLast(4) + ".f32")
        let inode = try #require(FileSystem.identity(of: entry)).inode
        let second = try CLI.run(["batch", "jobs.jsonl", "--cache-dir", "cache", "--results", "r2.jsonl"], in: s.url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try readAll(AudioFile.open(path: s.path("a.wav"))) == expected)
        #expect(FileSystem.identity(of: entry)?.inode == inode, "the speech was said again")
        #expect(try !String(contentsOfFile: s.path("r2.jsonl"), encoding: .utf8).contains("said again"))

        // A damaged entry (one sample changed) is found, removed and said again.
        let original = try Data(contentsOf: URL(fileURLWithPath: entry))
        var bytes = original
        bytes[bytes.count - 40] ^= 0x55
        try bytes.write(to: URL(fileURLWithPath: entry))
        let third = try CLI.run(["batch", "jobs.jsonl", "--cache-dir", "cache", "--results", "r3.jsonl"], in: s.url)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try String(contentsOfFile: s.path("r3.jsonl"), encoding: .utf8).contains("said again"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: entry)) == original, "the damaged entry was not replaced")
        #expect(try readAll(AudioFile.open(path: s.path("a.wav"))) == expected)
    }
}

/// A render stopped while a helper speaks leaves no helper folder behind: the neural voice's helper removes its
/// own as it ends (mixrender gone, or a signal), and mixrender's interrupt handler removes an empty one.
@Suite struct SpeechHelperCleanupCLITests {
    @Test(arguments: [SIGTERM, SIGINT])
    func aStoppedRenderLeavesNoHelperFolder(signal: Int32) throws {
        let s = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: s.path("tmp"), withIntermediateDirectories: false)
        let text = Array(repeating: "Close your eyes and let your breathing slow down, every breath takes you deeper into calm.", count: 30)
            .joined(separator: " ")
        let preset = try s.write("long.json", #"{"sections": [{"name": "A", "segments": [{"text": "\#(text)"}]}]}"#)
        let p = Process()
        p.executableURL = try CLI.executable
        p.arguments = [preset, "-o", s.path("out.wav"), "--quiet"]
        p.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": s.path("tmp")]) { _, new in new }
        try p.run()
        func helperFolders() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: s.path("tmp"))) ?? []).filter { $0.hasPrefix("mixrender-speech-") } }
        // Wait until the helper is speaking: its folder exists and onnxruntime has put its database there.
        var deadline = Date().addingTimeInterval(60)
        while Date() < deadline, p.isRunning,
              !helperFolders().contains(where: { !((try? FileManager.default.contentsOfDirectory(atPath: s.path("tmp/\($0)"))) ?? []).isEmpty }) {
            usleep(20_000)
        }
        #expect(p.isRunning, "the render ended before it could be stopped")
        kill(p.processIdentifier, signal)
        p.waitUntilExit()
        #expect(p.terminationStatus == 128 + signal)
        deadline = Date().addingTimeInterval(20)   // the helper notices mixrender is gone, and ends
        while Date() < deadline, !helperFolders().isEmpty { usleep(50_000) }
        #expect(helperFolders().isEmpty, "left behind: \(helperFolders())")
        #expect(!s.contents.contains("out.wav"))
    }
}
