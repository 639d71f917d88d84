import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import DSPTestSupport
import Testing
import TestSupport

/// `mixrender batch`'s engine: jobs sharing prepared material render what they render alone; the material
/// store is keyed by what the audio is; the budget releases what no job holds; shards cover every job once.
@Suite struct BatchTests {
    /// Two loops at 44.1 kHz (so they are resampled), noise-like and tonal, generated with fixed seeds.
    static func sounds(_ folder: TemporaryFolder) throws -> (String, String) {
        let a = try folder.wav("a.wav", rate: 44100, channels: 2, frames: 44100 * 2) { i, c in
            Float(SeededRandom.unit(seed: 11, stream: UInt64(c), index: UInt64(i)) * 2 - 1) * 0.3
        }
        let b = try folder.wav("b.wav", rate: 44100, channels: 1, frames: 30000) { i, _ in Float(sin(Double(i) * 0.031)) * 0.4 }
        return (a, b)
    }

    static func preset(_ a: String, _ b: String, gainDb: Double, seconds: Double) -> String {
        """
        { "duration": \(seconds), "output": { "bitDepth": "float" },
          "tracks": [ { "file": "\(a)", "loop": { "crossfade": 0.2 }, "gainDb": \(gainDb) },
                      { "file": "\(b)", "loop": { "crossfade": 0 }, "gainDb": -9 } ] }
        """
    }

    static func samples(_ path: String) throws -> [Float] { try readAll(try AudioFile.open(path: path)) }

    @Test func jobsSharingSourcesRenderWhatEachRendersAlone() throws {
        let s = try TemporaryFolder()
        let (a, b) = try Self.sounds(s)
        var jobs: [BatchJob] = []
        for k in 0..<4 {
            let preset = try s.preset(Self.preset(a, b, gainDb: -3 - Double(k), seconds: 3 + Double(k)), name: "p\(k).json")
            jobs.append(BatchJob(index: k, origin: "test:\(k + 1)", preset: preset, output: s.path("batch\(k).wav")))
        }
        let material = PreparedMaterial()
        let outcomes = BatchRunner(jobs: jobs, workers: 2, material: material).run()
        let failures = outcomes.compactMap(\.error)
        #expect(failures.isEmpty, "\(failures)")
        // Each of the two sources was prepared once for the whole batch.
        #expect(outcomes.compactMap(\.material).reduce(0) { $0 + $1.made } == 2)
        #expect(outcomes.compactMap(\.material).reduce(0) { $0 + $1.reused } == 6)
        for job in jobs {
            let alone = s.path("alone\(job.index).wav")
            _ = try RenderJob(presetPath: job.preset).render(to: alone)
            let x = try Self.samples(job.output), y = try Self.samples(alone)
            #expect(x.count == y.count && x == y, "job \(job.index) differs from its render alone")
        }
    }

    @Test func aBrokenJobFailsAloneAndTheOthersFinish() throws {
        let s = try TemporaryFolder()
        let (a, b) = try Self.sounds(s)
        let good = try s.preset(Self.preset(a, b, gainDb: -6, seconds: 2), name: "good.json")
        let broken = try s.write("broken.wav", "RIFF, but not really a WAV file at all")
        let bad = try s.preset(Self.preset(broken, b, gainDb: -6, seconds: 2), name: "bad.json")
        let jobs = [
            BatchJob(index: 0, origin: "j:1", preset: good, output: s.path("one.wav")),
            BatchJob(index: 1, origin: "j:2", preset: bad, output: s.path("two.wav")),
            BatchJob(index: 2, origin: "j:3", preset: s.path("absent.json"), output: s.path("three.wav")),
            BatchJob(index: 3, origin: "j:4", preset: good, output: s.path("four.wav")),
        ]
        let outcomes = BatchRunner(jobs: jobs, workers: 2, material: PreparedMaterial()).run()
        #expect(outcomes.map(\.succeeded) == [true, false, false, true])
        #expect("\(outcomes[1].error!)".contains("broken.wav"))
        #expect("\(outcomes[2].error!)".contains("absent.json"))
        #expect(s.contents.filter { $0.hasSuffix(".wav") || $0.hasSuffix(".flac") }.sorted() == ["a.wav", "b.wav", "broken.wav", "four.wav", "one.wav"])
        // Its result line says so.
        let line = BatchResults.line(outcomes[1], shard: .whole, error: "it broke")
        let parsed = try JSONValue.parse(Array(line.utf8))
        guard case .object(let fields) = parsed else { Issue.record("not an object"); return }
        #expect(fields["status"] == .string("failed") && fields["error"] == .string("it broke") && fields["index"] == .number(1))
    }

    // MARK: - The store (--cache-dir)

