import MixDSP
import Testing

/// Helpers for the generators' tests: render a source into arrays, stream it, check block-size independence.
enum GeneratorTesting {
    /// Frames `[position, position + frames)` of every channel, rendered `blockFrames` at a time.
    static func render(_ source: FrameSource, at position: Int64 = 0, frames: Int, blockFrames: Int = 4096) throws -> [[Float]] {
        var out = Array(repeating: [Float](), count: source.channelCount)
        try stream(source, at: position, frames: frames, blockFrames: blockFrames) { block, n in
            for c in 0..<source.channelCount { out[c] += block.channel(c)[0..<n] }
        }
        return out
    }

    /// Renders `frames` frames from `position` in blocks and hands each block (and its frame count) to `body`.
    static func stream(_ source: FrameSource, at position: Int64 = 0, frames: Int, blockFrames: Int = 4096,
                       _ body: (AudioBlock, Int) throws -> Void) throws {
        let block = AudioBlock(channelCount: source.channelCount, capacity: blockFrames)
        var done = 0
        while done < frames {
            let n = min(blockFrames, frames - done)
            try source.render(into: block, offset: 0, count: n, at: position + Int64(done))
            try body(block, n)
            done += n
        }
    }

    /// Largest |y(n) − y(n − 1)| over every channel of `frames` frames from `position`, streamed.
    static func largestStep(_ source: FrameSource, at position: Int64 = 0, frames: Int) throws -> Float {
        var previous = [Float?](repeating: nil, count: source.channelCount)
        var largest: Float = 0
        try stream(source, at: position, frames: frames) { block, n in
            for c in 0..<source.channelCount {
                let x = block.channel(c)
                var last = previous[c] ?? x[0]
                for i in 0..<n { largest = max(largest, abs(x[i] - last)); last = x[i] }
                previous[c] = last
            }
        }
        return largest
    }

    /// Renders frames `[0, frames)` in one call, then in blocks of 1, 7 and 1000, in blocks of 1000 from the last
    /// to the first, and from `partialStart` on in blocks of 999, and expects the same samples bit for bit.
    static func expectSameSamplesForAnyBlocks(_ source: FrameSource, frames: Int, partialStart: Int,
                                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = try render(source, frames: frames, blockFrames: frames)
        for blockFrames in [1, 7, 1000] {
            let other = try render(source, frames: frames, blockFrames: blockFrames)
            #expect(other == reference, "blocks of \(blockFrames)", sourceLocation: sourceLocation)
        }
        var backwards = Array(repeating: [Float](repeating: .nan, count: frames), count: source.channelCount)
        let block = AudioBlock(channelCount: source.channelCount, capacity: 1000)
        for start in stride(from: (frames - 1) / 1000 * 1000, through: 0, by: -1000) {
            let n = min(1000, frames - start)
            try source.render(into: block, offset: 0, count: n, at: Int64(start))
            for c in 0..<source.channelCount { backwards[c].replaceSubrange(start..<(start + n), with: block.channel(c)[0..<n]) }
        }
        #expect(backwards == reference, "blocks from last to first", sourceLocation: sourceLocation)
        let part = try render(source, at: Int64(partialStart), frames: frames - partialStart, blockFrames: 999)
        #expect(part == reference.map { Array($0[partialStart...]) }, "from frame \(partialStart)", sourceLocation: sourceLocation)
    }
}
