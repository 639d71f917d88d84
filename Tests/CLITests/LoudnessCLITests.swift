import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO
import TestSupport
import Testing

/// Loudness on the command line: `mixrender loudness`, the render summary's loudness, ReplayGain tags.
@Suite struct LoudnessCLITests {
    /// A 1 kHz stereo sine at -23 dBFS (each channel), 6 s at 48 kHz: -23.0 LUFS (EBU Tech 3341 case 1).
    func sine(_ s: TemporaryFolder, _ name: String = "sine.wav", dBFS: Double = -23) throws -> String {
        let amplitude = Float(gain(fromDecibels: dBFS))
        return try s.wav(name, rate: 48_000, channels: 2, frames: 6 * 48_000) { i, _ in
            amplitude * Float(sin(2 * .pi * 1000 * Double(i) / 48_000))
        }
    }

    @Test func loudnessPrintsEachFileAndJSON() throws {
        let s = try TemporaryFolder()
        let a = try sine(s), b = try sine(s, "quiet.wav", dBFS: -33)
        let r = try CLI.run(["loudness", a, b, s.path("missing.wav")])
        #expect(r.status == 1)
        #expect(r.stdout.contains("file            \(a)\nintegrated       -23.0 LUFS\n"), "\(r.stdout)")
        #expect(r.stdout.contains("file            \(b)\nintegrated       -33.0 LUFS\n"), "\(r.stdout)")
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("missing.wav"), "\(r.stderr)")

        let json = try CLI.run(["loudness", "--json", a, s.path("missing.wav")])
        #expect(json.status == 1)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 2)
        #expect(abs((entries[0]["integratedLUFS"] as? Double ?? 0) - -23) <= 0.1)
        #expect(abs((entries[0]["truePeakDBTP"] as? Double ?? 0) - -23) <= 0.1)
        #expect((entries[1]["error"] as? String)?.contains("missing.wav") == true)
    }

    /// The summary's loudness is what the written file measures; Ogg and FLAC carry ReplayGain 2.0 tags
    /// (gain to -18 LUFS, true peak), which `info` shows.
    @Test(arguments: ["out.flac", "out.ogg"])
    func aRenderReportsItsLoudnessAndTagsIt(_ name: String) throws {
        let s = try TemporaryFolder()
        _ = try sine(s)
        let preset = try s.write("p.json", #"{ "duration": 5, "tracks": [ { "file": "sine.wav" } ] }"#)
        let r = try CLI.run([preset, "-o", s.path(name)])
        #expect(r.status == 0, "\(r.stderr)")
        // Tech 3341 allows ±0.1 LU (libebur128's histogram, which keeps memory constant, reads 5 s of this sine
        // as -22.95); the summary shows one decimal.
        let line = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("loudness  ") })
        let reported = try #require(Double(line.dropFirst(10).prefix { $0 != " " }))
        let measured = try LoudnessMeter.measure(path: s.path(name))
        #expect(abs(measured.integrated - -23) <= (name.hasSuffix(".ogg") ? 0.2 : 0.1), "\(measured.integrated)")
        #expect(abs(measured.integrated - reported) <= (name.hasSuffix(".ogg") ? 0.2 : 0.051), "\(measured.integrated) vs \(line)")
        let tags = Dictionary(try FileTags.read(path: s.path(name), format: OutputFileFormat.from(path: name)!), uniquingKeysWith: { a, _ in a })
        let gainText = try #require(tags["REPLAYGAIN_TRACK_GAIN"])
        #expect(gainText.hasSuffix(" dB") && abs((Double(gainText.dropLast(3)) ?? 0) - (-18 - measured.integrated)) <= (name.hasSuffix(".ogg") ? 0.2 : 0.01), "\(gainText)")
        let peak = try #require(Double(tags["REPLAYGAIN_TRACK_PEAK"] ?? ""))
        #expect(abs(peak - gain(fromDecibels: -23)) < 0.01, "\(peak)")
        #expect(try CLI.run(["info", s.path(name)]).stdout.contains("replaygain \(gainText), peak "))
    }
}
