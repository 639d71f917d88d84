import DSPTestSupport
import MixDSP
import MixEngine
import Testing

/// Every nature generator reaches a render through the DC blocker: over 30 s each channel's mean is below -80 dBFS
/// (issue 25's target; before the blocker, rain alone sat at -59 dBFS and a mix at -50).
@Suite struct NatureDCTests {
    static let kinds: [(String, any EndlessGeneratorKind)] = [
        ("rain", RainKind(intensity: 0.6, seed: 4)),
        ("wind", WindKind(intensity: 0.5, gustiness: 0.6, seed: 23)),
        ("surf", SurfKind(intensity: 0.8, periodSeconds: 3, seed: 61)),
        ("fire", FireKind(intensity: 0.55, seed: 71)),
        ("crickets", CricketsKind(intensity: 0.35, temperatureC: 24, seed: 73)),
    ]

    @Test(arguments: 0..<5)
    func theMeanIsBelowMinus80dBFS(index: Int) throws {
        let (name, kind) = Self.kinds[index]
        let source = try kind.makeSource(RenderFormat(sampleRate: 48_000, channelCount: 2, resampler: .medium), prepared: nil)
        #expect(source is DCBlocker, "\(name)")
        let block = AudioBlock(channelCount: 2, capacity: 4096)
        var sums = [0.0, 0.0], frames = 0
        while frames < 30 * 48_000 {
            try source.render(into: block, offset: 0, count: 4096, at: Int64(frames))
            for c in 0..<2 { for j in 0..<4096 { sums[c] += Double(block.channel(c)[j]) } }
            frames += 4096
        }
        for c in 0..<2 {
            let mean = sums[c] / Double(frames)
            #expect(dB(abs(mean)) < -80, "\(name), channel \(c): mean \(mean) (\(dB(abs(mean))) dBFS)")
        }
    }
}
