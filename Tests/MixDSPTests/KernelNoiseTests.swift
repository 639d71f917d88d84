import Testing
import MixDSP

/// The stereo path of `NoiseGenerator` (brown noise: both channels' integrators side by side) must give the samples of
/// the per-channel loop bit for bit: compare with a verbatim copy of that loop.
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

/// `NoiseGenerator`'s per-channel loop as it was before the stereo path, for comparison.
final class ReferenceNoise {
    let color: NoiseGenerator.Color, seed: UInt64, channelCount: Int
    init(color: NoiseGenerator.Color, seed: UInt64, channelCount: Int) { self.color = color; self.seed = seed; self.channelCount = channelCount }

    static func white(seed: UInt64, frame n: Int64, channel c: Int) -> Double {
        var z = seed &+ (UInt64(bitPattern: n) &* 8 &+ UInt64(c)) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z = z ^ (z >> 31)
        return Double(z >> 11) * (1.0 / 9_007_199_254_740_992.0) * 2 - 1
    }

    func generate(into block: AudioBlock, count: Int) {
        for c in 0..<channelCount {
            let out = block.channel(c)
            switch color {
            case .white:
                for i in 0..<count { out[i] = Float(Self.white(seed: seed, frame: Int64(i), channel: c) * 0.218) }
            case .pink:
                var (b0, b1, b2, b3, b4, b5, b6) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
                for i in 0..<count {
                    let w = Self.white(seed: seed, frame: Int64(i), channel: c)
                    b0 = 0.99886 * b0 + w * 0.0555179
                    b1 = 0.99332 * b1 + w * 0.0750759
                    b2 = 0.96900 * b2 + w * 0.1538520
                    b3 = 0.86650 * b3 + w * 0.3104856
                    b4 = 0.55000 * b4 + w * 0.5329522
                    b5 = -0.7616 * b5 - w * 0.0168980
                    let pink = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362
                    b6 = w * 0.115926
                    out[i] = Float(pink * 0.0709)
                }
            case .brown:
                var b = 0.0
                for i in 0..<count {
                    let w = Self.white(seed: seed, frame: Int64(i), channel: c)
                    b = (b + 0.02 * w) / 1.02
                    out[i] = Float(b * 2.188)
                }
            }
        }
    }
}
