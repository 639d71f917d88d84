import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// `mixrender batch` and `mixrender merge-results` from the command line.
@Suite struct BatchCLITests {
    /// A preset of its own per job (a tone at `hz` over pink noise), and a sound file two of them share.
    static func presets(_ s: TemporaryFolder, count: Int) throws -> [String] {
        let loop = try s.wav("loop.wav", rate: 44100, channels: 1, frames: 44100) { i, _ in Float(sin(Double(i) * 0.05)) * 0.3 }
        return try (0..<count).map { k in
            try s.write("p\(k).json", """
                { "duration": 3, "tracks": [ { "tone": { "frequencyHz": \(200 + 50 * k) }, "gainDb": -12 },
                                             { "file": "\(loop)", "loop": { "crossfade": 0.1 }, "gainDb": -10 } ] }
                """)
        }
    }

    static func lines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    @Test func aBatchRendersEveryJobAndReportsTheBrokenOne() throws {
        let s = try TemporaryFolder()
        _ = try Self.presets(s, count: 3)
        // out/ does not exist: the batch makes it.
        let list = try s.write("jobs.jsonl", """
            {"preset": "p0.json", "output": "out/a.ogg", "id": "first"}
            {"preset": "p1.json", "output": "out/b.flac", "duration": 2}
            {"preset": "missing.json", "output": "out/c.wav"}
            {"preset": "p2.json", "output": "out/d.wav", "sampleRate": 44100}
            """)
        let r = try CLI.run(["batch", list, "--jobs", "2"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("failed    \(list):3: \(s.path("missing.json")): cannot read preset"), "\(r.stderr)")
        #expect(r.stderr.hasSuffix("Error: 1 of 4 jobs failed (each is in \(s.path("jobs.results.jsonl")))\n"), "\(r.stderr)")
        #expect(r.stdout.contains("batch     4 jobs: 3 ok, 1 failed, 2 at a time"), "\(r.stdout)")
        #expect(s.contents.contains("jobs.results.jsonl"))
        let results = try Self.lines(s.path("jobs.results.jsonl")).sorted { ($0["index"] as! Int) < ($1["index"] as! Int) }
        #expect(results.map { $0["status"] as! String } == ["ok", "ok", "failed", "ok"])
        #expect(results[0]["id"] as? String == "first")
        #expect(results[1]["durationSeconds"] as? Double == 2)
        #expect(results[3]["sampleRate"] as? Int == 44100)
        #expect((results[2]["error"] as? String)?.contains("missing.json") == true)
        // Every good output is whole: its decoded length is the render's.
        for (name, frames) in [("a.ogg", 144_000), ("b.flac", 96_000), ("d.wav", 132_300)] {
            let reader = try AudioFile.open(path: s.path("out/\(name)"))
            #expect(try readAll(reader).count / reader.channelCount == frames, "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path("out")).sorted() == ["a.ogg", "b.flac", "d.wav"])
    }

    @Test func shardsTogetherRenderTheListOnceAndTheirResultsMerge() throws {
        let s = try TemporaryFolder()
        _ = try Self.presets(s, count: 5)
        let list = try s.write("jobs.jsonl", (0..<5).map { #"{"preset": "p\#($0).json", "output": "o\#($0).wav", "duration": 1}"# }.joined(separator: "\n"))
        var parts: [String] = []
        for i in 1...3 {
            let part = s.path("r\(i).jsonl")
            let r = try CLI.run(["batch", list, "--shard", "\(i)/3", "--results", part, "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            parts.append(part)
        }
        // 5 jobs in 3 slices: 1, 2 and 2, contiguous.
        #expect(try parts.map { try Self.lines($0).map { $0["index"] as! Int }.sorted() } == [[0], [1, 2], [3, 4]])
        #expect(try Self.lines(parts[1]).allSatisfy { $0["shard"] as? String == "2/3" })
        let merged = try CLI.run(["merge-results"] + parts + ["-o", s.path("all.jsonl"), "--jobs", list])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try Self.lines(s.path("all.jsonl")).map { $0["index"] as! Int } == [0, 1, 2, 3, 4])
        // A shard missing is found.
        let short = try CLI.run(["merge-results", parts[0], parts[2], "-o", s.path("some.jsonl"), "--jobs", list])
        #expect(short.status != 0)
        #expect(short.stderr == "Error: 2 jobs of 5 have no result (job 1, 2; indexes from 0)\n", "\(short.stderr)")
        // Slurm's array variables pick the slice.
        let slurm = try CLI.run(["batch", list, "--shard", "slurm", "--results", s.path("slurm.jsonl"), "--quiet"],
                                environment: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "3"])
        #expect(slurm.status == 0, "\(slurm.stderr)")
        #expect(try Self.lines(s.path("slurm.jsonl")).map { $0["index"] as! Int }.sorted() == [3, 4])
    }

    @Test func aFolderOfPresetsRendersIntoAnOutputFolder() throws {
        let s = try TemporaryFolder()
        _ = try Self.presets(s, count: 2)
        let r = try CLI.run(["batch", s.url.path, "--output-dir", s.path("renders/mp3"), "--format", "mp3", "--duration", "1", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path("renders/mp3")).sorted() == ["batch.results.jsonl", "p0.mp3", "p1.mp3"])
    }

    @Test func badOptionsAreNamed() throws {
        let s = try TemporaryFolder()
        _ = try Self.presets(s, count: 1)
        let list = try s.write("jobs.jsonl", #"{"preset": "p0.json", "output": "o.wav"}"#)
        let cases: [([String], String)] = [
            (["--jobs", "0"], "Error: --jobs must be between 1 and 256\n"),
            (["--shard", "5/4"], "Error: --shard 5/4: I must be between 1 and 4 (slices count from 1)\n"),
            (["--shard", "slurm"], "Error: --shard slurm: SLURM_ARRAY_TASK_ID is not set; run it as a task of a Slurm job array (sbatch --array=0-3)\n"),
            (["--cache-mb", "-1"], "Error: --cache-mb must be between 0 and 16777216\n"),
            (["--cache-dir", list], "Error: --cache-dir '\(list)' is not a folder\n"),
            (["--output-dir", "x"], "Error: --output-dir is for a folder of presets; a job list names each job's output\n"),
            (["--results", list], "Error: cannot write '\(list)': --results is the job list; writing there would destroy it\n"),
        ]
        for (options, expected) in cases {
            let r = try CLI.run(["batch", list] + options)
            #expect(r.status != 0 && r.stderr.hasPrefix(expected), "\(options): \(r.stderr)")
        }
        #expect(!s.contents.contains("o.wav"))
        let none = try CLI.run(["batch", s.path("absent.jsonl")])
        #expect(none.status != 0 && none.stderr.contains("absent.jsonl") && none.stderr.contains("no such file"), "\(none.stderr)")
    }

    /// Ctrl-C stops the batch: exit 130, the jobs that finished are whole and listed, nothing half-written is left.
    @Test func anInterruptedBatchLeavesOnlyWholeFiles() throws {
        let s = try TemporaryFolder()
        _ = try s.write("long.json", #"{ "duration": "8h", "tracks": [ { "generator": { "type": "pink" } } ] }"#)
        _ = try s.write("short.json", #"{ "duration": 1, "tracks": [ { "generator": { "type": "brown" } } ] }"#)
        let list = try s.write("jobs.jsonl", """
            {"preset": "short.json", "output": "short.wav"}
            {"preset": "long.json", "output": "long1.wav"}
            {"preset": "long.json", "output": "long2.flac"}
            """)
        let p = Process()
        p.executableURL = try CLI.executable
        p.arguments = ["batch", list, "--jobs", "2", "--quiet"]
        try p.run()
        // Wait until the short job is listed and both long ones are writing.
        let deadline = Date().addingTimeInterval(60)
        func ready() -> Bool {
            let listed = (try? String(contentsOfFile: s.path("jobs.results.jsonl"), encoding: .utf8))?.contains("short.wav") ?? false
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(p.processIdentifier)/fd")) ?? []
            let writing = fds.filter { fd in
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(p.processIdentifier)/fd/\(fd)")) ?? ""
                return target.hasPrefix(s.url.path + "/") && !target.hasSuffix(".jsonl") && !target.hasSuffix(".json")
            }
            return listed && writing.count >= 2
        }
        while !ready() && Date() < deadline { usleep(10_000) }
        #expect(ready(), "the batch never got going")
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        #expect(p.terminationStatus == 130)
        #expect(s.contents == ["jobs.jsonl", "jobs.results.jsonl", "long.json", "short.json", "short.wav"])
        #expect(try Self.lines(s.path("jobs.results.jsonl")).map { $0["output"] as! String } == [s.path("short.wav")])
    }
}
