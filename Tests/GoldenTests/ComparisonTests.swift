import DSPTestSupport
import Foundation
import MixDSP
import MixIO
import Testing

/// The comparison tiers themselves: each must pass what is the same and fail what is not.
@Suite struct ComparisonTests {
    /// Seeded uniform noise, interleaved.
    static func noise(frames: Int, channels: Int, rate: Int = 48000, level: Float = 0.3, seed: UInt64 = 1) -> PCMAudio {
        var noise = TestSignals.Noise(seed: seed)
        // Uniform in [-1, 1) from the top 24 bits.
        let samples = (0..<(frames * channels)).map { _ in level * (Float(noise.next() >> 40) / Float(1 << 24) * 2 - 1) }
        return PCMAudio(sampleRate: rate, channelCount: channels, samples: samples)
    }

    static func scaled(_ audio: PCMAudio, db: Double) -> PCMAudio {
        var out = audio
        let g = Float(gain(fromDecibels: db))
        for i in out.samples.indices { out.samples[i] *= g }
        return out
    }

    // MARK: exact and lossless

    @Test func exactTierNamesEveryShapeDifference() {
        let a = Self.noise(frames: 100, channels: 2)
        #expect(ExactTier.mismatches(actual: a, golden: a).isEmpty)
        let b = PCMAudio(sampleRate: 44100, channelCount: 1, samples: Array(a.samples[0..<99]))
        let problems = ExactTier.mismatches(actual: a, golden: b)
        #expect(problems.count == 3, "\(problems)")
    }

    @Test func losslessTierPassesTheGoldensOwn24BitRounding() throws {
        let folder = try TemporaryFolder()
        let a = Self.noise(frames: 48000, channels: 2, level: 0.9)
        let path = folder.path("a.flac")
        try a.write(to: path, format: .flac, sampleFormat: .pcm24)
        let back = try PCMAudio.decode(path: path)
        #expect(ExactTier.mismatches(actual: a, golden: back).isEmpty)
        let d = LosslessTier.compare(actual: a, golden: back)
        #expect(d.maxAbs > 0 && d.maxAbs <= 1.0 / 8_388_608, "24-bit rounding is at most one step: \(d)")
        #expect(d.isWithinThresholds, "\(d)")
        // The estimate of what 24-bit rounding allows is close to what the round trip shows.
        #expect(abs(d.snrDb - LosslessTier.roundingSNRDb(of: a)) < 2, "rounding SNR estimate: \(LosslessTier.roundingSNRDb(of: a))")
        // The same 35 dB quieter (about -41 dBFS RMS): the SNR threshold still holds.
        let quiet = Self.scaled(a, db: -35)
        try quiet.write(to: path, format: .flac, sampleFormat: .pcm24)
        let q = LosslessTier.compare(actual: quiet, golden: try PCMAudio.decode(path: path))
        #expect(q.isWithinThresholds, "\(q)")
    }

    @Test func losslessTierMeasuresWhatChanged() {
        let a = Self.noise(frames: 10000, channels: 2)
        let same = LosslessTier.compare(actual: a, golden: a)
        #expect(same.maxAbs == 0 && same.snrDb == .infinity && same.isWithinThresholds)

        // 0.5 dB quieter: SNR = -20 log10(1 - 10^(-0.5/20)) = 25.05 dB.
        let quieter = LosslessTier.compare(actual: Self.scaled(a, db: -0.5), golden: a)
        #expect(abs(quieter.snrDb - 25.05) < 0.01, "\(quieter)")
        #expect(!quieter.isWithinThresholds)

        // One sample off by 2e-6: beyond the max-difference threshold although the SNR is huge.
        var b = a
        b.samples[777] += 2e-6
        let one = LosslessTier.compare(actual: b, golden: a)
        #expect(one.frame == 388 && one.channel == 1)
        #expect(one.snrDb > 100 && !one.isWithinThresholds, "\(one)")

        let diff = LosslessTier.difference(actual: b, golden: a)
        #expect(diff.samples.filter { $0 != 0 }.count == 1)
    }

    // MARK: lossy (spectral)

    @Test func bandLevelsReadASineAtItsLevel() {
        let rate = 48000
        let samples = TestSignals.sine(frequency: 1000, amplitude: 0.5, rate: rate, frames: rate)
        let levels = SpectralTier.analyse(PCMAudio(sampleRate: rate, channelCount: 1, samples: samples))
        let band = levels.centres.firstIndex { abs($0 - 1000) < 1 }!
        for segment in levels.levels {
            // A 0.5 sine: mean square 0.125, -9.03 dB; its neighbours are far below.
            #expect(abs(segment[0][band] - (-9.03)) < 0.1, "\(segment[0][band])")
            #expect(segment[0][band + 2] < -40 && segment[0][band - 2] < -40)
        }
        #expect(levels.centres.first! > 99 && levels.centres.last! <= 16_000)
    }

