import CFFmpeg
import Glibc
import MixDSP

/// Encodes interleaved `Float` frames to AAC-LC with FFmpeg's native encoder (libavcodec's `aac`, LGPL) and
/// muxes them into an `.m4a` with libavformat's `ipod` muxer: `ftyp` brand `M4A `, iTunes metadata
/// (`©nam`, `©ART`, `©cmt`), the `moov` box moved to the front (`movflags +faststart`, for players that
/// stream the file), the movie's time scale at the sample rate, and a QuickTime chapter track (with Nero
/// `chpl`) when given chapters.
///
/// **Gapless.** The encoder primes with 1024 frames (`initial_padding`) and pads its last block; the
/// muxer's edit list (`elst`) starts the track after the priming and lasts exactly the frames written (in
/// the movie's time scale, the sample rate), and
/// its `sgpd`/`sbgp` `roll` group marks one packet of decoder pre-roll: the structure Apple's QuickTime
/// File Format (appendix G, "Audio Priming") describes, which AVFoundation honours. FFmpeg's own reader
/// (`FFmpegFileReader`) decodes the file to exactly the frames written, aligned to the frame. No
/// `iTunSMPB` is written: FFmpeg's muxer has no way to (see docs/aac.md).
///
/// **Bitrate.** Constant average bitrate, `OutputSettings.bitrateKbps`, or when that is nil one made from
/// `vorbisQuality` (`defaultBitrateKbps`: 64 kbit/s per channel at the presets' default quality, 0.5).
///
/// Layout: FFmpeg's muxer context (`AVFormatContext`, which owns the output file and the chapters), the
/// encoder's context, one `AVFrame` of 1024 planar float frames that `write` fills (deinterleaving) and
/// sends when full, and one reused `AVPacket`. `init` allocates all of them; `write` allocates nothing in
/// Swift (FFmpeg allocates each packet's buffer inside the encoder and the muxer keeps its sample tables),
/// except an error's message. Not thread-safe: one thread at a time (in a render, `write` on the encoder
/// thread, then `finish` on the render thread).
public final class FFmpegFileWriter: AudioEncoder {
    /// Frames per AAC block: what the encoder takes per `avcodec_send_frame` (except the last).
    public static let blockFrames = 1024

    /// What the AAC is muxed into.
    public enum Container: Sendable, Equatable {
        /// One `.m4a` at `path` (the `ipod` muxer), as described above.
        case m4a
        /// HTTP Live Streaming, for listening while the render runs: libavformat's `hls` muxer writes the playlist at
        /// `path` (`index.m3u8`, an EVENT playlist that grows, ending with `#EXT-X-ENDLIST` at `finish`), an fMP4
        /// initialisation segment `init.mp4` and media segments `seg00000.m4s`, ... beside it, each cut from the one
        /// continuous encoder stream about every `segmentSeconds` (at an AAC block's edge), so segments join without
        /// a gap. Each file is written under a temporary name and renamed when whole (`hls_flags temp_file`), so a
        /// server may serve the folder while it grows. No tags or chapters.
        case hls(segmentSeconds: Double)
    }

    public let path: String
    /// The name errors give: the destination, when `path` is a temporary file beside it.
    public let displayPath: String
    public let settings: OutputSettings
    /// The encoder's bitrate in kbit/s, all channels together.
    public let bitrateKbps: Int
    public let chapters: [ChapterMark]
    /// Frames written so far.
    public private(set) var framesWritten: Int64 = 0

    private let format: UnsafeMutablePointer<AVFormatContext>
    private let stream: UnsafeMutablePointer<AVStream>
    /// The encoder's context, packet and frame, freed together when the writer goes.
    private let parts: FFmpegCodecParts
    private var codec: UnsafeMutablePointer<AVCodecContext> { parts.codec }
    private var frame: UnsafeMutablePointer<AVFrame> { parts.frame }
    private var packet: UnsafeMutablePointer<AVPacket> { parts.packet }
    /// Frames in `frame` not yet sent to the encoder.
    private var filled = 0
    /// Frames sent to the encoder: the next frame's `pts`.
    private var framesSent: Int64 = 0
    private var isFinished = false

