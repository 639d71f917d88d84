import CFFmpeg
import MixDSP

/// Decodes an Ogg Vorbis file read whole: libogg finds its packets (`OggPacketStream`) and FFmpeg's Vorbis decoder
/// (libavcodec alone, `FFmpegPacketDecoder`) decodes them. The same samples as `FFmpegFileReader`, whose decoder it
/// is, without libavformat: a process that reads no other container through FFmpeg does not map it and its
/// dependencies (about 9 MB of resident memory), and libogg's pages cost less than FFmpeg's Ogg demuxer.
///
/// **Which files.** `open(path:knownInfo:)` takes a file libsndfile has opened as Ogg Vorbis (its info, exact
/// length and tags, is kept) and reads it only when it is one plain stream: the file begins with one Vorbis stream
/// and nothing beside it, its three headers end on a page, its first audio page ends where the samples decoded
/// through it say (no samples cut at the start), and its last page is the stream's and ends at the length libsndfile
/// gives. Otherwise (streams multiplexed or chained, a stream cut from another) it returns nil, and the caller
/// reads the file with `FFmpegFileReader`. The length is libsndfile's: the samples decoded past the last page's
/// granule position (the encoder's padding of the last block) are not given.
///
/// **Seeking** is exact to the frame and gives the very samples a read from the start gives. Forward by more than
/// `seekPreroll` frames, it reads pages without decoding them (`OggPacketStream.skip`) to the last page that ends
/// at least `seekPreroll` frames before the target, decodes from that page's last packet (Vorbis's decoder gives
/// nothing for the first packet after a flush, and every frame after it is exact; the packets before it are dropped
/// undecoded) and takes the position from the first packet that a page's granule position ends. Backward, it goes back to the first audio page and does the same.
///
/// Layout: the info, the packet stream, the decoder, the read position and the frames of the last decoded frame not
/// yet returned. `init` allocates both; `read` allocates only inside FFmpeg (its copy of each packet, its pooled
/// frames). Not thread-safe: one thread at a time, not necessarily the one that opened it. Separate readers of one
/// file may run on separate threads (`mixrender waveform`'s decoding threads).
public final class OggVorbisFileReader: AudioFileReader, FrameDecodingReader {
    public let info: AudioFileInfo
    private let packets: OggPacketStream
    private let decoder: FFmpegPacketDecoder
    /// Where the first audio page begins.
    private let audioOffset: Int64
    /// The frame of the first pending sample (`read` returns it next); not known after skipping pages until a
    /// packet that a page ends has been decoded (`isPositionKnown`).
    var position: Int64 = 0
    private var isPositionKnown = true
    /// The granule position of the packet sent last (-1 when no page ends with it).
    private var sentGranule: Int64 = -1
    var pendingOffset = 0
    var pendingCount = 0
    private var isInputFinished = false

    /// Frames decoded before a seek's target and discarded: the block before any frame (2048 at most) is decoded.
    static let seekPreroll: Int64 = 2048

    /// Reads `path`, which libsndfile opened as Ogg Vorbis with `knownInfo`, or returns nil when it is not one plain
    /// stream (see the type's notes). Throws an `AudioIOError` naming the file when it cannot be read, FFmpeg cannot
    /// be loaded, or its decoder refuses the headers.
    public static func open(path: String, knownInfo: AudioFileInfo) throws -> OggVorbisFileReader? {
        let packets = try OggPacketStream(path: path)
        guard let headers = try Self.headers(of: packets, rate: knownInfo.sampleRate, channels: knownInfo.channelCount),
              !packets.hasOtherStreams, packets.isBetweenPackets,
              let last = try packets.lastPage(), last == (packets.serial, knownInfo.frameCount) else { return nil }
        let decoder = try FFmpegPacketDecoder(path: path, codecID: AV_CODEC_ID_VORBIS, headers: headers,
                                              sampleRate: knownInfo.sampleRate, channels: knownInfo.channelCount)
        let reader = OggVorbisFileReader(info: knownInfo, packets: packets, decoder: decoder,
                                         audioOffset: packets.offsetAfterLastPage)
        guard try reader.startsAtZero() else { return nil }
        return reader
    }

    private init(info: AudioFileInfo, packets: OggPacketStream, decoder: FFmpegPacketDecoder, audioOffset: Int64) {
        self.info = info
        self.packets = packets
        self.decoder = decoder
        self.audioOffset = audioOffset
    }

    public var tags: AudioTags { info.tags }

    /// A seek gives the very samples a read from the start gives (see the type's notes).
    public var seeksToTheSameSamples: Bool { true }

