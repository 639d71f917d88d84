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
        let text = try s.write("notes.wav", "not audio at all")
        let r = try CLI.run(["loudness", a, b, s.path("missing.wav"), text])
        #expect(r.status == 1)
        #expect(r.stdout.contains("file            \(a)\nintegrated       -23.0 LUFS\n"), "\(r.stdout)")
        #expect(r.stdout.contains("file            \(b)\nintegrated       -33.0 LUFS\n"), "\(r.stdout)")
        let errors = r.stderr.split(separator: "\n")
        #expect(errors.count == 2 && errors[0].contains("missing.wav") && errors[1].contains("notes.wav': not an audio format mixrender can read"), "\(r.stderr)")

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
        #expect(gainText.hasSuffix(" dB") && abs((Double(gainText.dropLast(3)) ?? 0) - (-18 - measured.integrated)) <= (name.hasSuffix(".ogg") ? 0.2 : 0.06), "\(gainText)")
        let peak = try #require(Double(tags["REPLAYGAIN_TRACK_PEAK"] ?? ""))
        #expect(abs(peak - gain(fromDecibels: -23)) < 0.01, "\(peak)")
        #expect(try CLI.run(["info", s.path(name)]).stdout.contains("replaygain \(gainText), peak "))
    }

    /// A varied mix (pink noise, a tone, a quiet and a loud recording) brought to -18 LUFS under -1 dBTP: the
    /// decoded file reads the target within 0.2 LU in every format, and its peak stays under the ceiling (but for
    /// Ogg Vorbis, whose encoded peaks are not corrected). The M4A is the one render in AAC that the Thread
    /// Sanitizer's run makes (scripts/tsan.sh).
    @Test(arguments: ["out.wav", "out.flac", "out.ogg", "out.m4a"])
    func aVariedMixReachesItsTarget(_ name: String) throws {
        let s = try TemporaryFolder()
        _ = try sine(s, "quiet.wav", dBFS: -40)
        _ = try s.wav("loud.wav", rate: 44_100, channels: 1, frames: 44_100 * 3) { i, _ in
            0.9 * Float(sin(2 * .pi * 220 * Double(i) / 44_100)) * (i % 22_050 < 11_025 ? 1 : 0.3)
        }
        let preset = try s.write("p.json", """
            { "duration": 20, "output": { "loudness": { "target": -18, "truePeakDb": -1 } },
              "tracks": [ { "generator": { "type": "pink" }, "gainDb": -30 },
                          { "tone": { "frequencyHz": 432 }, "gainDb": -28 },
                          { "file": "quiet.wav", "loop": true },
                          { "file": "loud.wav", "start": 5 } ] }
            """)
        let r = try CLI.run([preset, "-o", s.path(name)])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("normalise target -18.0 LUFS under -1.0 dBTP: the mix measured"), "\(r.stdout)")
        let measured = try LoudnessMeter.measure(path: s.path(name))
        #expect(abs(measured.integrated - -18) <= 0.2, "\(measured.integrated) LUFS")
        if !name.hasSuffix(".ogg") { #expect(measured.truePeak <= -1 + 0.1, "\(measured.truePeak) dBTP") }
    }

    /// In every format the writer has, a render normalised to -16 LUFS under -1 dBTP holds that once decoded: -16 ± 0.3
    /// LUFS and a true peak of at most -0.9 dBTP, measured by the project's meter on the decoded file. The mix is the
    /// hard case for a lossy encoder: fire's crackles (a crest factor near 50) over rain and surf, which the limiter
    /// works on, and whose encoded peaks stand over the ceiling until the lossy file is written again with the
    /// limiter's ceiling lowered (`EncodedFileCorrection`). The summary's loudness line gives what the file holds,
    /// and the report says where its `file` figures come from. Twenty seconds hold dozens of crackles (a minute
    /// made this the slowest test under the Thread Sanitizer: eight renders of a minute, each encoded twice).
    @Test(arguments: OutputFileFormat.allCases)
    func everyFormatHoldsItsTargetOnceDecoded(_ format: OutputFileFormat) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"""
            { "duration": 20, "output": { "loudness": { "target": -16, "truePeakDb": -1 } },
              "tracks": [ { "rain": { "intensity": 0.8, "seed": 3 }, "gainDb": -3 },
                          { "fire": { "intensity": 1, "seed": 4 }, "gainDb": 6 },
                          { "surf": { "intensity": 1, "seed": 5 }, "gainDb": -2 } ] }
            """#)
        let out = s.path("out." + format.fileExtension), report = s.path("report.json")
        let r = try CLI.run([preset, "-o", out, "--report", report])
        #expect(r.status == 0, "\(r.stderr)")
        let decoded = try LoudnessMeter.measure(path: out)
        #expect(abs(decoded.integrated - -16) <= 0.3, "\(format): \(decoded.integrated) LUFS decoded")
        #expect(decoded.truePeak <= -0.9, "\(format): \(decoded.truePeak) dBTP decoded")
        let line = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("loudness  ") })
        let shown = try #require(Double(line.dropFirst(10).prefix { $0 != " " }))
        #expect(abs(shown - decoded.integrated) <= 0.1, "\(format): the summary shows \(line), the file holds \(decoded.integrated)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let file = try #require((document["levels"] as? [String: Any])?["file"] as? [String: Any])
        #expect(file["measuredFrom"] as? String == (format.isPCM ? "render" : "decoded"))
        // The file's figures are the render's own meter's (on the decoded file for a lossy one), whose true-peak
        // detector reads within 0.1 dB of libebur128's.
        #expect(abs((file["truePeakDbTP"] as? Double ?? 0) - decoded.truePeak) <= 0.1, "\(file)")
    }

    /// The example presets that can be shortened, brought to -16 LUFS from the command line.
    @Test(arguments: [("focus.json", "2m"), ("nap.json", "5m"), ("breathing-478.json", "1m")])
    func examplePresetsReachTheTarget(_ preset: String, _ duration: String) throws {
        let s = try TemporaryFolder()
        let presets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("presets")
        let r = try CLI.run([presets.appendingPathComponent(preset).path, "-o", s.path("out.flac"), "--duration", duration,
                             "--loudness", "-16", "--true-peak", "-1.5"])
        #expect(r.status == 0, "\(r.stderr)")
        let measured = try LoudnessMeter.measure(path: s.path("out.flac"))
        #expect(abs(measured.integrated - -16) <= 0.2, "\(preset): \(measured.integrated) LUFS")
        #expect(measured.truePeak <= -1.5 + 0.1, "\(preset): \(measured.truePeak) dBTP")
    }

    /// Bad targets and ceilings, a silent mix and one too quiet to reach the target: one line naming the key or
    /// the option, a non-zero exit, nothing written.
    @Test func badLoudnessRequestsFailCleanly() throws {
        let s = try TemporaryFolder()
        _ = try s.wav("silence.wav", rate: 48_000, frames: 3 * 48_000) { _, _ in 0 }
        _ = try sine(s, "faint.wav", dBFS: -70)
        let tone = #"{ "tone": { "frequencyHz": 440 }, "gainDb": -20 }"#
        let cases: [(json: String, extra: [String], expected: String)] = [
            (#"{ "duration": 5, "output": { "loudness": { "target": -80 } }, "tracks": [ \#(tone) ] }"#, [],
             "output.loudness.target: -80 is out of range"),
            (#"{ "duration": 5, "output": { "loudness": { "target": -16, "truePeakDb": 1 } }, "tracks": [ \#(tone) ] }"#, [],
             "output.loudness.truePeakDb: 1 is out of range"),
            (#"{ "duration": 5, "output": { "loudness": { "truePeakDb": -1 } }, "tracks": [ \#(tone) ] }"#, [],
             "output.loudness: missing required key 'target'"),
            (#"{ "duration": 5, "tracks": [ \#(tone) ] }"#, ["--loudness", "5"], "Error: --loudness must be between -70 and 0 LUFS"),
            (#"{ "duration": 5, "tracks": [ \#(tone) ] }"#, ["--true-peak", "-2"], "Error: --true-peak is the ceiling of a loudness normalisation"),
            (#"{ "duration": 5, "tracks": [ \#(tone) ] }"#, ["--loudness", "-16", "--true-peak", "0.5"], "Error: --true-peak must be between -20 and 0 dBTP"),
            (#"{ "duration": 5, "output": { "loudness": { "target": -16 } }, "tracks": [ { "file": "silence.wav", "loop": true } ] }"#, [],
             "output.loudness.target: the mix is silent (no loudness to measure), so it cannot be brought to -16.0 LUFS"),
            (#"{ "duration": 5, "tracks": [ { "file": "faint.wav", "loop": true } ] }"#, ["--loudness", "-10"],
             "Error: --loudness -10.0: the mix measures -70."),
        ]
        for (json, extra, expected) in cases {
            let preset = try s.write("p.json", json)
            let r = try CLI.run([preset, "-o", s.path("out.wav")] + extra)
            #expect(r.status != 0 && r.status < 128, "\(json) \(extra): status \(r.status)")
            #expect(r.stderr.contains(expected) && r.stderr.split(separator: "\n").count == 1, "\(json) \(extra): \(r.stderr)")
            #expect(s.contents == ["faint.wav", "p.json", "silence.wav"])
        }
    }

    /// Two recordings 12 LU apart, both asked to sit at -30 LUFS, and a third 6 LU under the first: each, where
    /// it plays alone, measures within 0.5 LU of where the preset puts it.
    @Test func tracksSitAtTheLoudnessTheyAskFor() throws {
        let s = try TemporaryFolder()
        _ = try sine(s, "quiet.wav", dBFS: -36)
        var state: UInt64 = 11
        _ = try s.wav("loud.wav", rate: 48_000, channels: 2, frames: 10 * 48_000) { _, _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return 0.25 * Float(Double(state >> 11) / Double(1 << 53) - 0.5)
        }
        let preset = try s.write("p.json", """
            { "duration": 30, "output": { "bitDepth": "float" },
              "tracks": [ { "name": "tone", "file": "quiet.wav", "loop": true, "end": 10, "loudness": -30 },
                          { "file": "loud.wav", "loop": true, "start": 10, "end": 20, "loudness": -30 },
                          { "file": "loud.wav", "loop": true, "start": 20, "loudness": { "track": "tone", "offset": -6 } } ] }
            """)
        let quiet = try LoudnessMeter.measure(path: s.path("quiet.wav")).integrated
        let loud = try LoudnessMeter.measure(path: s.path("loud.wav")).integrated
        #expect(loud - quiet > 11, "\(quiet) and \(loud) LUFS")
        let r = try CLI.run([preset, "-o", s.path("out.wav"), "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try readAll(try AudioFile.open(path: s.path("out.wav")))
        func loudness(from: Int, to: Int) throws -> Double {
            let meter = try LoudnessMeter(channelCount: 2, sampleRate: 48_000, truePeak: false)
            // Away from the edges, where the tracks' default fades are.
            try out.withUnsafeBufferPointer { try meter.add(interleaved: $0.baseAddress! + (from + 1) * 48_000 * 2, frames: (to - from - 2) * 48_000) }
            return meter.measurement.integrated
        }
        let first = try loudness(from: 0, to: 10), second = try loudness(from: 10, to: 20), third = try loudness(from: 20, to: 30)
        #expect(abs(first - -30) <= 0.5 && abs(second - -30) <= 0.5 && abs(first - second) <= 0.5, "\(first), \(second)")
        #expect(abs(third - -36) <= 0.5, "\(third)")
    }

    /// A track's loudness with a gain, of a silent source, or relative to a track that is not there: one line.
    @Test func badTrackLoudnessFailsCleanly() throws {
        let s = try TemporaryFolder()
        _ = try s.wav("silence.wav", rate: 48_000, frames: 3 * 48_000) { _, _ in 0 }
        let cases: [(String, String)] = [
            (#"{ "tone": { "frequencyHz": 440 }, "gainDb": -6, "loudness": -30 }"#, "tracks[0].loudness: a track sets its level by one of 'gainDb', 'volume' and 'loudness'; it gives both 'gainDb' and 'loudness'"),
            (#"{ "file": "silence.wav", "loop": true, "loudness": -30 }"#, "tracks[0].loudness: the track is silent where it is measured"),
            (#"{ "tone": { "frequencyHz": 440 }, "loudness": { "track": "rain" } }"#, "tracks[0].loudness.track: no other track is named 'rain'"),
            (#"{ "tone": { "frequencyHz": 440 }, "loudness": 3 }"#, "tracks[0].loudness: 3 is out of range"),
        ]
        for (track, expected) in cases {
            let preset = try s.write("p.json", #"{ "duration": 5, "tracks": [ "# + track + " ] }")
            let r = try CLI.run([preset, "-o", s.path("out.wav")])
            #expect(r.status == 1 && r.stderr.contains(expected) && r.stderr.split(separator: "\n").count == 1, "\(track): \(r.stderr)")
            #expect(s.contents == ["p.json", "silence.wav"])
        }
    }

    /// Ogg Opus carries R128_TRACK_GAIN (the gain to -23 LUFS in 1/256 dB, RFC 7845), not ReplayGain tags,
    /// and takes chapter marks like Ogg Vorbis.
    @Test func anOpusRenderCarriesR128Gain() throws {
        let s = try TemporaryFolder()
        _ = try sine(s)
        let preset = try s.write("p.json", #"{ "duration": 5, "tracks": [ { "file": "sine.wav" } ] }"#)
        let r = try CLI.run([preset, "-o", s.path("out.opus")])
        #expect(r.status == 0, "\(r.stderr)")
        let tags = Dictionary(try FileTags.read(path: s.path("out.opus"), format: .opus), uniquingKeysWith: { a, _ in a })
        #expect(tags["REPLAYGAIN_TRACK_GAIN"] == nil)
        let q78 = try #require(tags["R128_TRACK_GAIN"].flatMap(Int.init))
        // The gain is the decoded file's (what a player plays): the sine is -23 LUFS, and Opus moves it a little
        // (a gain of about 0, within 0.2 dB); to the decoded file's loudness as libebur128 reads it, within the
        // 0.06 LU the two meters agree to (16 steps of 1/256 dB).
        let decoded = try LoudnessMeter.measure(path: s.path("out.opus")).integrated
        #expect(abs(q78) <= 52 && abs(Double(q78) - (-23 - decoded) * 256) <= 16, "\(q78), the file \(decoded) LUFS")
        #expect(try CLI.run(["info", s.path("out.opus")]).stdout.contains("R128_TRACK_GAIN \(q78)"))
    }
}
