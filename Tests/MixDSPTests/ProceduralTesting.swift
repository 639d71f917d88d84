import DSPTestSupport
import MixDSP
import Testing

/// Helpers for the procedural generators' tests (surf, fire, crickets): warm-up equality, envelopes, measures.
enum ProceduralTesting {
    /// Renders `[0, frames)` in one call, then (each from a fresh source) in blocks of 1, 7 and 1000, which must
    /// give the same samples bit for bit; then in blocks of 1000 from the last to the first and from each of
    /// `starts` on in blocks of 999, which must stay within `tolerance` of it (the filters' warm-up).
    static func expectSameWithinWarmUp(_ make: () -> FrameSource, frames: Int, starts: [Int], tolerance: Float,
                                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = try GeneratorTesting.render(make(), frames: frames, blockFrames: frames)
        for blockFrames in [1, 7, 1000] {
            let other = try GeneratorTesting.render(make(), frames: frames, blockFrames: blockFrames)
            #expect(other == reference, "blocks of \(blockFrames)", sourceLocation: sourceLocation)
        }
        let source = make()
        var backwards = Array(repeating: [Float](repeating: .nan, count: frames), count: source.channelCount)
        let block = AudioBlock(channelCount: source.channelCount, capacity: 1000)
        for start in stride(from: (frames - 1) / 1000 * 1000, through: 0, by: -1000) {
            let n = min(1000, frames - start)
            try source.render(into: block, offset: 0, count: n, at: Int64(start))
            for c in 0..<source.channelCount { backwards[c].replaceSubrange(start..<(start + n), with: block.channel(c)[0..<n]) }
        }
        #expect(largestDifference(backwards, reference) <= tolerance, "blocks from last to first", sourceLocation: sourceLocation)
        for start in starts {
            let part = try GeneratorTesting.render(make(), at: Int64(start), frames: frames - start, blockFrames: 999)
            let d = largestDifference(part, reference.map { Array($0[start...]) })
            #expect(d <= tolerance, "from frame \(start): differs by \(d)", sourceLocation: sourceLocation)
        }
    }

    static func largestDifference(_ a: [[Float]], _ b: [[Float]]) -> Float {
        var d: Float = 0
        for (x, y) in zip(a, b) {
            guard x.count == y.count else { return .infinity }
            for (p, q) in zip(x, y) { d = max(d, abs(p - q)) }
        }
        return d
    }

    /// RMS of each window of `window` frames.
    static func windowRMS(_ x: [Float], window: Int) -> [Double] {
        stride(from: 0, to: x.count - window + 1, by: window).map { rms(x[$0..<($0 + window)]) }
    }

    /// Normalised autocorrelation of `x` (mean removed) at `lag`.
    static func autocorrelation(_ x: [Double], lag: Int) -> Double {
        let mean = x.reduce(0, +) / Double(x.count)
        var num = 0.0, den = 0.0
        for i in 0..<x.count {
            den += (x[i] - mean) * (x[i] - mean)
            if i + lag < x.count { num += (x[i] - mean) * (x[i + lag] - mean) }
        }
        return num / den
    }

    /// Pearson correlation of two equally long series.
    static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count)
        let ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) { ab += (x - ma) * (y - mb); aa += (x - ma) * (x - ma); bb += (y - mb) * (y - mb) }
        return ab / (aa * bb).squareRoot()
    }

    /// `SoundStatistics` of `frames` frames of `source` from frame 0 (issue 25's measures; the tests' FFT).
    static func statistics(_ source: FrameSource, sampleRate: Int, frames: Int) throws -> SoundStatistics {
        let meter = SoundStatisticsMeter(sampleRate: sampleRate, channelCount: source.channelCount, fft: Radix2TestFFT(size: 4096))
        try GeneratorTesting.stream(source, frames: frames) { block, n in meter.add(block, count: n) }
        return meter.finish()
    }

    /// `SoundStatistics` of rendered channels.
    static func statistics(_ channels: [[Float]], sampleRate: Int) throws -> SoundStatistics {
        let audio = AudioBlock(channelCount: channels.count, capacity: channels[0].count)
        for (c, x) in channels.enumerated() { audio.channel(c).baseAddress!.update(from: x, count: x.count) }
        return try statistics(MemorySource(audio: audio, length: channels[0].count), sampleRate: sampleRate, frames: channels[0].count)
    }

    /// Peak over RMS, in dB.
    static func crestFactor(_ x: [Float]) -> Double { dB(Double(peak(x)) / rms(x)) }
}
