import CFFmpeg
import Glibc

/// The best audio stream of a file, demuxed by libavformat and decoded by libavcodec one frame at a time:
/// the part of `FFmpegFileReader` that calls FFmpeg. It hands out FFmpeg's frames as they are (any sample
/// format, planar or not); the reader converts them.
///
/// Layout: the demuxer's context (`AVFormatContext`, which owns the file), one reused `AVPacket` it reads into, and
/// the decoder (`FFmpegPacketDecoder`), whose `AVFrame` holds the last decoded frame (in FFmpeg's reference-counted
/// buffers) until the next call. `init` allocates them; `nextFrame` and
/// `seek` allocate only inside FFmpeg (its packet and frame buffers, which it pools). Not thread-safe: one
/// thread at a time; separate decoders may run on separate threads.
final class FFmpegDecoder {
    let path: String
    /// The demuxer, with every stream but `stream` discarded.
    let format: UnsafeMutablePointer<AVFormatContext>
    /// The audio stream chosen by `av_find_best_stream`.
    let stream: UnsafeMutablePointer<AVStream>
    /// Stops FFmpeg reading on without producing anything (see `ReadBound`).
    private let bound: ReadBound
    private let decoder: FFmpegPacketDecoder
    /// What `av_read_frame` reads into.
    private let packet: UnsafeMutablePointer<AVPacket>
    /// Whether the demuxer reached the end and the decoder was told so (a flush packet).
    private var isInputFinished = false

    /// Opens `path` (`avformat_open_input`, `avformat_find_stream_info`), picks its best audio stream
    /// (`av_find_best_stream`), discards the others, and opens a decoder for it (`avcodec_alloc_context3`,
    /// `avcodec_parameters_to_context`, `avcodec_open2`). A file FFmpeg cannot open for any reason but
    /// reaching it is "not an audio format mixrender can read": FFmpeg is the last reader `AudioFile.open` tries.
    init(path: String) throws {
        try FFmpeg.loadContainers(for: path)
        // Locals until everything is open: a failure frees what was made (deinit runs only after init).
        var format: UnsafeMutablePointer<AVFormatContext>?
        var packet: UnsafeMutablePointer<AVPacket>?
        var isOpen = false
        let bound = ReadBound()
        defer {
            if !isOpen {
                FFmpeg.av.av_packet_free(&packet)
                FFmpeg.format.avformat_close_input(&format)
            }
            withExtendedLifetime(bound) {}
        }
        format = FFmpeg.format.avformat_alloc_context()
        guard let made = format else { throw AudioIOError(path: path, function: "avformat_alloc_context", reason: "out of memory") }
        bound.install(in: made)
        bound.limit = ReadBound.openSpan
        let opened = FFmpeg.format.avformat_open_input(&format, path, nil, nil)
        guard opened >= 0, let format else {
            if bound.isTripped { throw bound.failure(path: path, function: "avformat_open_input") }
            // Failing to reach the file keeps FFmpeg's reason; anything else (invalid data, or the MPEG
            // demuxer's "invalid argument" for a web page named .mp3) means FFmpeg cannot make sense of it.
            let reachingFile = [ENOENT, EACCES, EISDIR, ENOTDIR, ELOOP, ENAMETOOLONG, EMFILE, ENFILE, EIO]
            if reachingFile.contains(-opened) { throw FFmpeg.error(path, "avformat_open_input", code: opened) }
            throw AudioIOError(path: path, function: "avformat_open_input", reason: "not an audio format mixrender can read")
        }
        bound.limit = bound.position + ReadBound.span
        let found = FFmpeg.format.avformat_find_stream_info(format, nil)
        // FFmpeg takes an interrupted read as the end of the file: the probe's result is then incomplete.
        if bound.isTripped { throw bound.failure(path: path, function: "avformat_find_stream_info") }
        guard found >= 0 else { throw FFmpeg.error(path, "avformat_find_stream_info", code: found) }

        var codec: UnsafePointer<AVCodec>?
        let index = FFmpeg.format.av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
        if index == FFmpeg.streamNotFound {
            throw AudioIOError(path: path, function: "av_find_best_stream", reason: "has no audio stream")
        }
        if index == FFmpeg.decoderNotFound, let audio = Self.firstAudioStream(format) {
            let name = FFmpeg.codecName(audio.pointee.codecpar.pointee.codec_id)
            throw AudioIOError(path: path, function: "av_find_best_stream",
                               reason: "FFmpeg has no decoder for its audio encoding (\(name))")
        }
        guard index >= 0, let stream = format.pointee.streams[Int(index)], let codec else {
            throw FFmpeg.error(path, "av_find_best_stream", code: index)
        }
        for i in 0..<Int(format.pointee.nb_streams) where i != Int(index) {
            format.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL
        }

        packet = FFmpeg.av.av_packet_alloc()
        guard let packet else { throw AudioIOError(path: path, function: "av_packet_alloc", reason: "out of memory") }
        self.decoder = try FFmpegPacketDecoder(path: path, decoder: codec, stream: stream)

        self.path = path
        self.bound = bound
        self.format = format
        self.stream = stream
        self.packet = packet
        isOpen = true
    }