    /// Checks `settings` (`validate(settings:)`) and `chapters` (starting at distinct frames, in order, none
    /// before 0 or at or after `settings.expectedFrameCount`, which chapters need: the muxer lays its chapter
    /// track out in the header, so the last chapter's end must be known then), finds the `aac` encoder (`avcodec_find_encoder_by_name`), opens it
    /// (`avcodec_open2`: planar float, AAC-LC, the bitrate), creates `path` (`avformat_alloc_output_context2`
    /// with `ipod`, `avio_open`) and writes the header (`avformat_write_header`, with the tags and chapters).
    public init(path: String, settings: OutputSettings, displayPath: String? = nil,
                chapters: [ChapterMark] = [], container: Container = .m4a) throws {
        try FFmpeg.loadContainers(for: displayPath ?? path, operation: "create")
        let name = displayPath ?? path
        if let problem = Self.validate(settings: settings) {
            throw AudioIOError(path: name, function: "", reason: problem, operation: "create")
        }
        if let problem = Self.validate(chapters: chapters, frameCount: settings.expectedFrameCount) {
            throw AudioIOError(path: name, function: "", reason: problem, operation: "create")
        }
        let bitrateKbps = Self.bitrateKbps(for: settings)
        var format: UnsafeMutablePointer<AVFormatContext>?
        var isOpen = false
        defer { if !isOpen { Self.close(format) } }   // the codec's parts free themselves
        func failure(_ function: String, _ code: Int32) -> AudioIOError {
            FFmpeg.error(name, function, code: code, operation: "create")
        }
        guard let encoder = FFmpeg.av.avcodec_find_encoder_by_name("aac") else {
            throw AudioIOError(path: name, function: "avcodec_find_encoder_by_name", reason: "this FFmpeg has no AAC encoder",
                               operation: "create")
        }
        let isHLS = container != .m4a
        if isHLS && !chapters.isEmpty {
            throw AudioIOError(path: name, function: "", reason: "an HLS stream carries no chapters", operation: "create")
        }
        let made = FFmpeg.format.avformat_alloc_output_context2(&format, nil, isHLS ? "hls" : "ipod", path)
        guard made >= 0, let format else { throw failure("avformat_alloc_output_context2", made) }
        guard let parts = FFmpegCodecParts(for: encoder), let stream = FFmpeg.format.avformat_new_stream(format, nil) else {
            throw AudioIOError(path: name, function: "avcodec_alloc_context3", reason: "out of memory", operation: "create")
        }
        let codec = parts.codec, frame = parts.frame

        let rate = Int32(settings.sampleRate)
        codec.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        codec.pointee.sample_rate = rate
        FFmpeg.av.av_channel_layout_default(&codec.pointee.ch_layout, Int32(settings.channelCount))
        codec.pointee.bit_rate = Int64(bitrateKbps) * 1000
        codec.pointee.profile = FF_PROFILE_AAC_LOW
        codec.pointee.time_base = AVRational(num: 1, den: rate)
        if format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            codec.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        }
        let opened = FFmpeg.av.avcodec_open2(codec, encoder, nil)
        guard opened >= 0 else { throw failure("avcodec_open2", opened) }
        let copied = FFmpeg.av.avcodec_parameters_from_context(stream.pointee.codecpar, codec)
        guard copied >= 0 else { throw failure("avcodec_parameters_from_context", copied) }
        stream.pointee.time_base = codec.pointee.time_base

        frame.pointee.nb_samples = Int32(Self.blockFrames)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = rate
        let layout = FFmpeg.av.av_channel_layout_copy(&frame.pointee.ch_layout, &codec.pointee.ch_layout)
        guard layout >= 0 else { throw failure("av_channel_layout_copy", layout) }
        let buffered = FFmpeg.av.av_frame_get_buffer(frame, 0)
        guard buffered >= 0 else { throw failure("av_frame_get_buffer", buffered) }

        for (key, text) in [("title", settings.title), ("artist", settings.artist), ("comment", settings.comment)] {
            guard let text, !isHLS else { continue }
            let set = FFmpeg.av.av_dict_set(&format.pointee.metadata, key, text, 0)
            guard set >= 0 else { throw failure("av_dict_set", set) }
        }
        try Self.addChapters(chapters, frameCount: settings.expectedFrameCount ?? 0, rate: rate, to: format, failure: failure)

