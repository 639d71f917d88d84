import CFFmpeg
import Glibc

/// The best audio stream of a file, demuxed by libavformat and decoded by libavcodec one frame at a time:
/// the part of `FFmpegFileReader` that calls FFmpeg. It hands out FFmpeg's frames as they are (any sample
/// format, planar or not); the reader converts them.
///
/// Layout: the demuxer's context (`AVFormatContext`, which owns the file), the decoder's
/// (`AVCodecContext`), one reused `AVPacket` and one `AVFrame`, which holds the last decoded frame (in
/// FFmpeg's reference-counted buffers) until the next call. `init` allocates all four; `nextFrame` and
/// `seek` allocate only inside FFmpeg (its packet and frame buffers, which it pools). Not thread-safe: one
/// thread at a time; separate decoders may run on separate threads.
final class FFmpegDecoder {
    let path: String
    /// The demuxer, with every stream but `stream` discarded.
    let format: UnsafeMutablePointer<AVFormatContext>
    /// The audio stream chosen by `av_find_best_stream`.
    let stream: UnsafeMutablePointer<AVStream>
    /// The last frame `nextFrame` decoded.
    let frame: UnsafeMutablePointer<AVFrame>
    private let codec: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    /// Whether the demuxer reached the end and the decoder was told so (a flush packet).
    private var isInputFinished = false

    /// Opens `path` (`avformat_open_input`, `avformat_find_stream_info`), picks its best audio stream
    /// (`av_find_best_stream`), discards the others, and opens a decoder for it (`avcodec_alloc_context3`,
    /// `avcodec_parameters_to_context`, `avcodec_open2`). A file FFmpeg cannot open for any reason but
    /// reaching it is "not an audio format mixrender can read": FFmpeg is the last reader `AudioFile.open` tries.
    init(path: String) throws {
        FFmpeg.silenceLog()
        // Locals until everything is open: a failure frees what was made (deinit runs only after init).
        var format: UnsafeMutablePointer<AVFormatContext>?
        var codec: UnsafeMutablePointer<AVCodecContext>?
        var packet: UnsafeMutablePointer<AVPacket>?
        var frame: UnsafeMutablePointer<AVFrame>?
        var isOpen = false
        defer {
            if !isOpen {
                av_frame_free(&frame)
                av_packet_free(&packet)
                avcodec_free_context(&codec)
                avformat_close_input(&format)
            }
        }
        let opened = avformat_open_input(&format, path, nil, nil)
        guard opened >= 0, let format else {
            // Failing to reach the file keeps FFmpeg's reason; anything else (invalid data, or the MPEG
            // demuxer's "invalid argument" for a web page named .mp3) means FFmpeg cannot make sense of it.
            let reachingFile = [ENOENT, EACCES, EISDIR, ENOTDIR, ELOOP, ENAMETOOLONG, EMFILE, ENFILE, EIO]
            if reachingFile.contains(-opened) { throw FFmpeg.error(path, "avformat_open_input", code: opened) }
            throw AudioIOError(path: path, function: "avformat_open_input", reason: "not an audio format mixrender can read")
        }
        let found = avformat_find_stream_info(format, nil)
        guard found >= 0 else { throw FFmpeg.error(path, "avformat_find_stream_info", code: found) }

        var decoder: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        if index == FFmpeg.streamNotFound {
            throw AudioIOError(path: path, function: "av_find_best_stream", reason: "has no audio stream")
        }
        if index == FFmpeg.decoderNotFound, let audio = Self.firstAudioStream(format) {
            let name = String(cString: avcodec_get_name(audio.pointee.codecpar.pointee.codec_id))
            throw AudioIOError(path: path, function: "av_find_best_stream",
                               reason: "FFmpeg has no decoder for its audio encoding (\(name))")
        }
        guard index >= 0, let stream = format.pointee.streams[Int(index)] else {
            throw FFmpeg.error(path, "av_find_best_stream", code: index)
        }
        for i in 0..<Int(format.pointee.nb_streams) where i != Int(index) {
            format.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL
        }

        codec = avcodec_alloc_context3(decoder)
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        guard let codec, let packet, let frame else {
            throw AudioIOError(path: path, function: "avcodec_alloc_context3", reason: "out of memory")
        }
        let copied = avcodec_parameters_to_context(codec, stream.pointee.codecpar)
        guard copied >= 0 else { throw FFmpeg.error(path, "avcodec_parameters_to_context", code: copied) }
        // Frame timestamps in the stream's time base, moved past the samples the decoder skips (priming).
        codec.pointee.pkt_timebase = stream.pointee.time_base
        let started = avcodec_open2(codec, decoder, nil)
        guard started >= 0 else { throw FFmpeg.error(path, "avcodec_open2", code: started) }

        self.path = path
        self.format = format
        self.stream = stream
        self.codec = codec
        self.packet = packet
        self.frame = frame
        isOpen = true
    }

