import DSPTestSupport
import MixDSP
import Testing

@Suite struct FireGeneratorTests {
    static let rate = 48_000

    func fire(_ intensity: Double = 1, seed: UInt64 = 3, channels: Int = 2) -> FireGenerator {
        FireGenerator(intensity: intensity, seed: seed, sampleRate: Self.rate, channelCount: channels)
    }

    /// Intensity 1 is −18 dBFS RMS within 1 dB over 2 minutes, for three seeds and both channels.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func intensityOneIsAboutMinus18dBFS(seed: UInt64) throws {
        let out = try GeneratorTesting.render(fire(seed: seed), frames: 120 * Self.rate)
        for c in 0..<2 {
            let level = dB(rms(out[c]))
            #expect(abs(level - -18) < 1, "seed \(seed), channel \(c): \(level) dBFS")
        }
    }

    /// Crackles and pops make the fire's crest factor (peak over RMS, 60 s) at least 6 dB above white
    /// noise's at the same length, at every intensity from 0.3.
    @Test(arguments: [0.3, 0.6, 1.0])
    func cracklesRaiseTheCrestFactorAboveNoise(intensity: Double) throws {
        let out = try GeneratorTesting.render(fire(intensity, seed: 11, channels: 1), frames: 60 * Self.rate)[0]
        let noise = try GeneratorTesting.render(NoiseGenerator(color: .white, seed: 11, channelCount: 1), frames: 60 * Self.rate)[0]
        let fireCrest = ProceduralTesting.crestFactor(out), noiseCrest = ProceduralTesting.crestFactor(noise)
        #expect(fireCrest > noiseCrest + 6, "fire \(fireCrest) dB, white noise \(noiseCrest) dB")
    }

    /// Crackles are many short events: 10 ms windows whose peak stands more than 6 times above their median
    /// magnitude come 5 to 60 times a second at intensity 0.5 (30 s), and under once a second in white noise.
    @Test func cracklesAreFrequentShortEvents() throws {
        func eventsPerSecond(_ out: [Float]) -> Double {
            let window = Self.rate / 100
            var events = 0
            for start in stride(from: 0, to: out.count - window, by: window) {
                let w = out[start..<(start + window)].map { abs($0) }.sorted()
                if w[window - 1] > 6 * w[window / 2] { events += 1 }
            }
            return Double(events) * Double(Self.rate) / Double(out.count)
        }
        let perSecond = eventsPerSecond(try GeneratorTesting.render(fire(0.5, seed: 2, channels: 1), frames: 30 * Self.rate)[0])
        #expect(perSecond > 5 && perSecond < 60, "\(perSecond) crackle windows a second")
        let noise = eventsPerSecond(try GeneratorTesting.render(NoiseGenerator(color: .white, seed: 2, channelCount: 1), frames: 30 * Self.rate)[0])
        #expect(noise < 1, "\(noise) in white noise")
    }

    /// Half the intensity is 6 dB quieter, within 1.5 dB (2 minutes, the same seed): the docs' 20·log10 rule.
    @Test func halfTheIntensityIsAbout6dBQuieter() throws {
        let full = try GeneratorTesting.render(fire(1, seed: 6, channels: 1), frames: 120 * Self.rate)[0]
        let half = try GeneratorTesting.render(fire(0.5, seed: 6, channels: 1), frames: 120 * Self.rate)[0]
        let drop = dB(rms(full)) - dB(rms(half))
        #expect(abs(drop - 6) < 1.5, "\(drop) dB")
    }

    @Test func sameSeedSameFireOtherSeedOtherFire() throws {
        let a = try GeneratorTesting.render(fire(seed: 4), frames: 96_000)
        let b = try GeneratorTesting.render(fire(seed: 4), frames: 96_000)
        let other = try GeneratorTesting.render(fire(seed: 5), frames: 96_000)
        #expect(a == b)
        #expect(ProceduralTesting.largestDifference(a, other) > 0.01)
        let r = ProceduralTesting.correlation(a[0].map(Double.init), a[1].map(Double.init))
        #expect(abs(r) < 0.5, "channels correlate at \(r)")
    }

    /// Contiguous renders are identical for any block size; renders that start elsewhere (0.1 s of warm-up)
    /// stay within 1e-6.
    @Test func anyBlocksAndPartialRendersWithinWarmUp() throws {
        try ProceduralTesting.expectSameWithinWarmUp({ fire(0.7, seed: 6) }, frames: 6 * Self.rate,
                                                     starts: [1000, 4800, 100_000, 5 * Self.rate + 5], tolerance: 1e-6)
    }

    @Test func startsEightHoursInWithSound() throws {
        let out = try GeneratorTesting.render(fire(seed: 1), at: 8 * 3600 * Int64(Self.rate), frames: 10 * Self.rate)
        #expect(dB(rms(out[0])) > -30)
        #expect(out[0].allSatisfy { $0.isFinite && abs($0) < 1 })
    }
}
