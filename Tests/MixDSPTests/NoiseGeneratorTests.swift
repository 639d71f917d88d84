import Testing
import DSPTestSupport
@testable import MixDSP

@Suite struct NoiseGeneratorTests {
    func render(_ g: NoiseGenerator, frames: Int, block: Int, from start: Int64 = 0) throws -> AudioBlock {
        let out = AudioBlock(channelCount: g.channelCount, capacity: frames)
        let scratch = AudioBlock(channelCount: g.channelCount, capacity: block)
        var p = 0
        while p < frames {
            let n = min(block, frames - p)
            try g.render(into: scratch, offset: 0, count: n, at: start + Int64(p))
            for c in 0..<g.channelCount { for i in 0..<n { out.channel(c)[p + i] = scratch.channel(c)[i] } }
            p += n
        }
        return out
    }

    @Test(arguments: NoiseGenerator.Color.allCases)
    func eachColourIsAboutMinus18dBFS(color: NoiseGenerator.Color) throws {
        let g = NoiseGenerator(color: color, seed: 42, channelCount: 2)
        let out = try render(g, frames: 480_000, block: 4096)
        let level = dB(rms(out.channel(0)[48_000..<480_000]))
        #expect(abs(level - -18) < 1, "\(color): \(level) dBFS")
    }

    @Test(arguments: NoiseGenerator.Color.allCases)
    func sameSeedSameNoiseForAnyBlockSizeAndPosition(color: NoiseGenerator.Color) throws {
        let a = try render(NoiseGenerator(color: color, seed: 7, channelCount: 2), frames: 20_000, block: 4096)
        let b = try render(NoiseGenerator(color: color, seed: 7, channelCount: 2), frames: 20_000, block: 333)
        let later = try render(NoiseGenerator(color: color, seed: 7, channelCount: 2), frames: 5000, block: 1000, from: 15_000)
        let other = try render(NoiseGenerator(color: color, seed: 8, channelCount: 2), frames: 20_000, block: 4096)
        for c in 0..<2 {
            for i in 0..<20_000 { #expect(a.channel(c)[i] == b.channel(c)[i]) }
            for i in 0..<5000 { #expect(later.channel(c)[i] == a.channel(c)[15_000 + i]) }
        }
        #expect(a.channel(0)[100] != other.channel(0)[100])
        #expect(a.channel(0)[100] != a.channel(1)[100])          // channels are independent
    }
}

/// Pink and brown noise reach any frame at a cost independent of its position, with the samples a render from
/// the start gives there.
@Suite struct NoiseGeneratorSeekTests {
    /// Four epochs rendered in blocks (the shadow state taking over at each boundary) against the filters run
    /// straight from frame 0: the same to within one rounding of a Float (the states differ by e^-37 of their size).
    @Test(arguments: [NoiseGenerator.Color.pink, .brown])
    func epochsChangeNothingAudible(color: NoiseGenerator.Color) throws {
        let frames = Int(4 * NoiseGenerator.epochFrames + 1000)
        let g = NoiseGenerator(color: color, seed: 5, channelCount: 2)
        let rendered = try NoiseGeneratorTests().render(g, frames: frames, block: 4096)
        // `ReferenceNoise` (DSPTestSupport) runs the filters straight on from frame 0, as the noise was made before it
        // could seek.
        let straight = AudioBlock(channelCount: 2, capacity: frames)
        ReferenceNoise(color: color, seed: 5, channelCount: 2).generate(into: straight, count: frames)
        for c in 0..<2 {
            let reference = straight.channel(c)
            var worst: Float = 0, differing = 0
            for i in 0..<frames {
                let d = abs(rendered.channel(c)[i] - reference[i])
                if d > 0 { differing += 1; worst = max(worst, d / max(abs(reference[i]), 1e-30)) }
            }
            #expect(worst <= 1.2e-7, "\(color) channel \(c): largest relative difference \(worst)")
            #expect(differing <= frames / 1000, "\(color) channel \(c): \(differing) samples differ")
        }
    }

    /// At 1 h, 10 h and 99 h of 48 kHz, a render that starts there equals a render that ran on to there over
    /// three epochs (which passes every boundary the way a render from the start does), bit for bit, whatever
    /// the block size.
    @Test(arguments: [NoiseGenerator.Color.pink, .brown, .white])
    func aFrameAnywhereIsTheSameWhereverRenderingStarted(color: NoiseGenerator.Color) throws {
        for hours in [1, 10, 99] as [Int64] {
            let position = hours * 3600 * 48_000 + 12_345
            let lead = 3 * NoiseGenerator.epochFrames + 777
            let direct = try NoiseGeneratorTests().render(NoiseGenerator(color: color, seed: 9, channelCount: 2),
                                                          frames: 10_000, block: 1000, from: position)
            let ranOn = try NoiseGeneratorTests().render(NoiseGenerator(color: color, seed: 9, channelCount: 2),
                                                         frames: Int(lead) + 10_000, block: 4096, from: position - lead)
            for c in 0..<2 {
                #expect(Array(direct.channel(c)[0..<10_000]) == Array(ranOn.channel(c)[Int(lead)..<Int(lead) + 10_000]),
                        "\(color) at \(hours) h, channel \(c)")
            }
        }
    }
}
