import CFFmpeg
import MixDSP

/// Decodes the best audio stream of a file with FFmpeg's libraries (libavformat, libavcodec) into
/// interleaved `Float` frames normalised to [-1, 1]: what libsndfile cannot read, such as AAC in `.m4a` and
/// `.mp4` (voice memos), Opus and Vorbis in WebM. FFmpeg removes the encoder's priming itself (MP4 edit
/// lists, Matroska's codec delay); the end of an MP4 edit list, which FFmpeg 5.1 does not apply (its last
/// packet decodes whole, padding and all), is applied here: an MP4 stream whose timestamps count samples is
/// cut to its duration (`AVStream.duration`, which the demuxer takes from the edit list), so an AAC file
/// decodes to exactly the frames encoded. Lossy decoders may overshoot full scale slightly.
///
/// **Exact length.** Containers only estimate durations, so `init` decodes the whole stream once,
/// counting frames (and checking that rate and channels never change): `info.frameCount` is what `read`
/// gives. That pass costs one decode of the file and allocates nothing per frame: measured here,
/// `mixrender info` on a 10-minute 48 kHz mono AAC file (5 MB) takes 0.14 s in all, about 4000x realtime.
///
/// **Seeking** is exact to the frame. Where the stream's timestamps count whole samples and its encoding
/// needs only the previous packet to decode a packet exactly (AAC, MP3, Vorbis, AC-3, PCM, FLAC, ALAC), it
/// seeks the demuxer a little before the target and decodes forward, discarding; otherwise (Opus, whose
/// decoder state reaches further back, or WebM's millisecond timestamps) it decodes forward from the start
/// of the file with a new decoder, as it does for any target in the first `seekPreroll` frames. A jump of up to
/// 30 s forward reads the packets between without decoding them, rather than seek the demuxer (Ogg's seek bisects
/// the file). Either way the position is taken from the first frame whose timestamp agrees with the frame before
/// it: Vorbis in Ogg times the frame where long blocks turn short 448 samples late. Audio after
/// a demuxer seek is aligned to the frame but need not be bit-identical to a decode from the start: AAC's
/// noise substitution (PNS) draws from a random generator that runs on from the start of the stream, so
/// noise-coded bands get another noise of the same level (up to 2e-3 apart on the test fixtures).
///
/// Layout: the `AudioFileInfo`, an `FFmpegDecoder` (FFmpeg's contexts, one packet, one frame) and the read
/// position within the last decoded frame. `init` allocates (two decoders, one after the other: the counting
/// pass's and the one it reads with, which starts afresh so that reading gives what was counted); `read` allocates only inside FFmpeg (its pooled frame buffers); a seek
/// that goes back to the start allocates a new decoder. Not thread-safe: one thread at a time, not
/// necessarily the one that opened it. Separate readers may run on separate threads.
public final class FFmpegFileReader: AudioFileReader, FrameDecodingReader {
    public let info: AudioFileInfo
    private var decoder: FFmpegDecoder
    /// The timestamp (stream time base) of the first decoded frame, where frame 0 is; nil when it had none.
    private let firstTimestamp: Int64?
    /// Whether `seek` may move the demuxer (see the type's notes) rather than start again.
    private let seeksInContainer: Bool
    /// The frame `read` returns next.
    var position: Int64 = 0
    /// The samples of `decoder.frame` not yet returned: from `pendingOffset`, `pendingCount` frames.
    var pendingOffset = 0
    var pendingCount = 0

    /// Frames decoded before a seek's target and discarded: enough for the previous packet of any encoding
    /// `seeksInContainer` allows (16384). Vorbis needs only a margin (2048): FFmpeg's decoder gives nothing for the
    /// first packet after a flush, which lacks the block before it to overlap, so every frame it gives is exact.
    private let seekPreroll: Int64

