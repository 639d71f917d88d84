import DSPTestSupport
import Foundation
import MixDSP
import Testing

/// `DCBlocker`: the DC gone, the audible band kept, the same samples for any blocks and any start, and a seek whose
/// cost does not grow with the position.
@Suite struct DCBlockerTests {
    /// 0.1 of DC under a 50 Hz sine and seeded noise, a pure function of the frame; counts the frames it renders.
    final class Offset: FrameSource {
        let channelCount = 2
        var frameCount: Int64? { nil }
        let rate: Double
        var framesRendered = 0
        init(rate: Int) { self.rate = Double(rate) }
        func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
            framesRendered += count
            for c in 0..<2 {
                for j in 0..<count {
                    let n = position + Int64(j)
                    let noise = SeededRandom.unit(SeededRandom.bits(seed: 7, stream: UInt64(c), index: n)) - 0.5
                    block.channel(c)[offset + j] = Float(0.1 + 0.3 * sin(2 * Double.pi * 50 * Double(n) / rate) + 0.1 * noise)
                }
            }
        }
    }

    /// After the first second the mean is below -100 dBFS (it was -20), and a 50 Hz sine loses what a one-pole high-pass
    /// at 5 Hz takes (0.04 dB), within 0.01 dB.
    @Test func removesTheOffsetAndKeepsTheBand() throws {
        let rate = 48_000
        let out = try GeneratorTesting.render(DCBlocker(Offset(rate: rate), sampleRate: rate), frames: 20 * rate)
        for c in 0..<2 {
            let tail = out[c][rate...]
            let mean = tail.reduce(0.0) { $0 + Double($1) } / Double(tail.count)
            #expect(dB(abs(mean)) < -100, "channel \(c): mean \(mean)")
        }
        // The sine's amplitude, over whole cycles: its projections on sin and cos (the filter leads it by 5.7°).
        var s = 0.0, k = 0.0, n = 0
        for i in stride(from: rate, to: 20 * rate, by: 1) {
            let phase = 2 * Double.pi * 50 * Double(i) / Double(rate)
            s += Double(out[0][i]) * sin(phase); k += Double(out[0][i]) * cos(phase); n += 1
        }
        let amplitude = 2 * (s * s + k * k).squareRoot() / Double(n)
        let expected = -10 * log10(1 + (DCBlocker.cornerHz / 50) * (DCBlocker.cornerHz / 50))     // -0.043 dB
        #expect(abs(dB(amplitude / 0.3) - expected) < 0.01, "50 Hz at \(dB(amplitude / 0.3)) dB, expected \(expected)")
    }

    /// Blocks of 1, 7, 1000 or all at once, backwards, and starts anywhere (in an epoch, on its edge, inside the
    /// shadow's warm-up) give the same samples bit for bit. At 1000 Hz the epochs are 1000 frames, their warm-ups 750.
    @Test func sameSamplesForAnyBlocksAndStarts() throws {
        let rate = 1000, frames = 30_000
        let reference = try GeneratorTesting.render(DCBlocker(Offset(rate: rate), sampleRate: rate), frames: frames, blockFrames: frames)
        for blockFrames in [1, 7, 1000] {
            let other = try GeneratorTesting.render(DCBlocker(Offset(rate: rate), sampleRate: rate), frames: frames, blockFrames: blockFrames)
            #expect(other == reference, "blocks of \(blockFrames)")
        }
        let backwards = DCBlocker(Offset(rate: rate), sampleRate: rate)
        let block = AudioBlock(channelCount: 2, capacity: 1000)
        for start in stride(from: frames - 1000, through: 0, by: -1000) {
            try backwards.render(into: block, offset: 0, count: 1000, at: Int64(start))
            for c in 0..<2 { #expect(Array(block.channel(c)[0..<1000]) == Array(reference[c][start..<(start + 1000)]), "backwards at \(start)") }
        }
        for start in [1, 249, 250, 600, 999, 1_000, 1_001, 3_250, 15_999, 23_456] {
            let part = try GeneratorTesting.render(DCBlocker(Offset(rate: rate), sampleRate: rate), at: Int64(start),
                                                   frames: frames - start, blockFrames: 999)
            #expect(part == reference.map { Array($0[start...]) }, "from frame \(start)")
        }
    }

    /// A seek 10 hours in renders as much of its source as one 13 seconds in, at the same place in its epoch
    /// (from 0.75 s before the epoch's start: at most an epoch and a warm-up, 1.75 s).
    @Test func seekCostDoesNotGrowWithThePosition() throws {
        let rate = 48_000
        func framesForASeek(to seconds: Int64) throws -> Int {
            let source = Offset(rate: rate)
            let blocker = DCBlocker(source, sampleRate: rate)
            let block = AudioBlock(channelCount: 2, capacity: 1)
            try blocker.render(into: block, offset: 0, count: 1, at: seconds * Int64(rate))
            return source.framesRendered
        }
        let near = try framesForASeek(to: 13), far = try framesForASeek(to: 36_005)   // both at an epoch's start
        #expect(near == far)
        #expect(far == 3 * rate / 4 + 1)
    }
}
