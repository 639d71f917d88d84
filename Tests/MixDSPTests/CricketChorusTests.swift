import DSPTestSupport
import MixDSP
import Testing

@Suite struct CricketChorusTests {
    static let rate = 48_000

    func chorus(_ intensity: Double = 1, temperature: Double = 22, seed: UInt64 = 5, channels: Int = 2,
                count: Int? = nil, rate: Int = CricketChorusTests.rate) -> CricketChorus {
        CricketChorus(intensity: intensity, temperatureC: temperature, seed: seed, sampleRate: rate,
                      channelCount: channels, individualCount: count)
    }

    /// The presets' chorus (campfire: intensity 0.35 at 24 °C).
    func preset(seed: UInt64, rate: Int = CricketChorusTests.rate) -> CricketChorus {
        chorus(0.35, temperature: 24, seed: seed, rate: rate)
    }

    static func statistics(_ out: [[Float]], rate: Int) throws -> SoundStatistics {
        try ProceduralTesting.statistics(out, sampleRate: rate)
    }

    /// Intensity 1 is −18 dBFS RMS within 1 dB over 2 minutes, for three seeds (both channels together).
    @Test(arguments: [1, 2, 3] as [UInt64])
    func intensityOneIsAboutMinus18dBFS(seed: UInt64) throws {
        let out = try GeneratorTesting.render(chorus(seed: seed), frames: 120 * Self.rate)
        let level = dB(((rms(out[0]) * rms(out[0]) + rms(out[1]) * rms(out[1])) / 2).squareRoot())
        #expect(abs(level - -18) < 1, "seed \(seed): \(level) dBFS")
    }

    /// Dolbear's law: one cricket's median time between chirps is 60 / N s within its ±8 % spread.
    @Test(arguments: [10, 20, 30] as [Double])
    func chirpRateFollowsTemperature(temperature: Double) throws {
        let out = try GeneratorTesting.render(chorus(temperature: temperature, seed: 8, channels: 1, count: 1), frames: 120 * Self.rate)[0]
        // onsets: a sounding millisecond (well above the night floor, −66 dBFS RMS here) after at least 0.1 s without one
        let ms = Self.rate / 1000
        var onsets: [Int] = [], quiet = 1000
        for m in 0..<(out.count / ms) {
            let loud = out[(m * ms)..<((m + 1) * ms)].contains { abs($0) > 0.01 }
            if loud && quiet >= 100 { onsets.append(m) }
            quiet = loud ? 0 : quiet + 1
        }
        let gaps = zip(onsets.dropFirst(), onsets).map { Double($0 - $1) / 1000 }.sorted()
        #expect(gaps.count > 20)
        let median = gaps[gaps.count / 2]
        let expected = 60 / CricketChorus.chirpsPerMinute(temperatureC: temperature)
        #expect(abs(median - expected) <= 0.11 * expected, "\(temperature) °C: \(median) s between chirps, Dolbear \(expected) s")
    }

    /// Each pulse is a tone of 3.9 to 4.9 kHz (zero crossings of its middle; it glides 3 % down through the pulse).
    @Test func pulsesAreTonesNearFourKilohertz() throws {
        let out = try GeneratorTesting.render(chorus(seed: 3, channels: 1, count: 1), frames: 60 * Self.rate)[0]   // one cricket may rest between bouts for seconds
        // After the loudest sample, which lies near the start of a pulse's body (before it: the night floor).
        let loudest = try #require(out.indices.max { abs(out[$0]) < abs(out[$1]) })
        #expect(abs(out[loudest]) > 0.01)
        let hz = frequency(out[loudest..<min(out.count, loudest + 300)], rate: Self.rate)
        #expect(hz > 3700 && hz < 5000, "\(hz) Hz")
    }