    /// Opens `path` (see `FFmpegDecoder.init`), decodes it once to count its frames, and opens it again to
    /// read. Throws an `AudioIOError` naming the file, the reason and the FFmpeg function: not a format
    /// FFmpeg recognises, "has no audio stream", a damaged file, or a sample rate or channel count that
    /// changes within the stream.
    ///
    /// A caller that has already opened the file with another reader passes its `knownInfo`, which is kept
    /// as the info (with its exact length: no counting pass): libsndfile's for an Ogg Vorbis file, whose
    /// length is the last granule position, as FFmpeg decodes it (the bench and the tests check). Its rate
    /// and channels must be the stream's. It decodes the stream's first frame (for the timestamp of frame 0, which
    /// seeks in the container need) and keeps it for the first `read`.
    public init(path: String, knownInfo: AudioFileInfo? = nil) throws {
        let identity = FileSystem.identity(of: path)
        if let identity, identity.kind == .other {
            throw AudioIOError(path: path, function: "", reason: "not a regular file (a pipe, a device or a socket); "
                               + "mixrender reads audio files only", operation: "open")
        }
        try LibC.checkPath(path, function: "avformat_open_input", operation: "open")

        decoder = try FFmpegDecoder(path: path)
        let parameters = decoder.stream.pointee.codecpar.pointee
        var shape = (rate: Int(parameters.sample_rate), channels: Int(parameters.ch_layout.nb_channels))
        var frameCount: Int64 = 0
        var firstTimestamp: Int64?
        var firstFrameCount = 0
        if let knownInfo {
            guard knownInfo.sampleRate == shape.rate, knownInfo.channelCount == shape.channels else {
                throw AudioIOError(path: path, function: "avformat_find_stream_info",
                                   reason: "FFmpeg finds \(shape.channels) channels at \(shape.rate) Hz, not "
                                   + "\(knownInfo.channelCount) at \(knownInfo.sampleRate) Hz")
            }
            frameCount = knownInfo.frameCount
            // The first frame's timestamp is where frame 0 lies, which seeks in the container need: decoded here and
            // kept for the first `read`, so that reading gives what it gave before.
            if try decoder.nextFrame() {
                let frame = decoder.frame.pointee
                firstTimestamp = frame.best_effort_timestamp == FFmpeg.noTimestamp ? nil : frame.best_effort_timestamp
                try Self.checkShape(of: decoder, rate: shape.rate, channels: shape.channels, at: 0, operation: "open")
                firstFrameCount = Int(frame.nb_samples)
            }
        } else {
            var isFirst = true
            while try decoder.nextFrame() {
                let frame = decoder.frame.pointee
                if isFirst {
                    shape = (Int(frame.sample_rate), Int(frame.ch_layout.nb_channels))
                    firstTimestamp = frame.best_effort_timestamp == FFmpeg.noTimestamp ? nil : frame.best_effort_timestamp
                    isFirst = false
                }
                try Self.checkShape(of: decoder, rate: shape.rate, channels: shape.channels, at: frameCount, operation: "open")
                frameCount += Int64(frame.nb_samples)
            }
            if let length = Self.editListLength(decoder, rate: shape.rate) { frameCount = min(frameCount, length) }
            decoder = try FFmpegDecoder(path: path)
        }
        guard shape.rate > 0, shape.channels > 0 else {
            throw AudioIOError(path: path, function: "avcodec_receive_frame",
                               reason: "the stream reports \(shape.channels) channels at \(shape.rate) Hz")
        }

        self.firstTimestamp = firstTimestamp
        pendingCount = firstFrameCount
        seekPreroll = decoder.codecID == AV_CODEC_ID_VORBIS ? 2048 : 16384
        let timeBase = decoder.stream.pointee.time_base
        let countsSamples = timeBase.num > 0 && Int64(timeBase.den) % (Int64(timeBase.num) * Int64(shape.rate)) == 0
        seeksInContainer = countsSamples && firstTimestamp != nil && Self.decodesFromPreviousPacket(decoder.codecID)
        let format = decoder.format.pointee
        let tags = AudioTags(title: Self.tag("title", decoder), artist: Self.tag("artist", decoder),
                             comment: Self.tag("comment", decoder))
        let isOggVorbis = String(cString: format.iformat.pointee.name) == "ogg" && decoder.codecID == AV_CODEC_ID_VORBIS
        info = knownInfo ?? AudioFileInfo(path: path,
                             formatName: FFmpeg.formatName(codec: decoder.codecID, container: format.iformat, path: path),
                             sampleRate: shape.rate, channelCount: shape.channels, frameCount: frameCount,
                             isSeekable: true, tags: tags, identity: identity,
                             commentFormat: isOggVorbis ? .oggVorbis : nil)
    }

    public var tags: AudioTags { info.tags }

