/// A decoder over interleaved `Float` frames held in memory: a recording decoded once, played again from
/// memory as its file's decoder would play it (the same frames, the same rate and channels, and the length its
/// file's header announced).
///
/// Layout: the frames (an array, shared with every decoder over the same recording, never written) and a read
/// position; allocates nothing itself. Not thread-safe: one decoder per source, as every decoder.
public final class FrameArrayDecoder: AudioDecoder {
    public let frames: [Float]
    public let sampleRate: Int
    public let channelCount: Int
    public let frameCount: Int64
    private var position = 0

    /// `frameCount`: what the file's header said (the frames held may be fewer or more, as decoding found).
    public init(frames: [Float], sampleRate: Int, channelCount: Int, frameCount: Int64) {
        precondition(sampleRate > 0 && channelCount > 0, "a decoder needs a positive rate and channels")
        self.frames = frames
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames wanted: Int) throws -> Int {
        let held = frames.count / channelCount
        let n = max(0, min(wanted, held - position))
        guard n > 0 else { return 0 }
        frames.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + position * channelCount, count: n * channelCount)
        }
        position += n
        return n
    }

    public func seek(to frame: Int64) throws {
        position = Int(max(0, min(frame, Int64(frames.count / channelCount))))
    }
}
