import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// Renders to AAC in .m4a from the command line: the file is what a WAV render of the same preset is, in
/// length, rate, channels and level; FFmpeg prints nothing; a rate AAC does not have is one line and no file.
@Suite struct M4ACLITests {
    static let preset = """
        { "name": "Pink night", "duration": "1h", "output": { "sampleRate": 44100, "channels": 2 },
          "tracks": [ { "generator": { "type": "pink" }, "gainDb": -12 },
                      { "tone": { "frequencyHz": 220 }, "gainDb": -20 } ] }
        """

    /// 3.5 s of pink noise and a tone, as .wav and as .m4a: the .m4a decodes to exactly the WAV's frames, at
    /// its rate and channels, and each channel's RMS is within 0.5 dB of the WAV's (measured: about 0.05 dB).
    @Test func rendersAGeneratorPresetToM4A() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("mix.json", Self.preset)
        for name in ["mix.wav", "mix.m4a"] {
            let run = try CLI.run([preset, "-o", s.path(name), "--duration", "3.5s"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.isEmpty, "printed: \(run.stderr)")
            #expect(run.stdout.contains("wrote"))
        }
        #expect(s.contents == ["mix.json", "mix.m4a", "mix.wav"])
        let wav = try AudioFile.open(path: s.path("mix.wav")), m4a = try AudioFile.open(path: s.path("mix.m4a"))
        #expect(m4a.info.formatName == "AAC (MPEG-4)")
        #expect(m4a.info.frameCount == 154_350 && m4a.info.frameCount == wav.info.frameCount)
        #expect(m4a.info.sampleRate == 44_100 && m4a.info.channelCount == 2)
        #expect(m4a.info.tags.title == "Pink night", "the preset's name is the title: \(m4a.info.tags)")
        let reference = try readAll(wav), decoded = try readAll(m4a)
        try #require(decoded.count == reference.count)
        for c in 0..<2 {
            let a = stride(from: c, to: reference.count, by: 2).map { reference[$0] }
            let b = stride(from: c, to: decoded.count, by: 2).map { decoded[$0] }
            #expect(abs(dB(rms(b) / rms(a))) <= 0.5, "channel \(c): \(dB(rms(b) / rms(a))) dB")
        }
    }

    /// Loudness normalisation measures the encoded file (decoded through FFmpeg from the temporary file) and
    /// lands within its tolerance of the target.
    @Test func normalisesAnM4A() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("mix.json", Self.preset)
        let run = try CLI.run([preset, "-o", s.path("loud.m4a"), "--duration", "5s", "--loudness", "-20"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "printed: \(run.stderr)")
        let measured = try LoudnessMeter.measure(path: s.path("loud.m4a"), truePeak: false).integrated
        #expect(abs(measured - -20) <= 0.2, "\(measured) LUFS")
    }

    /// A rate AAC does not define: one line naming the output and the rates it takes, a non-zero exit,
    /// nothing written.
    @Test func aRateAACDoesNotHaveIsRefused() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("mix.json", Self.preset)
        let run = try CLI.run([preset, "-o", s.path("odd.m4a"), "--duration", "1s", "--sample-rate", "44000"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("odd.m4a") && run.stderr.contains("AAC (M4A) cannot be written at 44000 Hz (it takes 8000, "),
                "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(s.contents == ["mix.json"])
    }
}