    /// Whether a seek gives the very samples a read from the start gives there, so that readers of one file can
    /// each decode a part of it (`mixrender waveform`'s decoding threads): a seek in the container, for an
    /// encoding whose packets need only the one before them and draw no random numbers (Vorbis, FLAC, PCM; not
    /// AAC, whose noise substitution does).
    public var seeksToTheSameSamples: Bool {
        guard seeksInContainer else { return false }
        switch decoder.codecID {
        case AV_CODEC_ID_VORBIS, AV_CODEC_ID_FLAC: return true
        default:
            guard let descriptor = FFmpeg.av.avcodec_descriptor_get(decoder.codecID) else { return false }
            return descriptor.pointee.props & AV_CODEC_PROP_LOSSLESS != 0 && descriptor.pointee.props & AV_CODEC_PROP_INTRA_ONLY != 0
        }
    }

    /// Decodes frames (`FFmpegDecoder.nextFrame`) and converts them to interleaved `Float`: planar or not,
    /// 8, 16, 32 or 64-bit integer, float or double samples. Returns fewer frames than asked only at the end
    /// of the stream, and 0 after it. Throws if the sample rate or channel count changes.
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        try readDecoded(into: buffer, frames: frames)
    }

    /// Moves the read position to `frame` exactly (see the type's notes for how); throws if `frame` is
    /// outside 0...frameCount.
    public func seek(to frame: Int64) throws {
        guard frame >= 0, frame <= info.frameCount else {
            throw AudioIOError(path: info.path, function: "av_seek_frame",
                               reason: "cannot go to frame \(frame): the file has \(info.frameCount) frames",
                               operation: "seek in")
        }
        if frame >= position && frame - position <= seekPreroll {
            return try discard(upTo: frame)
        }
        // A jump of a few seconds forward reads the packets between and drops them (`FFmpegDecoder.skip`).
        if seeksInContainer, let firstTimestamp, frame > position, frame - position <= Int64(Self.skipSeconds * info.sampleRate),
           try skipInContainer(to: frame, firstTimestamp: firstTimestamp) {
            return
        }
        // A demuxer may land a little after where it was asked (Ogg's bisection stops at a page near the
        // timestamp, sometimes just after it): ask again from further back before decoding from the start.
        if seeksInContainer, let firstTimestamp {
            var preroll = seekPreroll
            while frame > preroll && preroll <= 16 * seekPreroll {
                if try seekInContainer(to: frame, preroll: preroll, firstTimestamp: firstTimestamp) { return }
                preroll *= 4
            }
        }
        decoder = try FFmpegDecoder(path: info.path)
        position = 0
        pendingCount = 0
        try discard(upTo: frame)
    }

    // MARK: - Decoding

    var decodedFrame: UnsafeMutablePointer<AVFrame> { decoder.frame }

    /// Decodes the next frame into `decoder.frame`, checks its shape and makes it pending; false at the end.
    func decodeFrame() throws -> Bool {
        guard try decoder.nextFrame() else { return false }
        try Self.checkShape(of: decoder, rate: info.sampleRate, channels: info.channelCount, at: position, operation: "read")
        pendingOffset = 0
        pendingCount = Int(decoder.frame.pointee.nb_samples)
        return true
    }

    /// Seeks the demuxer `preroll` frames before `target` and finds where decoding resumed from the first frame
    /// with a timestamp; false (nothing to trust) when that is not at least `seekPreroll` before `target`.
    private func seekInContainer(to target: Int64, preroll: Int64, firstTimestamp: Int64) throws -> Bool {
        let timeBase = decoder.stream.pointee.time_base
        let sample = AVRational(num: 1, den: Int32(info.sampleRate))
        let landing = target - seekPreroll
        let asked = target - preroll
        try decoder.seek(toTimestamp: firstTimestamp + FFmpeg.av.av_rescale_q(asked, sample, timeBase))
        return try findPosition(target: target, landing: landing)
    }

    /// The longest jump forward `seek` makes by reading the packets between rather than seeking the demuxer.
    private static let skipSeconds = 30

    /// Reads on to `seekPreroll` frames before `target`, dropping packets, and finds the position from there; false
    /// (nothing to trust) as `seekInContainer`.
    private func skipInContainer(to target: Int64, firstTimestamp: Int64) throws -> Bool {
        let timeBase = decoder.stream.pointee.time_base
        let sample = AVRational(num: 1, den: Int32(info.sampleRate))
        let landing = target - seekPreroll
        // Packets from a little before `landing` are decoded: the decoder gives nothing for the first after a flush.
        guard try decoder.skip(toTimestamp: firstTimestamp + FFmpeg.av.av_rescale_q(landing - seekPreroll, sample, timeBase)) else {
            return false
        }
        return try findPosition(target: target, landing: landing)
    }

    /// Decodes on from where the demuxer was put, finds the position of a frame whose timestamp can be trusted and
    /// discards up to `target`; false when that frame is after `landing` or the stream ends first.
    private func findPosition(target: Int64, landing: Int64) throws -> Bool {
        guard let firstTimestamp else { return false }
        let timeBase = decoder.stream.pointee.time_base
        let sample = AVRational(num: 1, den: Int32(info.sampleRate))
        pendingCount = 0
        // A frame's timestamp may be off the count of samples before it: Vorbis in Ogg times the frame where long
        // blocks turn short 448 samples late (measured with a read from the start, too), and the frames after it
        // take up the count again. So position is taken from a frame whose timestamp is the one before it plus
        // that one's samples: two frames agree.
        var previousEnd: Int64?
        while try decoder.nextFrame() {
            let timestamp = decoder.frame.pointee.best_effort_timestamp
            guard timestamp != FFmpeg.noTimestamp else { previousEnd = nil; continue }
            let end = timestamp + FFmpeg.av.av_rescale_q(Int64(decoder.frame.pointee.nb_samples), sample, timeBase)
            defer { previousEnd = end }
            guard timestamp == previousEnd else { continue }
            position = FFmpeg.av.av_rescale_q(timestamp - firstTimestamp, timeBase, sample)
            guard position <= landing else { return false }
            try Self.checkShape(of: decoder, rate: info.sampleRate, channels: info.channelCount, at: position, operation: "seek in")
            pendingOffset = 0
            pendingCount = Int(decoder.frame.pointee.nb_samples)
            try discard(upTo: target)
            return true
        }
        return false
    }

    /// The length an MP4 (QuickTime, M4A) stream's edit list gives, in frames: its `duration`, when its time
    /// base counts whole samples; nil for other containers, or when the duration is unknown.
    private static func editListLength(_ decoder: FFmpegDecoder, rate: Int) -> Int64? {
        let stream = decoder.stream.pointee, timeBase = stream.time_base
        guard String(cString: decoder.format.pointee.iformat.pointee.name) == "mov,mp4,m4a,3gp,3g2,mj2",
              stream.duration > 0, stream.duration != FFmpeg.noTimestamp, timeBase.num > 0, rate > 0,
              Int64(timeBase.den) % (Int64(timeBase.num) * Int64(rate)) == 0 else { return nil }
        return FFmpeg.av.av_rescale_q(stream.duration, timeBase, AVRational(num: 1, den: Int32(rate)))
    }

    /// Encodings whose packets decode exactly once the one before them has been decoded: transform codecs
    /// with a one-block overlap, and those whose packets stand alone (`AV_CODEC_PROP_INTRA_ONLY`).
    private static func decodesFromPreviousPacket(_ codec: AVCodecID) -> Bool {
        switch codec {
        case AV_CODEC_ID_AAC, AV_CODEC_ID_MP3, AV_CODEC_ID_MP2, AV_CODEC_ID_VORBIS, AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3:
            return true
        default:
            guard let descriptor = FFmpeg.av.avcodec_descriptor_get(codec) else { return false }
            return descriptor.pointee.props & AV_CODEC_PROP_INTRA_ONLY != 0
        }
    }

    /// Throws if the decoder's frame has another rate or channel count than the stream started with.
    private static func checkShape(of decoder: FFmpegDecoder, rate: Int, channels: Int, at position: Int64,
                                   operation: String) throws {
        let frame = decoder.frame.pointee
        let (frameRate, frameChannels) = (Int(frame.sample_rate), Int(frame.ch_layout.nb_channels))
        guard frameRate != rate || frameChannels != channels else { return }
        let change = frameRate != rate ? "the sample rate changes from \(rate) Hz to \(frameRate) Hz"
                                       : "the channel count changes from \(channels) to \(frameChannels)"
        throw AudioIOError(path: decoder.path, function: "avcodec_receive_frame",
                           reason: "\(change) at frame \(position); mixrender reads streams whose format stays the same",
                           operation: operation)
    }

    /// Calls `av_dict_get` on the file's metadata, then the stream's (Ogg keeps its comments there).
    private static func tag(_ key: String, _ decoder: FFmpegDecoder) -> String? {
        for dictionary in [decoder.format.pointee.metadata, decoder.stream.pointee.metadata] {
            if let entry = FFmpeg.av.av_dict_get(dictionary, key, nil, 0), let value = entry.pointee.value {
                return String(cString: value)
            }
        }
        return nil
    }
}
