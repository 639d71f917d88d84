import Foundation
import MixDSP
import Testing

/// The pure parts of issue 13's variation: seeded draws, the drift curve, the join search, per-channel gains.
@Suite struct VariationDSPTests {
    @Test func seededDrawsDependOnlyOnSeedStreamAndIndex() {
        let a = (0..<1000).map { SeededRandom.unit(seed: 7, stream: 1, index: UInt64($0)) }
        let b = (0..<1000).reversed().map { SeededRandom.unit(seed: 7, stream: 1, index: UInt64($0)) }.reversed()
        #expect(a == Array(b))
        #expect(a != (0..<1000).map { SeededRandom.unit(seed: 8, stream: 1, index: UInt64($0)) })
        #expect(a != (0..<1000).map { SeededRandom.unit(seed: 7, stream: 2, index: UInt64($0)) })
        // Uniform: 100,000 draws into 10 bins, each within 500 of 10,000 (one standard deviation is 95).
        var bins = [Int](repeating: 0, count: 10)
        for n in 0..<100_000 { bins[SeededRandom.below(10, seed: 3, stream: 0, index: UInt64(n))] += 1 }
        #expect(bins.allSatisfy { abs($0 - 10_000) < 500 }, "\(bins)")
        #expect(a.allSatisfy { $0 >= 0 && $0 < 1 })
    }

    @Test func aDriftIsTheSameCurveWhateverSpanItIsMadeFor() {
        let whole = Drift.envelope(seed: 4, spacing: 1000, from: 0, to: 100_000) { Float($0) }
        let part = Drift.envelope(seed: 4, spacing: 1000, from: 31_234, to: 52_000) { Float($0) }
        for p in stride(from: Int64(31_234), through: 52_000, by: 97) { #expect(whole.value(at: p) == part.value(at: p)) }
        #expect(whole.points.allSatisfy { abs($0.value) <= 1 })
        var steepest: Float = 0
        for p in Int64(1)..<100_000 { steepest = max(steepest, abs(whole.value(at: p) - whole.value(at: p - 1))) }
        #expect(Double(steepest) <= Drift.maximumSlope(range: 2, spacing: 1000) + 1e-6)
    }

    @Test func theJoinSearchFindsTheStartInPhaseWithTheOutgoingSegment() {
        // A 50-frame-period sine with a slow swell: the outgoing plays frame 1000 on; candidates 2980...3020.
        let x = (0..<10_000).map { i in Float(sin(2 * Double.pi * Double(i) / 50) * (1 + 0.3 * sin(Double(i) / 700))) }
        let best = x.withUnsafeBufferPointer {
            JoinSearch.bestStart(material: $0, outgoing: 1000, candidates: 2980...3020, windowFrom: 0, window: 100,
                                 isAllowed: { _ in true }, fallback: -1)
        }
        #expect((best - 1000) % 50 == 0, "\(best) is not in phase with 1000")
        let none = x.withUnsafeBufferPointer {
            JoinSearch.bestStart(material: $0, outgoing: 1000, candidates: 2980...3020, windowFrom: 0, window: 100,
                                 isAllowed: { _ in false }, fallback: -1)
        }
        #expect(none == -1)
    }

    @Test func channelGainsScaleEachChannel() throws {
        let audio = AudioBlock(channelCount: 2, capacity: 8)
        for c in 0..<2 { for i in 0..<8 { audio.channel(c)[i] = Float(i + 1) } }
        let source = ChannelGainSource(MemorySource(audio: audio, length: 8), gains: [0.5, 1])
        let out = AudioBlock(channelCount: 2, capacity: 8)
        try source.render(into: out, offset: 2, count: 4, at: 3)
        #expect(Array(out.channel(0)[2..<6]) == [2, 2.5, 3, 3.5] && Array(out.channel(1)[2..<6]) == [4, 5, 6, 7])
    }
}
