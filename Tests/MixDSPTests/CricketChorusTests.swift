import DSPTestSupport
import MixDSP
import Testing

@Suite struct CricketChorusTests {
    static let rate = 48_000

    func chorus(_ intensity: Double = 1, temperature: Double = 22, seed: UInt64 = 5, channels: Int = 2,
                count: Int? = nil) -> CricketChorus {
        CricketChorus(intensity: intensity, temperatureC: temperature, seed: seed, sampleRate: Self.rate,
                      channelCount: channels, individualCount: count)
    }

    /// Intensity 1 is −18 dBFS RMS within 1 dB over 2 minutes, for three seeds (both channels together).
    @Test(arguments: [1, 2, 3] as [UInt64])
    func intensityOneIsAboutMinus18dBFS(seed: UInt64) throws {
        let out = try GeneratorTesting.render(chorus(seed: seed), frames: 120 * Self.rate)
        let level = dB(((rms(out[0]) * rms(out[0]) + rms(out[1]) * rms(out[1])) / 2).squareRoot())
        #expect(abs(level - -18) < 1, "seed \(seed): \(level) dBFS")
    }

    /// Dolbear's law: one cricket's median time between chirps is 60 / N s within its ±10 % spread.
    @Test(arguments: [10, 20, 30] as [Double])
    func chirpRateFollowsTemperature(temperature: Double) throws {
        let out = try GeneratorTesting.render(chorus(temperature: temperature, seed: 8, channels: 1, count: 1), frames: 120 * Self.rate)[0]
        // onsets: a sounding millisecond after at least 0.1 s of silence
        let ms = Self.rate / 1000
        var onsets: [Int] = [], quiet = 1000
        for m in 0..<(out.count / ms) {
            let loud = out[(m * ms)..<((m + 1) * ms)].contains { abs($0) > 1e-4 }
            if loud && quiet >= 100 { onsets.append(m) }
            quiet = loud ? 0 : quiet + 1
        }
        let gaps = zip(onsets.dropFirst(), onsets).map { Double($0 - $1) / 1000 }.sorted()
        #expect(gaps.count > 20)
        let median = gaps[gaps.count / 2]
        let expected = 60 / CricketChorus.chirpsPerMinute(temperatureC: temperature)
        #expect(abs(median - expected) <= 0.11 * expected, "\(temperature) °C: \(median) s between chirps, Dolbear \(expected) s")
    }

    /// Each pulse is a tone of 3.8 to 4.8 kHz (zero crossings of its middle).
    @Test func pulsesAreTonesNearFourKilohertz() throws {
        let out = try GeneratorTesting.render(chorus(seed: 3, channels: 1, count: 1), frames: 60 * Self.rate)[0]   // one cricket may rest between bouts for seconds
        // Around the loudest sample, which lies in the middle of a pulse.
        let loudest = try #require(out.indices.max { abs(out[$0]) < abs(out[$1]) })
        #expect(abs(out[loudest]) > 0.01)
        let hz = frequency(out[max(0, loudest - 100)..<min(out.count, loudest + 100)], rate: Self.rate)
        #expect(hz > 3700 && hz < 4900, "\(hz) Hz")
    }

    /// Half the intensity (7 crickets instead of 12) is 6 dB quieter, within 1.5 dB (2 minutes, both channels).
    @Test func halfTheIntensityIsAbout6dBQuieter() throws {
        func level(_ out: [[Float]]) -> Double { dB(((rms(out[0]) * rms(out[0]) + rms(out[1]) * rms(out[1])) / 2).squareRoot()) }
        let drop = level(try GeneratorTesting.render(chorus(1, seed: 6), frames: 120 * Self.rate))
            - level(try GeneratorTesting.render(chorus(0.5, seed: 6), frames: 120 * Self.rate))
        #expect(abs(drop - 6) < 1.5, "\(drop) dB")
    }

    @Test func sameSeedSameChorusOtherSeedOtherChorus() throws {
        let a = try GeneratorTesting.render(chorus(seed: 4), frames: 96_000)
        let b = try GeneratorTesting.render(chorus(seed: 4), frames: 96_000)
        let other = try GeneratorTesting.render(chorus(seed: 5), frames: 96_000)
        #expect(a == b)
        #expect(ProceduralTesting.largestDifference(a, other) > 0.01)
        #expect(a[0] != a[1])
    }

    /// Stateless: any block size and any partial render give the same samples bit for bit.
    @Test func anyBlocksAndPartialRendersAreExact() throws {
        try GeneratorTesting.expectSameSamplesForAnyBlocks(chorus(0.6, seed: 7), frames: 4 * Self.rate, partialStart: 100_003)
    }
}
