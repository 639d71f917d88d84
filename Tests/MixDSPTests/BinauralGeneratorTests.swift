import DSPTestSupport
import Foundation  // sin, the reference
import MixDSP
import Testing

/// The binaural generator: the two ears differ by the scheduled beat, through holds, ramps, steps and 8 hours.
@Suite struct BinauralGeneratorTests {
    static let rate = 48000
    static func s(_ seconds: Double) -> Int64 { Int64(seconds * Double(rate)) }

    /// 10 Hz, an s-curve down to 4 Hz, a hold, a step up to 6 Hz and a straight line down to 2 Hz.
    static let beat = RateSchedule(points: [
        .init(position: s(20), value: 10),
        .init(position: s(60), value: 4, curve: .sCurve),
        .init(position: s(80), value: 4),
        .init(position: s(80), value: 6),
        .init(position: s(100), value: 2, curve: .linear),
    ], sampleRate: rate)

    // A fresh generator per use: tests run in parallel, and a generator keeps state between renders.
    static var generator: BinauralGenerator { BinauralGenerator(carrierHz: 200, beat: beat, sampleRate: rate, amplitude: 0.5) }

    /// The beat measured from the signal around `seconds`: each ear's frequency from its rising zero crossings
    /// over a 2 s window (`frequency`, which interpolates between samples: the average frequency between the
    /// first and the last crossing, to about 1e-4 Hz), and right minus left. In a ramp the window's average
    /// equals the value at its centre for a straight line and differs by f''·W²/24 for a curve (0.002 Hz at
    /// three quarters of the s-curve here, where f'' is largest: the worst error measured).
    static func measuredBeat(_ generator: BinauralGenerator, at seconds: Double) throws -> Double {
        let window = 2 * rate
        let x = try GeneratorTesting.render(generator, at: s(seconds) - Int64(window / 2), frames: window)
        return frequency(x[1][...], rate: rate) - frequency(x[0][...], rate: rate)
    }

    @Test func theEarsDifferByTheScheduledBeatInHoldsAndRamps() throws {
        var worst = 0.0
        // holds (10, 4, 2 Hz), the middle and three quarters of the s-curve, just after the step, the middle of the line
        for seconds in [10.0, 40, 50, 70, 85, 90, 110] {
            let expected = Self.beat.hz(at: Self.s(seconds))
            let measured = try Self.measuredBeat(Self.generator, at: seconds)
            worst = max(worst, abs(measured - expected))
            #expect(abs(measured - expected) < 0.05, "at \(seconds) s: \(measured) Hz, scheduled \(expected) Hz")
        }
        print("binaural: worst beat error \(worst) Hz")
    }

    @Test func eightHoursInTheBeatIsStillRight() throws {
        let eightHours = Self.s(8 * 3600)
        let beat = RateSchedule(points: [.init(position: 0, value: 10), .init(position: eightHours - Self.s(60), value: 10),
                                         .init(position: eightHours + Self.s(60), value: 4)], sampleRate: Self.rate)
        let generator = BinauralGenerator(carrierHz: 200, beat: beat, sampleRate: Self.rate, amplitude: 0.5)
        let hours8 = 8 * 3600.0
        let checks: [(seconds: Double, expected: Double)] = [(hours8 - 90, 10), (hours8, 7), (hours8 + 30, 5.5), (hours8 + 90, 4)]
        var worst = 0.0
        for (seconds, expected) in checks {
            let measured = try Self.measuredBeat(generator, at: seconds)
            worst = max(worst, abs(measured - expected))
            #expect(abs(measured - expected) < 0.05, "at \(seconds) s: \(measured) Hz, scheduled \(expected) Hz")
        }
        print("binaural: worst beat error after 8 hours \(worst) Hz")
    }

    @Test func noStepIsLargerThanTheTonesOwn() throws {
        // The highest ear runs at fc + 5 Hz: a sine's largest step is 2π f A / rate. The whole schedule, step included.
        let limit = Float(2 * Double.pi * 205 * 0.5 / Double(Self.rate)) + 1e-6
        let largest = try GeneratorTesting.largestStep(Self.generator, frames: Int(Self.s(110)))
        #expect(largest <= limit, "largest step \(largest), the tone's own \(limit)")
    }

    @Test func everyBlockSizeAndEveryStartGiveTheSameSamples() throws {
        // points close together, so that blocks start inside ramps, on a step and after the last point
        let beat = RateSchedule(points: [.init(position: 1000, value: 8), .init(position: 3001, value: 3, curve: .sCurve),
                                         .init(position: 3001, value: 12), .init(position: 7000, value: 5, curve: .exponential)],
                                sampleRate: Self.rate)
        let generator = BinauralGenerator(carrierHz: 300, beat: beat, sampleRate: Self.rate, amplitude: 0.8)
        try GeneratorTesting.expectSameSamplesForAnyBlocks(generator, frames: 10_000, partialStart: 2345)
    }

    /// The sine the generators render with (`sinCycles`, one body for one phase and for four) gives what the
    /// scalar sine before it gave, bit for bit (that one, kept here, took the whole cycles by a truncating conversion
    /// and folded with branches, and the goldens were recorded with it), and stays within 2e-7 of sin 2πp in Double:
    /// every 2⁻¹⁸ of a cycle over [0, 2) (524,288 phases), and each Float next to the places where the whole number of
    /// p + ½ changes or the fold turns (0, ¼, ½, ¾, 1, 1¼, 1½, 1¾ and just below 2), one at a time and four at once.
    @Test func theSineIsTheOneTheGoldensWereRecordedWith() {
        func before(_ p: Float) -> Float {
            var x = p - Float(Int32(p + 0.5))
            x = x > 0.25 ? 0.5 - x : (x < -0.25 ? -0.5 - x : x)
            let t = 2 * Float.pi * x, t2 = t * t
            let s: Float = -1.0 / 39_916_800
            let q = ((((s * t2 + 1.0 / 362_880) * t2 - 1.0 / 5040) * t2 + 1.0 / 120) * t2 - 1.0 / 6) * t2
            return t + t * q
        }
        var phases = (0..<(1 << 19)).map { Float($0) * 0x1p-18 }
        for edge: Float in [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2] {
            var below = edge, above = edge
            for _ in 0..<4 {
                below = below.nextDown
                above = above.nextUp
                phases += [below, above].filter { $0 >= 0 && $0 < 2 }
            }
        }
        phases += Array(repeating: 0, count: (4 - phases.count % 4) % 4)
        var differing = 0, worst = 0.0
        for i in stride(from: 0, to: phases.count, by: 4) {
            let four = sinCycles(SIMD4(phases[i], phases[i + 1], phases[i + 2], phases[i + 3]))
            for lane in 0..<4 {
                let p = phases[i + lane], old = before(p).bitPattern
                if four[lane].bitPattern != old || sinCycles(p).bitPattern != old { differing += 1 }
                worst = max(worst, abs(Double(four[lane]) - sin(2 * Double.pi * Double(p))))
            }
        }
        #expect(differing == 0, "\(differing) of \(phases.count) phases differ")
        #expect(worst < 2e-7, "\(worst)")
    }

    @Test func bothEarsAreSinesOfTheAmplitude() throws {
        let x = try GeneratorTesting.render(Self.generator, frames: Self.rate)
        for c in 0..<2 {
            #expect(abs(dB(rms(x[c][...])) - dB(0.5 / 2.0.squareRoot())) < 0.01)
            #expect(peak(x[c]) <= 0.5)
        }
    }
}
