import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// `mixrender join`: windows of one render, rendered separately with `--start`/`--end`, join into the full render;
/// parts join sample-exactly; what cannot be joined is refused with one line naming the file, and nothing is written.
@Suite struct JoinCLITests {
    // MARK: - Helpers

    /// Every sample of a lossless integer file as libsndfile's `sf_readf_int` gives it (full scale
    /// `Int32.min...Int32.max`: a 16-bit sample x is x << 16, a 24-bit one x << 8), with its info.
    func integers(_ path: String) throws -> (info: AudioFileInfo, samples: [Int32]) {
        let reader = try SoundFileReader(path: path)
        let channels = reader.info.channelCount
        var samples: [Int32] = []
        var buffer = [Int32](repeating: 0, count: 4096 * channels)
        while true {
            let count = try reader.readIntegers(into: &buffer, frames: 4096)
            if count == 0 { return (reader.info, samples) }
            samples += buffer[0..<(count * channels)]
        }
    }

    /// A part of `frames` frames holding integer samples `value(i)` (full-scale `Int32`, the bits below the
    /// depth dropped), written as integers so the file holds exactly them.
    func integerPart(_ s: TemporaryFolder, _ name: String, depth: OutputSampleFormat, rate: Int = 48_000, channels: Int = 2,
                     frames: Int, _ value: (Int) -> Int32) throws -> [Int32] {
        let format = OutputFileFormat.from(path: name)!
        let writer = try SoundFileWriter(path: s.path(name), settings: OutputSettings(format: format, sampleRate: rate, channelCount: channels, sampleFormat: depth))
        let mask: Int32 = depth == .pcm16 ? Int32(bitPattern: 0xFFFF_0000) : Int32(bitPattern: 0xFFFF_FF00)
        let samples = (0..<(frames * channels)).map { value($0) & mask }
        try samples.withUnsafeBufferPointer { try writer.write(interleavedIntegers: $0.baseAddress!, frames: frames) }
        try writer.finish()
        return samples
    }

    /// Deterministic full-range integers (a counter-based hash, SplitMix64), with both extremes of the range at
    /// the start of each part.
    static func noise(seed: UInt64) -> (Int) -> Int32 {
        { i in
            if i == 0 { return Int32.max }
            if i == 1 { return Int32.min }
            var z = seed &+ UInt64(i) &* 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int32(truncatingIfNeeded: z ^ (z >> 31))
        }
    }

    func run(_ arguments: [String]) throws -> CLI.Result { try CLI.run(["join"] + arguments) }

    /// The four windows' boundaries: uneven, and times that fall between frames (rounded as the renderer rounds).
    static let boundaries = ["0", "5.123457", "11.5", "17.000011", "24"]

    /// Renders `preset` whole to `full` and in four windows, joins the windows into `joined`; returns the
    /// full render's summary.
    func renderWholeAndInWindows(_ s: TemporaryFolder, preset: String, ext: String, boundaries: [String] = boundaries) throws -> String {
        let full = try CLI.run([preset, "-o", s.path("full.\(ext)")])
        #expect(full.status == 0, "\(full.stderr)")
        var parts: [String] = []
        for i in 0..<4 {
            let part = s.path("part\(i + 1).\(ext)")
            let r = try CLI.run([preset, "-o", part, "--start", boundaries[i], "--end", boundaries[i + 1], "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            parts.append(part)
        }
        let joined = try run(parts + ["-o", s.path("joined.\(ext)")])
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(joined.stdout.hasPrefix("joined 4 parts into \(s.path("joined.\(ext)")): \(24 * 48_000) frames"), "\(joined.stdout)")
        return full.stdout
    }

    // MARK: - Windows of a render join into the full render

    /// A quiet mix (tone, pink noise, rain; peaks far below the ceiling): the limiter never acts, every
    /// frame is computed from its position, so the joined windows are the full render, bit for bit.
    @Test(arguments: [("flac", 16), ("wav", 24)])
    func windowsJoinBitExactlyWhereTheLimiterIsIdle(ext: String, bits: Int) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("quiet.json", """
            { "duration": "24s", "output": { "sampleRate": 48000, "channels": 2, "bitDepth": \(bits) },
              "master": { "fadeIn": "3s", "fadeOut": "4s" },
              "tracks": [
                { "tone": { "frequencyHz": 220 }, "gainDb": -6, "pan": -0.3 },
                { "generator": { "type": "pink", "seed": 7 }, "gainDb": -12 },
                { "rain": { "intensity": 0.5, "seed": 3 }, "gainDb": -6, "fadeIn": "5s" }
              ] }
            """)
        let summary = try renderWholeAndInWindows(s, preset: preset, ext: ext)
        #expect(summary.contains("limiter   idle"), "the limiter acted: \(summary)")
        let full = try integers(s.path("full.\(ext)")), joined = try integers(s.path("joined.\(ext)"))
        #expect(joined.info.frameCount == 24 * 48_000 && joined.info.sampleRate == 48_000 && joined.info.channelCount == 2)
        #expect(joined.info.formatName == full.info.formatName)
        #expect(joined.samples.count == full.samples.count)
        let differing = zip(joined.samples, full.samples).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) samples differ")
    }

