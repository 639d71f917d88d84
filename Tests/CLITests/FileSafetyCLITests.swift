import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// Nothing mixrender reads is ever written over, whatever the spelling (`FileAccess`), documents are read only
/// as regular files of bounded size, and the other findings of the second hostile-input campaign (issue 21):
/// each test is one finding, end to end through the command line.
@Suite struct FileSafetyCLITests {
    /// A 2-second pink-noise preset `p.json`, a sound `loop.wav` and a preset `uses.json` that plays it.
    static func folder() throws -> TemporaryFolder {
        let s = try TemporaryFolder()
        _ = try s.write("p.json", #"{"duration": 2, "tracks": [{"generator": {"type": "pink", "seed": 1}}]}"#)
        _ = try s.wav("loop.wav", rate: 48_000, channels: 1, frames: 48_000) { i, _ in Float(sin(Double(i) * 0.03)) * 0.3 }
        _ = try s.write("uses.json", #"{"duration": 2, "tracks": [{"file": "loop.wav", "loop": true}]}"#)
        return s
    }

    /// The bytes of every file in the folder, to show nothing was touched.
    static func snapshot(_ s: TemporaryFolder) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in s.contents where FileSystem.identity(of: s.path(name))?.kind == .regular {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: s.path(name)))
        }
        return files
    }

    @Test func batchResultsNeverOverwriteWhatTheBatchReads() throws {
        let s = try Self.folder()
        _ = try s.write("jobs.jsonl", #"{"preset": "uses.json", "output": "out.wav"}"#)
        try FileManager.default.createSymbolicLink(atPath: s.path("link.jsonl"), withDestinationPath: "loop.wav")
        let before = try Self.snapshot(s)
        let cases: [(String, String)] = [
            ("./uses.json", "cannot write './uses.json': --results is the preset of jobs.jsonl:1 ('uses.json'); writing there would destroy it"),
            ("loop.wav", "cannot write 'loop.wav': --results is a file jobs.jsonl:1 reads (uses.json: tracks[0].file); writing there would destroy it"),
            ("./jobs.jsonl", "cannot write './jobs.jsonl': --results is the job list ('jobs.jsonl'); writing there would destroy it"),
            ("link.jsonl", "cannot write 'link.jsonl': --results is a file jobs.jsonl:1 reads (uses.json: tracks[0].file) ('loop.wav')"),
        ]
        for (results, expected) in cases {
            let r = try CLI.run(["batch", "jobs.jsonl", "--results", results, "-q"], in: s.url)
            #expect(r.status == 1 && r.stderr.hasPrefix("Error: " + expected), "\(results): \(r.stderr)")
        }
        #expect(try Self.snapshot(s) == before)
        #expect(!s.contents.contains("out.wav"))
    }

    @Test func oneJobsOutputIsNeverAnotherJobsSource() throws {
        let s = try Self.folder()
        _ = try s.write("jobs.jsonl", """
            {"preset": "p.json", "output": "loop.wav"}
            {"preset": "uses.json", "output": "b.wav"}
            """)
        let before = try Self.snapshot(s)
        let r = try CLI.run(["batch", "jobs.jsonl", "-q"], in: s.url)
        #expect(r.status == 1)
        #expect(r.stderr == "Error: cannot write 'loop.wav': the output of jobs.jsonl:1 is a file jobs.jsonl:2 reads (uses.json: tracks[0].file); writing there would destroy it\n", "\(r.stderr)")
        #expect(try Self.snapshot(s) == before)

        // The careless form: a folder of presets rendered into itself, where uses.json plays loop.json's output.
        try FileManager.default.createDirectory(atPath: s.path("f"), withIntermediateDirectories: false)
        for name in ["loop.wav", "uses.json"] { try FileManager.default.copyItem(atPath: s.path(name), toPath: s.path("f/\(name)")) }
        try FileManager.default.copyItem(atPath: s.path("p.json"), toPath: s.path("f/loop.json"))
        let careless = try CLI.run(["batch", "f", "--output-dir", "f", "--format", "wav", "-q"], in: s.url)
        #expect(careless.status == 1 && careless.stderr.hasPrefix("Error: cannot write 'f/loop.wav': the output of f/loop.json is a file f/uses.json reads"), "\(careless.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path("f")).sorted() == ["loop.json", "loop.wav", "uses.json"])
    }

    @Test func twoJobsWritingOneFileAreFoundHoweverSpelled() throws {
        let s = try Self.folder()
        try FileManager.default.createDirectory(atPath: s.path("dup"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: s.path("linked"), withDestinationPath: "dup")
        for other in ["dup/../dup/a.wav", s.path("dup/a.wav"), "linked/a.wav", "./dup//a.wav", "new/x/../../dup/a.wav"] {
            _ = try s.write("jobs.jsonl", """
                {"preset": "p.json", "output": "dup/a.wav"}
                {"preset": "p.json", "output": "\(other)"}
                """)
            let r = try CLI.run(["batch", "jobs.jsonl", "-q"], in: s.url)
            #expect(r.status == 1 && r.stderr.contains("the output of jobs.jsonl:2 is also the output of jobs.jsonl:1 ('dup/a.wav'); each needs a file of its own"),
                    "\(other): \(r.stderr)")
        }
        // Folders not made yet are compared by their names, `..` folded.
        _ = try s.write("jobs.jsonl", """
            {"preset": "p.json", "output": "new/a.wav"}
            {"preset": "p.json", "output": "new/b/../a.wav"}
            """)
        let r = try CLI.run(["batch", "jobs.jsonl", "-q"], in: s.url)
        #expect(r.status == 1 && r.stderr.contains("is also the output of jobs.jsonl:1"), "\(r.stderr)")
        #expect(!s.contents.contains("new"))
    }

    @Test func renderSideFilesNeverOverwriteASessionsBed() throws {
        let s = try Self.folder()
        _ = try s.write("bedmix.json", #"{"duration": 2, "tracks": [{"file": "loop.wav", "loop": true}]}"#)
        _ = try s.write("session.json", #"{"bed": "bedmix.json", "sections": [{"name": "a", "length": 2}]}"#)
        let before = try Self.snapshot(s)
        for (option, path) in [("--timeline", "bedmix.json"), ("--report", "./bedmix.json"), ("--waveform", "bedmix.json"), ("--timeline", "loop.wav")] {
            let r = try CLI.run(["session.json", "-o", "out.wav", option, path, "-q"], in: s.url)
            #expect(r.status == 1 && r.stderr.hasPrefix("Error: cannot write '\(path)': \(option) is a file the render reads ("), "\(option) \(path): \(r.stderr)")
        }
        let same = try CLI.run(["session.json", "-o", "out.wav", "--timeline", "./out.wav", "-q"], in: s.url)
        #expect(same.status == 1 && same.stderr.contains("--timeline is also the output ('out.wav'); each needs a file of its own"), "\(same.stderr)")
        #expect(try Self.snapshot(s) == before)
    }

    @Test func mergeResultsNeverWritesOverWhatItReads() throws {
        let s = try Self.folder()
        _ = try s.write("part.jsonl", #"{"index": 0, "status": "ok"}"#)
        _ = try s.write("j.jsonl", #"{"preset": "p.json", "output": "o.wav"}"#)
        let before = try Self.snapshot(s)
        let a = try CLI.run(["merge-results", "part.jsonl", "-o", "j.jsonl", "--jobs", "j.jsonl"], in: s.url)
        #expect(a.status == 1 && a.stderr == "Error: cannot write 'j.jsonl': the merged results file is the job list (--jobs); writing there would destroy it\n", "\(a.stderr)")
        let b = try CLI.run(["merge-results", "part.jsonl", "-o", "./part.jsonl"], in: s.url)
        #expect(b.status == 1 && b.stderr.contains("the merged results file is one of the files being merged ('part.jsonl')"), "\(b.stderr)")
        #expect(try Self.snapshot(s) == before)
        // Errors about a part name the part and its line, not an option merge-results does not have.
        _ = try s.write("bad.jsonl", "{\"index\": 0}\nnot json")
        let c = try CLI.run(["merge-results", "bad.jsonl", "-o", "m.jsonl"], in: s.url)
        #expect(c.stderr == "Error: cannot read 'bad.jsonl:2': not a JSON object (a results file has one per line)\n", "\(c.stderr)")
    }

    /// Devices and FIFOs are refused at once (no read of /dev/zero's endless bytes, no wait for a FIFO's writer).
    @Test func documentsAreRegularFilesOnly() throws {
        let s = try Self.folder()
        #expect(mkfifo(s.path("fifo.json"), 0o644) == 0)
        _ = try s.write("zerobed.json", #"{"bed": "/dev/zero", "sections": [{"name": "a", "length": 2}]}"#)
        _ = try s.write("jobs.jsonl", """
            {"preset": "/dev/zero", "output": "a.wav"}
            {"preset": "fifo.json", "output": "b.wav"}
            {"preset": "p.json", "output": "c.wav"}
            """)
        let refusal = "not a regular file (a device, a pipe or a socket)"
        let cases: [([String], String)] = [
            (["validate", "/dev/zero"], "Error: /dev/zero: cannot read preset: \(refusal)\n"),
            (["key", "/dev/zero"], "Error: /dev/zero: cannot read preset: \(refusal)\n"),
            (["validate", "fifo.json"], "Error: fifo.json: cannot read preset: \(refusal)\n"),
            (["validate", "zerobed.json"], "Error: zerobed.json: bed: cannot read the bed '/dev/zero': \(refusal)\n"),
            (["merge-results", "/dev/zero", "-o", "m.jsonl"], "Error: cannot read '/dev/zero': \(refusal)\n"),
            (["batch", "fifo.json"], "Error: cannot read 'fifo.json': \(refusal)\n"),
        ]
        for (arguments, expected) in cases {
            let r = try CLI.run(arguments, in: s.url)
            #expect(r.status == 1 && r.stderr == expected, "\(arguments): \(r.stderr)")
        }
        // In a batch, such a job fails alone; the others render.
        let batch = try CLI.run(["batch", "jobs.jsonl", "-q"], in: s.url)
        #expect(batch.status == 1 && batch.stderr.contains("2 of 3 jobs failed"), "\(batch.stderr)")
        #expect(s.contents.contains("c.wav") && !s.contents.contains("a.wav") && !s.contents.contains("b.wav"))
        // A folder of presets holding a FIFO: that job fails, the batch ends.
        try FileManager.default.createDirectory(atPath: s.path("f"), withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: s.path("p.json"), toPath: s.path("f/p.json"))
        #expect(mkfifo(s.path("f/x.json"), 0o644) == 0)
        let folder = try CLI.run(["batch", "f", "--output-dir", "out", "-q"], in: s.url)
        #expect(folder.status == 1 && folder.stderr.contains("1 of 2 jobs failed"), "\(folder.stderr)")
    }

    @Test func aPresetLongerThanTheLimitIsRefusedUnread() throws {
        let s = try TemporaryFolder()
        let path = s.path("huge.json")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 65 << 20)   // sparse: no disk used
        try handle.close()
        let r = try CLI.run(["validate", path])
        #expect(r.status == 1 && r.stderr == "Error: \(path): cannot read preset: longer than 64 MiB, the most mixrender reads of such a file\n", "\(r.stderr)")
    }

    @Test func bedsThatLoopAreNamed() throws {
        let s = try TemporaryFolder()
        _ = try s.write("a.json", #"{"bed": "b.json", "sections": [{"name": "x", "length": 2}]}"#)
        _ = try s.write("b.json", #"{"bed": "./a.json", "sections": [{"name": "x", "length": 2}]}"#)
        _ = try s.write("self.json", #"{"bed": "self.json", "sections": [{"name": "x", "length": 2}]}"#)
        let loop = try CLI.run(["validate", "a.json"], in: s.url)
        #expect(loop.status == 1 && loop.stderr == "Error: b.json: bed: the beds form a loop: a.json -> b.json -> a.json\n", "\(loop.stderr)")
        let own = try CLI.run(["a.json", "-o", "x.wav"], in: s.url)
        #expect(own.status == 1 && own.stderr.contains("the beds form a loop"))
        let itself = try CLI.run(["validate", "self.json"], in: s.url)
        #expect(itself.status == 1 && itself.stderr == "Error: self.json: bed: the beds form a loop: self.json -> self.json\n", "\(itself.stderr)")
    }

    @Test func slurmNumbersAreCheckedLikeOptions() throws {
        let s = try Self.folder()
        _ = try s.write("jobs.jsonl", #"{"preset": "p.json", "output": "o.wav"}"#)
        let extremes: [[String: String]] = [
            ["SLURM_ARRAY_TASK_ID": "9223372036854775807", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "-9223372036854775807"],
            ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "9223372036854775807"],
            ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "-1"],
            ["SLURM_ARRAY_TASK_ID": "99999999999999999999", "SLURM_ARRAY_TASK_COUNT": "4"],
        ]
        for environment in extremes {
            let r = try CLI.run(["batch", "jobs.jsonl", "--shard", "slurm", "-q"], in: s.url, environment: environment)
            #expect(r.status == 1 && r.stderr.hasPrefix("Error: --shard slurm: "), "\(environment): \(r.stderr)")
        }
        #expect(!s.contents.contains("o.wav"))
    }

    @Test func batchMessagesSayWhatIsWrong() throws {
        let s = try Self.folder()
        _ = try s.write("jobs.jsonl", #"{"preset": "p.json", "output": "o.wav"}"#)
        try FileManager.default.createDirectory(atPath: s.path("f"), withIntermediateDirectories: false)
        let cases: [([String], String)] = [
            (["batch", "jobs.jsonl", "--shard", "-1/4"], "Error: --shard -1/4: I must be between 1 and 4 (slices count from 1)\n"),
            (["batch", "nonexistent", "--output-dir", "out"], "Error: nonexistent: no such file or folder (give a JSON Lines job list, or a folder of presets with --output-dir)\n"),
            (["batch", "f", "--output-dir", "p.json"], "Error: --output-dir: 'p.json' is a file, not a folder\n"),
        ]
        for (arguments, expected) in cases {
            let r = try CLI.run(arguments, in: s.url)
            #expect(r.status != 0 && r.stderr == expected, "\(arguments): \(r.stderr)")
        }
    }

    @Test func aSessionIsHeldToTheLongestRender() throws {
        let s = try TemporaryFolder()
        let sections = (0..<999).map { #"{"name": "s\#($0)", "length": "100h"}"# }.joined(separator: ", ")
        _ = try s.write("long.json", #"{"sections": [\#(sections)]}"#)
        let r = try CLI.run(["validate", "long.json"], in: s.url)
        #expect(r.status == 1 && r.stderr == "Error: long.json: sections[1].length: the sections' lengths add up to 200h here, longer than 100h, the longest time mixrender takes\n", "\(r.stderr)")
        _ = try s.write("sum.json", #"{"sections": [{"name": "a", "length": "60h"}, {"name": "b", "length": "30h"}, {"name": "c", "length": "11h"}]}"#)
        let sum = try CLI.run(["validate", "sum.json"], in: s.url)
        #expect(sum.status == 1 && sum.stderr.contains("sections[2].length: the sections' lengths add up to 101h"), "\(sum.stderr)")
    }

    /// A lone click cannot be brought to -16 LUFS under a -1 dBTP ceiling: an error, not a file 22 LU short.
    @Test func normalisingMissesNoTargetInSilence() throws {
        let s = try TemporaryFolder()
        _ = try s.wav("click.wav", rate: 48_000, channels: 1, frames: 480_000) { i, _ in i == 240_000 ? 1 : 0 }
        _ = try s.write("click.json", #"{"duration": 10, "tracks": [{"file": "click.wav"}]}"#)
        let r = try CLI.run(["click.json", "-o", "c.wav", "--loudness", "-16", "-q"], in: s.url)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: --loudness -16.0: the limiter holds the output at -37.9 LUFS, 21.9 LU under -16.0 LUFS"), "\(r.stderr)")
        #expect(!s.contents.contains("c.wav"))
    }

    @Test func joinChecksThatItsPartsTileOneRender() throws {
        let s = try TemporaryFolder()
        _ = try s.write("six.json", #"{"duration": 6, "tracks": [{"generator": {"type": "pink", "seed": 1}}]}"#)
        _ = try s.write("other.json", #"{"duration": 6, "tracks": [{"generator": {"type": "pink", "seed": 2}}]}"#)
        for (name, start, end) in [("w0.flac", "0", "2"), ("w2.wav", "2", "4"), ("w4.aiff", "4", "6")] {
            let r = try CLI.run(["six.json", "-o", name, "--start", start, "--end", end, "-q"], in: s.url)
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(try CLI.run(["other.json", "-o", "x2.flac", "--start", "2", "--end", "4", "-q"], in: s.url).status == 0)
        #expect(try CLI.run(["six.json", "-o", "whole.flac", "-q"], in: s.url).status == 0)
        let info = try CLI.run(["info", "w2.wav"], in: s.url)
        #expect(info.stdout.contains("MIXRENDER_WINDOW=start=96000 end=192000 total=288000 rate=48000 key="), "\(info.stdout)")

        let good = try CLI.run(["join", "w0.flac", "w2.wav", "w4.aiff", "-o", "all.flac", "-q"], in: s.url)
        #expect(good.status == 0, "\(good.stderr)")
        let joined = try AudioFile.open(path: s.path("all.flac")), whole = try AudioFile.open(path: s.path("whole.flac"))
        #expect(try readAll(joined) == readAll(whole))

        let bad: [([String], String)] = [
            (["w0.flac", "w4.aiff", "w2.wav"], "cannot join 'w4.aiff': is frames 192000-288000 of the render, but the part before it ('w0.flac') ends at frame 96000: a window is missing between them, or the parts are out of order"),
            (["w0.flac", "w2.wav", "w2.wav", "w4.aiff"], "cannot join 'w2.wav': is frames 96000-192000 of the render, but the part before it ('w2.wav') ends at frame 192000: parts out of order, or one window twice"),
            (["w0.flac", "w2.wav"], "cannot join 'w2.wav': ends at frame 192000, but the render lasts 288000 frames: the parts after it are missing"),
            (["w0.flac", "x2.flac", "w4.aiff"], "cannot join 'x2.flac': is a window of another render than 'w0.flac'"),
            (["w0.flac", "whole.flac"], "cannot join 'whole.flac': carries no window mark, but 'w0.flac' does"),
        ]
        for (parts, expected) in bad {
            let r = try CLI.run(["join"] + parts + ["-o", "x.flac"], in: s.url)
            #expect(r.status == 1 && r.stderr.hasPrefix("Error: " + expected), "\(parts): \(r.stderr)")
        }
        #expect(!s.contents.contains("x.flac"))
        // A preset cannot forge the mark.
        _ = try s.write("forge.json", #"{"duration": 1, "output": {"tags": {"mixrender_window": "x"}}, "tracks": [{"generator": {"type": "pink"}}]}"#)
        let forged = try CLI.run(["validate", "forge.json"], in: s.url)
        #expect(forged.status == 1 && forged.stderr.contains("MIXRENDER_ tags are mixrender's own"), "\(forged.stderr)")
    }
}
