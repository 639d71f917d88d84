/// Audio held in memory, played once from its first frame.
///
/// Layout: a planar `AudioBlock` it is given and a length. Allocates nothing itself; `render` allocates
/// nothing. Read-only after `init`, so it may be rendered from several threads at once (as shared
/// prepared material is).
public final class MemorySource: FrameSource, ContiguousFrames {
    public let audio: AudioBlock
    public let length: Int
    public var channelCount: Int { audio.channelCount }
    public var frameCount: Int64? { Int64(length) }

    public init(audio: AudioBlock, length: Int) {
        precondition(length <= audio.capacity)
        self.audio = audio
        self.length = length
    }

    /// The frames as they lie in memory, when all of them are before the end.
    public func frames(channel: Int, at position: Int64, count: Int) -> UnsafePointer<Float>? {
        guard position >= 0, position + Int64(count) <= Int64(length) else { return nil }
        return UnsafePointer(audio.channel(channel).baseAddress! + Int(position))
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        let available = Int(max(0, min(Int64(count), Int64(length) - position)))
        if available > 0 {
            for c in 0..<channelCount {
                Kernels.copy(audio.channel(c).baseAddress! + Int(position), to: block.channel(c).baseAddress! + offset, count: available)
            }
        }
        if available < count { block.clear(offset: offset + max(0, available), count: count - max(0, available)) }
    }
}