    @Test func theStoreIsKeyedByContentRateAndResampler() throws {
        let s = try TemporaryFolder()
        let (a, b) = try Self.sounds(s)
        let store = try MaterialStore(folder: s.path("cache/nested"))
        func prepare(_ json: String) throws -> PreparedMaterial.Outcome {
            try PreparedMaterial(store: store).prepare(for: try RenderJob(presetPath: try s.preset(json)).plan)
        }
        let base = Self.preset(a, b, gainDb: -6, seconds: 2)
        let first = try prepare(base)
        #expect(first.made == 2 && first.fromStore == 0)
        // A new process (a new PreparedMaterial) finds both in the folder.
        let second = try prepare(base)
        #expect(second.made == 2 && second.fromStore == 2)
        // Another output rate or resampler is other audio: made again (and stored beside).
        #expect(try prepare(base.replacingOccurrences(of: #""bitDepth""#, with: #""sampleRate": 32000, "bitDepth""#)).fromStore == 0)
        #expect(try prepare(base.replacingOccurrences(of: #""bitDepth""#, with: #""resampler": "fast", "bitDepth""#)).fromStore == 0)
        // A changed file is other audio, even at the same path, size and rate.
        _ = try s.wav("b.wav", rate: 44100, channels: 1, frames: 30000) { i, _ in Float(sin(Double(i) * 0.029)) * 0.4 }
        let changed = try prepare(base)
        #expect(changed.made == 2 && changed.fromStore == 1)
        // Unchanged, everything is found again.
        #expect(try prepare(base).fromStore == 2)
    }

    @Test func whatTheStoreGivesBackRendersTheSame() throws {
        let s = try TemporaryFolder()
        let (a, b) = try Self.sounds(s)
        let plan = try RenderJob(presetPath: try s.preset(Self.preset(a, b, gainDb: -6, seconds: 3))).plan
        let store = try MaterialStore(folder: s.path("cache"))
        func render(_ material: PreparedMaterial) throws -> [[Float]] {
            let capture = CaptureEncoder(sampleRate: plan.sampleRate, channelCount: 2)
            _ = try Renderer(plan: plan).render(to: capture, material: material)
            return capture.channels
        }
        let decoded = try render(PreparedMaterial(store: store))
        let fromStore = PreparedMaterial(store: store)
        #expect(try fromStore.prepare(for: plan).fromStore == 2)
        #expect(try render(fromStore) == decoded)
        #expect(try render(PreparedMaterial()) == decoded)
    }

    @Test func aBrokenStoreFileIsMadeAgain() throws {
        let s = try TemporaryFolder()
        let (a, b) = try Self.sounds(s)
        let plan = try RenderJob(presetPath: try s.preset(Self.preset(a, b, gainDb: -6, seconds: 2))).plan
        let store = try MaterialStore(folder: s.path("cache"))
        try PreparedMaterial(store: store).prepare(for: plan)
        let files = try FileManager.default.contentsOfDirectory(atPath: store.folder).filter { $0.hasSuffix(".f32") }
        #expect(files.count == 2)
        // Truncate one, put garbage in the other.
        let one = store.folder + "/" + files[0], two = store.folder + "/" + files[1]
        let bytes = try Data(contentsOf: URL(fileURLWithPath: one))
        try bytes.prefix(bytes.count - 100).write(to: URL(fileURLWithPath: one))
        try Data(repeating: 7, count: 5000).write(to: URL(fileURLWithPath: two))
        #expect(try PreparedMaterial(store: store).prepare(for: plan).fromStore == 0)
        // Both were written again, whole.
        #expect(try PreparedMaterial(store: store).prepare(for: plan).fromStore == 2)
    }

    @Test func aStoreFolderThatCannotBeUsedIsNamed() throws {
        let s = try TemporaryFolder()
        let file = try s.write("file", "x")
        #expect(throws: EngineError.self) { _ = try MaterialStore(folder: file) }
        #expect(throws: EngineError.self) { _ = try MaterialStore(folder: file + "/below") }
    }

    // MARK: - The budget (--cache-mb)

