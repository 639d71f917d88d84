import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// `mixrender render --cache-dir`: a normalisation measured by one process is kept in the folder
/// (`<key>.measure.json`) and read by the next that renders the same audio (another window, another format): it runs
/// no measuring pass, says so (`reusedFrom`), and writes what it would have written without the folder. A damaged
/// measurement is refused with one warning line, removed and measured again; another target is another measurement.
@Suite struct MeasurementCacheCLITests {
    /// A rain generator, normalised: no files, so the stored key is the render's alone.
    static func preset(_ s: TemporaryFolder, duration: String, seed: Int = 1, name: String = "rain.json") throws -> String {
        try s.write(name, """
            { "duration": "\(duration)", "output": { "sampleRate": 16000, "loudness": { "target": -20 } },
              "tracks": [ { "rain": { "intensity": 0.6, "seed": \(seed) } } ] }
            """)
    }

    static func samples(_ path: String) throws -> [Float] { try readAll(try AudioFile.open(path: path)) }

    /// The report's `levels.normalisation`.
    static func normalisation(_ report: String) throws -> [String: Any] {
        try #require((try readJSONObject(report)["levels"] as? [String: Any])?["normalisation"] as? [String: Any])
    }

    static func measurementFiles(_ cache: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".measure.json") }.sorted().map { cache + "/" + $0 }
    }

    static func warnings(_ stderr: String) -> [Substring] { stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") } }

    /// Two windows of a ten-minute render with one folder: the second reads the normalisation the first measured,
    /// and its samples are those of the same window rendered with no folder (which measures it itself); a second
    /// format of the window reuses it too.
    @Test func aWindowReusesTheNormalisationAnotherProcessMeasured() throws {
        let s = try TemporaryFolder()
        let preset = try Self.preset(s, duration: "10m")
        let cache = s.path("cache")
        let first = try CLI.run([preset, "-o", s.path("a.flac"), "--start", "5m", "--end", "5m1s", "--cache-dir", cache,
                                 "--report", s.path("a.json")])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        let measured = try Self.normalisation(s.path("a.json"))
        #expect(measured["reusedFrom"] is NSNull)
        #expect((measured["measuringPasses"] as? Int ?? 0) >= 1)
        #expect(try Self.measurementFiles(cache).count == 1)

        let second = try CLI.run([preset, "-o", s.path("b.flac"), "--start", "7m", "--end", "7m1s", "--cache-dir", cache,
                                  "--report", s.path("b.json")])
        #expect(second.status == 0 && second.stderr.isEmpty, "\(second.stderr)")
        let reused = try Self.normalisation(s.path("b.json"))
        #expect(reused["reusedFrom"] as? String == "cacheFolder")
        #expect(reused["measuringPasses"] as? Int == measured["measuringPasses"] as? Int)
        #expect(reused["gainDb"] as? Double == measured["gainDb"] as? Double)
        let timings = try #require(try readJSONObject(s.path("b.json"))["timings"] as? [String: Any])
        #expect((timings["normalise"] as? [String: Any])?["wallSeconds"] as? Double == 0)
        #expect(second.stdout.contains("read from the cache folder"), "\(second.stdout)")

        // The same window with no folder: measured by itself, the same gain and the same samples.
        let alone = try CLI.run([preset, "-o", s.path("c.flac"), "--start", "7m", "--end", "7m1s", "--report", s.path("c.json")])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(try Self.normalisation(s.path("c.json"))["reusedFrom"] is NSNull)
        #expect(try Self.normalisation(s.path("c.json"))["gainDb"] as? Double == reused["gainDb"] as? Double)
        let expected = try Self.samples(s.path("c.flac"))
        #expect(expected.count == 2 * 16000)   // one second of stereo
        #expect(try Self.samples(s.path("b.flac")) == expected)

        // Another format of the window: reused as well; 16-bit WAV and FLAC hold the same integers.
        let wav = try CLI.run([preset, "-o", s.path("b.wav"), "--start", "7m", "--end", "7m1s", "--cache-dir", cache,
                               "--report", s.path("w.json")])
        #expect(wav.status == 0 && wav.stderr.isEmpty, "\(wav.stderr)")
        #expect(try Self.normalisation(s.path("w.json"))["reusedFrom"] as? String == "cacheFolder")
        #expect(try Self.samples(s.path("b.wav")) == expected)
        #expect(try Self.measurementFiles(cache).count == 1)
    }

    /// What is done to the measurement's file between two runs, and the words its warning holds.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case garbage, huge, wrongKey, nanText, hugeNumber, gainOverPolicy, wrongType, notAnObject, symlink, folder
        var testDescription: String { rawValue }

        var reason: String {
            switch self {
            case .garbage, .nanText: return "is not a measurement (not JSON)"
            case .huge: return "is longer than 4096 bytes"
            case .wrongKey: return "belongs to another measurement"
            case .hugeNumber: return "says gainDb 1e+300, outside"
            case .gainOverPolicy: return "more than the +30.0 dB allowed"
            case .wrongType: return "holds no number for measuringPasses"
            case .notAnObject: return "is not a measurement (not a JSON object)"
            case .symlink: return "is a symbolic link, not a cache entry"
            case .folder: return "is a folder, not a cache entry"
            }
        }

        func apply(to entry: String) throws {
            let url = URL(fileURLWithPath: entry)
            let text = try String(contentsOf: url, encoding: .utf8)
            func replacing(_ pattern: String, with replacement: String) throws -> String {
                let regex = try NSRegularExpression(pattern: pattern)
                let out = regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: replacement)
                #expect(out != text, "\(pattern) not found in \(text)")
                return out
            }
            var out: String
            switch self {
            case .garbage:
                try Data((0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }).write(to: url)
                return
            case .huge: out = text + String(repeating: " ", count: 10 << 20)
            case .wrongKey: out = try replacing(#""key": "[0-9a-f]{64}""#, with: "\"key\": \"" + String(repeating: "ab", count: 32) + "\"")
            case .nanText: out = try replacing(#""gainDb": [-0-9.e+]+"#, with: "\"gainDb\": NaN")
            case .hugeNumber: out = try replacing(#""gainDb": [-0-9.e+]+"#, with: "\"gainDb\": 1e300")
            case .gainOverPolicy: out = try replacing(#""gainDb": [-0-9.e+]+"#, with: "\"gainDb\": 45")
            case .wrongType: out = try replacing(#""measuringPasses": [0-9]+"#, with: "\"measuringPasses\": \"1\"")
            case .notAnObject: out = "[1, 2, 3]\n"
            case .symlink:
                try FileManager.default.removeItem(at: url)
                try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: "/etc/passwd")
                return
            case .folder:
                try FileManager.default.removeItem(at: url)
                try FileManager.default.createDirectory(atPath: entry + "/inside", withIntermediateDirectories: true)
                return
            }
            try Data(out.utf8).write(to: url)
        }
    }

    @Test(arguments: Damage.allCases)
    func aDamagedMeasurementIsRefusedRemovedAndMadeAgain(_ damage: Damage) throws {
        let s = try TemporaryFolder()
        let preset = try Self.preset(s, duration: "20s")
        let cache = s.path("cache")
        let clean = try CLI.run([preset, "-o", s.path("clean.flac"), "--report", s.path("clean.json"), "--quiet"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(try CLI.run([preset, "-o", s.path("first.flac"), "--cache-dir", cache, "--quiet"]).status == 0)
        let entry = try #require(try Self.measurementFiles(cache).first)
        try damage.apply(to: entry)

        let r = try CLI.run([preset, "-o", s.path("again.flac"), "--cache-dir", cache, "--report", s.path("again.json")])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Self.warnings(r.stderr)
        #expect(warnings.first?.hasPrefix("warning: cache entry '\(entry)' ") == true, "\(r.stderr)")
        #expect(warnings.first?.contains(damage.reason) == true, "\(r.stderr)")
        #expect(warnings.first?.contains("measured again (normalisation to -20.0 LUFS") == true, "\(r.stderr)")
        #expect(warnings.count == (damage == .folder ? 2 : 1), "\(r.stderr)")
        // Measured again: the clean render's gain and samples.
        let again = try Self.normalisation(s.path("again.json"))
        #expect(again["reusedFrom"] is NSNull)
        #expect(again["gainDb"] as? Double == (try Self.normalisation(s.path("clean.json")))["gainDb"] as? Double)
        #expect(try Self.samples(s.path("again.flac")) == Self.samples(s.path("clean.flac")))
        #expect(FileManager.default.fileExists(atPath: "/etc/passwd"))

        if damage == .folder {
            // A folder is left to its owner: it is never emptied, and the render goes on without the folder.
            #expect(warnings.first?.hasSuffix("could not be removed, measured again (normalisation to -20.0 LUFS, true peak -1.0 dB, at most +30.0 dB)") == true, "\(r.stderr)")
            #expect(FileManager.default.fileExists(atPath: entry + "/inside"))
            return
        }
        // Written again, whole: the next run reads it, with no warning.
        let attributes = try FileManager.default.attributesOfItem(atPath: entry)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect((attributes[.size] as? Int ?? .max) < 4096)
        let next = try CLI.run([preset, "-o", s.path("next.flac"), "--cache-dir", cache, "--report", s.path("next.json")])
        #expect(next.status == 0 && next.stderr.isEmpty, "\(next.stderr)")
        #expect(try Self.normalisation(s.path("next.json"))["reusedFrom"] as? String == "cacheFolder")
    }

    /// Another target, or another preset, is another measurement: nothing is reused, and each is kept apart.
    @Test func anotherTargetOrPresetIsAnotherMeasurement() throws {
        let s = try TemporaryFolder()
        let preset = try Self.preset(s, duration: "20s")
        let other = try Self.preset(s, duration: "20s", seed: 2, name: "other.json")
        let cache = s.path("cache")
        func run(_ preset: String, _ extra: [String] = []) throws -> Any? {
            let r = try CLI.run([preset, "-o", s.path("o.flac"), "--cache-dir", cache, "--report", s.path("r.json")] + extra)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            return try Self.normalisation(s.path("r.json"))["reusedFrom"]
        }
        #expect(try run(preset) is NSNull)
        #expect(try run(preset, ["--loudness", "-23"]) is NSNull)
        #expect(try run(other) is NSNull)
        #expect(try Self.measurementFiles(cache).count == 3)
        #expect(try run(preset, ["--loudness", "-23"]) as? String == "cacheFolder")
        #expect(try run(other) as? String == "cacheFolder")
        // A description for a person, beside the numbers.
        let texts = try Self.measurementFiles(cache).map { try String(contentsOfFile: $0, encoding: .utf8) }
        #expect(texts.contains { $0.contains("normalisation to -23.0 LUFS") })
    }

    @Test func renderHelpNamesTheCacheFolder() throws {
        let r = try CLI.run(["render", "--help"])
        let words = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("--cache-dir <cache-dir> A folder that keeps prepared sounds and loudness measurements"), "\(r.stdout)")
    }
}
