import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// A voice memo (AAC in .m4a, read through FFmpeg) used as the user uses it: `info`, `waveform`, and as a
/// one-shot track of a render.
@Suite struct FFmpegCLITests {
    /// The committed memo, copied into a scratch folder (so the preset can name it beside itself).
    func memo(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path("memo.m4a")
        try FileManager.default.copyItem(atPath: FFmpegFixtures.memo.path, toPath: path)
        return path
    }

    @Test func infoPrintsTheExactLength() throws {
        let folder = try TemporaryFolder()
        let run = try CLI.run(["info", try memo(folder)])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("format    AAC (MPEG-4)"), "\(run.stdout)")
        #expect(run.stdout.contains("rate      48000 Hz") && run.stdout.contains("channels  1"))
        #expect(run.stdout.contains("duration  0:01.500 (72000 frames)"), "\(run.stdout)")
        #expect(run.stderr.isEmpty, "FFmpeg printed: \(run.stderr)")
    }

    @Test func waveformOfAMemo() throws {
        let folder = try TemporaryFolder()
        let input = try memo(folder)
        let run = try CLI.run(["waveform", input, "-o", folder.path("memo.json")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        #expect(folder.contents == ["memo.json", "memo.m4a"])
        let preview = try CLI.run(["waveform", input], environment: ["COLUMNS": "40"])
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.contains("file      \(input): AAC (MPEG-4), 48000 Hz, mono"), "\(preview.stdout)")
    }

    /// The memo plays once from the start of a 2 s render: its 1.5 s of sine (0.4, about -11 dBFS RMS) and
    /// then silence.
    @Test func rendersAMemoAsAOneShotTrack() throws {
        let folder = try TemporaryFolder()
        _ = try memo(folder)
        let preset = try folder.write("memo.json", """
            { "duration": "2s", "output": { "sampleRate": 48000, "channels": 1 },
              "tracks": [ { "file": "memo.m4a" } ] }
            """)
        let run = try CLI.run([preset, "-o", folder.path("out.wav"), "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let output = try AudioFile.open(path: folder.path("out.wav"))
        let samples = try readAll(output)
        #expect(samples.count == 96_000)
        let tone = dB(rms(samples[4_800..<33_600]))   // 0.1 s to 0.7 s: the sine alone
        #expect(abs(tone - dB(0.4 / 2.squareRoot())) < 0.5, "tone at \(tone) dBFS")
        #expect(dB(rms(samples[76_800..<96_000])) < -80, "not silent after the memo")
    }

    @Test func aGarbageM4AIsOneLine() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("memo.m4a", String(repeating: "not audio at all ", count: 500))
        let run = try CLI.run(["info", path])
        #expect(run.status == 1)
        #expect(run.stderr == "Error: cannot open '\(path)': not an audio format mixrender can read (avformat_open_input)\n")
    }
}
