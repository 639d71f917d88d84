import COgg
import Glibc

/// The packets of one logical stream of an Ogg file, read with libogg: what `OggVorbisFileReader` decodes. Pages
/// are found with `ogg_sync_pageseek` (which checks each page's CRC and skips what is not a page) in the file's
/// order, pages of other streams are passed over, and `ogg_stream_packetout` joins each packet from its segments.
///
/// **Going to a position.** A page's granule position is where its last complete packet ends (for Vorbis, the
/// count of samples decoded through it). `skip(toGranule:)` reads pages without joining their packets up to the
/// last page that ends at or before a granule position, and starts the packets from that page: the decoder then
/// meets, as its first packet, one that ends where the page says. `rewind(to:)` goes back to a page that begins
/// packets (the first audio page, for a position behind the reader): reads are `pread`s at the offset kept here.
///
/// **Bounds.** A packet is joined in libogg's memory from all its pages; one that grows past `maximumPacketBytes`
/// without ending (a damaged or hostile file: Vorbis packets are a few KiB) stops the read with an error.
///
/// Layout: the descriptor, libogg's sync state (a buffer of the bytes read and not yet made pages, up to one page
/// and one read) and stream state (the segments of the packets of the page given to it), both allocated once, and
/// the file offset of the next byte read. `skip` reads the page it goes to twice (once to find it, once for its
/// packets) and copies the one packet it holds. Not thread-safe: one thread at a time, as its reader.
final class OggPacketStream {
    let path: String
    /// The stream's serial number (of the file's first page).
    private(set) var serial: Int32 = 0
    /// Whether the page holding the last packet returned had the end-of-stream flag.
    private var isAtEnd = false

    /// How large a packet may grow before the read stops: 32 MiB, as `ReadBound.span` for FFmpeg's demuxers.
    static let maximumPacketBytes = 32 << 20
    private static let readBytes = 64 << 10

    private let fd: Int32
    private let sync: UnsafeMutablePointer<ogg_sync_state>
    private let stream: UnsafeMutablePointer<ogg_stream_state>
    private var page = ogg_page()
    private var packet = ogg_packet()
    /// A packet `skip` kept, which `nextPacket` returns first (`heldCount` bytes, when `isHolding`): the last packet of
    /// the page skipped to. Grown to the largest such packet, freed in `deinit`.
    private var held = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var heldCount = 0
    private var heldGranule: Int64 = -1
    private var isHolding = false
    /// The offset of the next byte read from the file, and of the page `nextPage` found last.
    private var readOffset: Int64 = 0
    private var pageOffset: Int64 = 0
    private var isFileFinished = false

    /// Opens `path` and reads its first page: the stream is the one it begins. Throws an `AudioIOError` if the file
    /// cannot be read or holds no Ogg page.
    init(path: String) throws {
        self.path = path
        fd = try LibC.open(path, flags: O_RDONLY | O_CLOEXEC, operation: "open")
        sync = .allocate(capacity: 1)
        stream = .allocate(capacity: 1)
        ogg_sync_init(sync)
        ogg_stream_init(stream, 0)
        // Every property is set: from here `deinit` releases all of it, also when this throws.
        guard try nextPage(), ogg_page_bos(&page) != 0 else {
            throw AudioIOError(path: path, function: "ogg_sync_pageseek", reason: "does not begin with an Ogg stream")
        }
        serial = ogg_page_serialno(&page)
        ogg_stream_reset_serialno(stream, serial)
        ogg_stream_pagein(stream, &page)
    }

    deinit {
        held.deallocate()
        ogg_stream_clear(stream)
        ogg_sync_clear(sync)
        sync.deallocate()
        stream.deallocate()
        _ = Glibc.close(fd)
    }

    /// Whether a page that begins another stream was passed over (a file that multiplexes streams: their first pages
    /// all come before any other page, so reading the headers finds them).
    private(set) var hasOtherStreams = false

    /// The next packet of the stream: its bytes (valid until the next call), and its granule position (-1 when no
    /// page ends with it). nil at the end of the stream (its last page, or the end of the file). A gap (a page lost
    /// to damage) is passed over. Other streams' pages are passed over; one that begins another stream after this
    /// one's first page is noted in `hasOtherStreams`.
    func nextPacket() throws -> (bytes: UnsafeRawBufferPointer, granule: Int64)? {
        if isHolding {
            isHolding = false
            return (UnsafeRawBufferPointer(rebasing: held[..<heldCount]), heldGranule)
        }
        while true {
            let result = ogg_stream_packetout(stream, &packet)
            if result == 1 {
                isAtEnd = packet.e_o_s != 0
                return (UnsafeRawBufferPointer(start: packet.packet, count: packet.bytes), packet.granulepos)
            }
            if result < 0 { continue }   // a gap: the packets around it are whole
            guard !isAtEnd, try nextStreamPage() else { return nil }
            ogg_stream_pagein(stream, &page)
            if stream.pointee.body_fill > Self.maximumPacketBytes {
                throw AudioIOError(path: path, function: "ogg_stream_pagein",
                                   reason: "holds an Ogg packet of more than \(Self.maximumPacketBytes >> 20) MiB (a damaged or hostile file; mixrender stops there)",
                                   operation: "read")
            }
        }
    }

    /// Whether the packets returned so far end where a page ends: nothing of the next packet is joined yet.
    var isBetweenPackets: Bool { stream.pointee.lacing_returned == stream.pointee.lacing_fill }