    /// Calls `av_frame_free`, `av_packet_free`, `avcodec_free_context` and `avformat_close_input` (which
    /// closes the file).
    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        var codec: UnsafeMutablePointer<AVCodecContext>? = codec
        var format: UnsafeMutablePointer<AVFormatContext>? = format
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        avformat_close_input(&format)
    }

    /// The stream's encoding, as the container declares it.
    var codecID: AVCodecID { stream.pointee.codecpar.pointee.codec_id }

    /// Decodes the next frame into `frame`; false at the end of the stream. Feeds the decoder packets of
    /// the chosen stream (`av_read_frame`, `avcodec_send_packet`) until it has a frame
    /// (`avcodec_receive_frame`). A packet the decoder finds damaged (`AVERROR_INVALIDDATA`) is skipped,
    /// as FFmpeg's own tools do; any other failure throws. Frames may hold 0 samples.
    func nextFrame() throws -> Bool {
        while true {
            let received = avcodec_receive_frame(codec, frame)
            if received >= 0 { return true }
            if received == FFmpeg.endOfFile { return false }
            if received == FFmpeg.invalidData { continue }
            if received != FFmpeg.tryAgain || isInputFinished {
                throw FFmpeg.error(path, "avcodec_receive_frame", code: received, operation: "decode")
            }
            try sendPacket()
        }
    }

    /// Reads packets until one of the chosen stream is sent to the decoder, or sends the flush packet at
    /// the end of the file.
    private func sendPacket() throws {
        while true {
            let read = av_read_frame(format, packet)
            if read == FFmpeg.endOfFile {
                avcodec_send_packet(codec, nil)
                isInputFinished = true
                return
            }
            guard read >= 0 else { throw FFmpeg.error(path, "av_read_frame", code: read, operation: "read") }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == stream.pointee.index else { continue }
            let sent = avcodec_send_packet(codec, packet)
            if sent >= 0 || sent == FFmpeg.invalidData { return }
            throw FFmpeg.error(path, "avcodec_send_packet", code: sent, operation: "decode")
        }
    }

    /// Moves the demuxer to the last key packet at or before `timestamp` (in the stream's time base;
    /// `av_seek_frame` with `AVSEEK_FLAG_BACKWARD`) and empties the decoder (`avcodec_flush_buffers`).
    /// Where decoding resumes is known only from the frames' timestamps.
    func seek(toTimestamp timestamp: Int64) throws {
        let moved = av_seek_frame(format, stream.pointee.index, timestamp, AVSEEK_FLAG_BACKWARD)
        guard moved >= 0 else { throw FFmpeg.error(path, "av_seek_frame", code: moved, operation: "seek in") }
        avcodec_flush_buffers(codec)
        isInputFinished = false
    }

    private static func firstAudioStream(_ format: UnsafeMutablePointer<AVFormatContext>) -> UnsafeMutablePointer<AVStream>? {
        (0..<Int(format.pointee.nb_streams)).lazy.compactMap { format.pointee.streams[$0] }
            .first { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
    }
}
