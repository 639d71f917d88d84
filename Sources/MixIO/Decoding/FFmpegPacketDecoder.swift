import CFFmpeg

/// One of FFmpeg's decoders (libavcodec only) fed packets by its caller, who demuxes the file: `OggVorbisFileReader`,
/// which reads Ogg with libogg, or `FFmpegDecoder`, which reads any container with libavformat. Sending and receiving follow libavcodec's own rules: after
/// `send`, `receive` gives the frame that packet made, if any (an audio decoder of this kind makes at most one per
/// packet), before another packet is sent.
///
/// Layout: the decoder's context (`AVCodecContext`: the stream's headers as its extradata, or a demuxed stream's
/// parameters), one `AVPacket`
/// pointing at the caller's bytes (FFmpeg copies them when sent) and one `AVFrame`, which holds the last decoded
/// frame until the next call. `init` allocates them; `send` allocates inside FFmpeg (its copy of the packet),
/// `receive` in its pooled frame buffers. Not thread-safe: one thread at a time.
final class FFmpegPacketDecoder {
    let path: String
    /// The context, packet and frame, freed together when the decoder goes.
    private let parts: FFmpegCodecParts
    /// The last frame `receive` gave.
    var frame: UnsafeMutablePointer<AVFrame> { parts.frame }
    private var codec: UnsafeMutablePointer<AVCodecContext> { parts.codec }
    private var packet: UnsafeMutablePointer<AVPacket> { parts.packet }

    /// Opens FFmpeg's decoder for `codecID` (`avcodec_find_decoder`, `avcodec_open2`) with `headers` as its
    /// extradata (for Vorbis, the three header packets in Xiph lacing). Throws an `AudioIOError` naming the file
    /// when FFmpeg cannot be loaded, has no such decoder, or refuses the headers.
    convenience init(path: String, codecID: AVCodecID, headers: [UInt8], sampleRate: Int, channels: Int) throws {
        try FFmpeg.load(for: path)
        guard let decoder = FFmpeg.av.avcodec_find_decoder(codecID) else {
            throw AudioIOError(path: path, function: "avcodec_find_decoder",
                               reason: "FFmpeg has no decoder for its audio encoding (\(FFmpeg.codecName(codecID)))")
        }
        try self.init(path: path, decoder: decoder) { codec in
            let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
            guard let extradata = FFmpeg.av.av_mallocz(headers.count + padding)?.assumingMemoryBound(to: UInt8.self) else {
                throw AudioIOError(path: path, function: "av_mallocz", reason: "out of memory")
            }
            extradata.update(from: headers, count: headers.count)
            codec.pointee.extradata = extradata   // freed with the context
            codec.pointee.extradata_size = Int32(headers.count)
            codec.pointee.sample_rate = Int32(sampleRate)
            FFmpeg.av.av_channel_layout_default(&codec.pointee.ch_layout, Int32(channels))
        }
    }

    /// Opens `decoder` for `stream`, which libavformat demuxes (`FFmpegDecoder`): the stream's parameters
    /// (`avcodec_parameters_to_context`), and frame timestamps in its time base, moved past the samples the decoder
    /// skips (priming). Throws an `AudioIOError` naming the file when FFmpeg refuses them.
    convenience init(path: String, decoder: UnsafePointer<AVCodec>, stream: UnsafeMutablePointer<AVStream>) throws {
        try self.init(path: path, decoder: decoder) { codec in
            let copied = FFmpeg.av.avcodec_parameters_to_context(codec, stream.pointee.codecpar)
            guard copied >= 0 else { throw FFmpeg.error(path, "avcodec_parameters_to_context", code: copied) }
            codec.pointee.pkt_timebase = stream.pointee.time_base
        }
    }

    /// Allocates the context, the packet and the frame (`FFmpegCodecParts`, freed when anything fails), lets
    /// `configure` set the context up, and opens it.
    private init(path: String, decoder: UnsafePointer<AVCodec>,
                 configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void) throws {
        guard let parts = FFmpegCodecParts(for: decoder) else {
            throw AudioIOError(path: path, function: "avcodec_alloc_context3", reason: "out of memory")
        }
        try configure(parts.codec)
        let started = FFmpeg.av.avcodec_open2(parts.codec, decoder, nil)
        guard started >= 0 else { throw FFmpeg.error(path, "avcodec_open2", code: started) }
        self.path = path
        self.parts = parts
    }

    /// What `receive` found.
    enum Received { case frame, needsPacket, finished }

    /// The next frame into `frame` (`avcodec_receive_frame`): `.needsPacket` when the packets sent are all
    /// decoded, `.finished` after `finish()` once everything is out. A frame the decoder finds damaged
    /// (`AVERROR_INVALIDDATA`) is passed over, as FFmpeg's own tools do; any other failure throws.
    func receive() throws -> Received {
        while true {
            let received = FFmpeg.av.avcodec_receive_frame(codec, frame)
            if received >= 0 { return .frame }
            if received == FFmpeg.tryAgain { return .needsPacket }
            if received == FFmpeg.endOfFile { return .finished }
            if received == FFmpeg.invalidData { continue }
            throw FFmpeg.error(path, "avcodec_receive_frame", code: received, operation: "decode")
        }
    }

    /// Sends one packet's bytes (`avcodec_send_packet`, which copies them). A packet the decoder refuses as
    /// damaged is dropped.
    func send(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        packet.pointee.data = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
        packet.pointee.size = Int32(bytes.count)
        defer { FFmpeg.av.av_packet_unref(packet) }
        try send(packet)
    }

    /// Sends a packet libavformat read (`avcodec_send_packet`, which takes its own reference); the caller still
    /// unreferences it. A packet the decoder refuses as damaged is dropped.
    func send(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        let sent = FFmpeg.av.avcodec_send_packet(codec, packet)
        if sent >= 0 || sent == FFmpeg.invalidData { return }
        throw FFmpeg.error(path, "avcodec_send_packet", code: sent, operation: "decode")
    }

    /// Tells the decoder the packets are over (a flush packet): `receive` then gives what it holds, then `.finished`.
    func finish() {
        _ = FFmpeg.av.avcodec_send_packet(codec, nil)
    }

    /// Empties the decoder (`avcodec_flush_buffers`), for packets from elsewhere in the stream. Vorbis's decoder
    /// then makes nothing of the first packet, which has no block before it to overlap.
    func flush() {
        FFmpeg.av.avcodec_flush_buffers(codec)
    }
}
