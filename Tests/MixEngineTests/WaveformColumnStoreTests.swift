import Testing
import MixDSP
import MixEngine

@Suite struct WaveformColumnStoreTests {
    private func append(_ store: WaveformColumnStore, _ range: Range<Int>) throws {
        for k in range {
            let levels = [ChannelLevels(min: -Float(k), max: Float(k), rms: 0.5)]
            let spectrum: [Float] = [Float(k), Float(k) + 0.25]
            try levels.withUnsafeBufferPointer { l in
                try spectrum.withUnsafeBufferPointer { s in
                    try store.append(WaveformColumn(index: k, frameCount: 4, channels: l,
                                                    bands: BandLevels(low: 1, mid: 2, high: 3, centroidHz: Float(k)), spectrum: s))
                }
            }
        }
    }

    private func maxima(_ store: WaveformColumnStore) throws -> [Float] {
        var out: [Float] = []
        try store.forEach { c in
            #expect(c.spectrum[0] == c.max(0) && c.spectrum[1] == c.max(0) + 0.25 && c.centroidHz == c.max(0))
            out.append(c.max(0))
        }
        return out
    }

    /// Columns spill to the anonymous file (9 floats a column: 7281 fit in memory), are read back in
    /// order as often as asked, and more can be appended after a read-back.
    @Test func spilledColumnsReadBackInOrderBetweenAppends() throws {
        let store = WaveformColumnStore(samplesPerPixel: 4, channelCount: 1, rowCount: 2)
        try append(store, 0..<20_000)
        #expect(try maxima(store) == (0..<20_000).map(Float.init))
        try append(store, 20_000..<30_001)
        #expect(try maxima(store) == (0..<30_001).map(Float.init))
        #expect(try maxima(store) == (0..<30_001).map(Float.init))
        #expect(store.count == 30_001 && store.frameCount == 4 * 30_001 && store.peak == 30_000)
    }
}
