import DSPTestSupport
import Foundation
import MixDSP
import MixIO
import TestSupport
import Testing

/// `mixrender batch --cache-dir`: entries are checked when read (a changed, swapped, resized, truncated or
/// foreign entry renders exactly what a clean render does, with one warning line, and is replaced), the folder
/// keeps to `--cache-dir-mb`, and two processes sharing it render what each renders alone.
@Suite struct CacheCLITests {
    /// Two presets, each looping a file of its own at 44.1 kHz (so it is resampled to 48 kHz): stereo noise
    /// and a mono tone, made with fixed seeds. Float WAV output, so renders compare sample for sample.
    static func setUp(_ s: TemporaryFolder) throws -> (list: String, sounds: [String]) {
        let a = try s.wav("a.wav", rate: 44100, channels: 2, frames: 44100 * 3 / 2) { i, c in
            Float(SeededRandom.unit(seed: 5, stream: UInt64(c), index: UInt64(i)) * 2 - 1) * 0.3
        }
        let b = try s.wav("b.wav", rate: 44100, channels: 1, frames: 44100) { i, _ in Float(sin(Double(i) * 0.043)) * 0.4 }
        for (k, sound) in [a, b].enumerated() {
            _ = try s.write("p\(k).json", """
                { "duration": 2, "output": { "bitDepth": "float" },
                  "tracks": [ { "file": "\(sound)", "loop": { "crossfade": 0.1 }, "gainDb": -6 } ] }
                """)
        }
        let list = try s.write("jobs.jsonl", """
            {"preset": "p0.json", "output": "o0.wav"}
            {"preset": "p1.json", "output": "o1.wav"}
            """)
        return (list, [a, b])
    }

    static func samples(_ path: String) throws -> [Float] { try readAll(try AudioFile.open(path: path)) }