    /// Decodes frames and converts them to interleaved `Float`. Returns fewer frames than asked only at the end of
    /// the stream (`info.frameCount`), and 0 after it.
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        try readDecoded(into: buffer, frames: frames)
    }

    /// Moves the read position to `frame` exactly (see the type's notes); throws if `frame` is outside 0...frameCount.
    public func seek(to frame: Int64) throws {
        guard frame >= 0, frame <= info.frameCount else {
            throw AudioIOError(path: info.path, function: "ogg_sync_pageseek",
                               reason: "cannot go to frame \(frame): the file has \(info.frameCount) frames", operation: "seek in")
        }
        if frame >= position && frame - position <= Self.seekPreroll { return try discard(upTo: frame) }
        if frame < position { restart() }
        let landing = frame - Self.seekPreroll
        if landing > 0, try packets.skip(toGranule: landing) != nil {
            decoder.flush()
            pendingCount = 0
            isInputFinished = false
            isPositionKnown = false
            sentGranule = -1
            // The position comes with the first frame a page's granule position places; should that be past the
            // target (no packet begins on the page skipped to), decode from the start.
            guard try decodeFrame(), position <= frame else {
                restart()
                return try discard(upTo: frame)
            }
        }
        try discard(upTo: frame)
    }

    // MARK: - Decoding

    var decodedFrame: UnsafeMutablePointer<AVFrame> { decoder.frame }

    /// Back to the first audio packet, with a decoder emptied: as just opened.
    private func restart() {
        packets.rewind(to: audioOffset)
        decoder.flush()
        position = 0
        isPositionKnown = true
        sentGranule = -1
        pendingCount = 0
        isInputFinished = false
    }

    /// Decodes the next frame into `decoder.frame` and makes it pending; false at the end. Frames whose position is
    /// not known (after skipping pages, before the packet a page ends) are dropped.
    func decodeFrame() throws -> Bool {
        while true {
            switch try decoder.receive() {
            case .frame:
                let frame = decoder.frame.pointee
                guard Int(frame.sample_rate) == info.sampleRate, Int(frame.ch_layout.nb_channels) == info.channelCount else {
                    throw AudioIOError(path: info.path, function: "avcodec_receive_frame",
                                       reason: "the decoder gives \(frame.ch_layout.nb_channels) channels at \(frame.sample_rate) Hz "
                                       + "at frame \(position), not \(info.channelCount) at \(info.sampleRate) Hz", operation: "read")
                }
                let count = Int(frame.nb_samples)
                if !isPositionKnown {
                    guard sentGranule >= count else { continue }
                    position = sentGranule - Int64(count)
                    isPositionKnown = true
                }
                guard count > 0 else { continue }
                pendingOffset = 0
                pendingCount = count
                return true
            case .needsPacket:
                if !isPositionKnown && sentGranule >= 0 {
                    // The packet a page ends made no frame (the first after a flush): the next frame starts there.
                    position = sentGranule
                    isPositionKnown = true
                }
                guard !isInputFinished else { return false }
                if let packet = try packets.nextPacket() {
                    sentGranule = packet.granule
                    try decoder.send(packet.bytes)
                } else {
                    decoder.finish()
                    isInputFinished = true
                }
            case .finished:
                return false
            }
        }
    }

    // MARK: - Opening

    /// The three Vorbis headers of the stream, in Xiph lacing (FFmpeg's extradata for Vorbis: 2, the lengths of the
    /// first two in 255s and a remainder, then the three), when they are there in order and the identification
    /// header says `rate` and `channels`; nil otherwise.
    private static func headers(of packets: OggPacketStream, rate: Int, channels: Int) throws -> [UInt8]? {
        var found: [[UInt8]] = []
        for type: UInt8 in [1, 3, 5] {
            guard let packet = try packets.nextPacket(), packet.bytes.count >= 7, packet.bytes[0] == type,
                  Array(packet.bytes[1..<7]) == Array("vorbis".utf8) else { return nil }
            found.append(Array(packet.bytes))
        }
        let identification = found[0]
        guard identification.count >= 16 else { return nil }
        let headerRate = (12..<16).reduce(0) { $0 | Int(identification[$1]) << (8 * ($1 - 12)) }
        guard Int(identification[11]) == channels, headerRate == rate else { return nil }
        var laced: [UInt8] = [2]
        for header in found.dropLast() {
            laced += [UInt8](repeating: 255, count: header.count / 255) + [UInt8(header.count % 255)]
        }
        return laced + found.joined()
    }

    /// Decodes the first audio page and checks that the frames decoded through it are its granule position (a
    /// stream cut from another begins further on: FFmpeg's demuxer drops those samples, this reader does not read
    /// such files); then goes back to the first audio packet.
    private func startsAtZero() throws -> Bool {
        defer { restart() }
        var decoded: Int64 = 0
        while true {
            switch try decoder.receive() {
            case .frame:
                decoded += Int64(decoder.frame.pointee.nb_samples)
                if sentGranule >= 0 { return decoded == sentGranule }
            case .needsPacket:
                if sentGranule >= 0 { return decoded == sentGranule }
                guard let packet = try packets.nextPacket() else { return false }
                sentGranule = packet.granule
                try decoder.send(packet.bytes)
            case .finished:
                return false
            }
        }
    }
}
