import DSPTestSupport
import MixDSP
import Testing

/// Measures shared by the rain and wind tests: crest factor, correlation, levels in windows.
enum SoundscapeMeasures {
    /// Peak / RMS of `x` (linear).
    static func crestFactor(_ x: [Float]) -> Double { Double(peak(x)) / rms(x) }

    /// Pearson correlation of two channels.
    static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        let n = Double(a.count)
        let ma = a.reduce(0.0) { $0 + Double($1) } / n, mb = b.reduce(0.0) { $0 + Double($1) } / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in a.indices {
            let x = Double(a[i]) - ma, y = Double(b[i]) - mb
            sab += x * y; saa += x * x; sbb += y * y
        }
        return sab / (saa * sbb).squareRoot()
    }

    /// RMS in dBFS of each `window`-frame window.
    static func windowLevels(_ x: [Float], window: Int) -> [Double] {
        stride(from: 0, to: x.count - window + 1, by: window).map { dB(rms(x[$0..<($0 + window)])) }
    }

    /// A brightness proxy per window: mean square of the first difference over mean square of the signal
    /// (about (2π f / rate)² for a sine at f): it rises with the spectral centroid.
    static func windowBrightness(_ x: [Float], window: Int) -> [Double] {
        stride(from: 0, to: x.count - window + 1, by: window).map { start in
            var d = 0.0, s = 0.0
            for i in max(start, 1)..<(start + window) {
                let v = Double(x[i]), p = Double(x[i - 1])
                d += (v - p) * (v - p); s += v * v
            }
            return d / s
        }
    }
}

@Suite struct RainGeneratorTests {
    func rain(_ intensity: Double = 0.6, seed: UInt64 = 4, rate: Int = 48_000, channels: Int = 2,
              brightness: Double = 0.5, drops: Double? = nil) -> RainGenerator {
        RainGenerator(intensity: intensity, brightness: brightness, dropsPerSecond: drops, seed: seed,
                      sampleRate: rate, channelCount: channels)
    }

    /// At intensity 1 (defaults) each channel is -18 dBFS RMS within 1 dB, over a minute, for three seeds.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func levelAtIntensityOneIsMinus18dBFS(seed: UInt64) throws {
        let out = try GeneratorTesting.render(rain(1, seed: seed), frames: 60 * 48_000)
        for c in 0..<2 {
            let level = dB(rms(out[c]))
            #expect(abs(level - -18) < 1, "seed \(seed), channel \(c): \(level) dBFS")
        }
    }

    /// Louder as it rains harder, and never silent.
    @Test func levelRisesWithIntensity() throws {
        let levels = try [0.0, 0.1, 0.5, 1].map { i in dB(rms(try GeneratorTesting.render(rain(i), frames: 20 * 48_000)[0])) }
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 < $1 - 1 }, "\(levels)")
        #expect(levels[0] > -60, "\(levels)")
    }

    @Test func sameSeedSameRainOtherSeedOtherRain() throws {
        let a = try GeneratorTesting.render(rain(seed: 7), frames: 96_000)
        let b = try GeneratorTesting.render(rain(seed: 7), frames: 96_000)
        let other = try GeneratorTesting.render(rain(seed: 8), frames: 96_000)
        #expect(a == b)
        let differing = zip(a[0], other[0]).filter { $0 != $1 }.count
        #expect(differing > 95_000, "only \(differing) of 96000 samples differ with another seed")
    }

    /// Block sizes, backwards blocks and a start inside the next epoch's warm-up (at 8 kHz: epochs of
    /// 128000 frames, warm-ups of 8000) all give the same samples, bit for bit.
    @Test(arguments: [1, 2])
    func sameSamplesForAnyBlocksAndStarts(channels: Int) throws {
        try GeneratorTesting.expectSameSamplesForAnyBlocks(rain(0.8, rate: 8000, channels: channels), frames: 140_000,
                                                           partialStart: 124_321)
    }

    /// A render started anywhere (in an epoch, in a warm-up, on a boundary, while drops ring) equals the
    /// slice of one contiguous render, bit for bit, three epochs in.
    @Test func partialRendersAreSlicesOfTheWhole() throws {
        let whole = try GeneratorTesting.render(rain(1, rate: 8000), frames: 3 * 128_000 + 20_000)
        for start in [1, 127_999, 128_000, 250_001, 255_999, 3 * 128_000 + 17] {
            let part = try GeneratorTesting.render(rain(1, rate: 8000), at: Int64(start), frames: 2000, blockFrames: 512)
            for c in 0..<2 { #expect(part[c] == Array(whole[c][start..<(start + 2000)]), "from \(start), channel \(c)") }
        }
    }

    /// Drops are transients: rain's crest factor (peak / RMS over a minute) is well above that of its bed
    /// alone and of pink noise (both about 4.4: Gaussian-like noise).
    @Test func dropsRaiseTheCrestFactorAbovePlainNoise() throws {
        let frames = 60 * 48_000
        let withDrops = try GeneratorTesting.render(rain(0.6), frames: frames)[0]
        let bedOnly = try GeneratorTesting.render(rain(0.6, drops: 0), frames: frames)[0]
        let pink = try GeneratorTesting.render(NoiseGenerator(color: .pink, seed: 4, channelCount: 1), frames: frames)[0]
        let crest = SoundscapeMeasures.crestFactor(withDrops), bed = SoundscapeMeasures.crestFactor(bedOnly)
        let noise = SoundscapeMeasures.crestFactor(pink)
        #expect(bed < 5.5 && noise < 5.5, "bed \(bed), pink \(noise)")
        #expect(crest > 1.5 * bed && crest > 1.5 * noise, "rain \(crest), bed \(bed), pink \(noise)")
        let downpour = SoundscapeMeasures.crestFactor(try GeneratorTesting.render(rain(1), frames: frames)[0])
        #expect(downpour > 1.25 * noise, "downpour \(downpour), pink \(noise)")
    }

    /// The channels are decorrelated (own noise, drops panned at random).
    @Test func channelsAreDecorrelated() throws {
        let out = try GeneratorTesting.render(rain(0.6), frames: 10 * 48_000)
        let r = SoundscapeMeasures.correlation(out[0], out[1])
        #expect(abs(r) < 0.3, "correlation \(r)")
    }

    /// The bed is a band of noise: little below its 350 Hz high-pass, and brightness moves its top.
    @Test func brightnessRaisesTheSpectrum() throws {
        let dull = try GeneratorTesting.render(rain(0.6, brightness: 0, drops: 0), frames: 5 * 48_000)[0]
        let bright = try GeneratorTesting.render(rain(0.6, brightness: 1, drops: 0), frames: 5 * 48_000)[0]
        let d = SoundscapeMeasures.windowBrightness(dull, window: dull.count - 1)[0]
        let b = SoundscapeMeasures.windowBrightness(bright, window: bright.count - 1)[0]
        #expect(b > 3 * d, "brightness proxy: dull \(d), bright \(b)")
    }
}
