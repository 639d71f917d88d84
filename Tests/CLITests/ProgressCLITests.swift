import DSPTestSupport
import Foundation
import TestSupport
import Testing

/// `--progress json` (issue 28): progress as JSON lines on stderr for a back end that relays it, for a render, a
/// waveform and a batch; `--progress` alone is still the bar, forced.
@Suite struct ProgressCLITests {
    static let preset = #"{ "duration": 20, "output": { "sampleRate": 8000 }, "tracks": [ { "generator": { "type": "pink" }, "gainDb": -20 } ] }"#

    /// The stderr lines that are JSON objects, parsed.
    static func jsonLines(_ stderr: String) throws -> [[String: Any]] {
        try stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
        }
    }

    @Test(arguments: [["--progress", "json"], ["--progress=json"], ["--progress", "json", "--quiet"]])
    func aRenderReportsItsProgressAsJSONLines(_ options: [String]) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        let run = try CLI.run([preset, "-o", s.path("out.wav")] + options)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try Self.jsonLines(run.stderr)
        let last = try #require(lines.last, "no JSON line: \(run.stderr)")
        #expect(last["progress"] as? Double == 1 && last["frames"] as? Int == 160_000 && last["totalFrames"] as? Int == 160_000, "\(last)")
        #expect(last["remaining"] as? Double == 0 && (last["speed"] as? Double ?? 0) > 0 && last["elapsed"] != nil, "\(last)")
        let fractions = lines.compactMap { $0["progress"] as? Double }
        #expect(fractions.count == lines.count && fractions == fractions.sorted(), "\(fractions)")
        #expect(!run.stderr.contains("\r"), "no bar beside the JSON lines")
        if options.contains("--quiet") {
            #expect(run.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("{") }, "--quiet leaves only the JSON lines: \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test func aWaveformAndABatchReportTheirsToo() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        #expect(try CLI.run([preset, "-o", s.path("a.flac"), "-q"]).status == 0)
        let waveform = try CLI.run(["waveform", s.path("a.flac"), "-o", s.path("a.json"), "--progress", "json", "-q"])
        #expect(waveform.status == 0, "\(waveform.stderr)")
        #expect(try Self.jsonLines(waveform.stderr).last?["progress"] as? Double == 1, "\(waveform.stderr)")

        _ = try s.write("jobs.jsonl", #"{"preset": "p.json", "output": "b.wav"}"# + "\n" + #"{"preset": "p.json", "output": "c.wav", "duration": 5}"# + "\n")
        let batch = try CLI.run(["batch", s.path("jobs.jsonl"), "--jobs", "1", "--progress", "json"])
        #expect(batch.status == 0, "\(batch.stderr)")
        let last = try #require(try Self.jsonLines(batch.stderr).last, "\(batch.stderr)")
        #expect(last["done"] as? Int == 2 && last["total"] as? Int == 2 && last["failed"] as? Int == 0 && last["running"] as? Int == 0, "\(last)")
    }

    /// `--progress` alone forces the bar when stderr is not a terminal, as it always did; `--progress bar` says so.
    @Test(arguments: [["--progress"], ["--progress", "bar"]])
    func theBarIsStillTheBar(_ options: [String]) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        let run = try CLI.run([preset, "-o", s.path("out.wav")] + options)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("\r[") && run.stderr.contains("100.0%"), "\(run.stderr)")
        #expect(try Self.jsonLines(run.stderr).isEmpty)
    }
}