    /// Where the limiter acts, a window's render warms the limiter up on the frames before it
    /// (`Renderer.warmUpFrames`: look-ahead + 10 release time constants), starting from unity gain, while the full
    /// render's limiter may still be releasing there from earlier peaks. From the warm-up's start both limiters see
    /// the same mix, and their gains either fall together to the same needed gain or release towards it with the
    /// same one-pole filter: the difference in gain never grows, and shrinks by exp(-1/(release·rate)) a frame, so
    /// at the window's start it is at most (1 - g)·e^-10 for the gain g the full render had at the warm-up's start,
    /// g ≥ gMin = 10^(-R/20) for the deepest reduction R (read from the full render's summary). On a sample
    /// x ≤ ceiling/gMin that is at most (10^(R/20) - 1)·e^-10·ceiling, plus one 24-bit step for the two roundings;
    /// it dies away within a few release time constants.
    ///
    /// `continuous`: noise 12 dB over the ceiling all along; the limiter acts at every window's warm-up, so both
    /// limiters fall to the same gain and agree exactly (measured: 0 samples differ, at 11.2 dB of reduction).
    /// `releasing`: the noise stops at 5 s and a tone under the ceiling goes on; the window from 7.2 s warms up from
    /// 5.195 s, while the full render's limiter is still releasing, so the difference is there to measure.
    @Test(arguments: ["continuous", "releasing"])
    func windowsJoinWithinTheLimitersWarmUpBoundWhereItActs(shape: String) throws {
        let s = try TemporaryFolder()
        let ceilingDb = -1.0, releaseMs = 200.0
        let noiseEnd = shape == "releasing" ? #", "end": "5s""# : ""
        let preset = try s.write("loud.json", """
            { "duration": "24s", "output": { "sampleRate": 48000, "channels": 2, "bitDepth": 24 },
              "master": { "limiter": { "ceilingDb": \(ceilingDb), "lookaheadMs": 5, "releaseMs": \(releaseMs) } },
              "tracks": [
                { "generator": { "type": "pink", "seed": 11 }, "gainDb": 12\(noiseEnd) },
                { "generator": { "type": "brown", "seed": 12 }, "gainDb": 6\(noiseEnd) },
                { "tone": { "frequencyHz": 110 }, "gainDb": 9 }
              ] }
            """)
        let boundaries = shape == "releasing" ? ["0", "7.2", "12.5", "18", "24"] : Self.boundaries
        let summary = try renderWholeAndInWindows(s, preset: preset, ext: "wav", boundaries: boundaries)
        // "limiter   mix peaked at +13.2 dBFS; reduced up to 14.2 dB for 23.91 s"
        let line = try #require(summary.split(separator: "\n").first { $0.hasPrefix("limiter ") && !$0.contains("idle") },
                                "the limiter did not act: \(summary)")
        let words = line.split(separator: " ")
        let reductionDb = try #require(words.firstIndex(of: "up").flatMap { Double(words[$0 + 2]) })
        let lsb = 1.0 / 8_388_608
        let bound = (pow(10, reductionDb / 20) - 1) * exp(-10) * pow(10, ceilingDb / 20) + lsb
        let full = try integers(s.path("full.wav")), joined = try integers(s.path("joined.wav"))
        #expect(joined.samples.count == full.samples.count)
        var maxDifference = 0.0, differing = 0, lastDiffering = 0
        for (i, (a, b)) in zip(joined.samples, full.samples).enumerated() where a != b {
            differing += 1
            lastDiffering = i / 2
            maxDifference = max(maxDifference, abs(Double(a) - Double(b)) / 2_147_483_648)
        }
        print("join, \(shape) limiting (reduced up to \(reductionDb) dB): \(differing) samples differ, max \(maxDifference) "
              + "(\(maxDifference / lsb) LSB at 24 bits), last at frame \(lastDiffering); bound \(bound) (\(bound / lsb) LSB)")
        #expect(maxDifference <= bound, "max difference \(maxDifference) over the bound \(bound)")
        // The difference dies away: nothing differs past 12.5 release time constants (e^-22.5) after a window's start.
        let starts = boundaries.dropFirst().dropLast().map { Int((Double($0)! * 48_000).rounded()) }
        let settle = Int(12.5 * releaseMs / 1000 * 48_000)
        for (i, (a, b)) in zip(joined.samples, full.samples).enumerated() where a != b {
            let frame = i / 2
            #expect(starts.contains { frame >= $0 && frame < $0 + settle }, "frame \(frame) differs, far from any window's start")
        }
    }

    // MARK: - Sample-exact joins of parts

    /// 16-bit and 24-bit parts of full-range noise (both extremes included) join into every lossless format
    /// with exactly their integers: no float round trip, no ×32767 against /32768.
    @Test(arguments: [(OutputSampleFormat.pcm16, "flac"), (.pcm16, "wav"), (.pcm16, "aiff"), (.pcm16, "caf"),
                      (.pcm24, "flac"), (.pcm24, "wav"), (.pcm24, "aiff"), (.pcm24, "caf")])
    func integerPartsJoinBitExactly(depth: OutputSampleFormat, ext: String) throws {
        let s = try TemporaryFolder()
        var expected: [Int32] = []
        var parts: [String] = []
        for (i, partExt) in ["flac", "wav", "aiff", "caf"].enumerated() {
            let name = "p\(i).\(partExt)"
            // libsndfile 1.2.0's 24-bit ALAC encoder corrupts blocks of loud noise (past about -6 dBFS; FFmpeg decodes
            // the same garbage): the 24-bit CAF part is 12 dB down, and 24-bit CAF output is refused (below).
            let noise = Self.noise(seed: UInt64(i))
            let quieter: (Int) -> Int32 = partExt == "caf" && depth == .pcm24 ? { noise($0) >> 2 } : noise
            expected += try integerPart(s, name, depth: depth, frames: 5000 + 777 * i, quieter)
            parts.append(s.path(name))
        }
        if ext == "caf" && depth == .pcm24 {
            let before = s.contents
            expectRefused(try run(parts + ["-o", s.path("out.caf")]), s, before: before,
                          "cannot write '\(s.path("out.caf"))': 24-bit ALAC in more than one channel is refused")
            return
        }
        let r = try run(parts + ["-o", s.path("out.\(ext)"), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        let out = try integers(s.path("out.\(ext)"))
        #expect(out.info.formatName.contains(depth == .pcm16 ? "16" : "24") || ext == "caf", "\(out.info.formatName)")
        #expect(out.samples.count == expected.count)
        #expect(zip(out.samples, expected).filter { $0 != $1 }.count == 0)
        #expect(s.contents == ["out.\(ext)", "p0.flac", "p1.wav", "p2.aiff", "p3.caf"])
    }

    /// 16-bit parts among 24-bit ones are widened (a shift: exact), and the output is 24-bit.
    @Test func sixteenBitPartsAmongTwentyFourBitOnesAreWidenedExactly() throws {
        let s = try TemporaryFolder()
        let a = try integerPart(s, "a.wav", depth: .pcm16, frames: 3000, Self.noise(seed: 1))
        let b = try integerPart(s, "b.flac", depth: .pcm24, frames: 4000, Self.noise(seed: 2))
        let r = try run([s.path("a.wav"), s.path("b.flac"), "-o", s.path("out.wav")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("24-bit"), "\(r.stdout)")
        let out = try integers(s.path("out.wav"))
        #expect(out.info.formatName == "WAV 24-bit PCM")
        #expect(out.samples.count == a.count + b.count)
        #expect(zip(out.samples, a + b).filter { $0 != $1 }.count == 0)
    }

    /// Float parts join as floats, bit for bit (libsndfile does not scale float to float).
    @Test func floatPartsJoinBitExactly() throws {
        let s = try TemporaryFolder()
        let f: (Int, Int) -> Float = { i, c in Float(sin(Double(i) * 0.01 + Double(c))) * 1.5 }   // past full scale too
        let a = try s.wav("a.wav", channels: 2, frames: 4100, f)
        let b = try s.wav("b.wav", channels: 2, frames: 3900) { i, c in f(i + 4100, c) }
        let r = try run([a, b, "-o", s.path("out.wav")])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try readAll(try AudioFile.open(path: s.path("out.wav")))
        let expected = try readAll(try AudioFile.open(path: a)) + readAll(try AudioFile.open(path: b))
        #expect(out.count == expected.count)
        #expect(zip(out, expected).filter { $0.bitPattern != $1.bitPattern }.count == 0)
        // FLAC cannot hold float: refused before anything is written.
        let flac = try run([a, b, "-o", s.path("out.flac")])
        #expect(flac.status != 0)
        #expect(flac.stderr.contains("32-bit float samples, which FLAC cannot store"), "\(flac.stderr)")
        #expect(!s.contents.contains("out.flac"))
    }

    // MARK: - Refusals: one line naming the file, non-zero exit, nothing written

    func expectRefused(_ r: CLI.Result, _ s: TemporaryFolder, before: [String], _ words: String...) {
        #expect(r.status != 0)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        for w in words { #expect(r.stderr.contains(w), "expected '\(w)' in: \(r.stderr)") }
        #expect(s.contents == before, "something was written")
    }

    @Test func partsOfAnotherRateOrChannelCountAreRefused() throws {
        let s = try TemporaryFolder()
        _ = try integerPart(s, "part1.flac", depth: .pcm16, rate: 48_000, frames: 1000, Self.noise(seed: 1))
        _ = try integerPart(s, "part2.flac", depth: .pcm16, rate: 48_000, frames: 1000, Self.noise(seed: 2))
        _ = try integerPart(s, "part3.flac", depth: .pcm16, rate: 44_100, frames: 1000, Self.noise(seed: 3))
        _ = try integerPart(s, "mono.flac", depth: .pcm16, channels: 1, frames: 1000, Self.noise(seed: 4))
        let before = s.contents
        let rate = try run([s.path("part1.flac"), s.path("part2.flac"), s.path("part3.flac"), "-o", s.path("out.flac")])
        expectRefused(rate, s, before: before,
                      "cannot join '\(s.path("part3.flac"))': 44100 Hz, but '\(s.path("part1.flac"))' is 48000 Hz; parts must share rate and channels")
        let channels = try run([s.path("part1.flac"), s.path("mono.flac"), "-o", s.path("out.flac")])
        expectRefused(channels, s, before: before,
                      "cannot join '\(s.path("mono.flac"))': 1 channel, but '\(s.path("part1.flac"))' is 2 channels; parts must share rate and channels")
    }

    @Test func lossyPartsAndOutputsAreRefused() throws {
        let s = try TemporaryFolder()
        _ = try integerPart(s, "part1.flac", depth: .pcm16, frames: 1000, Self.noise(seed: 1))
        let mp3 = try s.mp3("part2.mp3", rate: 48_000, channels: 2, frames: 48_000) { i, _ in Float(sin(Double(i) * 0.05)) * 0.3 }
        // An MP3 under a lossless name: refused by its contents, not its name.
        try FileManager.default.copyItem(atPath: mp3, toPath: s.path("disguised.wav"))
        let before = s.contents
        expectRefused(try run([s.path("part1.flac"), mp3, "-o", s.path("out.flac")]), s, before: before,
                      "cannot join '\(mp3)': MP3 is lossy", "encoder delay and padding", "not sample-exact")
        expectRefused(try run([s.path("part1.flac"), s.path("disguised.wav"), "-o", s.path("out.flac")]), s, before: before,
                      "cannot join '\(s.path("disguised.wav"))'", "is lossy")
        expectRefused(try run([s.path("part1.flac"), "-o", s.path("out.ogg")]), s, before: before,
                      "cannot write '\(s.path("out.ogg"))': Ogg Vorbis is lossy", "keep every sample")
        expectRefused(try run([s.path("part1.flac"), "-o", s.path("out.txt")]), s, before: before,
                      "cannot write '\(s.path("out.txt"))': unknown extension")
    }

    @Test func anOutputThatIsOneOfThePartsIsRefused() throws {
        let s = try TemporaryFolder()
        let one = try integerPart(s, "part1.flac", depth: .pcm16, frames: 1000, Self.noise(seed: 1))
        _ = try integerPart(s, "part2.flac", depth: .pcm16, frames: 1000, Self.noise(seed: 2))
        // The same file under another name (a hard link): refused by identity, not by spelling.
        try FileManager.default.linkItem(atPath: s.path("part1.flac"), toPath: s.path("link.flac"))
        let before = s.contents
        expectRefused(try run([s.path("part1.flac"), s.path("part2.flac"), "-o", s.path("link.flac")]), s, before: before,
                      "cannot write '\(s.path("link.flac"))': the output is one of the parts ('\(s.path("part1.flac"))')")
        #expect(try integers(s.path("part1.flac")).samples.elementsEqual(one))
    }

    @Test func missingBrokenAndCutShortPartsAreRefusedWithNothingWritten() throws {
        let s = try TemporaryFolder()
        _ = try integerPart(s, "part1.flac", depth: .pcm16, frames: 48_000, Self.noise(seed: 1))
        _ = try integerPart(s, "cut.flac", depth: .pcm16, frames: 96_000, Self.noise(seed: 2))
        _ = try integerPart(s, "cut.wav", depth: .pcm24, frames: 96_000, Self.noise(seed: 3))
        _ = try integerPart(s, "cut.aiff", depth: .pcm16, frames: 96_000, Self.noise(seed: 4))
        // RF64, as a WAV past 4 GiB is written (forced here by announcing that many frames).
        var rf64 = OutputSettings(format: .wav, sampleRate: 48_000, channelCount: 2, sampleFormat: .pcm16)
        rf64.expectedFrameCount = 1 << 30
        let rf64Writer = try SoundFileWriter(path: s.path("cut-rf64.wav"), settings: rf64)
        let rf64Samples = (0..<(96_000 * 2)).map { Self.noise(seed: 5)($0) & Int32(bitPattern: 0xFFFF_0000) }
        try rf64Samples.withUnsafeBufferPointer { try rf64Writer.write(interleavedIntegers: $0.baseAddress!, frames: 96_000) }
        try rf64Writer.finish()
        #expect(try AudioFileInfo.read(path: s.path("cut-rf64.wav")).formatName.hasPrefix("RF64"))
        // Cut short as an interrupted copy leaves them: the headers still announce 96000 frames.
        for name in ["cut.flac", "cut.wav", "cut.aiff", "cut-rf64.wav"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: s.path(name)))
            try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: s.path(name)))
        }
        var garbage = SeededBytes(seed: 9)
        try Data((0..<50_000).map { _ in garbage.next() }).write(to: URL(fileURLWithPath: s.path("garbage.wav")))
        let before = s.contents
        let part1 = s.path("part1.flac")
        expectRefused(try run([part1, s.path("nowhere.flac"), "-o", s.path("out.flac")]), s, before: before,
                      "'\(s.path("nowhere.flac"))'", "no such file")
        expectRefused(try run([part1, s.path("garbage.wav"), "-o", s.path("out.flac")]), s, before: before,
                      "'\(s.path("garbage.wav"))'")
        // A FLAC cut short opens (its header is whole) and fails while it is copied: the half-written output goes.
        expectRefused(try run([part1, s.path("cut.flac"), "-o", s.path("out.flac")]), s, before: before,
                      "'\(s.path("cut.flac"))'")
        // A WAV cut short reads without an error as far as it goes; its header says it was longer.
        expectRefused(try run([part1, s.path("cut.wav"), "-o", s.path("out.wav")]), s, before: before,
                      "cannot join '\(s.path("cut.wav"))': the file is cut short")
        for name in ["cut.aiff", "cut-rf64.wav"] {
            expectRefused(try run([part1, s.path(name), "-o", s.path("out.wav")]), s, before: before,
                          "cannot join '\(s.path(name))': the file is cut short")
        }
        let none = try run(["-o", s.path("out.flac")])
        expectRefused(none, s, before: before, "at least one part")
    }
}

/// Bytes from a seeded generator (SplitMix64), for files of garbage.
struct SeededBytes {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt8 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return UInt8(truncatingIfNeeded: z ^ (z >> 31))
    }
}
