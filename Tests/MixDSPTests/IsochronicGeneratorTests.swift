import DSPTestSupport
import MixDSP
import Testing

/// Isochronic pulses: the scheduled rate, soft edges, and samples that depend only on their position.
@Suite struct IsochronicGeneratorTests {
    static let rate = 48000
    static func s(_ seconds: Double) -> Int64 { Int64(seconds * Double(rate)) }

    /// 9.7 Hz for a minute, an s-curve down to 3.3 Hz over a minute, then 3.3 Hz (rates whose pulses do not fall on whole frames).
    static let pulse = RateSchedule(points: [.init(position: s(60), value: 9.7), .init(position: s(120), value: 3.3, curve: .sCurve)],
                                    sampleRate: rate)
    // A fresh generator per use: tests run in parallel, and a generator keeps state between renders.
    static var generator: IsochronicGenerator { IsochronicGenerator(carrierHz: 220, pulse: pulse, duty: 0.5, edge: 0.1, sampleRate: rate,
                                               amplitude: 0.5, channelCount: 2) }

    /// The frames where a pulse starts in `seconds` seconds from `start`: the first non-zero sample after at least
    /// 16 zero samples (between pulses the gate is exactly 0; inside one the carrier is never 0 for 16 frames).
    static func onsets(_ generator: IsochronicGenerator, from start: Double, seconds: Double) throws -> [Int] {
        var onsets: [Int] = [], zeros = 0, frame = 0
        try GeneratorTesting.stream(generator, at: s(start), frames: Int(s(seconds))) { block, n in
            let x = block.channel(0)
            for i in 0..<n {
                if x[i] == 0 { zeros += 1 } else {
                    if zeros >= 16 { onsets.append(frame + i) }
                    zeros = 0
                }
            }
            frame += n
        }
        return onsets
    }

    @Test func pulsesComeAtTheScheduledRate() throws {
        // The rate from the onsets over a minute: (onsets − 1) / (time from the first to the last), each onset
        // found to within a frame (so to about 1e-6 of the rate over a minute).
        var worst = 0.0
        for (start, expected) in [(0.0, 9.7), (130, 3.3)] {
            let onsets = try Self.onsets(Self.generator, from: start, seconds: 60)
            let measured = Double(onsets.count - 1) / (Double(onsets.last! - onsets.first!) / Double(Self.rate))
            worst = max(worst, abs(measured / expected - 1))
            #expect(abs(measured / expected - 1) < 0.01, "from \(start) s: \(measured) Hz, scheduled \(expected) Hz")
        }
        print("isochronic: worst pulse rate error \(worst * 100) %")
    }

    @Test func theGateHasNoSteps() throws {
        // The steepest edge is at the highest rate: edgeFrames = edge · rate / 9.7 Hz ≈ 495, so about π / 990 per frame.
        let limit = Double.pi / (2 * 0.1 * Double(Self.rate) / 9.7) * 1.001
        var largest = 0.0, previous = Self.generator.gate(at: 0), onFrames = 0
        for n in 1..<Self.s(180) {
            let g = Self.generator.gate(at: n)
            largest = max(largest, abs(g - previous))
            previous = g
            if g > 0 { onFrames += 1 }
        }
        #expect(largest <= limit, "largest gate step \(largest), limit \(limit)")
        #expect(abs(Double(onFrames) / Double(Self.s(180)) - 0.5) < 0.001)     // the duty
        // The signal's own step: at most A (2π fc / rate + the gate's largest step).
        let signalLimit = Float(0.5 * (2 * Double.pi * 220 / Double(Self.rate) + limit)) + 1e-6
        let signalStep = try GeneratorTesting.largestStep(Self.generator, frames: Int(Self.s(180)))
        #expect(signalStep <= signalLimit, "largest step \(signalStep), limit \(signalLimit)")
        print("isochronic: largest gate step \(largest) (limit \(limit)), largest sample step \(signalStep) (limit \(signalLimit))")
    }

    @Test func everyBlockSizeAndEveryStartGiveTheSameSamples() throws {
        let pulse = RateSchedule(points: [.init(position: 1000, value: 40), .init(position: 6001, value: 25, curve: .linear),
                                          .init(position: 6001, value: 60), .init(position: 9000, value: 30, curve: .equalPower)],
                                 sampleRate: Self.rate)
        let generator = IsochronicGenerator(carrierHz: 440, pulse: pulse, duty: 0.4, edge: 0.15, sampleRate: Self.rate,
                                            amplitude: 0.7, channelCount: 3)
        try GeneratorTesting.expectSameSamplesForAnyBlocks(generator, frames: 12_000, partialStart: 4321)
    }
}
