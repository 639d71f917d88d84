import Testing
import Foundation
import DSPTestSupport
import MixDSP

@Suite struct LoopSourceTests {
    /// Material whose end and start are at different levels and phases: a seam without a crossfade
    /// would step by about 1.4.
    func material(length: Int) -> AudioBlock {
        TestSignals.block(channels: 2, frames: length) { i, c in
            let level: Float = 0.2 + 0.6 * Float(i) / Float(length)          // rises from 0.2 to 0.8
            return level * Float(sin(Double(i) * 0.05 + Double(c)))
        }
    }

    func render(_ source: FrameSource, frames: Int, block: Int) throws -> AudioBlock {
        let out = AudioBlock(channelCount: 2, capacity: frames)
        let scratch = AudioBlock(channelCount: 2, capacity: block)
        var p = 0
        while p < frames {
            let n = min(block, frames - p)
            try source.render(into: scratch, offset: 0, count: n, at: Int64(p))
            for c in 0..<2 { for i in 0..<n { out.channel(c)[p + i] = scratch.channel(c)[i] } }
            p += n
        }
        return out
    }

    /// Largest step between consecutive samples.
    func maxStep(_ b: AudioBlock, frames: Int) -> Float {
        var m: Float = 0
        for c in 0..<b.channelCount { for i in 1..<frames { m = max(m, abs(b.channel(c)[i] - b.channel(c)[i - 1])) } }
        return m
    }

    @Test func seamHasNoStepLargerThanTheMaterialHas() throws {
        let length = 10_000
        let m = material(length: length)
        let ownStep = maxStep(m, frames: length)
        let loop = LoopSource(material: material(length: length), length: length, crossfade: 2000, curve: .equalPower)
        let out = try render(loop, frames: 50_000, block: 1024)
        // A crossfade can at most add the steps of both sides.
        #expect(maxStep(out, frames: 50_000) <= 2 * ownStep)
        #expect(loop.period == 8000)
    }

    @Test func firstPlayIsTheMaterialAndTheSeamIsTheCrossfade() throws {
        let length = 1000, x = 100
        let m = material(length: length)
        let loop = LoopSource(material: material(length: length), length: length, crossfade: x, curve: .linear)
        let out = try render(loop, frames: 3000, block: 333)
        // Before the first seam: the material itself.
        for i in 0..<(length - x) { #expect(out.channel(0)[i] == m.channel(0)[i]) }
        // At the seam: tail fading out under the head fading in.
        for i in 0..<x {
            let t = Float(i) / Float(x)
            let expected = m.channel(0)[length - x + i] * (1 - t) + m.channel(0)[i] * t
            #expect(abs(out.channel(0)[length - x + i] - expected) < 1e-6)
        }
        // After it, the material continues from where the head left off, and the cycle repeats.
        #expect(out.channel(1)[length] == m.channel(1)[x])
        for i in 0..<1000 { #expect(out.channel(0)[1000 + i] == out.channel(0)[1000 + 900 + i]) }
    }

    @Test func blockSizeDoesNotChangeTheLoop() throws {
        let loop = LoopSource(material: material(length: 5000), length: 5000, crossfade: 700, curve: .sCurve)
        let a = try render(loop, frames: 40_000, block: 4096)
        let b = try render(loop, frames: 40_000, block: 17)
        for c in 0..<2 { for i in 0..<40_000 { #expect(a.channel(c)[i] == b.channel(c)[i]) } }
    }

    @Test func equalPowerCrossfadeOfIndependentNoisesKeepsRMS() {
        // Two independent noises of equal RMS, crossfaded with the equal-power curve:
        // the RMS in every window through the crossfade stays within 0.5 dB of the input's.
        let n = 96_000
        var a = TestSignals.Noise(seed: 1), b = TestSignals.Noise(seed: 2)
        let x = (0..<n).map { _ in a.sample() }, y = (0..<n).map { _ in b.sample() }
        let out = AudioBlock(channelCount: 1, capacity: n)
        let o = out.channel(0)
        for i in 0..<n {
            let t = Double(i) / Double(n)
            o[i] = x[i] * Float(Curve.equalPower.shape(1 - t)) + y[i] * Float(Curve.equalPower.shape(t))
        }
        let reference = (1.0 / 3.0).squareRoot()                 // RMS of uniform noise in [-1, 1)
        for w in stride(from: 0, to: n, by: 4800) {
            let level = rms(o[w..<(w + 4800)])
            #expect(abs(dB(level / reference)) < 0.5, "window at \(w): \(dB(level / reference)) dB")
        }
    }

    /// A 50 ms drip (noise under a 6 ms decay, fixed seed) and 50 ms of plain noise, at 48 kHz.
    static func drip(decays: Bool) -> AudioBlock {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        return TestSignals.block(channels: 1, frames: 2400) { i, _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Float(Double(state >> 11) / Double(1 << 53) - 0.5)
            return decays ? noise * Float(exp(-Double(i) / 300)) : noise
        }
    }

    /// The level a seam gives is measured on the cycle: noise keeps its level at any equal-power seam, a drip
    /// loses its attack to a seam of half its length, and the longest seam keeping it within 0.5 dB is short.
    @Test func theSeamThatKeepsTheLevel() {
        let noise = Self.drip(decays: false), drip = Self.drip(decays: true)
        #expect(abs(LoopSource.levelChange(material: noise, length: 2400, crossfade: 1200, curve: .equalPower)) < 0.3)
        #expect(LoopSource.levelChange(material: drip, length: 2400, crossfade: 1200, curve: .equalPower) < -6)
        #expect(LoopSource.levelChange(material: drip, length: 2400, crossfade: 0, curve: .equalPower) == 0)
        #expect(LoopSource.seamKeepingLevel(material: noise, length: 2400, requested: 1200, minimum: 96,
                                            curve: .equalPower, tolerance: 0.5) == 1200)
        let seam = LoopSource.seamKeepingLevel(material: drip, length: 2400, requested: 1200, minimum: 16,
                                               curve: .equalPower, tolerance: 0.5)
        #expect(seam < 150 && seam >= 16)
        #expect(abs(LoopSource.levelChange(material: drip, length: 2400, crossfade: seam, curve: .equalPower)) <= 0.5)
        // A floor that loses more than the tolerance is still the answer: the caller says so.
        #expect(LoopSource.seamKeepingLevel(material: drip, length: 2400, requested: 1200, minimum: 600,
                                            curve: .equalPower, tolerance: 0.5) == 600)
    }
}