    /// Calls `av_packet_free` and `avformat_close_input` (which closes the file); the decoder frees its own.
    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        var format: UnsafeMutablePointer<AVFormatContext>? = format
        FFmpeg.av.av_packet_free(&packet)
        FFmpeg.format.avformat_close_input(&format)
    }

    /// The last frame `nextFrame` decoded.
    var frame: UnsafeMutablePointer<AVFrame> { decoder.frame }

    /// The stream's encoding, as the container declares it.
    var codecID: AVCodecID { stream.pointee.codecpar.pointee.codec_id }

    /// Decodes the next frame into `frame`; false at the end of the stream. Feeds the decoder packets of
    /// the chosen stream (`av_read_frame`, `avcodec_send_packet`) until it has a frame
    /// (`avcodec_receive_frame`). A packet the decoder finds damaged (`AVERROR_INVALIDDATA`) is skipped,
    /// as FFmpeg's own tools do; any other failure throws. Frames may hold 0 samples.
    func nextFrame() throws -> Bool {
        while true {
            switch try decoder.receive() {
            case .frame: return true
            case .finished: return false
            case .needsPacket:
                guard !isInputFinished else {
                    throw FFmpeg.error(path, "avcodec_receive_frame", code: FFmpeg.tryAgain, operation: "decode")
                }
                try sendPacket()
            }
        }
    }

    /// Reads packets until one of the chosen stream is sent to the decoder, or sends the flush packet at
    /// the end of the file.
    private func sendPacket() throws {
        while true {
            bound.limit = bound.position + ReadBound.span
            let read = FFmpeg.format.av_read_frame(format, packet)
            if bound.isTripped { throw bound.failure(path: path, function: "av_read_frame") }
            if read == FFmpeg.endOfFile {
                decoder.finish()
                isInputFinished = true
                return
            }
            guard read >= 0 else { throw FFmpeg.error(path, "av_read_frame", code: read, operation: "read") }
            defer { FFmpeg.av.av_packet_unref(packet) }
            guard packet.pointee.stream_index == stream.pointee.index else { continue }
            return try decoder.send(packet)
        }
    }

    /// Moves forward without decoding: reads the stream's packets and drops them until one ends after `timestamp`
    /// (stream time base), then flushes the decoder and sends it that packet. Far cheaper than `seek` for a jump of
    /// a few seconds (no bisection of the file), and the packets' timestamps are those of a read from the start.
    /// False at the end of the file (the decoder then has nothing more to give).
    func skip(toTimestamp timestamp: Int64) throws -> Bool {
        while true {
            bound.limit = bound.position + ReadBound.span
            let read = FFmpeg.format.av_read_frame(format, packet)
            if bound.isTripped { throw bound.failure(path: path, function: "av_read_frame") }
            if read == FFmpeg.endOfFile { return false }
            guard read >= 0 else { throw FFmpeg.error(path, "av_read_frame", code: read, operation: "read") }
            defer { FFmpeg.av.av_packet_unref(packet) }
            let p = packet.pointee
            guard p.stream_index == stream.pointee.index else { continue }
            if p.pts != FFmpeg.noTimestamp && p.pts + p.duration <= timestamp { continue }
            decoder.flush()
            isInputFinished = false
            try decoder.send(packet)
            return true
        }
    }

    /// Moves the demuxer to the last key packet at or before `timestamp` (in the stream's time base;
    /// `av_seek_frame` with `AVSEEK_FLAG_BACKWARD`) and empties the decoder (`avcodec_flush_buffers`).
    /// Where decoding resumes is known only from the frames' timestamps.
    func seek(toTimestamp timestamp: Int64) throws {
        bound.limit = bound.position + ReadBound.span
        let moved = FFmpeg.format.av_seek_frame(format, stream.pointee.index, timestamp, AVSEEK_FLAG_BACKWARD)
        if bound.isTripped { throw bound.failure(path: path, function: "av_seek_frame") }
        guard moved >= 0 else { throw FFmpeg.error(path, "av_seek_frame", code: moved, operation: "seek in") }
        decoder.flush()
        isInputFinished = false
    }

    private static func firstAudioStream(_ format: UnsafeMutablePointer<AVFormatContext>) -> UnsafeMutablePointer<AVStream>? {
        (0..<Int(format.pointee.nb_streams)).lazy.compactMap { format.pointee.streams[$0] }
            .first { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
    }
}

