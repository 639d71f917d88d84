import DSPTestSupport
import MixDSP
import Testing
import Foundation

@Suite struct SurfGeneratorTests {
    static let rate = 48_000

    func surf(_ intensity: Double = 1, period: Double = 9, seed: UInt64 = 2, channels: Int = 2) -> SurfGenerator {
        SurfGenerator(intensity: intensity, periodSeconds: period, seed: seed, sampleRate: Self.rate, channelCount: channels)
    }

    /// Intensity 1 is −24 dBFS RMS within 1 dB over 10 minutes (both channels' power), for three seeds, and no
    /// sample reaches 0 dBFS.
    @Test(arguments: [1, 3, 4] as [UInt64])
    func intensityOneIsAboutMinus24dBFS(seed: UInt64) throws {
        let out = try GeneratorTesting.render(surf(seed: seed), frames: 600 * Self.rate)
        let level = dB(((rms(out[0]) * rms(out[0]) + rms(out[1]) * rms(out[1])) / 2).squareRoot())
        #expect(abs(level - -24) < 1, "seed \(seed): \(level) dBFS")
        #expect(max(peak(out[0]), peak(out[1])) < 1, "seed \(seed): peak \(max(peak(out[0]), peak(out[1])))")
    }

    /// The level over time (RMS of quarter seconds, 10 minutes) has its strongest rhythm between 20 s and 3 s
    /// at the swell period, within ±5 %, standing more than 40 times above the median of that band's power
    /// spectrum; plain pink noise's envelope has no such line (under 20).
    @Test(arguments: [6, 9, 14] as [Double])
    func theLevelSwellsAtThePeriod(period: Double) throws {
        let out = try GeneratorTesting.render(surf(0.7, period: period, seed: 5, channels: 1), frames: 600 * Self.rate)
        let (found, prominence) = Self.strongestRhythm(ProceduralTesting.windowRMS(out[0], window: Self.rate / 4))
        #expect(abs(found - period) <= 0.05 * period, "envelope period \(found) s for \(period) s")
        #expect(prominence > 40, "the period's line stands \(prominence) times above the median")
        let noise = try GeneratorTesting.render(NoiseGenerator(color: .pink, seed: 5, channelCount: 1), frames: 600 * Self.rate)
        let (_, noiseProminence) = Self.strongestRhythm(ProceduralTesting.windowRMS(noise[0], window: Self.rate / 4))
        #expect(noiseProminence < 20, "pink noise's envelope: \(noiseProminence)")
    }

    /// The period (s) of the strongest line of the power spectrum (a plain DFT) of `envelope` (4 values a second)
    /// between 1/20 and 1/3 Hz, and its power over the median of that band.
    static func strongestRhythm(_ envelope: [Double]) -> (period: Double, prominence: Double) {
        let mean = envelope.reduce(0, +) / Double(envelope.count)
        let n = envelope.count, seconds = Double(n) / 4
        var powers: [(Double, Double)] = []
        for k in Int((seconds / 20).rounded(.up))...Int(seconds / 3) {
            var re = 0.0, im = 0.0
            for (i, e) in envelope.enumerated() {
                let angle = -2 * Double.pi * Double(k) * Double(i) / Double(n)
                re += (e - mean) * cos(angle); im += (e - mean) * sin(angle)
            }
            powers.append((seconds / Double(k), re * re + im * im))
        }
        let best = powers.max { $0.1 < $1.1 }!
        let median = powers.map(\.1).sorted()[powers.count / 2]
        return (best.0, best.1 / median)
    }

    /// The filter opens on each crest: the quarter second around a crest is brighter (its first difference
    /// larger against its level) than the quarter second 0.3 period before it, while the swell rears up: by
    /// more than 1.5 times for at least 85 % of the swells of 10 minutes that come a full period (0.9 P or
    /// more) after the one before (closer ones rear up in the previous wash's hiss), and by twice at the median.
    @Test func theFilterOpensOnEachCrest() throws {
        let period = 8.0
        let g = surf(1, period: period, seed: 9, channels: 1)
        let out = try GeneratorTesting.render(g, frames: 600 * Self.rate)[0]
        func brightness(around seconds: Double) -> Double {
            let mid = Int(seconds * Double(Self.rate)), half = Self.rate / 8
            let x = out[(mid - half)..<(mid + half)]
            let d = zip(x.dropFirst(), x).map { $0 - $1 }
            return rms(d) / rms(x)
        }
        var ratios: [Double] = []
        for k in 1..<74 {
            let crest = g.crest(Int64(k)).seconds
            guard crest - g.crest(Int64(k - 1)).seconds >= 0.9 * period else { continue }
            ratios.append(brightness(around: crest) / brightness(around: crest - 0.3 * period))
        }
        ratios.sort()
        let brighter = ratios.filter { $0 > 1.5 }.count
        #expect(ratios.count >= 30)
        #expect(Double(brighter) >= 0.85 * Double(ratios.count), "\(brighter) of \(ratios.count) crests are brighter than their rise")
        #expect(ratios[ratios.count / 2] > 2, "median ratio \(ratios[ratios.count / 2])")
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
        #expect(dB(rms(out[0])) > -30)
        #expect(out[0].allSatisfy { $0.isFinite && abs($0) < 1 })
    }
}