    @Test func materialNoJobHoldsIsReleasedPastTheBudgetLeastRecentlyUsedFirst() throws {
        let s = try TemporaryFolder()
        var plans: [RenderPlan] = []
        for k in 0..<3 {   // three presets, each with a file of its own (1 s of stereo at 48 kHz: 384 000 bytes)
            let wav = try s.wav("s\(k).wav", rate: 48000, channels: 2, frames: 48000) { i, c in Float((i + k + c) % 50) / 100 }
            plans.append(try RenderJob(presetPath: try s.preset(#"{ "duration": 2, "tracks": [ { "file": "\#(wav)", "loop": { "crossfade": 0 } } ] }"#, name: "p\(k).json")).plan)
        }
        let bytes = 48000 * 2 * 4
        let material = PreparedMaterial(budgetBytes: 2 * bytes)
        let key = plans.map { $0.materialRequests[0].key }
        try material.lease(for: plans[0]).release()
        try material.lease(for: plans[1]).release()
        #expect(material.heldBytes == 2 * bytes && material.releasedCount == 0)
        _ = material.source(for: key[0])   // a render plays plan 0's: now plan 1's is the least recently used
        let two = try material.lease(for: plans[2])
        // Over the budget: the least recently used entry no lease holds goes.
        #expect(material.heldBytes == 2 * bytes && material.releasedCount == 1)
        #expect(material.source(for: key[1]) == nil && material.source(for: key[0]) != nil)
        // Making plan 1's again goes past the budget: plan 0's, which no lease holds, goes.
        let one = try material.lease(for: plans[1])
        #expect(one.report.made == 1 && material.releasedCount == 2 && material.source(for: key[0]) == nil)
        // The budget bounds what leases hold too: a third would pass it, so it waits (holding nothing) until a
        // lease is released.
        let granted = DispatchSemaphore(value: 0)
        let zero = Locked<PreparedMaterial.Lease?>(nil)
        let plan0 = plans[0]
        DispatchQueue.global().async {
            let lease = try? material.lease(for: plan0)
            zero.withLock { $0 = lease }
            granted.signal()
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while material.waitingCount == 0 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(material.waitingCount == 1 && material.heldBytes == 2 * bytes)
        two.release()
        #expect(granted.wait(timeout: .now() + 30) == .success)
        #expect(zero.withLock { $0?.report.made } == 1 && material.waitingCount == 0)
        // Plan 2's, released, made room: what is held stays within the budget.
        #expect(material.heldBytes == 2 * bytes && material.releasedCount == 3 && material.source(for: key[2]) == nil)
        one.release()
        zero.withLock { $0?.release() }
        #expect(material.heldBytes == 2 * bytes)
        // A lease whose material alone passes the budget is given when nothing else is held: it runs alone.
        let small = PreparedMaterial(budgetBytes: bytes / 2)
        let alone = try small.lease(for: plans[0])
        #expect(alone.report.made == 1 && small.heldBytes == bytes)
        // Meanwhile a plan that adds nothing to what is held (no material, or only what leases hold) never waits.
        let generators = try RenderJob(presetPath: try s.preset(#"{ "duration": 1, "tracks": [ { "generator": { "type": "pink" } } ] }"#, name: "g.json")).plan
        let others = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for plan in [generators, plan0] { (try? small.lease(for: plan))?.release() }
            others.signal()
        }
        #expect(others.wait(timeout: .now() + 30) == .success)
        alone.release()
        #expect(small.heldBytes == 0)
        // A budget of 0 keeps nothing between jobs.
        let none = PreparedMaterial(budgetBytes: 0)
        try none.lease(for: plans[0]).release()
        #expect(none.heldBytes == 0 && none.keys.isEmpty)
    }

    // MARK: - Shards

    @Test func shardsCoverEveryJobExactlyOnce() {
        for jobs in 0...40 {
            for count in 1...12 {
                var seen = [Int](repeating: 0, count: jobs)
                var sizes: [Int] = []
                for index in 0..<count {
                    let range = Shard(index: index, count: count).range(jobCount: jobs)
                    sizes.append(range.count)
                    for j in range { seen[j] += 1 }
                }
                #expect(seen.allSatisfy { $0 == 1 }, "\(jobs) jobs in \(count) shards")
                #expect(sizes.max()! - sizes.min()! <= 1)
            }
        }
        // Huge lists do not overflow.
        #expect(Shard(index: 999_999, count: 1_000_000).range(jobCount: 1_000_000) == 999_999..<1_000_000)
    }

    @Test func shardsAreParsedFromTheCommandLineAndSlurm() throws {
        #expect(try Shard.parse("1/4", environment: [:]) == Shard(index: 0, count: 4))
        #expect(try Shard.parse("4/4", environment: [:]) == Shard(index: 3, count: 4))
        for bad in ["0/4", "5/4", "1/0", "a/b", "3", "1/4/2", "-1/4", ""] {
            #expect(throws: EngineError.self, "\(bad)") { try Shard.parse(bad, environment: [:]) }
        }
        let slurm = ["SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "4"]
        #expect(try Shard.parse("slurm", environment: slurm) == Shard(index: 1, count: 4))
        let stepped = ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "3"]
        #expect(try Shard.parse("slurm", environment: stepped) == Shard(index: 2, count: 3))
        #expect(throws: EngineError.self) { try Shard.parse("slurm", environment: [:]) }
        #expect(throws: EngineError.self) { try Shard.parse("slurm", environment: ["SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "4"]) }
    }

    // MARK: - The job list

    @Test func jobLinesAreReadWithTheirPathsFromTheListsFolder() throws {
        let s = try TemporaryFolder()
        let list = try s.write("jobs.jsonl", """
            {"preset": "p.json", "output": "out/a.ogg", "duration": "30m", "id": "first"}

            {"preset": "/abs/p.json", "output": "b.mp3", "bitrate": 128, "sampleRate": 44100, "loudness": -16, "start": "1m", "end": 90}
            """)
        var defaults = RenderOverrides()
        defaults.durationSeconds = 60
        defaults.quality = 0.3
        let jobs = try BatchJobList.read(path: list, defaults: defaults)
        #expect(jobs.count == 2)
        #expect(jobs[0].preset == s.path("p.json") && jobs[0].output == s.path("out/a.ogg") && jobs[0].id == "first")
        #expect(jobs[0].overrides.durationSeconds == 1800 && jobs[0].overrides.quality == 0.3)
        #expect(jobs[1].preset == "/abs/p.json" && jobs[1].origin == list + ":3" && jobs[1].index == 1)
        #expect(jobs[1].overrides.bitrateKbps == 128 && jobs[1].overrides.quality == nil && jobs[1].overrides.durationSeconds == 60)
        #expect(jobs[1].overrides.startSeconds == 60 && jobs[1].overrides.endSeconds == 90 && jobs[1].overrides.loudnessTarget == -16)
    }

    @Test func whatIsWrongWithTheListIsNamedByLineAndKey() throws {
        let s = try TemporaryFolder()
        let cases: [(String, String)] = [
            (#"{"preset": "p.json", "output": "a.ogg", "duraton": 3}"#, #"jobs.jsonl:1: unknown key 'duraton' (did you mean 'duration'?)"#),
            (#"{"preset": "p.json"}"#, "jobs.jsonl:1: missing required key 'output'"),
            (#"{"preset": "p.json", "output": "a.xyz"}"#, "jobs.jsonl:1: output: unknown output extension"),
            (#"{"preset": "p.json", "output": "a.ogg", "sampleRate": 7}"#, "jobs.jsonl:1: sampleRate: 7 is out of range"),
            (#"{"preset": "p.json", "output": "a.ogg", "quality": 0.5, "bitrate": 96}"#, "jobs.jsonl:1: bitrate: and 'quality' cannot be given together"),
            (#"{"preset": "p.json", "output": "a.ogg", "duration": "soon"}"#, "jobs.jsonl:1: duration: invalid time 'soon'"),
            (#"{"preset": "p.json", "output": "a.ogg", "resampler": "great"}"#, "jobs.jsonl:1: resampler: unknown resampler 'great'"),
            (#"{"preset": "p.json", "output": "a.ogg""#, "jobs.jsonl:1: malformed JSON"),
            (#"["p.json", "a.ogg"]"#, "jobs.jsonl:1: expected an object"),
            ("\n\n", "holds no jobs"),
        ]
        for (text, expected) in cases {
            let list = try s.write("jobs.jsonl", text)
            do {
                _ = try BatchJobList.read(path: list)
                Issue.record("no error for \(text)")
            } catch let error as EngineError {
                let line = error.words { "--\($0.rawValue)" }
                #expect(line.contains(expected), "\(text): \(line)")
            }
        }
    }

    // MARK: - Merging results

    @Test func shardsResultsMergeInJobOrder() throws {
        let s = try TemporaryFolder()
        let one = try s.write("r1.jsonl", "{\"index\": 2, \"status\": \"ok\"}\n{\"index\": 0, \"status\": \"ok\"}\n")
        let two = try s.write("r2.jsonl", "{\"index\": 1, \"status\": \"failed\", \"error\": \"x\"}\n")
        let merged = try BatchResults.merge(files: [one, two], jobCount: 4)
        #expect(merged.lines == [#"{"index": 0, "status": "ok"}"#, #"{"index": 1, "status": "failed", "error": "x"}"#, #"{"index": 2, "status": "ok"}"#])
        #expect(merged.failed == 1 && merged.missing == [3])
        #expect(throws: EngineError.self) { try BatchResults.merge(files: [one, one], jobCount: nil) }
        #expect(throws: EngineError.self) { try BatchResults.merge(files: [one], jobCount: 2) }
        let junk = try s.write("junk.jsonl", "not json\n")
        #expect(throws: EngineError.self) { try BatchResults.merge(files: [junk], jobCount: nil) }
    }
}