/// How far FFmpeg may read without producing anything: a bound on its probe and on each packet, so that a hostile
/// file costs no more than a real one. FFmpeg's own limits (`probesize`, `max_analyze_duration`) count only the
/// packets a demuxer returns; a parser that never finds a frame (1 GB of zeros named `.mp3`: the MPEG audio
/// parser buffers all of it looking for a sync word) reads the whole file into memory first (measured: 2 GiB and
/// 9-16 s for `mixrender info` on a 1 GB sparse `.mp3`, before "has no audio stream").
///
/// The demuxer's interrupt callback (`AVFormatContext.interrupt_callback`, which FFmpeg checks before each read
/// from the file, 32 KiB at a time) stops the read once the bytes read pass `limit`; the caller sets the
/// limit before each step: opening (`openSpan` from the start, which holds an ID3v2 tag with its pictures),
/// probing and each `av_read_frame` (`span` past where the step starts: a real MP3 frame is under 3 KiB, an FLAC
/// frame under 1 MiB, an MP4 chunk a few). Layout: the format context, the limit, a flag. Not thread-safe, as its
/// decoder.
final class ReadBound {
    /// How far one step may read past where it began: 32 MiB.
    static let span: Int64 = 32 << 20
    /// How far opening may read from the start (header, ID3v2 tag with cover pictures): 64 MiB.
    static let openSpan: Int64 = 64 << 20
    /// FFmpeg's probe limits, set explicitly rather than trusted as defaults: what `avformat_find_stream_info`
    /// reads (5 MB of packets, 5 s of audio) and what format detection looks at (1 MiB).
    static let probeBytes: Int64 = 5_000_000
    static let probeMicroseconds: Int64 = 5_000_000
    static let formatProbeBytes: Int32 = 1 << 20

    private var format: UnsafeMutablePointer<AVFormatContext>?
    /// The count of bytes read past which reading stops.
    var limit: Int64 = .max
    /// Whether a read was stopped.
    private(set) var isTripped = false

    /// Sets the probe limits and the interrupt callback of `format` (before `avformat_open_input`).
    func install(in format: UnsafeMutablePointer<AVFormatContext>) {
        self.format = format
        format.pointee.probesize = Self.probeBytes
        format.pointee.max_analyze_duration = Self.probeMicroseconds
        format.pointee.format_probesize = Self.formatProbeBytes
        format.pointee.interrupt_callback = AVIOInterruptCB(callback: { opaque in
            let bound = Unmanaged<ReadBound>.fromOpaque(opaque!).takeUnretainedValue()
            guard bound.position > bound.limit else { return 0 }
            bound.isTripped = true
            return 1
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }

    /// How many bytes FFmpeg has read from the file so far (`AVIOContext.bytes_read`: reads, not seeks, so
    /// skipping a video stream's chunks in an MP4 costs nothing); 0 before it is open.
    var position: Int64 { format?.pointee.pb?.pointee.bytes_read ?? 0 }

    /// The error for a stopped read: what FFmpeg read without finding audio.
    func failure(path: String, function: String) -> AudioIOError {
        AudioIOError(path: path, function: function,
                     reason: "FFmpeg read \(Self.span >> 20) MiB and more without finding audio in it (a damaged or hostile file; mixrender stops there)")
    }
}