    /// The serial number and granule position of the file's last page (found in its last 128 KiB: a page is at
    /// most 65,307 bytes), nil when there is none there. Reads with its own sync state: the packets are not moved.
    func lastPage() throws -> (serial: Int32, granule: Int64)? {
        let status = try LibC.fstat(fd, path: path, operation: "read")
        let tail = min(Int64(status.st_size), 128 << 10)
        var state = ogg_sync_state()
        ogg_sync_init(&state)
        defer { ogg_sync_clear(&state) }
        guard let buffer = ogg_sync_buffer(&state, Int(tail)) else {
            throw AudioIOError(path: path, function: "ogg_sync_buffer", reason: "out of memory", operation: "read")
        }
        var filled = 0
        while filled < Int(tail) {
            let count = try LibC.pread(fd, into: UnsafeMutableRawBufferPointer(start: buffer + filled, count: Int(tail) - filled),
                                       at: Int64(status.st_size) - tail + Int64(filled), path: path, operation: "read")
            guard count > 0 else { break }
            filled += count
        }
        ogg_sync_wrote(&state, filled)
        var last: (serial: Int32, granule: Int64)?
        var found = ogg_page()
        while true {
            let result = ogg_sync_pageseek(&state, &found)
            if result > 0 { last = (ogg_page_serialno(&found), ogg_page_granulepos(&found)) }
            if result == 0 { return last }
        }
    }

    /// The file offset just after the last page the packets came from: where the page after the one that ended
    /// the last packet returned begins, when the next packet begins a page (as Vorbis's first audio packet does).
    var offsetAfterLastPage: Int64 { pageOffset + Int64(page.header_len + page.body_len) }

    /// Goes back to `offset`, which must be where a page of the stream begins that does not continue a packet
    /// (`offsetAfterLastPage` when that held): the next packet is the first that begins there.
    func rewind(to offset: Int64) {
        ogg_sync_reset(sync)
        ogg_stream_reset(stream)
        isHolding = false
        readOffset = offset
        isFileFinished = false
        isAtEnd = false
    }

    /// Reads on, without joining packets, to the last page of the stream whose granule position is at most `granule`
    /// and that does not end the stream, and starts the packets there: the next packet returned is the last that
    /// ends on that page, with its granule position (unless no packet begins on it: then the packets of the next
    /// page, the first with a granule position ending where that one says). Returns that page's granule position.
    /// Returns nil, having moved nothing, when the next page of the stream already ends after `granule`, or there is
    /// none; and nil, at the end of the stream, when the page skipped to cannot be read again (the file was cut
    /// short while being read).
    func skip(toGranule granule: Int64) throws -> Int64? {
        // The last page that ends at or before `granule`, found by reading on to the first that ends after it.
        var anchor: (granule: Int64, offset: Int64)?
        while try nextStreamPage() {
            let position = ogg_page_granulepos(&page)
            if position >= 0, position <= granule, ogg_page_eos(&page) == 0 {
                anchor = (position, pageOffset)
            } else if anchor == nil {
                // The first page read already ends after `granule`: read it again next, for the packets to go on.
                rewindKeepingPackets(to: pageOffset)
                return nil
            } else if position >= 0 {
                break
            }
        }
        guard let anchor else { return nil }
        // Read again from the page skipped to. Of its packets only the last, which ends at `anchor`, is needed: a
        // decoder after a flush makes nothing of it, but overlaps its block with the next. The others are dropped
        // undecoded; a packet it begins stays joined in the stream state, for the pages after it to complete.
        rewind(to: anchor.offset)
        guard try nextStreamPage() else { return nil }
        ogg_stream_pagein(stream, &page)
        while true {
            let result = ogg_stream_packetout(stream, &packet)
            if result == 0 { break }
            if result == 1 && packet.granulepos >= 0 { hold(packet) }
        }
        return anchor.granule
    }

    /// Copies `packet` into `held`, for `nextPacket` to return first.
    private func hold(_ packet: ogg_packet) {
        let count = packet.bytes
        if held.count < count {
            held.deallocate()
            held = .allocate(byteCount: count, alignment: 16)
        }
        if count > 0 { held.baseAddress!.copyMemory(from: packet.packet, byteCount: count) }
        heldCount = count
        heldGranule = packet.granulepos
        isHolding = true
    }

    /// Reads from `offset` again without touching the packets being joined.
    private func rewindKeepingPackets(to offset: Int64) {
        ogg_sync_reset(sync)
        readOffset = offset
        isFileFinished = false
    }

    // MARK: - Pages

    /// The next page of this stream into `page`; false at the end of the file or after the stream's last page.
    private func nextStreamPage() throws -> Bool {
        while try nextPage() {
            let pageSerial = ogg_page_serialno(&page)
            if pageSerial != serial {
                if ogg_page_bos(&page) != 0 { hasOtherStreams = true }
                continue
            }
            return true
        }
        return false
    }

    /// The next page of the file into `page` (`ogg_sync_pageseek`, which skips what is not a page); false at the end
    /// of the file.
    private func nextPage() throws -> Bool {
        while true {
            let result = ogg_sync_pageseek(sync, &page)
            if result > 0 {
                pageOffset = consumedOffset - Int64(result)
                return true
            }
            if result < 0 { continue }   // bytes that are not a page, skipped
            guard !isFileFinished else { return false }
            guard let buffer = ogg_sync_buffer(sync, Self.readBytes) else {
                throw AudioIOError(path: path, function: "ogg_sync_buffer", reason: "out of memory", operation: "read")
            }
            let count = try LibC.pread(fd, into: UnsafeMutableRawBufferPointer(start: buffer, count: Self.readBytes),
                                       at: readOffset, path: path, operation: "read")
            if count == 0 { isFileFinished = true; continue }
            ogg_sync_wrote(sync, count)
            readOffset += Int64(count)
        }
    }

    /// The offset just after the bytes libogg has looked at (`readOffset` less what waits in its buffer).
    private var consumedOffset: Int64 { readOffset - Int64(sync.pointee.fill - sync.pointee.returned) }
}