    static func results(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }.sorted { ($0["index"] as! Int) < ($1["index"] as! Int) }
    }

    /// How many of a job's sounds were read from the cache folder.
    static func fromCacheDir(_ result: [String: Any]) -> Int? { (result["material"] as? [String: Any])?["fromCacheDir"] as? Int }

    /// The cache entry made from `sound`: the one whose description (the `.txt` beside it) names its content hash.
    static func entry(for sound: String, in cache: String) throws -> String {
        let hash = try ContentHash.file(path: sound).sha256
        for name in try FileManager.default.contentsOfDirectory(atPath: cache) where name.hasSuffix(".txt") {
            if try String(contentsOfFile: cache + "/" + name, encoding: .utf8).contains("content sha256 \(hash)") {
                return cache + "/" + name.dropLast(4) + ".f32"
            }
        }
        throw NoEntry(sound: sound)
    }

    struct NoEntry: Error { var sound: String }

    // The entry's layout: magic (8), channels, frames, data bytes (Int64 each), the key (32), the data, a SHA-256 (32).
    static let header = 8 + 3 * 8 + 32
    static func int64(_ bytes: [UInt8], at offset: Int) -> Int64 {
        bytes.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Int64.self)) }
    }
    static func setInt64(_ bytes: inout [UInt8], at offset: Int, _ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<(offset + 8), with: $0) }
    }
    /// Rewrites the trailer to match the rest, as someone who knows the format would.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var hash = ContentHash()
        bytes.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<(bytes.count - 32)])) }
        return Array(bytes[0..<(bytes.count - 32)]) + hash.digest
    }
    static func withFloat(_ bytes: [UInt8], at sample: Int, _ value: Float) -> [UInt8] {
        var bytes = bytes
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.replaceSubrange((header + 4 * sample)..<(header + 4 * sample + 4), with: $0) }
        return bytes
    }

    /// What is done to an entry between two runs, and the words its warning must hold.
    enum Corruption: String, CaseIterable, CustomTestStringConvertible {
        case changedSample, nanResealed, infinity, swapped, oneChannel, tenFrames, zeroFrames, truncated, foreign, hugeSparse
        var testDescription: String { rawValue }

        var reason: String {
            switch self {
            case .changedSample, .infinity: return "does not match its checksum"
            case .nanResealed: return "holds NaN or infinite samples"
            case .swapped: return "belongs to another sound"
            case .oneChannel: return "says 1 channels where this sound has 2"
            case .tenFrames: return "says 10 frames where this sound has"
            case .zeroFrames: return "says 0 frames where this sound has"
            case .truncated: return "(truncated or extended)"
            case .foreign: return "is not a mixrender cache entry"
            case .hugeSparse: return "says 500000000 frames where this sound has"
            }
        }

        /// Applies it to `entry` (the noise's, stereo); `other` is the tone's entry.
        func apply(to entry: String, other: String) throws {
            let url = URL(fileURLWithPath: entry)
            let bytes = [UInt8](try Data(contentsOf: url))
            var out = bytes
            switch self {
            case .changedSample: out = withFloat(bytes, at: 1000, 0.25)
            case .nanResealed: out = resealed(withFloat(bytes, at: 1000, .nan))
            case .infinity: out = withFloat(bytes, at: 20, .infinity)
            case .swapped: out = [UInt8](try Data(contentsOf: URL(fileURLWithPath: other)))
            case .oneChannel:   // one channel of twice the frames: every size still agrees
                setInt64(&out, at: 8, 1)
                setInt64(&out, at: 16, 2 * int64(bytes, at: 16))
                out = resealed(out)
            case .tenFrames, .zeroFrames:
                let frames: Int64 = self == .tenFrames ? 10 : 0
                out = Array(bytes[0..<header]) + Array(repeating: 0, count: Int(frames) * 2 * 4) + Array(repeating: 0, count: 32)
                setInt64(&out, at: 16, frames)
                setInt64(&out, at: 24, frames * 2 * 4)
                out = resealed(out)
            case .truncated: out = Array(bytes.dropLast(1000))
            case .foreign: out = Array(repeating: 7, count: 5000)
            case .hugeSparse:
                // 4 GB of audio by its header, every size consistent, the file sparse: refused before allocating.
                out = Array(bytes[0..<header])
                setInt64(&out, at: 16, 500_000_000)
                setInt64(&out, at: 24, 4_000_000_000)
                try Data(out).write(to: url)
                let handle = try FileHandle(forWritingTo: url)
                try handle.truncate(atOffset: UInt64(header) + 4_000_000_000 + 32)
                try handle.close()
                return
            }
            try Data(out).write(to: url)
        }
    }

    @Test(arguments: Corruption.allCases)
    func aBadEntryIsReportedRemovedAndMadeAgain(_ corruption: Corruption) throws {
        let s = try TemporaryFolder()
        let (list, sounds) = try Self.setUp(s)
        let cache = s.path("cache")
        // The clean render, with no cache folder.
        let clean = try CLI.run(["batch", list, "--jobs", "1", "--quiet"])
        #expect(clean.status == 0, "\(clean.stderr)")
        let expected = try (0..<2).map { try Self.samples(s.path("o\($0).wav")) }
        // Fill the folder, then damage the noise's entry.
        let first = try CLI.run(["batch", list, "--jobs", "1", "--cache-dir", cache])
        #expect(first.status == 0 && !first.stderr.contains("warning"), "\(first.stderr)")
        let entry = try Self.entry(for: sounds[0], in: cache), other = try Self.entry(for: sounds[1], in: cache)
        try corruption.apply(to: entry, other: other)

        let r = try CLI.run(["batch", list, "--jobs", "1", "--cache-dir", cache])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1, "\(r.stderr)")
        #expect(warnings.first?.hasPrefix("warning: cache entry '\(entry)' ") == true, "\(r.stderr)")
        #expect(warnings.first?.contains(corruption.reason) == true, "\(r.stderr)")
        #expect(warnings.first?.contains("prepared again from '\(sounds[0])'") == true, "\(r.stderr)")
        #expect(!r.stderr.contains("holds no audio"))
        // The output is the clean render's, sample for sample (float WAV: exact).
        for k in 0..<2 {
            let got = try Self.samples(s.path("o\(k).wav"))
            #expect(got.count == expected[k].count && got == expected[k], "job \(k) differs from the clean render")
        }
        let results = try Self.results(s.path("jobs.results.jsonl"))
        #expect(Self.fromCacheDir(results[0]) == 0 && Self.fromCacheDir(results[1]) == 1, "\(results)")
        // The entry was written again, whole: the next run reads both from the folder, with no warning.
        let again = try CLI.run(["batch", list, "--jobs", "1", "--cache-dir", cache])
        #expect(again.status == 0 && !again.stderr.contains("warning"), "\(again.stderr)")
        #expect(try Self.results(s.path("jobs.results.jsonl")).map { Self.fromCacheDir($0) } == [1, 1])
        #expect(try Self.samples(s.path("o0.wav")) == expected[0])
        #expect(try FileManager.default.attributesOfItem(atPath: entry)[.size] as? Int ?? 0 < 10_000_000)
    }

    /// An entry of the previous format (no checksum) is made again without a warning.
    @Test func anEntryOfThePreviousFormatIsMadeAgainQuietly() throws {
        let s = try TemporaryFolder()
        let (list, sounds) = try Self.setUp(s)
        let cache = s.path("cache")
        #expect(try CLI.run(["batch", list, "--cache-dir", cache, "--quiet"]).status == 0)
        let entry = try Self.entry(for: sounds[0], in: cache)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: entry)))
        bytes.replaceSubrange(0..<8, with: Array("MIXRPLN1".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: entry))
        let r = try CLI.run(["batch", list, "--cache-dir", cache])
        #expect(r.status == 0 && !r.stderr.contains("warning"), "\(r.stderr)")
        #expect(try Self.results(s.path("jobs.results.jsonl")).map { Self.fromCacheDir($0) } == [0, 1])
        #expect(try CLI.run(["batch", list, "--cache-dir", cache, "--quiet"]).status == 0)
        #expect(try Self.results(s.path("jobs.results.jsonl")).map { Self.fromCacheDir($0) } == [1, 1])
    }

    /// A huge sparse entry is refused under a memory limit far below its size: its header is checked against
    /// what the sound can hold before anything is allocated.
    @Test func aHugeEntryIsRefusedUnderAMemoryLimit() throws {
        let s = try TemporaryFolder()
        let (list, sounds) = try Self.setUp(s)
        let cache = s.path("cache")
        #expect(try CLI.run(["batch", list, "--jobs", "1", "--cache-dir", cache, "--quiet"]).status == 0)
        let expected = try Self.samples(s.path("o0.wav"))
        try Corruption.hugeSparse.apply(to: try Self.entry(for: sounds[0], in: cache), other: "")
        // 3 GB of address space: enough for the runtime, its threads and the render, not for 4 GB of entry.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", #"ulimit -v 3000000 && exec "$0" "$@""#, try CLI.executable.path, "batch", list, "--jobs", "1", "--cache-dir", cache]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(text)")
        #expect(text.contains(Corruption.hugeSparse.reason), "\(text)")
        #expect(try Self.samples(s.path("o0.wav")) == expected)
    }

    // MARK: - The folder's budget

    /// Four sounds of 1 s, stereo at 48 kHz once prepared (384 KB each): a 1 MiB folder holds two of them.
    static func fourSounds(_ s: TemporaryFolder) throws -> [String] {
        try (0..<4).map { k in
            let seed = UInt64(20 + k)
            let sound = try s.wav("s\(k).wav", rate: 44100, channels: 2, frames: 44100) { (i: Int, c: Int) -> Float in
                let unit: Double = SeededRandom.unit(seed: seed, stream: UInt64(c), index: UInt64(i))
                return Float(unit * 2 - 1) * 0.25
            }
            return try s.write("q\(k).json", """
                { "duration": 1.5, "output": { "bitDepth": "float" },
                  "tracks": [ { "file": "\(sound)", "loop": { "crossfade": 0.05 }, "gainDb": -3 },
                              { "tone": { "frequencyHz": \(300 + 40 * k) }, "gainDb": -20 } ] }
                """)
        }
    }

    static func folderBytes(_ folder: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".f32") || $0.hasSuffix(".txt") }
            .reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: folder + "/" + $1)[.size] as? Int) ?? 0) }
    }

    /// Two batches at once over one small cache folder, several rounds: entries are written, read and trimmed
    /// by both at the same time; every output must be the preset's render alone, and no entry may ever look
    /// damaged (a reader whose entry is trimmed meanwhile reads the file it opened, or makes it again).
    @Test func twoBatchesSharingASmallCacheFolderRenderWhatEachRendersAlone() throws {
        let s = try TemporaryFolder()
        let presets = try Self.fourSounds(s)
        var alone: [[Float]] = []
        for (k, preset) in presets.enumerated() {
            let r = try CLI.run(["render", preset, "-o", s.path("alone\(k).wav"), "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            alone.append(try Self.samples(s.path("alone\(k).wav")))
        }
        // Process A plays the sounds in order, process B in reverse, each twice.
        let orders = [[0, 1, 2, 3, 0, 1, 2, 3], [3, 2, 1, 0, 3, 2, 1, 0]]
        let lists = try orders.enumerated().map { p, order in
            try s.write("jobs\(p).jsonl", order.enumerated().map { j, k in
                #"{"preset": "q\#(k).json", "output": "out\#(p)-\#(j).wav"}"#
            }.joined(separator: "\n"))
        }
        let cache = s.path("cache")
        for round in 0..<3 {
            let runs = Locked<[Int: CLI.Result]>([:])
            DispatchQueue.concurrentPerform(iterations: 2) { p in
                let run = try? CLI.run(["batch", lists[p], "--jobs", "2", "--cache-dir", cache, "--cache-dir-mb", "1",
                                        "--cache-mb", "1"])
                runs.withLock { $0[p] = run }
            }
            for p in 0..<2 {
                let r = try #require(runs.withLock { $0[p] })
                #expect(r.status == 0, "round \(round), process \(p): \(r.stderr)")
                #expect(!r.stderr.contains("warning"), "round \(round), process \(p): \(r.stderr)")
                for (j, k) in orders[p].enumerated() {
                    let got = try Self.samples(s.path("out\(p)-\(j).wav"))
                    #expect(got.count == alone[k].count && got == alone[k], "round \(round), process \(p), job \(j)")
                }
            }
            #expect(try Self.folderBytes(cache) <= 1 << 20, "round \(round)")
        }
    }

    @Test func theFolderKeepsToItsBudgetLeastRecentlyUsedFirst() throws {
        let s = try TemporaryFolder()
        let presets = try Self.fourSounds(s)
        let cache = s.path("cache")
        func run(_ k: Int) throws -> Int? {
            let list = try s.write("one.jsonl", #"{"preset": "\#(presets[k])", "output": "o.wav"}"#)
            let r = try CLI.run(["batch", list, "--cache-dir", cache, "--cache-dir-mb", "1"])
            #expect(r.status == 0 && !r.stderr.contains("warning"), "\(r.stderr)")
            Thread.sleep(forTimeInterval: 0.05)   // file times are kept to the kernel's tick: keep uses apart
            return Self.fromCacheDir(try Self.results(s.path("one.results.jsonl"))[0])
        }
        #expect(try run(0) == 0)
        #expect(try run(1) == 0)
        #expect(try run(0) == 1)   // 0 is used again: 1 is now the least recently used
        #expect(try run(2) == 0)   // three do not fit: 1 goes
        #expect(try Self.folderBytes(cache) <= 1 << 20)
        #expect(try run(0) == 1)
        #expect(try run(2) == 1)
        #expect(try run(1) == 0)   // made again; 0 (used before 2) goes
        #expect(try run(2) == 1)
        #expect(try run(0) == 0)
    }

    /// `--cache-mb` bounds what running jobs hold: with 0, jobs that prepare sounds take turns (none can hold
    /// anything while another does), and a job whose sounds alone pass the budget still runs; nothing deadlocks.
    @Test func aMemoryBudgetSmallerThanEveryJobStillRendersEveryJob() throws {
        let s = try TemporaryFolder()
        let presets = try Self.fourSounds(s)
        var alone: [[Float]] = []
        for (k, preset) in presets.enumerated() {
            #expect(try CLI.run(["render", preset, "-o", s.path("alone\(k).wav"), "--quiet"]).status == 0)
            alone.append(try Self.samples(s.path("alone\(k).wav")))
        }
        let list = try s.write("jobs.jsonl", (0..<8).map { #"{"preset": "q\#($0 % 4).json", "output": "o\#($0).wav"}"# }.joined(separator: "\n"))
        for budget in ["0", "1"] {
            let r = try CLI.run(["batch", list, "--jobs", "3", "--cache-mb", budget])
            #expect(r.status == 0, "\(budget): \(r.stderr)")
            for j in 0..<8 { #expect(try Self.samples(s.path("o\(j).wav")) == alone[j % 4], "--cache-mb \(budget), job \(j)") }
        }
    }

    @Test func theFolderBudgetIsChecked() throws {
        let s = try TemporaryFolder()
        let (list, _) = try Self.setUp(s)
        for value in ["0", "-5", "2000000000"] {
            let r = try CLI.run(["batch", list, "--cache-dir", s.path("c"), "--cache-dir-mb", value])
            #expect(r.status != 0 && r.stderr.hasPrefix("Error: --cache-dir-mb must be between 1 and 1073741824"), "\(value): \(r.stderr)")
        }
    }
}
