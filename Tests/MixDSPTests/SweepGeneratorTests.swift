import Foundation
import DSPTestSupport
import MixDSP
import Testing

/// The sweep on its own: the frequency it glides along, a glide with no step, its level, and samples that depend
/// only on their position.
@Suite struct SweepGeneratorTests {
    static func render(_ sweep: SweepGenerator, at position: Int64 = 0, frames: Int, blockFrames: Int = 4096) throws -> [[Float]] {
        let block = AudioBlock(channelCount: sweep.channelCount, capacity: blockFrames)
        var out = Array(repeating: [Float](), count: sweep.channelCount)
        var done = 0
        while done < frames {
            let n = min(blockFrames, frames - done)
            try sweep.render(into: block, offset: 0, count: n, at: position + Int64(done))
            for c in 0..<sweep.channelCount { out[c] += block.channel(c)[0..<n] }
            done += n
        }
        return out
    }

    @Test func itGlidesAlongAnExponentialThenHolds() throws {
        // 400 Hz down to 100 Hz over 2 s at 48 kHz: 200 Hz at 1 s (the geometric mean), 100 Hz from 2 s on.
        let sweep = SweepGenerator(fromHz: 400, toHz: 100, glideFrames: 96_000, sampleRate: 48_000, amplitude: 0.5, channelCount: 1)
        let x = try Self.render(sweep, frames: 144_000)[0]
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
        let x = try Self.render(sweep, frames: 96_000)
        #expect(x[0] == x[1])
        let largestStep = zip(x[0].dropFirst(), x[0]).map { abs($0 - $1) }.max()!
        #expect(largestStep <= Float(2 * Double.pi * 1000 * 0.5 / 48_000) * 1.001, "\(largestStep)")
        // Held at 1 kHz for the last second: a whole number of cycles, RMS A/√2 within 0.01 dB.
        #expect(abs(dB(rms(x[0][48_000...])) - dB(0.5 / 2.0.squareRoot())) < 0.01)
    }

    @Test func aGlideBetweenEqualFrequenciesIsATone() throws {
        let sweep = SweepGenerator(fromHz: 250, toHz: 250, glideFrames: 10_000, sampleRate: 48_000, amplitude: 0.4, channelCount: 1)
        let tone = ToneGenerator(waveform: .sine, frequencyHz: 250, sampleRate: 48_000, amplitude: 0.4, channelCount: 1)
        let a = try Self.render(sweep, frames: 30_000)[0], b = try ToneGeneratorTests.render(tone, frames: 30_000)[0]
        #expect(zip(a, b).allSatisfy { abs($0 - $1) < 1e-5 })
    }

    @Test func everyBlockSizeAndEveryStartGiveTheSameSamples() throws {
        let sweep = SweepGenerator(fromHz: 880, toHz: 110, glideFrames: 300_000, sampleRate: 48_000, amplitude: 0.7, channelCount: 2)
        let reference = try Self.render(sweep, frames: 480_000)
        for blockFrames in [1000, 4097, 1] {
            let frames = blockFrames == 1 ? 20_000 : 480_000
            let other = try Self.render(sweep, frames: frames, blockFrames: blockFrames)
            #expect(other[0] == Array(reference[0][..<frames]), "blocks of \(blockFrames)")
        }
        // Windows inside the glide and across its end.
        for start in [123_457, 295_000] {
            let part = try Self.render(sweep, at: Int64(start), frames: 10_000, blockFrames: 999)
            #expect(part[1] == Array(reference[1][start..<(start + 10_000)]))
        }
    }
}