        var options: OpaquePointer?
        defer { FFmpeg.av.av_dict_free(&options) }
        switch container {
        case .m4a:
            let created = FFmpeg.format.avio_open(&format.pointee.pb, path, AVIO_FLAG_WRITE)
            guard created >= 0 else { throw failure("avio_open", created) }
            // The movie's time scale is the sample rate, so that the edit list's duration counts frames exactly
            // (FFmpeg's default, 1000, would round the end to the millisecond).
            _ = FFmpeg.av.av_dict_set(&options, "movflags", "+faststart", 0)
            _ = FFmpeg.av.av_dict_set(&options, "movie_timescale", String(settings.sampleRate), 0)
        case .hls(let segmentSeconds):
            // The muxer opens its own files (the playlist, the init segment, each media segment) beside `path`.
            let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            _ = FFmpeg.av.av_dict_set(&options, "hls_time", String(segmentSeconds), 0)
            _ = FFmpeg.av.av_dict_set(&options, "hls_list_size", "0", 0)
            _ = FFmpeg.av.av_dict_set(&options, "hls_playlist_type", "event", 0)
            _ = FFmpeg.av.av_dict_set(&options, "hls_segment_type", "fmp4", 0)
            _ = FFmpeg.av.av_dict_set(&options, "hls_fmp4_init_filename", "init.mp4", 0)
            _ = FFmpeg.av.av_dict_set(&options, "hls_segment_filename", folder + "/seg%05d.m4s", 0)
            _ = FFmpeg.av.av_dict_set(&options, "hls_flags", "temp_file+independent_segments", 0)
        }
        let written = FFmpeg.format.avformat_write_header(format, &options)
        guard written >= 0 else { throw failure("avformat_write_header", written) }
        if let ignored = FFmpeg.av.av_dict_get(options, "", nil, AV_DICT_IGNORE_SUFFIX) {
            throw AudioIOError(path: name, function: "avformat_write_header",
                               reason: "the \(isHLS ? "HLS" : "MP4") muxer does not know the option '\(String(cString: ignored.pointee.key))'",
                               operation: "create")
        }

