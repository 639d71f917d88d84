import DSPTestSupport
import MixDSP
import Testing
import Foundation

@Suite struct SurfGeneratorTests {
    static let rate = 48_000

    func surf(_ intensity: Double = 1, period: Double = 3, seed: UInt64 = 2, channels: Int = 2) -> SurfGenerator {
        SurfGenerator(intensity: intensity, periodSeconds: period, seed: seed, sampleRate: Self.rate, channelCount: channels)
    }

    /// Intensity 1 is −28 dBFS RMS within 1 dB over 5 minutes (both channels' power), for three seeds and two
    /// periods, and no sample reaches 0 dBFS.
    @Test(arguments: [(1, 3), (3, 3), (4, 10)] as [(UInt64, Double)])
    func intensityOneIsAboutMinus28dBFS(seed: UInt64, period: Double) throws {
        let out = try GeneratorTesting.render(surf(period: period, seed: seed), frames: 300 * Self.rate)
        let level = dB(((rms(out[0]) * rms(out[0]) + rms(out[1]) * rms(out[1])) / 2).squareRoot())
        #expect(abs(level - -28) < 1, "seed \(seed): \(level) dBFS")
        #expect(max(peak(out[0]), peak(out[1])) < 1, "seed \(seed): peak \(max(peak(out[0]), peak(out[1])))")
    }

    /// The shape measured for the recording of waves these statistics are set against (alarmclock_waves, an MP3
    /// decoded at 24 kHz, 102.6 s, by `SoundStatisticsMeter`): octave bands 63 Hz to 8 kHz cut at 12 kHz, in dB
    /// of their sum; centroid below 12 kHz; crest factor; 100 ms and 1 s level spreads (dB); onsets a second.
    static let recordingBands = [-17.47, -13.63, -10.01, -8.17, -5.20, -5.92, -10.49, -14.09]
    static let recordingCentroid = 2940.4, recordingCrest = 16.62, recordingSpread100ms = 2.75,
               recordingSpread1s = 2.04, recordingOnsets = 1.033

    /// At the beach's settings (intensity 0.8, a wave every 3 s), 60 s of each of three seeds at 48 kHz measure
    /// like the recording (issue 25's targets): bands within ±4 dB of its shape, centroid within 20 %, crest
    /// factor and level spreads within 35 %, onsets within 30 %, and the channels correlate below 0.5.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func measuresLikeARecordingOfWaves(seed: UInt64) throws {
        let g = surf(0.8, period: 3, seed: seed)
        let m = try ProceduralTesting.statistics(g, sampleRate: Self.rate, frames: 60 * Self.rate)
        let bands = m.octaveShape(upTo: 12_000)
        for (k, reference) in Self.recordingBands.enumerated() {
            #expect(abs(bands[k]! - reference) <= 4, "band \(SoundStatistics.octaveNames[k]): \(bands[k]!) dB for \(reference)")
        }
        func within(_ x: Double, _ y: Double, _ tolerance: Double) -> Bool { abs(x / y - 1) <= tolerance }
        #expect(within(m.centroid(upTo: 12_000), Self.recordingCentroid, 0.2), "centroid \(m.centroid(upTo: 12_000))")
        #expect(within(m.crestFactor, Self.recordingCrest, 0.35), "crest \(m.crestFactor)")
        #expect(within(m.spread100ms, Self.recordingSpread100ms, 0.35), "100 ms spread \(m.spread100ms)")
        #expect(within(m.spread1s, Self.recordingSpread1s, 0.35), "1 s spread \(m.spread1s)")
        #expect(within(m.onsetsPerSecond, Self.recordingOnsets, 0.3), "onsets \(m.onsetsPerSecond)/s")
        #expect(m.correlation < 0.5, "correlation \(m.correlation)")
    }

    /// Breaks come a mean period apart (within 5 % over 400 waves), never closer than 0.3 P nor further than
    /// 1.7 P, and most waves (over half) are followed by a sharp rise: 5 to 25 ms after the break at least 4 dB
    /// over the 50 ms before it (the rest break into the loud foam of the wave before).
    @Test(arguments: [3, 10] as [Double])
    func wavesBreakAboutAPeriodApartWithSharpOnsets(period: Double) throws {
        let g = surf(0.8, period: period, seed: 7, channels: 1)
        let times = (0..<400).map { g.crest(Int64($0)).seconds }
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        #expect(abs(mean / period - 1) < 0.05, "mean gap \(mean) s")
        #expect(gaps.allSatisfy { $0 >= 0.3 * period - 1e-9 && $0 <= 1.7 * period + 1e-9 })
        let waves = Int(60 / period)
        let out = try GeneratorTesting.render(g, frames: Int((Double(waves) + 1) * period) * Self.rate)[0]
        var sharp = 0
        for k in 1..<waves {
            let at = Int(times[k] * Double(Self.rate))
            let after = rms(out[(at + Self.rate / 200)..<(at + Self.rate / 40)]), before = rms(out[(at - Self.rate / 20)..<at])
            if dB(after) - dB(before) >= 4 { sharp += 1 }
        }
        #expect(Double(sharp) > 0.5 * Double(waves - 1), "\(sharp) of \(waves - 1) breaks are sharp")
    }

    /// Half the intensity is 6 dB quieter, within 1.5 dB (2 minutes, the same seed): the docs' 20·log10 rule.
    @Test func halfTheIntensityIsAbout6dBQuieter() throws {
        let full = try GeneratorTesting.render(surf(1, seed: 6, channels: 1), frames: 120 * Self.rate)[0]
        let half = try GeneratorTesting.render(surf(0.5, seed: 6, channels: 1), frames: 120 * Self.rate)[0]
        let drop = dB(rms(full)) - dB(rms(half))
        #expect(abs(drop - 6) < 1.5, "\(drop) dB")
    }

    @Test func sameSeedSameSurfOtherSeedOtherSurf() throws {
        let a = try GeneratorTesting.render(surf(seed: 4), frames: 96_000)
        let b = try GeneratorTesting.render(surf(seed: 4), frames: 96_000)
        let other = try GeneratorTesting.render(surf(seed: 5), frames: 96_000)
        #expect(a == b)
        #expect(ProceduralTesting.largestDifference(a, other) > 0.01)
        let r = ProceduralTesting.correlation(a[0].map(Double.init), a[1].map(Double.init))
        #expect(abs(r) < 0.2, "channels correlate at \(r)")
    }

    /// Contiguous renders are identical for any block size; renders that start elsewhere (0.1 s of warm-up)
    /// stay within 1e-6 (−120 dBFS).
    @Test func anyBlocksAndPartialRendersWithinWarmUp() throws {
        try ProceduralTesting.expectSameWithinWarmUp({ surf(0.8, period: 6, seed: 3) }, frames: 8 * Self.rate,
                                                     starts: [1000, 4800, 100_000, 7 * Self.rate + 5], tolerance: 1e-6)
    }

    /// Starting 8 hours in costs the warm-up, not the hours, and gives sound.
    @Test func startsEightHoursInWithSound() throws {
        let out = try GeneratorTesting.render(surf(seed: 1), at: 8 * 3600 * Int64(Self.rate), frames: 30 * Self.rate)
        #expect(dB(rms(out[0])) > -34)
        #expect(out[0].allSatisfy { $0.isFinite && abs($0) < 1 })
    }
}