    /// The 2nd and 3rd harmonics are there, 13 to 27 dB below the carrier (a field cricket's song: 15 to 25 dB),
    /// for several individuals, at 48 and 44.1 kHz.
    @Test(arguments: [(3, 48_000), (4, 48_000), (5, 44_100)] as [(UInt64, Int)])
    func harmonicsAreFifteenToTwentyFiveDecibelsDown(seed: UInt64, rate: Int) throws {
        let out = try GeneratorTesting.render(chorus(seed: seed, channels: 1, count: 1, rate: rate), frames: 30 * rate)
        let s = try Self.statistics(out, rate: rate)
        var peak = 0
        for k in s.spectrum.indices where Double(k) * s.binHz > 3500 && Double(k) * s.binHz < 5200 {
            if s.spectrum[k] > s.spectrum[peak] { peak = k }
        }
        let f = Double(peak) * s.binHz
        func band(_ k: Double) -> Double { s.power(from: k * f * 0.955, to: k * f * 1.03) }
        let second = dB((band(2) / band(1)).squareRoot()), third = dB((band(3) / band(1)).squareRoot())
        #expect(second > -27 && second < -13, "seed \(seed): 2nd harmonic \(second) dB")
        #expect(third > -27 && third < -13, "seed \(seed): 3rd harmonic \(third) dB")
    }

    /// Between chirps a quiet broadband night floor: no 10 ms window of either channel below −90 dBFS over a minute
    /// at the presets' intensity, and the quietest near −75 dBFS (−80 to −70); the floors of the channels differ.
    @Test func nightFloorFillsTheGapsBetweenChirps() throws {
        let out = try GeneratorTesting.render(preset(seed: 2), frames: 60 * Self.rate)
        let window = Self.rate / 100
        for c in 0..<2 {
            let levels = ProceduralTesting.windowRMS(out[c], window: window).map(dB)
            let quietest = levels.min()!
            #expect(quietest > -80 && quietest < -70, "channel \(c): quietest 10 ms at \(quietest) dBFS")
        }
        // the quietest stretch of the left channel: there the channels are each their own noise
        let levels = ProceduralTesting.windowRMS(out[0], window: window)
        let w = levels.indices.min { levels[$0] < levels[$1] }!
        let a = Array(out[0][(w * window)..<((w + 1) * window)]), b = Array(out[1][(w * window)..<((w + 1) * window)])
        #expect(abs(ProceduralTesting.correlation(a.map(Double.init), b.map(Double.init))) < 0.3)
    }

    /// The field: chirp onsets (the meter's: 10 ms frames 6 dB over the last second's median) come at 4.5 to 8.5
    /// a second (six crickets at 2.35 chirps a second, overlapping, resting a quarter of the time; measured 5.6 to 6.9
    /// over seeds 1 to 3, 44.1 and 48 kHz); it is wide (correlation below 0.5) and has no DC.
    @Test(arguments: [(1, 48_000), (2, 48_000), (3, 44_100)] as [(UInt64, Int)])
    func theFieldChirpsIsWideAndCentred(seed: UInt64, rate: Int) throws {
        let out = try GeneratorTesting.render(preset(seed: seed, rate: rate), frames: 60 * rate)
        let s = try Self.statistics(out, rate: rate)
        #expect(s.onsetsPerSecond > 4.5 && s.onsetsPerSecond < 8.5, "seed \(seed): \(s.onsetsPerSecond) onsets a second")
        #expect(s.correlation < 0.5 && s.correlation > -0.5, "seed \(seed): correlation \(s.correlation)")
        #expect(s.dcDBFS < -80, "seed \(seed): DC \(s.dcDBFS) dBFS")
        // the carrier's octave holds the song; its harmonics' octaves are 12 to 28 dB below
        let shape = s.octaveShape(upTo: s.nyquistHz)
        let carrier = shape[6]!, second = shape[7]!, third = shape[8]!
        #expect(carrier > -0.5, "\(shape)")
        #expect(second < -12 && second > -28, "\(shape)")
        #expect(third < -12 && third > -28, "\(shape)")
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
        try GeneratorTesting.expectSameSamplesForAnyBlocks(chorus(0.35, seed: 2, channels: 1), frames: 2 * Self.rate, partialStart: 31_337)
    }

    /// A seek far ahead gives the same samples as a render from just before it.
    @Test func seekTenHoursAheadIsExact() throws {
        let at = Int64(10 * 3600 * Self.rate)
        let whole = try GeneratorTesting.render(chorus(0.6, seed: 9), at: at - 10_000, frames: 60_000)
        let part = try GeneratorTesting.render(chorus(0.6, seed: 9), at: at, frames: 50_000, blockFrames: 777)
        #expect(part == whole.map { Array($0[10_000...]) })
    }
}
