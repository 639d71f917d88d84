import DSPTestSupport
import MixDSP
import Testing

@Suite struct WindGeneratorTests {
    func wind(_ intensity: Double = 0.8, seed: UInt64 = 2, rate: Int = 48_000, channels: Int = 2,
              gustiness: Double = 0.5, whistle: Double? = nil) -> WindGenerator {
        WindGenerator(intensity: intensity, gustiness: gustiness, whistle: whistle, seed: seed, sampleRate: rate,
                      channelCount: channels)
    }

    /// At intensity 1 (gustiness ½) the long-run level is -18 dBFS RMS within 1 dB: 10 minutes, three seeds.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func levelAtIntensityOneIsMinus18dBFS(seed: UInt64) throws {
        let out = try GeneratorTesting.render(wind(1, seed: seed, channels: 1), frames: 600 * 48_000)
        let level = dB(rms(out[0]))
        #expect(abs(level - -18) < 1, "seed \(seed): \(level) dBFS")
    }

    @Test func sameSeedSameWindOtherSeedOtherWind() throws {
        let a = try GeneratorTesting.render(wind(seed: 7), frames: 96_000)
        let b = try GeneratorTesting.render(wind(seed: 7), frames: 96_000)
        let other = try GeneratorTesting.render(wind(seed: 8), frames: 96_000)
        #expect(a == b)
        let differing = zip(a[0], other[0]).filter { $0 != $1 }.count
        #expect(differing > 95_000, "only \(differing) of 96000 samples differ with another seed")
    }

    /// Block sizes, backwards blocks and a start inside the next epoch's warm-up (at 8 kHz: epochs of
    /// 32000 frames, warm-ups of 4000) all give the same samples, bit for bit.
    @Test(arguments: [1, 2])
    func sameSamplesForAnyBlocksAndStarts(channels: Int) throws {
        try GeneratorTesting.expectSameSamplesForAnyBlocks(wind(1, rate: 8000, channels: channels), frames: 140_000,
                                                           partialStart: 124_321)
    }

    @Test func partialRendersAreSlicesOfTheWhole() throws {
        let whole = try GeneratorTesting.render(wind(1, rate: 8000), frames: 3 * 32_000 + 20_000)
        for start in [1, 31_999, 32_000, 60_001, 63_999, 3 * 32_000 + 17] {
            let part = try GeneratorTesting.render(wind(1, rate: 8000), at: Int64(start), frames: 2000, blockFrames: 512)
            for c in 0..<2 { #expect(part[c] == Array(whole[c][start..<(start + 2000)]), "from \(start), channel \(c)") }
        }
    }

    /// The handover at an epoch boundary leaves no step: the largest sample-to-sample step across three
    /// boundaries is no larger than anywhere else.
    @Test func epochBoundariesAreSeamless() throws {
        let out = try GeneratorTesting.render(wind(1, rate: 8000, channels: 1), frames: 3 * 32_000 + 100)[0]
        func step(_ i: Int) -> Float { abs(out[i] - out[i - 1]) }
        let typical = (1..<out.count).map(step).max()!
        for boundary in [32_000, 64_000, 96_000] { #expect(step(boundary) <= typical) }
    }

    /// Gusts: the level in 1-second windows swings by more than 8 dB over two minutes (plain noise: well
    /// under 1 dB), and brightness moves with it (gusts are brighter).
    @Test func energyMovesOverTime() throws {
        let rate = 48_000
        let x = try GeneratorTesting.render(wind(0.8, channels: 1), frames: 120 * rate)[0]
        let levels = SoundscapeMeasures.windowLevels(x, window: rate)
        let bright = SoundscapeMeasures.windowBrightness(x, window: rate)
        let swing = levels.max()! - levels.min()!
        #expect(swing > 8, "level swing \(swing) dB")
        #expect(bright.max()! > 1.5 * bright.min()!, "brightness from \(bright.min()!) to \(bright.max()!)")
        let r = SoundscapeMeasures.correlation(levels.map { Float($0) }, bright.map { Float($0) })
        #expect(r > 0.5, "level and brightness correlation \(r)")

        let white = try GeneratorTesting.render(NoiseGenerator(color: .white, seed: 2, channelCount: 1), frames: 120 * rate)[0]
        let flat = SoundscapeMeasures.windowLevels(white, window: rate)
        #expect(flat.max()! - flat.min()! < 1)

        let steady = try GeneratorTesting.render(wind(0.8, channels: 1, gustiness: 0), frames: 120 * rate)[0]
        let steadyLevels = SoundscapeMeasures.windowLevels(steady, window: rate)
        #expect(steadyLevels.max()! - steadyLevels.min()! < swing / 2)
    }

    /// The channels are decorrelated (each its own noise).
    @Test func channelsAreDecorrelated() throws {
        let out = try GeneratorTesting.render(wind(0.8), frames: 10 * 48_000)
        let r = SoundscapeMeasures.correlation(out[0], out[1])
        #expect(abs(r) < 0.2, "correlation \(r)")
    }

    /// The whistle adds its tone in the gusts: the same wind has more in the whistle's octaves (1 to 4 kHz) with it.
    @Test func whistleAddsEnergyInGusts() throws {
        let rate = 48_000
        let plain = try WindGeneratorTests.statistics(GeneratorTesting.render(wind(1, channels: 1, whistle: 0), frames: 60 * rate), rate: rate)
        let whistling = try WindGeneratorTests.statistics(GeneratorTesting.render(wind(1, channels: 1, whistle: 1), frames: 60 * rate), rate: rate)
        let gain = dB((whistling.power(from: 900, to: 4000) / plain.power(from: 900, to: 4000)).squareRoot())
        #expect(gain > 3, "the whistle adds \(gain) dB at 0.9 to 4 kHz")
    }

    static func statistics(_ out: [[Float]], rate: Int) throws -> SoundStatistics {
        try ProceduralTesting.statistics(out, sampleRate: rate)
    }

    /// The recording blanket_wind.wav (44.1 kHz, 14.8 s; not in the project) measured by `SoundStatisticsMeter`:
    /// octave shape 63 Hz to 16 kHz (dB of the total, up to 22.05 kHz), centroid, crest factor, level spreads, onsets.
    static let recordedShape = [-3.713, -6.284, -5.149, -15.776, -22.708, -28.549, -32.689, -40.304, -48.594]
    static let recordedCentroid = 898.873, recordedCrest = 7.582, recordedSpread100ms = 3.605, recordedSpread1s = 3.332
    static let recordedOnsets = 1.959

    /// The night preset (intensity 0.5, gustiness 0.6) measures like the recording over a minute: octave bands within
    /// ±4 dB of its shape, centroid within 20 %, crest and level spreads within 35 %, onsets within 30 %; wide (its
    /// channels differ: correlation below 0.5).
    @Test(arguments: [(1, 48_000), (2, 48_000), (3, 48_000), (2, 44_100)] as [(UInt64, Int)])
    func nightPresetMeasuresLikeTheRecording(seed: UInt64, rate: Int) throws {
        let out = try GeneratorTesting.render(wind(0.5, seed: seed, rate: rate, gustiness: 0.6), frames: 60 * rate)
        let s = try WindGeneratorTests.statistics(out, rate: rate)
        let shape = s.octaveShape(upTo: 22_050)
        for (k, reference) in WindGeneratorTests.recordedShape.enumerated() {
            #expect(abs(shape[k]! - reference) <= 4, "seed \(seed) at \(rate): band \(SoundStatistics.octaveNames[k]) \(shape[k]!) dB, recorded \(reference)")
        }
        func within(_ x: Double, _ y: Double, _ tolerance: Double) -> Bool { abs(x / y - 1) <= tolerance }
        #expect(within(s.centroid(upTo: 22_050), WindGeneratorTests.recordedCentroid, 0.2), "seed \(seed): centroid \(s.centroid(upTo: 22_050))")
        #expect(within(s.crestFactor, WindGeneratorTests.recordedCrest, 0.35), "seed \(seed): crest \(s.crestFactor)")
        #expect(within(s.spread100ms, WindGeneratorTests.recordedSpread100ms, 0.35), "seed \(seed): 100 ms spread \(s.spread100ms)")
        #expect(within(s.spread1s, WindGeneratorTests.recordedSpread1s, 0.35), "seed \(seed): 1 s spread \(s.spread1s)")
        #expect(within(s.onsetsPerSecond, WindGeneratorTests.recordedOnsets, 0.3), "seed \(seed): \(s.onsetsPerSecond) onsets a second")
        #expect(s.correlation < 0.5 && s.correlation > -0.5, "seed \(seed): correlation \(s.correlation)")
        #expect(out[0] != out[1])
    }
}
