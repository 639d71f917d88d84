/// An `AudioDecoder` over mono 16-bit samples held in memory (synthesised speech), so they play through
/// the same pipeline as a file: decoded (scaled to [-1, 1)) and resampled as they play.
///
/// Layout: the sample array it is given (shared, copy-on-write) and a read position. Allocates nothing
/// itself; `read` allocates nothing. It holds a read position: one thread at a time.
public final class SampleArrayDecoder: AudioDecoder {
    public let samples: [Int16]
    public let sampleRate: Int
    public var channelCount: Int { 1 }
    public var frameCount: Int64 { Int64(samples.count) }
    private var position = 0

    public init(samples: [Int16], sampleRate: Int) {
        precondition(sampleRate > 0, "a decoder needs a positive rate")
        self.samples = samples
        self.sampleRate = sampleRate
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let n = max(0, min(frames, samples.count - position))
        samples.withUnsafeBufferPointer { source in
            // x / 32768: the scale libsndfile uses for 16-bit PCM, so -32768 is exactly -1.
            for i in 0..<n { buffer[i] = Float(source[position + i]) * (1 / 32768) }
        }
        position += n
        return n
    }

    public func seek(to frame: Int64) throws {
        position = Int(max(0, min(frame, Int64(samples.count))))
    }
}
