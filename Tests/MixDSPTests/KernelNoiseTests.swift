import Testing
import DSPTestSupport
import MixDSP

/// The stereo path of `NoiseGenerator` (brown noise: both channels' integrators side by side) must give the samples of
/// the per-channel loop bit for bit: compare with that loop as it was (`ReferenceNoise`, DSPTestSupport).
@Suite struct KernelNoiseTests {
    @Test(arguments: NoiseGenerator.Color.allCases, [UInt64(0), 42, 0xDEAD_BEEF_CAFE])
    func stereoGeneratorGivesTheSamplesOfThePerChannelLoop(color: NoiseGenerator.Color, seed: UInt64) throws {
        let frames = 50_000
        let reference = ReferenceNoise(color: color, seed: seed, channelCount: 2)
        let expected = TestSignals.block(channels: 2, frames: frames) { _, _ in 0 }
        reference.generate(into: expected, count: frames)
        let generator = NoiseGenerator(color: color, seed: seed, channelCount: 2)
        let actual = AudioBlock(channelCount: 2, capacity: frames)
        // Uneven blocks up to 30 000, a jump ahead to 40 000 (read-ahead through the filters), a jump back (restart).
        var p = 0, k = 0
        let sizes = [1, 4096, 7, 333, 10_000]
        while p < 30_000 {
            let n = min(sizes[k % sizes.count], 30_000 - p)
            try generator.render(into: actual, offset: p, count: n, at: Int64(p)); p += n; k += 1
        }
        try generator.render(into: actual, offset: 40_000, count: 10_000, at: 40_000)
        let back = AudioBlock(channelCount: 2, capacity: 1000)
        try generator.render(into: back, offset: 0, count: 1000, at: 12_345)
        let rendered = Array(0..<30_000) + Array(40_000..<frames)
        for c in 0..<2 {
            #expect(rendered.allSatisfy { actual.channel(c)[$0].bitPattern == expected.channel(c)[$0].bitPattern }, "channel \(c)")
            #expect((0..<1000).allSatisfy { back.channel(c)[$0].bitPattern == expected.channel(c)[12_345 + $0].bitPattern })
        }
        #expect(expected.channel(0)[100] != expected.channel(1)[100])
    }
}
