import CFFmpeg

/// A reader that decodes its file a frame at a time with FFmpeg's decoders (`FFmpegFileReader`,
/// `OggVorbisFileReader`). How the frame decoded last is handed out, by `read` and by a short seek forward, is the
/// same for both and written here once; how a frame is decoded and where a seek lands are each reader's own.
///
/// The reader keeps its read position and the part of `decodedFrame` not yet returned: `pendingCount` frames from
/// `pendingOffset`. `decodeFrame()` decodes the next frame, checks its shape and makes it pending (offset 0, all its
/// frames), or returns false at the end of the stream. One thread at a time, as the readers.
protocol FrameDecodingReader: AnyObject {
    var info: AudioFileInfo { get }
    /// The frame `decodeFrame()` decoded last.
    var decodedFrame: UnsafeMutablePointer<AVFrame> { get }
    /// The frame `read` returns next.
    var position: Int64 { get set }
    var pendingOffset: Int { get set }
    var pendingCount: Int { get set }
    func decodeFrame() throws -> Bool
}

extension FrameDecodingReader {
    /// Converts pending and newly decoded frames to interleaved `Float` into `buffer`: `frames` of them, fewer only
    /// at the end of the stream (`info.frameCount`), and 0 after it.
    func readDecoded(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        precondition(frames >= 0, "frames must not be negative")
        var done = 0
        while done < frames && position < info.frameCount {
            guard try pendingCount > 0 || decodeFrame() else { break }
            let count = min(pendingCount, frames - done, Int(clamping: info.frameCount - position))
            FFmpegFrameSamples.convert(decodedFrame, from: pendingOffset, count: count, channels: info.channelCount,
                                       into: buffer + done * info.channelCount)
            consume(count)
            done += count
        }
        return done
    }

    /// Decodes and drops frames until the read position is `target` (or the end).
    func discard(upTo target: Int64) throws {
        while position < target {
            guard try pendingCount > 0 || decodeFrame() else { return }
            consume(min(pendingCount, Int(clamping: target - position)))
        }
    }

    private func consume(_ count: Int) {
        pendingOffset += count
        pendingCount -= count
        position += Int64(count)
    }
}
