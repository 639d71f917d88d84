import MixDSP

/// A decoder whose frame `n` holds `n` (mono, 48 kHz), `frames` long; a read at or past `failingAt` throws
/// `CountingDecoder.Failure(at: failingAt)` (a read across it returns the frames before it), so `failingAt: frames`
/// fails where the file would end. Seeks anywhere. For tests of what reads a decoder ahead of its reader (`ReadAheadDecoder`, `ParallelReadAhead`):
/// every sample says where it came from.
public final class CountingDecoder: AudioDecoder, @unchecked Sendable {
    public struct Failure: Error, Equatable {
        public var at: Int
        public init(at: Int) { self.at = at }
    }

    public let sampleRate = 48_000, channelCount = 1
    public let frameCount: Int64
    public let failingAt: Int?
    public private(set) var position = 0

    public init(frames: Int, failingAt: Int? = nil) {
        frameCount = Int64(frames)
        self.failingAt = failingAt
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        var n = max(0, min(frames, Int(frameCount) - position))
        if let failingAt {
            guard position < failingAt else { throw Failure(at: failingAt) }
            n = min(n, failingAt - position)
        }
        for i in 0..<n { buffer[i] = Float(position + i) }
        position += n
        return n
    }

    public func seek(to frame: Int64) throws { position = Int(frame) }
}
