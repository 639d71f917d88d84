/// A file played once, decoded and resampled as it plays: memory does not depend on its length.
///
/// Its length is fixed up front as round(input frames x ratio), so a timeline can be planned in
/// exact frames before anything is decoded; the resampler's output is cut or padded to it.
///
/// Layout: a `DecodePipeline` (decoder, fold, resampler) and an interleaved scratch buffer of
/// `blockFrames` frames. `init` allocates them; `render` allocates nothing. Not thread-safe (it holds
/// a read position): one thread at a time.
public final class StreamingSource: FrameSource {
    public let channelCount: Int
    public let length: Int64
    public var frameCount: Int64? { length }

    private let pipeline: DecodePipeline
    private let scratch: UnsafeMutablePointer<Float>
    private let scratchFrames: Int
    private var nextPosition: Int64 = 0

    public init(decoder: AudioDecoder, outputRate: Int, outputChannels: Int,
                makeConverter: ConverterFactory, blockFrames: Int = 4096) throws {
        pipeline = try DecodePipeline(decoder: decoder, outputRate: outputRate, outputChannels: outputChannels,
                                      makeConverter: makeConverter)
        channelCount = outputChannels
        length = Self.outputLength(inputFrames: decoder.frameCount, inputRate: decoder.sampleRate, outputRate: outputRate)
        scratchFrames = blockFrames
        scratch = .allocate(capacity: blockFrames * pipeline.workChannels)
    }

    deinit { scratch.deallocate() }

    /// round(frames x outputRate / inputRate), in integers.
    public static func outputLength(inputFrames: Int64, inputRate: Int, outputRate: Int) -> Int64 {
        (inputFrames * Int64(outputRate) + Int64(inputRate) / 2) / Int64(inputRate)
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        if position != nextPosition {
            if position < nextPosition { try pipeline.rewind(); nextPosition = 0 }
            while nextPosition < position {               // read ahead, discarding
                let n = Int(min(position - nextPosition, Int64(min(count, scratchFrames))))
                try produce(into: block, offset: offset, count: n)
            }
        }
        try produce(into: block, offset: offset, count: count)
    }

    private func produce(into block: AudioBlock, offset: Int, count: Int) throws {
        var done = 0
        let wanted = Int(max(0, min(Int64(count), length - nextPosition)))
        while done < wanted {
            let n = try pipeline.pull(into: scratch, frames: min(wanted - done, scratchFrames))
            if n == 0 { break }
            Kernels.deinterleave(scratch, channelCount: pipeline.workChannels, count: n, into: block, offset: offset + done)
            done += n
        }
        if done < count { block.clear(offset: offset + done, count: count - done) }
        if pipeline.workChannels == 1 && channelCount == 2 {
            Kernels.copy(block.channel(0).baseAddress! + offset, to: block.channel(1).baseAddress! + offset, count: done)
        }
        nextPosition += Int64(count)
    }
}
