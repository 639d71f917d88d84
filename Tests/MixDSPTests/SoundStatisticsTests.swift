import DSPTestSupport
import Foundation
import MixDSP
import Testing

/// `SoundStatistics`: each measure on signals whose answer is known.
@Suite struct SoundStatisticsTests {
    static let rate = 48_000

    /// Measures `seconds` of `sample(channel, frame)`, in blocks of 1000.
    func measure(seconds: Double, channels: Int = 2, _ sample: (Int, Int) -> Double) -> SoundStatistics {
        let meter = SoundStatisticsMeter(sampleRate: Self.rate, channelCount: channels, fft: Radix2TestFFT(size: 4096))
        let block = AudioBlock(channelCount: channels, capacity: 1000)
        let frames = Int(seconds * Double(Self.rate))
        for start in stride(from: 0, to: frames, by: 1000) {
            let n = min(1000, frames - start)
            for c in 0..<channels { for j in 0..<n { block.channel(c)[j] = Float(sample(c, start + j)) } }
            meter.add(block, count: n)
        }
        return meter.finish()
    }

    func sine(_ hz: Double, _ amplitude: Double, _ frame: Int) -> Double {
        amplitude * sin(2 * Double.pi * hz * Double(frame) / Double(Self.rate))
    }

    /// A 1 kHz sine: all its power in the 1 kHz octave (the others 40 dB and more below: the Hann window's
    /// side lobes), centroid at 1 kHz within 1 %, crest √2, steady levels, no onsets, correlation 1, no DC.
    @Test func aSine() {
        let m = measure(seconds: 4) { _, n in sine(1000, 0.5, n) }
        let shape = m.octaveShape(upTo: m.nyquistHz)
        #expect(abs(shape[4]!) < 0.01)
        for (k, band) in shape.enumerated() where k != 4 { #expect(band! < -40, "band \(SoundStatistics.octaveNames[k]): \(band!)") }
        #expect(abs(m.centroid(upTo: m.nyquistHz) / 1000 - 1) < 0.01)
        #expect(abs(m.crestFactor - 2.0.squareRoot()) < 0.001)
        #expect(m.spread100ms < 0.01 && m.spread1s < 0.01)
        #expect(m.onsets.isEmpty && m.swells.isEmpty)
        #expect(abs(m.correlation - 1) < 1e-9)
        #expect(m.dcDBFS < -100)
        // Power: a sine of amplitude A has A²/2 (Welch, window-compensated).
        #expect(abs(10 * log10(m.power(from: 700, to: 1400) / 0.125)) < 0.1)
    }

    /// Left and right independent noise: correlation near 0; left and its negative: -1; a DC of 0.01: -40 dBFS.
    @Test func correlationAndDC() {
        func noise(_ c: Int, _ n: Int) -> Double { SeededRandom.unit(SeededRandom.bits(seed: 3, stream: UInt64(c), index: Int64(n))) - 0.5 }
        #expect(abs(measure(seconds: 2) { c, n in noise(c, n) }.correlation) < 0.02)
        #expect(abs(measure(seconds: 2) { c, n in c == 0 ? noise(0, n) : -noise(0, n) }.correlation + 1) < 1e-9)
        #expect(abs(measure(seconds: 2) { c, n in 0.01 + 0.1 * noise(c, n) }.dcDBFS + 40) < 0.2)
    }

    /// Clicks (10 ms bursts 30 dB over a noise floor) every 0.5 s: two onsets a second, each at its click (within
    /// a 10 ms frame), a high crest factor and a 100 ms level spread far over the floor's.
    @Test func clicksAreOnsets() {
        let m = measure(seconds: 10) { c, n in
            let floor = 0.001 * (SeededRandom.unit(SeededRandom.bits(seed: 5, stream: UInt64(c), index: Int64(n))) - 0.5)
            return n % 24_000 < 480 && n >= 24_000 ? floor + sine(3000, 0.03, n) : floor
        }
        #expect(m.onsets.count == 19, "\(m.onsets)")
        for (k, onset) in m.onsets.enumerated() { #expect(abs(Int(onset) - (k + 1) * 24_000) <= 480) }
        #expect(abs(m.onsetsPerSecond - 1.9) < 1e-9)
        #expect(m.crestFactor > 10)
        #expect(m.spread100ms > 3)
    }

    /// A level that rises 10 dB every 3 s and falls back: a swell each time, none between; the 1 s levels spread.
    @Test func swells() {
        let m = measure(seconds: 12, channels: 1) { _, n in
            let t = Double(n) / Double(Self.rate)
            let loud = t.truncatingRemainder(dividingBy: 3) < 1 ? 3.16 : 1.0
            return 0.05 * loud * sine(440, 1, n)
        }
        #expect(m.swells.count == 3, "\(m.swells)")   // at 3, 6 and 9 s (the first second has nothing before it)
        #expect(m.spread1s > 3)
    }

    /// The comparison: a sound beside itself is within every target; beside the same noise under a loud 1 kHz tone,
    /// the 1 kHz band misses.
    @Test func comparison() {
        // Noise in antithetic pairs (each draw followed by its negative), so its mean is 0 and DC within the target.
        func noise(_ c: Int, _ n: Int) -> Double {
            (SeededRandom.unit(SeededRandom.bits(seed: 9, stream: UInt64(c), index: Int64(n / 2))) - 0.5) * (n % 2 == 0 ? 1 : -1)
        }
        let a = measure(seconds: 4) { c, n in 0.2 * noise(c, n) }
        #expect(SoundComparison(a, against: a, wide: true).withinTargets)
        let b = measure(seconds: 4) { c, n in 0.2 * noise(c, n) + sine(1000, 0.3, n) }
        let misses = SoundComparison(a, against: b).misses.map(\.name)
        #expect(misses.contains("band 1k Hz (dB)"))
    }
}
