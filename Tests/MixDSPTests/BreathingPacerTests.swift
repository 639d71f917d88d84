import DSPTestSupport
import MixDSP
import Testing

/// The breathing pacer: its level follows the pattern, its pitch glides with the breath, its samples depend only on
/// their position.
@Suite struct BreathingPacerTests {
    static let rate = 48000
    static func s(_ seconds: Double) -> Int64 { Int64(seconds * Double(rate)) }

    /// 4-7-8: inhale 4 s, hold 7 s, exhale 8 s (a 19 s cycle).
    static let fourSevenEight: [BreathingPacer.Phase] = [.init(.inhale, frames: s(4)), .init(.hold, frames: s(7)),
                                                         .init(.exhale, frames: s(8))]
    /// Box breathing: inhale, hold, exhale, rest, 4 s each.
    static let box: [BreathingPacer.Phase] = [.init(.inhale, frames: s(4)), .init(.hold, frames: s(4)),
                                              .init(.exhale, frames: s(4)), .init(.rest, frames: s(4))]

    /// The envelope of the signal: the largest |y| in each 10 ms window (a 180 Hz tone goes through a whole
    /// period in every window, so this is A · level to within 2e-4).
    static func envelope(_ x: [Float], window: Int = 480) -> [Double] {
        stride(from: 0, to: x.count - window + 1, by: window).map { Double(peak(x[$0..<($0 + window)])) }
    }

    @Test func theLevelRepeatsWithThePatternsCycle() throws {
        // The times the envelope rises through half its top, interpolated between windows; successive ones are
        // one breathing cycle apart.
        let pacer = BreathingPacer(pattern: Self.fourSevenEight, frequencyHz: 180, glideSemitones: 2, floor: 0.05,
                                   sampleRate: Self.rate, amplitude: 0.4, channelCount: 1)
        let e = Self.envelope(try GeneratorTesting.render(pacer, frames: Int(Self.s(80)))[0])
        var crossings: [Double] = []
        for i in 1..<e.count where e[i - 1] < 0.2 && e[i] >= 0.2 {
            crossings.append((Double(i - 1) + (0.2 - e[i - 1]) / (e[i] - e[i - 1])) * 0.01)
        }
        #expect(crossings.count == 5)       // at about 2, 21, 40, 59 and 78 s
        var worst = 0.0
        for k in 1..<crossings.count {
            let period = crossings[k] - crossings[k - 1]
            worst = max(worst, abs(period - 19))
            #expect(abs(period - 19) < 0.01, "cycle \(k): \(period) s")
        }
        print("breathing: worst cycle length error \(worst) s")
    }

