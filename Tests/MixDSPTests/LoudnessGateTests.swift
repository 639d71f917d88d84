import DSPTestSupport
import MixDSP
import Foundation
import Testing

/// `LoudnessGate` (a histogram of blocks) gives the integrated loudness a list of every block gives.
@Suite struct LoudnessGateTests {
    /// BS.1770-4's gating over a list of block powers: the definition the histogram stands in for.
    static func gated(_ blocks: [Double]) -> Double {
        func lufs(_ p: Double) -> Double { p > 0 ? -0.691 + 10 * log10(p) : -.infinity }
        let absolute = blocks.filter { lufs($0) > -70 }
        guard !absolute.isEmpty else { return -.infinity }
        let threshold = lufs(absolute.reduce(0, +) / Double(absolute.count)) - 10
        let relative = absolute.filter { lufs($0) > threshold }
        guard !relative.isEmpty else { return -.infinity }
        return lufs(relative.reduce(0, +) / Double(relative.count))
    }

    /// Programmes of 100 to 300,000 blocks (8 hours of 100 ms hops) whose loudness wanders over 60 LU, with many
    /// blocks near the relative gate: within 0.005 LU of the list's gating, in parts as in one.
    @Test(arguments: [100, 5_000, 300_000])
    func agreesWithTheListOfEveryBlock(blocks: Int) {
        var random = TestSignals.Noise(seed: UInt64(blocks))
        var level = -30.0
        var powers: [Double] = []
        for _ in 0..<blocks {
            level = min(5, max(-95, level + Double.random(in: -1.5...1.5, using: &random)))
            powers.append(pow(10, (level + 0.691) / 10))
        }
        var whole = LoudnessGate(), first = LoudnessGate(), second = LoudnessGate()
        for (i, p) in powers.enumerated() {
            whole.add(power: p)
            if i < blocks / 3 { first.add(power: p) } else { second.add(power: p) }
        }
        first.add(second)
        let exact = Self.gated(powers)
        #expect(abs(whole.integrated - exact) < 0.005, "\(blocks) blocks: \(whole.integrated) against \(exact)")
        #expect(abs(first.integrated - exact) < 0.005, "\(blocks) blocks in two parts: \(first.integrated) against \(exact)")
    }

    @Test func silenceAndBlocksUnderTheAbsoluteGateHaveNoLoudness() {
        var gate = LoudnessGate()
        #expect(gate.integrated == -.infinity)
        gate.add(power: 0)
        gate.add(power: pow(10, (-75 + 0.691) / 10))
        #expect(gate.integrated == -.infinity)
        gate.add(power: pow(10, (-23 + 0.691) / 10))
        #expect(abs(gate.integrated - -23) < 1e-9)
    }
}
