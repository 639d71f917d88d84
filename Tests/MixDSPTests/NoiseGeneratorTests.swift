import Testing
import DSPTestSupport
import MixDSP

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