    @Test func spectralTierPassesTheSameAndFailsAHalfDecibelDrop() {
        let a = Self.noise(frames: 96000, channels: 2)
        let same = SpectralTier.compare(actual: a, golden: a)
        #expect(same.isWithinThresholds && same.maxAbsDb == 0, "\(same)")
        let drop = SpectralTier.compare(actual: Self.scaled(a, db: -0.5), golden: a)
        #expect(abs(drop.meanDb + 0.5) < 0.01 && !drop.isWithinThresholds, "\(drop)")
        // Half the bandwidth gone: the mean moves little, the largest difference a lot.
        var lowpassed = a
        for i in stride(from: 2, to: a.samples.count, by: 1) {
            lowpassed.samples[i] = (a.samples[i] + a.samples[i - 2]) / 2
        }
        #expect(!SpectralTier.compare(actual: lowpassed, golden: a).isWithinThresholds)
    }

    @Test func spectralTierToleratesVorbisCodingNoiseOfTheSameSignal() throws {
        // The same noise encoded at two qualities: what a different libvorbis might do, and more.
        let folder = try TemporaryFolder()
        let a = Self.noise(frames: 96000, channels: 2, level: 0.2)
        let p1 = folder.path("q4.ogg"), p2 = folder.path("q5.ogg")
        try a.write(to: p1, format: .oggVorbis, vorbisQuality: 0.4)
        try a.write(to: p2, format: .oggVorbis, vorbisQuality: 0.5)
        let d = SpectralTier.compare(actual: try PCMAudio.decode(path: p2), golden: try PCMAudio.decode(path: p1))
        #expect(d.isWithinThresholds, "\(d)")
    }

    // MARK: JSON

    @Test func jsonNumbersIgnoreSpellingOrderAndSpacing() throws {
        let golden = try JSONNumbers.parse(#"{"a": 1, "b": [1.5, -2e-3, true, "x", null], "c": {"d": 0.1}}"#)
        let actual = try JSONNumbers.parse(#"{ "c" : { "d" : 1e-1 }, "b":[1.50,-0.002,true,"x",null],"a":1.0 }"#)
        #expect(JSONNumbers.differences(actual: actual, golden: golden).isEmpty)
    }

    @Test func jsonNumbersHonourTheTolerance() throws {
        let golden = try JSONNumbers.parse(#"{"peakDb": -1.0, "frames": [100, 200]}"#)
        let close = try JSONNumbers.parse(#"{"peakDb": -1.0004, "frames": [100, 200]}"#)
        let far = try JSONNumbers.parse(#"{"peakDb": -1.002, "frames": [100, 201]}"#)
        let tolerance = JSONNumbers.Tolerance(absolute: 1e-3, relative: 0)
        #expect(JSONNumbers.differences(actual: close, golden: golden, tolerance: tolerance).isEmpty)
        let problems = JSONNumbers.differences(actual: far, golden: golden, tolerance: tolerance)
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("$.peakDb:") } && problems.contains { $0.hasPrefix("$.frames[1]:") })
        // Relative tolerance scales with the golden.
        let relative = JSONNumbers.Tolerance(absolute: 0, relative: 0.01)
        #expect(JSONNumbers.differences(actual: try JSONNumbers.parse("1005"), golden: try JSONNumbers.parse("1000"),
                                        tolerance: relative).isEmpty)
        #expect(!JSONNumbers.differences(actual: try JSONNumbers.parse("1011"), golden: try JSONNumbers.parse("1000"),
                                         tolerance: relative).isEmpty)
    }

    @Test func jsonNumbersReportStructureChanges() throws {
        let golden = try JSONNumbers.parse(#"{"a": 1, "b": [1, 2, 3], "flag": true, "name": "x"}"#)
        let actual = try JSONNumbers.parse(#"{"b": [1, 2], "c": 3, "flag": 1, "name": "y"}"#)
        let problems = JSONNumbers.differences(actual: actual, golden: golden)
        #expect(problems.contains("$.a: missing (the golden has it)"), "\(problems)")
        #expect(problems.contains("$.c: not in the golden"), "\(problems)")
        #expect(problems.contains("$.b: 2 elements, golden 3"), "\(problems)")
        #expect(problems.contains("$.flag: a number, golden a Boolean"), "\(problems)")
        #expect(problems.contains { $0.hasPrefix("$.name:") }, "\(problems)")
    }

    // MARK: recording

    @Test func recordingIsOnlyWhatTheVariableAsks() {
        #expect(!GoldenPaths.isRecording("night-start", setting: nil))
        #expect(!GoldenPaths.isRecording("night-start", setting: ""))
        #expect(!GoldenPaths.isRecording("night-start", setting: "0"))
        #expect(GoldenPaths.isRecording("night-start", setting: "1"))
        #expect(GoldenPaths.isRecording("night-start", setting: "all"))
        #expect(GoldenPaths.isRecording("night-start", setting: "limiter, night-start"))
        #expect(!GoldenPaths.isRecording("night-start", setting: "night-end,limiter"))
    }
}
