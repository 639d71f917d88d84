/// Another source with a fixed gain per output channel: one event of an `events` track placed in the
/// stereo field (its pan as the balance law's left and right gains).
///
/// Layout: a reference to the source it plays and an array of gains, one per channel, made in `init`.
/// `render` allocates nothing. Not thread-safe (the source it wraps renders into the caller's block);
/// one per voice.
public final class ChannelGainSource: FrameSource {
    public let source: FrameSource
    public let gains: [Float]
    public var channelCount: Int { source.channelCount }
    public var frameCount: Int64? { source.frameCount }

    /// `gains` has one value per channel of `source`.
    public init(_ source: FrameSource, gains: [Float]) {
        precondition(gains.count == source.channelCount, "one gain per channel")
        self.source = source
        self.gains = gains
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        try source.render(into: block, offset: offset, count: count, at: position)
        for c in 0..<channelCount where gains[c] != 1 {
            Kernels.scale(block.channel(c).baseAddress! + offset, by: gains[c], count: count)
        }
    }
}
