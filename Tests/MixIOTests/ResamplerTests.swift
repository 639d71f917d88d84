import DSPTestSupport
import Foundation
import MixDSP
import MixIO
import Testing

@Suite struct ResamplerTests {
    static let inputRate = 44_100
    static let outputRate = 48_000
    static let amplitude = 0.5

    /// Resamples 1 s of a 1 kHz stereo sine in uneven blocks, then drains with `endOfInput`.
    private func resampleSine(_ quality: ResamplerChoice) throws -> [Float] {
        let channelCount = 2
        let input = TestSignals.sine(frequency: 1000, amplitude: Self.amplitude, rate: Self.inputRate,
                                     frames: Self.inputRate, channels: channelCount)
        let resampler = try makeSampleRateConverter(channelCount: channelCount, inputRate: Self.inputRate,
                                                    outputRate: Self.outputRate, quality: quality)
        #expect(resampler.ratio == 48_000.0 / 44_100.0)
        var output: [Float] = []
        var block = [Float](repeating: 0, count: 777 * channelCount)
        var position = 0
        var isDrained = false
        try input.withUnsafeBufferPointer { input in
            while !isDrained {
                let frames = min(1000, Self.inputRate - position)
                let isLast = position + frames == Self.inputRate
                let (consumed, produced) = try resampler.process(
                    input: input.baseAddress! + position * channelCount, inputFrames: frames,
                    output: &block, outputCapacity: 777, endOfInput: isLast)
                position += consumed
                output += block[0..<(produced * channelCount)]
                isDrained = isLast && consumed == frames && produced == 0
            }
        }
        return output
    }

    @Test(arguments: ResamplerChoice.allCases)
    func sineKeepsLengthFrequencyAndLevel(_ quality: ResamplerChoice) throws {
        let output = try resampleSine(quality)
        let frames = output.count / 2
        // libsamplerate and libsoxr compensate their own filter delay: after draining, the output is in phase with a
        // sine made at 48 kHz and its length is input x ratio give or take rounding. Measured here: 48000
        // frames when all input goes in one call, 48001 when fed in these 1000-frame blocks.
        #expect(abs(frames - Self.outputRate) <= 2, "\(frames) frames")
        let ideal = TestSignals.sine(frequency: 1000, amplitude: Self.amplitude, rate: Self.outputRate,
                                     frames: Self.outputRate, channels: 1)
        let misalignment = (1_000..<47_000).map { abs(output[$0 * 2] - ideal[$0]) }.max()!
        #expect(misalignment < 1e-4, "max difference from a 48 kHz sine \(misalignment)")

        // Steady-state middle: 0.8 s = 800 whole cycles of 1 kHz at 48 kHz.
        let start = 4_800, count = 38_400
        let left = (start..<(start + count)).map { Double(output[$0 * 2]) }
        let right = (start..<(start + count)).map { Double(output[$0 * 2 + 1]) }
        #expect(left == right)

        var crossings = 0
        for index in 1..<count where (left[index - 1] < 0) != (left[index] < 0) { crossings += 1 }
        #expect(abs(crossings - 1600) <= 1, "\(crossings) zero crossings")

        func magnitude(_ frequency: Double) -> Double {
            var re = 0.0, im = 0.0
            for (index, value) in left.enumerated() {
                let phase = 2 * Double.pi * frequency * Double(index) / Double(Self.outputRate)
                re += value * cos(phase)
                im -= value * sin(phase)
            }
            return (re * re + im * im).squareRoot() / Double(count / 2)
        }
        let atTone = magnitude(1000)
        #expect(abs(dB(atTone / Self.amplitude)) < 0.1, "1 kHz at \(atTone)")
        for neighbour in [900.0, 980, 1020, 1100] {
            #expect(dB(magnitude(neighbour) / atTone) < -60, "\(neighbour) Hz")
        }

        let rms = (left.reduce(0) { $0 + $1 * $1 } / Double(count)).squareRoot()
        #expect(abs(dB(rms / (Self.amplitude / 2.squareRoot()))) < 0.1, "RMS \(rms)")
    }

    @Test func resetForgetsHistory() throws {
        let resampler = try SampleRateResampler(channelCount: 1, inputRate: 44_100, outputRate: 48_000, quality: .fast)
        let input = TestSignals.sine(frequency: 1000, amplitude: 0.5, rate: 44_100, frames: 4410, channels: 1)
        var a = [Float](repeating: 0, count: 8000), b = a
        let runA = try resampler.process(input: input, inputFrames: 4410, output: &a, outputCapacity: 8000, endOfInput: true)
        try resampler.reset()
        let runB = try resampler.process(input: input, inputFrames: 4410, output: &b, outputCapacity: 8000, endOfInput: true)
        #expect(runA == runB)
        #expect(runA.produced > 4700)
        #expect(a == b)
    }

    @Test func rejectsImpossibleRates() {
        #expect(throws: AudioIOError.self) {
            try SampleRateResampler(channelCount: 2, inputRate: 0, outputRate: 48_000, quality: .medium)
        }
        let error = #expect(throws: AudioIOError.self) {
            try SampleRateResampler(channelCount: 2, inputRate: 1000, outputRate: 1_000_000, quality: .medium)
        }
        #expect(error?.description.hasPrefix("cannot create a medium resampler from 1000 Hz to 1000000 Hz") == true)
    }
}
