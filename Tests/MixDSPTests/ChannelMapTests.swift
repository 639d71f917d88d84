import Testing
import MixDSP

@Suite struct ChannelMapTests {
    func map(_ input: [Float], channels n: Int, to m: Int) -> [Float] {
        let frames = input.count / n
        var out = [Float](repeating: .nan, count: frames * m)
        let cm = ChannelMap(inputCount: n, outputCount: m)
        input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { cm.apply(interleaved: i.baseAddress!, frames: frames, to: $0.baseAddress!) } }
        return out
    }

    @Test func monoGoesToBothSidesAtUnity() {
        #expect(map([0.5, -0.25], channels: 1, to: 2) == [0.5, 0.5, -0.25, -0.25])
    }

    @Test func stereoPassesAndFoldsToMonoAsTheAverage() {
        #expect(map([0.5, -0.25], channels: 2, to: 2) == [0.5, -0.25])
        #expect(map([0.5, -0.25], channels: 2, to: 1) == [0.125])
    }

    @Test func fivePointOneFoldsWithCentreAndSurroundsAtMinus3dBAndNoLFE() {
        // L R C LFE Ls Rs
        let out = map([1, 0, 0, 0, 0, 0,   0, 0, 1, 0, 0, 0,   0, 0, 0, 1, 0, 0,   0, 0, 0, 0, 1, 0,   0, 0, 0, 0, 0, 1],
                      channels: 6, to: 2)
        let h: Float = 0.70710678
        let expected: [Float] = [1, 0,  h, h,  0, 0,  h, 0,  0, h]
        for (a, b) in zip(out, expected) { #expect(abs(a - b) < 1e-6) }
    }

    @Test func quadAndThreeChannelLayouts() {
        let h: Float = 0.70710678
        #expect(ChannelMap(inputCount: 4, outputCount: 2).coefficients == [[1, 0, h, 0], [0, 1, 0, h]])
        #expect(ChannelMap(inputCount: 3, outputCount: 2).coefficients == [[1, 0, h], [0, 1, h]])
        // 6.1 (L R C LFE Cs Ls Rs): the back centre to both sides; 7.1 (L R C LFE Lb Rb Ls Rs): each to its side.
        #expect(ChannelMap(inputCount: 7, outputCount: 2).coefficients == [[1, 0, h, 0, h, h, 0], [0, 1, h, 0, h, 0, h]])
        #expect(ChannelMap(inputCount: 8, outputCount: 2).coefficients == [[1, 0, h, 0, h, 0, h, 0], [0, 1, h, 0, 0, h, 0, h]])
    }
}
