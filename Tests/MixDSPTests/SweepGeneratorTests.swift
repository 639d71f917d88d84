import Foundation
import DSPTestSupport
import MixDSP
import Testing

/// The sweep on its own: the frequency it glides along, a glide with no step, its level, and samples that depend
/// only on their position.
@Suite struct SweepGeneratorTests {
    @Test func itGlidesAlongAnExponentialThenHolds() throws {
        // 400 Hz down to 100 Hz over 2 s at 48 kHz: 200 Hz at 1 s (the geometric mean), 100 Hz from 2 s on.
        let sweep = SweepGenerator(fromHz: 400, toHz: 100, glideFrames: 96_000, sampleRate: 48_000, amplitude: 0.5, channelCount: 1)
        let x = try GeneratorTesting.render(sweep, frames: 144_000)[0]
        for (second, expected) in [(0.1, 400 * pow(0.25, 0.05)), (1.0, 200.0), (1.9, 400 * pow(0.25, 0.95)), (2.5, 100.0)] {
            let centre = Int(second * 48_000)
            let measured = zeroCrossingFrequency(x, (centre - 2400)..<(centre + 2400), rate: 48_000)
            #expect(abs(measured / expected - 1) < 0.01, "at \(second) s: \(measured) Hz, expected \(expected)")
            #expect(abs(sweep.frequency(at: Int64(centre)) / expected - 1) < 1e-9)
        }
    }

    @Test func theGlideHasNoStepAndTheLevelIsASines() throws {
        // An upward glide: no sample moves further than the fastest sine allowed moves in one frame (2π f A / rate).
        let sweep = SweepGenerator(fromHz: 60, toHz: 1000, glideFrames: 48_000, sampleRate: 48_000, amplitude: 0.5, channelCount: 2)
        let x = try GeneratorTesting.render(sweep, frames: 96_000)
        #expect(x[0] == x[1])
        let largestStep = zip(x[0].dropFirst(), x[0]).map { abs($0 - $1) }.max()!
        #expect(largestStep <= Float(2 * Double.pi * 1000 * 0.5 / 48_000) * 1.001, "\(largestStep)")
        // Held at 1 kHz for the last second: a whole number of cycles, RMS A/√2 within 0.01 dB.
        #expect(abs(dB(rms(x[0][48_000...])) - dB(0.5 / 2.0.squareRoot())) < 0.01)
    }

    @Test func aGlideBetweenEqualFrequenciesIsATone() throws {
        let sweep = SweepGenerator(fromHz: 250, toHz: 250, glideFrames: 10_000, sampleRate: 48_000, amplitude: 0.4, channelCount: 1)
        let tone = ToneGenerator(waveform: .sine, frequencyHz: 250, sampleRate: 48_000, amplitude: 0.4, channelCount: 1)
        let a = try GeneratorTesting.render(sweep, frames: 30_000)[0], b = try GeneratorTesting.render(tone, frames: 30_000)[0]
        #expect(zip(a, b).allSatisfy { abs($0 - $1) < 1e-5 })
    }

    @Test func everyBlockSizeAndEveryStartGiveTheSameSamples() throws {
        // Inside the glide, and across its end (at 300 000).
        let sweep = SweepGenerator(fromHz: 880, toHz: 110, glideFrames: 300_000, sampleRate: 48_000, amplitude: 0.7, channelCount: 2)
        try GeneratorTesting.expectSameSamplesForAnyBlocks(sweep, frames: 320_000, partialStart: 295_000)
        #expect(try GeneratorTesting.largestStep(sweep, frames: 320_000) <= Float(2 * Double.pi * 880 * 0.7 / 48_000) * 1.001)
    }
}
