import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// `mixrender render --threads N`: the same file as one thread writes, byte for byte in lossless formats, and decoding
/// to the same samples in Ogg Vorbis (whose stream serial number libsndfile draws at random for every file, so no two
/// renders have the same bytes); `mixrender waveform --threads N` the same waveform; a count out of range is one line
/// naming the option, and nothing is written.
@Suite struct ThreadsCLITests {
    static let preset = """
        { "duration": "2m", "output": { "sampleRate": 22050, "channels": 2 },
          "master": { "fadeOut": { "duration": "30s" } },
          "tracks": [ { "rain": { "seed": 5 }, "gainDb": -8 }, { "wind": { "seed": 6 }, "gainDb": -12, "start": "20s" },
                      { "surf": { "seed": 7 }, "gainDb": -10, "pan": 0.4 } ] }
        """

    @Test(arguments: ["out.flac", "out.ogg", "out.wav"])
    func moreThreadsWriteTheSameBytes(name: String) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("mix.json", Self.preset)
        var files: [[UInt8]] = [], decoded: [[Float]] = []
        for threads in ["1", "2", "4"] {
            let out = s.path("\(threads)-\(name)")
            let r = try CLI.run([preset, "-o", out, "--threads", threads, "--quiet"])
            #expect(r.status == 0, "\(threads) threads: \(r.stderr)")
            files.append(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
            decoded.append(try readAll(try AudioFile.open(path: out)))
        }
        #expect(decoded[0].count == 2 * 22050 * 120)
        #expect(decoded[1] == decoded[0] && decoded[2] == decoded[0], "\(name)")
        if !name.hasSuffix(".ogg") { #expect(files[1] == files[0] && files[2] == files[0], "\(name): \(files.map(\.count))") }
    }

    /// `mixrender waveform --threads N` decodes an Ogg Vorbis file on N threads: the same waveform, byte for byte.
    @Test func aWaveformOnMoreThreadsIsTheSame() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("mix.json", Self.preset)
        let ogg = s.path("mix.ogg")
        let rendered = try CLI.run([preset, "-o", ogg, "--quiet"])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        var outputs: [Data] = []
        for threads in ["1", "2", "3"] {
            let json = s.path("wave-\(threads).json")
            let r = try CLI.run(["waveform", ogg, "-o", json, "--threads", threads, "--quiet"])
            #expect(r.status == 0, "\(threads) threads: \(r.stderr)")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: json)))
        }
        #expect(!outputs[0].isEmpty && outputs[1] == outputs[0] && outputs[2] == outputs[0])
    }

    @Test(arguments: ["0", "65", "-2", "two"])
    func aCountOutOfRangeIsRefused(count: String) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("mix.json", Self.preset)
        let audio = try s.wav("a.wav", frames: 4_800) { n, _ in Float(n % 10) / 20 }
        for arguments in [[preset, "-o", s.path("out.flac")], ["waveform", audio, "-o", s.path("a.json")]] {
            let before = s.contents
            let r = try CLI.run(arguments + ["--threads=\(count)"])
            #expect(r.status != 0)
            let lines = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("Usage") && !$0.hasPrefix("  See") && !$0.isEmpty }
            #expect(lines.count == 1 && lines[0].contains("--threads"), "\(arguments[0]): \(r.stderr)")
            #expect(s.contents == before)
        }
    }
}