    @Test func holdsStayUpAndRestsStayDown() throws {
        let pacer = BreathingPacer(pattern: Self.box, frequencyHz: 180, floor: 0.05, sampleRate: Self.rate, amplitude: 0.4,
                                   channelCount: 1)
        // the level itself: 1 through the hold, the floor through the rest, in every cycle
        for cycle in 0..<3 {
            let t0 = Double(cycle) * 16
            for t in stride(from: 4.0, to: 8, by: 0.25) { #expect(pacer.level(at: Self.s(t0 + t)) == 1) }
            for t in stride(from: 12.0, to: 16, by: 0.25) { #expect(pacer.level(at: Self.s(t0 + t)) == 0.05) }
        }
        // and the signal: its envelope over the hold of the second cycle, and over its rest
        let x = try GeneratorTesting.render(pacer, frames: Int(Self.s(32)))[0]
        let hold = Self.envelope(Array(x[Int(Self.s(20))..<Int(Self.s(24))]))
        let rest = Self.envelope(Array(x[Int(Self.s(28))..<Int(Self.s(32))]))
        #expect(hold.allSatisfy { abs($0 / 0.4 - 1) < 0.001 }, "hold: \(hold.min()!) ... \(hold.max()!)")
        #expect(rest.allSatisfy { abs($0 / 0.4 - 0.05) < 0.0001 }, "rest: \(rest.min()!) ... \(rest.max()!)")
    }

    @Test func thePitchGlidesWithTheBreath() throws {
        // 3 semitones up: 180 · 2^(3/12) = 214.06 Hz at the top (the hold), 180 Hz at the bottom (the rest).
        let pacer = BreathingPacer(pattern: Self.box, frequencyHz: 180, glideSemitones: 3, floor: 0.2, sampleRate: Self.rate,
                                   amplitude: 0.4, channelCount: 1)
        let x = try GeneratorTesting.render(pacer, frames: Int(Self.s(16)))[0]
        let top = frequency(x[Int(Self.s(4.5))..<Int(Self.s(7.5))], rate: Self.rate)
        let bottom = frequency(x[Int(Self.s(12.5))..<Int(Self.s(15.5))], rate: Self.rate)
        #expect(abs(top - 180 * 2.0.squareRoot().squareRoot()) < 0.01, "top \(top) Hz")
        #expect(abs(bottom - 180) < 0.01, "bottom \(bottom) Hz")
    }

    @Test func noStepIsLargerThanTheTonesOwn() throws {
        // The wave sin x + 0.1 sin 2x changes at most 1.2 dx (÷ its peak, 1.019) a frame, at the top pitch, plus what
        // the level adds: the s-curve's steepest, π/2 · (1 − floor) / inhale frames.
        let pacer = BreathingPacer(pattern: Self.fourSevenEight, frequencyHz: 180, glideSemitones: 2, floor: 0.05,
                                   sampleRate: Self.rate, amplitude: 0.4, channelCount: 1)
        let top = 180 * Double.pow(2, 2.0 / 12)
        let tone = 0.4 * 2 * Double.pi * top / Double(Self.rate) * 1.2 / 1.0191
        let level = 0.4 * Double.pi / 2 * 0.95 / Double(Self.s(4))
        let largest = try GeneratorTesting.largestStep(pacer, frames: Int(Self.s(40)))
        #expect(Double(largest) <= tone + level + 1e-6, "largest step \(largest), limit \(tone + level)")
        print("breathing: largest step \(largest), limit \(tone + level)")
    }

    @Test func everyBlockSizeAndEveryStartGiveTheSameSamples() throws {
        let pattern: [BreathingPacer.Phase] = [.init(.inhale, frames: 1000), .init(.hold, frames: 501),
                                               .init(.exhale, frames: 1500), .init(.rest, frames: 700)]
        let pacer = BreathingPacer(pattern: pattern, frequencyHz: 330, glideSemitones: -4, floor: 0.1, sampleRate: Self.rate,
                                   amplitude: 0.6, cycles: 3, channelCount: 2)
        #expect(pacer.cycleFrames == 3701 && pacer.frameCount == 11_103)
        try GeneratorTesting.expectSameSamplesForAnyBlocks(pacer, frames: 12_000, partialStart: 5555)
        let x = try GeneratorTesting.render(pacer, frames: 12_000)
        #expect(x[0][11_103...].allSatisfy { $0 == 0 } && x[1] == x[0])
        #expect(peak(x[0][11_000..<11_103]) > 0.05)       // the last rest, at the floor
    }

    @Test func itSaysWhereEachPhaseStarts() {
        let pacer = BreathingPacer(pattern: Self.fourSevenEight, frequencyHz: 180, sampleRate: Self.rate, amplitude: 0.4,
                                   cycles: 2, channelCount: 1)
        let starts = pacer.phaseStarts(in: 0..<Int64.max)
        #expect(starts.map(\.start) == [0, 4, 11, 19, 23, 30].map { Self.s($0) })
        #expect(starts.map(\.kind) == [.inhale, .hold, .exhale, .inhale, .hold, .exhale])
        #expect(starts.map(\.cycle) == [0, 0, 0, 1, 1, 1])
        let p = pacer.phase(at: Self.s(25))
        #expect(p.cycle == 1 && p.index == 1 && p.kind == .hold && p.start == Self.s(23) && p.frames == Self.s(7))
        #expect(pacer.phaseStarts(in: Self.s(5)..<Self.s(20)).map(\.start) == [Self.s(11), Self.s(19)])
    }
}