        self.path = path
        self.displayPath = name
        self.settings = settings
        self.bitrateKbps = bitrateKbps
        self.chapters = chapters
        self.format = format
        self.stream = stream
        self.parts = parts
        isOpen = true
    }

    /// Frees the frame, the packet and the encoder, and closes the file (`avio_closep`) and the muxer
    /// (`avformat_free_context`, which frees the chapters). Without `finish()` the file has no `moov` box and
    /// plays nowhere: the caller removes it (`AtomicOutputFile`).
    deinit {
        Self.close(format)   // `parts` frees the frame, the packet and the encoder
    }

    /// Deinterleaves `frames` frames into the encoder's 1024-frame block, sending each full block
    /// (`avcodec_send_frame`) and muxing the packets it gives (`avcodec_receive_packet`,
    /// `av_interleaved_write_frame`).
    public func write(interleaved: UnsafePointer<Float>, frames: Int) throws {
        precondition(frames >= 0, "frames must not be negative")
        guard !isFinished else {
            throw AudioIOError(path: displayPath, function: "avcodec_send_frame", reason: "the file is already finished", operation: "write")
        }
        let channelCount = settings.channelCount
        let planes = frame.pointee.extended_data!
        var done = 0
        while done < frames {
            if filled == 0 {
                // The encoder may still hold the block sent last (it does not here; FFmpeg's contract allows it).
                let writable = FFmpeg.av.av_frame_make_writable(frame)
                guard writable >= 0 else { throw FFmpeg.error(displayPath, "av_frame_make_writable", code: writable, operation: "write") }
            }
            let count = min(Self.blockFrames - filled, frames - done)
            let source = interleaved + done * channelCount
            for c in 0..<channelCount {
                let plane = UnsafeMutableRawPointer(planes[c]!).assumingMemoryBound(to: Float.self) + filled
                for i in 0..<count { plane[i] = source[i * channelCount + c] }
            }
            filled += count
            done += count
            if filled == Self.blockFrames { try sendBlock(operation: "write") }
        }
        framesWritten += Int64(frames)
    }

    /// Sends the last, shorter block, drains the encoder (`avcodec_send_frame` with no frame), checks that
    /// the frames written are the `expectedFrameCount` chapters were laid out for, writes the trailer (`av_write_trailer`: the `moov` box, moved to the front) and closes
    /// the file (`avio_closep`), reporting each one's error. Calling it again does nothing.
    public func finish() throws {
        guard !isFinished else { return }
        isFinished = true
        if filled > 0 { try sendBlock(operation: "finish") }
        let flushed = FFmpeg.av.avcodec_send_frame(codec, nil)
        guard flushed >= 0 else { throw FFmpeg.error(displayPath, "avcodec_send_frame", code: flushed, operation: "finish") }
        try drain(operation: "finish")
        if !chapters.isEmpty, let expected = settings.expectedFrameCount, framesWritten != expected {
            throw AudioIOError(path: displayPath, function: "", reason: "\(framesWritten) frames were written, not the "
                               + "\(expected) its chapters were laid out for", operation: "finish")
        }
        let trailer = FFmpeg.format.av_write_trailer(format)
        guard trailer >= 0 else { throw FFmpeg.error(displayPath, "av_write_trailer", code: trailer, operation: "finish") }
        let closed = FFmpeg.format.avio_closep(&format.pointee.pb)
        guard closed >= 0 else { throw FFmpeg.error(displayPath, "avio_closep", code: closed, operation: "finish") }
    }

    /// Sends the `filled` frames of the block (their `pts` counts frames) and muxes what comes out.
    private func sendBlock(operation: String) throws {
        frame.pointee.nb_samples = Int32(filled)
        frame.pointee.pts = framesSent
        let sent = FFmpeg.av.avcodec_send_frame(codec, frame)
        // Restored for `av_frame_make_writable`, which sizes a new buffer by it.
        frame.pointee.nb_samples = Int32(Self.blockFrames)
        guard sent >= 0 else { throw FFmpeg.error(displayPath, "avcodec_send_frame", code: sent, operation: operation) }
        framesSent += Int64(filled)
        filled = 0
        try drain(operation: operation)
    }

    /// Muxes every packet the encoder has ready, with timestamps moved to the stream's time base.
    private func drain(operation: String) throws {
        while true {
            let received = FFmpeg.av.avcodec_receive_packet(codec, packet)
            if received == FFmpeg.tryAgain || received == FFmpeg.endOfFile { return }
            guard received >= 0 else { throw FFmpeg.error(displayPath, "avcodec_receive_packet", code: received, operation: operation) }
            packet.pointee.stream_index = stream.pointee.index
            FFmpeg.av.av_packet_rescale_ts(packet, codec.pointee.time_base, stream.pointee.time_base)
            let muxed = FFmpeg.format.av_interleaved_write_frame(format, packet)  // takes the packet's reference
            guard muxed >= 0 else { throw FFmpeg.error(displayPath, "av_interleaved_write_frame", code: muxed, operation: operation) }
        }
    }

    // MARK: - Settings

    /// The bitrates the encoder is given, in kbit/s for all channels: 16 per channel (below that AAC-LC is
    /// unusable for noise) up to AAC-LC's ceiling of 6144 bits per channel per 1024-frame block (6 bits per
    /// frame per channel: 288 kbit/s per channel at 48 kHz), beyond which FFmpeg's encoder clamps.
    public static func bitrates(sampleRate: Int, channelCount: Int) -> ClosedRange<Int> {
        (16 * channelCount)...(6 * sampleRate * channelCount / 1000)
    }

    /// The bitrate used when `bitrateKbps` is nil: `32 x 4^quality` kbit/s per channel, rounded (each 0.25
    /// of quality is x1.41): the presets' default quality, 0.5, gives 64 per channel (128 kbit/s stereo, 64
    /// mono); 0 gives 32 (64 stereo), 1 gives 128 (256 stereo, iTunes Plus's rate); at most what the rate
    /// allows (`bitrates`).
    public static func defaultBitrateKbps(quality: Double, sampleRate: Int, channelCount: Int) -> Int {
        let perChannel = Int((32 * exp2(2 * min(max(quality, 0), 1))).rounded())
        return min(perChannel * channelCount, bitrates(sampleRate: sampleRate, channelCount: channelCount).upperBound)
    }

    /// The bitrate `settings` ask for, in kbit/s: `bitrateKbps`, or `defaultBitrateKbps` from `vorbisQuality`.
    public static func bitrateKbps(for settings: OutputSettings) -> Int {
        settings.bitrateKbps ?? defaultBitrateKbps(quality: settings.vorbisQuality, sampleRate: settings.sampleRate,
                                                   channelCount: settings.channelCount)
    }

    /// Why `settings` cannot be written as AAC in M4A, in plain words, or nil if they can: the rate must be
    /// one of `OutputFileFormat.aacRates`, 1 or 2 channels, quality in 0...1, a bitrate in `bitrates`.
    public static func validate(settings: OutputSettings) -> String? {
        let name = OutputFileFormat.m4a.displayName
        if !OutputFileFormat.aacRates.contains(settings.sampleRate) {
            return "\(name) cannot be written at \(settings.sampleRate) Hz (it takes "
                + OutputFileFormat.aacRates.map(String.init).joined(separator: ", ") + " Hz)"
        }
        if !(1...2).contains(settings.channelCount) {
            return "\(name) cannot be written with \(settings.channelCount) channels (1...2)"
        }
        if !(settings.vorbisQuality.isFinite && (0...1).contains(settings.vorbisQuality)) {
            return "\(name) quality must be between 0 and 1, not \(settings.vorbisQuality)"
        }
        let range = bitrates(sampleRate: settings.sampleRate, channelCount: settings.channelCount)
        if let kbps = settings.bitrateKbps, !range.contains(kbps) {
            let channels = settings.channelCount == 1 ? "1 channel" : "\(settings.channelCount) channels"
            return "\(name) at \(settings.sampleRate) Hz with \(channels) takes \(range.lowerBound)...\(range.upperBound) "
                + "kbit/s, not \(kbps)"
        }
        return nil
    }

    /// Why `chapters` cannot be stored in a file of `frameCount` frames, or nil: each needs a name and a start
    /// after the one before, from 0 and before the end, which must be known.
    static func validate(chapters: [ChapterMark], frameCount: Int64?) -> String? {
        guard !chapters.isEmpty else { return nil }
        guard let frameCount else { return "chapters need the length known before writing (expectedFrameCount)" }
        for (i, chapter) in chapters.enumerated() {
            if chapter.name.isEmpty { return "chapter \(i + 1) has no name" }
            if chapter.frame < 0 { return "chapter '\(chapter.name)' starts before the file (frame \(chapter.frame))" }
            if i > 0 && chapter.frame <= chapters[i - 1].frame {
                return "chapter '\(chapter.name)' (frame \(chapter.frame)) does not start after '\(chapters[i - 1].name)' "
                    + "(frame \(chapters[i - 1].frame))"
            }
            if chapter.frame >= frameCount {
                return "chapter '\(chapter.name)' starts at frame \(chapter.frame), not before the end (\(frameCount) frames)"
            }
        }
        return nil
    }

    // MARK: - Muxer

    /// Gives the muxer its chapters (`av_mallocz` for each, `av_dict_set` for its title), in frames (time base
    /// 1/rate); each ends where the next starts, the last one at `frameCount`. The muxer lays its chapter
    /// track out from them in `avformat_write_header`.
    private static func addChapters(_ chapters: [ChapterMark], frameCount: Int64, rate: Int32,
                                    to format: UnsafeMutablePointer<AVFormatContext>,
                                    failure: (String, Int32) -> AudioIOError) throws {
        guard !chapters.isEmpty else { return }
        let pointerSize = MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride
        guard let list = FFmpeg.av.av_mallocz(chapters.count * pointerSize) else { throw failure("av_mallocz", -ENOMEM) }
        format.pointee.chapters = list.bindMemory(to: UnsafeMutablePointer<AVChapter>?.self, capacity: chapters.count)
        for (i, mark) in chapters.enumerated() {
            guard let raw = FFmpeg.av.av_mallocz(MemoryLayout<AVChapter>.stride) else { throw failure("av_mallocz", -ENOMEM) }
            let chapter = raw.bindMemory(to: AVChapter.self, capacity: 1)
            format.pointee.chapters[i] = chapter
            format.pointee.nb_chapters = UInt32(i + 1)  // from here avformat_free_context frees it
            chapter.pointee.id = Int64(i)
            chapter.pointee.time_base = AVRational(num: 1, den: rate)
            chapter.pointee.start = mark.frame
            chapter.pointee.end = i + 1 < chapters.count ? chapters[i + 1].frame : frameCount
            let set = FFmpeg.av.av_dict_set(&chapter.pointee.metadata, "title", mark.name, 0)
            guard set >= 0 else { throw failure("av_dict_set", set) }
        }
    }

    /// Closes the output file if it is open (`avio_closep`) and frees the muxer (`avformat_free_context`).
    private static func close(_ format: UnsafeMutablePointer<AVFormatContext>?) {
        guard let format else { return }
        if format.pointee.pb != nil { _ = FFmpeg.format.avio_closep(&format.pointee.pb) }
        FFmpeg.format.avformat_free_context(format)
    }
}
