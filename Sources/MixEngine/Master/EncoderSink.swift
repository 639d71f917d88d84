import MixDSP

/// An `AudioEncoder` as a sink: interleaves each block (frame-major, as encoders take it) into a buffer of its
/// own and hands it to the encoder. The output file is such a sink, run on its own thread by a `ThreadedTap`,
/// so interleaving and encoding overlap mixing; any other encoder-shaped consumer can be one too.
///
/// Layout: one interleaved buffer of `blockFrames * channelCount` floats. `init` allocates it; `receive`
/// allocates nothing. Not thread-safe: one thread at a time, as for the encoder it holds (inside a
/// `ThreadedTap`, `receive` runs on the sink's thread and `finish` then on the render thread).
public final class EncoderSink: MixTap {
    public let encoder: AudioEncoder
    private let buffer: UnsafeMutablePointer<Float>
    private let capacity: Int

    public init(_ encoder: AudioEncoder, channelCount: Int, blockFrames: Int) {
        self.encoder = encoder
        capacity = blockFrames
        buffer = .allocate(capacity: blockFrames * channelCount)
        buffer.initialize(repeating: 0, count: blockFrames * channelCount)
    }

    deinit { buffer.deallocate() }

    public func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        precondition(count <= capacity)
        Kernels.interleave(block, offset: offset, count: count, into: buffer)
        try encoder.write(interleaved: buffer, frames: count)
    }

    public func finish() throws { try encoder.finish() }
}
