import Glibc
import MixDSP

/// Planar 32-bit float audio in a file of its own: what a persistent material cache (`--cache-dir`) keeps,
/// so that a later process reads prepared material instead of decoding and resampling it again.
///
/// Layout on disk (little-endian): the 8-byte magic `MIXRPLN2`, three `Int64`s (channel count, frame count,
/// and the byte count of the channel data), the 32-byte key the entry claims (the SHA-256 of what the audio
/// was made from, given by the caller), then each channel's frames as `Float`s, one channel after another,
/// and last a 32-byte SHA-256 of everything before it.
///
/// **Nothing in the file is trusted** (the folder is shared, and anyone who can write in it can change an
/// entry): `read` checks the header against what the caller expects (its key, its channel count, a range of
/// frame counts) *before* allocating, so a file claiming gigabytes is refused without a byte allocated; then
/// reads the audio in chunks, hashing each chunk and checking its samples are finite while it is still in the
/// cache (one pass over the memory), and compares the hash with the trailer. A file that fails any check is
/// `.damaged` with a reason; one of the previous version (`MIXRPLN1`, which had no checksum) is `.outdated`.
///
/// `write` goes through `AtomicOutputFile` (written without a name, or under a hidden one, and renamed into
/// place when complete), so a reader never sees half a file, and two processes writing the same entry at once
/// each rename a whole file over the other; a reader that has the file open keeps reading the one it opened.
/// Stateless; several threads may read and write different files at once.
public enum PlanarAudioFile {
    static let magic = Array("MIXRPLN2".utf8)
    static let previousMagic = Array("MIXRPLN1".utf8)
    public static let keyBytes = 32
    static let headerBytes = 8 + 3 * 8 + keyBytes
    static let trailerBytes = 32
    /// Bytes read (and hashed) at a time.
    static let chunkBytes = 1 << 20

    /// What `read` found at a path.
    public enum Contents {
        /// A whole, verified entry: the audio (planar, `length` frames) and its length.
        case audio(AudioBlock, length: Int)
        /// No file there.
        case absent
        /// An entry of an earlier version of this format, to be made again (no warning needed).
        case outdated
        /// Something that is not a good entry for this key; the reason, for a one-line warning.
        case damaged(String)
    }

    /// Writes the first `length` frames of `audio` to `path`, atomically, under `key` (32 bytes). Throws,
    /// writing nothing, when a sample is NaN or infinite (such an entry would be refused when read).
    /// Errors name the file and the C function.
    public static func write(_ audio: AudioBlock, length: Int, key: [UInt8], to path: String) throws {
        precondition(length >= 0 && length <= audio.capacity && key.count == keyBytes)
        for c in 0..<audio.channelCount where !areFinite(UnsafeBufferPointer(rebasing: audio.channel(c)[0..<length])) {
            throw AudioIOError(path: path, function: "write", reason: "the audio holds NaN or infinite samples",
                               operation: "write prepared material", code: EINVAL)
        }
        let output = try AtomicOutputFile(destination: path)
        do {
            let operation = "write prepared material"
            let fd = try LibC.open(output.temporaryPath, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, displayPath: path,
                                   operation: operation)
            var isOpen = true
            defer { if isOpen { try? LibC.close(fd, path: path, operation: operation) } }
            let dataBytes = Int64(length) * Int64(audio.channelCount) * 4
            var header = magic
            for value in [Int64(audio.channelCount), Int64(length), dataBytes] {
                withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) }
            }
            header += key
            var checksum = ContentHash()
            try header.withUnsafeBytes {
                checksum.update($0)
                try LibC.writeAll(fd, $0, path: path, operation: operation)
            }
            for c in 0..<audio.channelCount {
                let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(audio.channel(c))[0..<(length * 4)])
                checksum.update(bytes)
                try LibC.writeAll(fd, bytes, path: path, operation: operation)
            }
            try checksum.digest.withUnsafeBytes { try LibC.writeAll(fd, $0, path: path, operation: operation) }
            isOpen = false
            try LibC.close(fd, path: path, operation: operation)
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }

    /// Reads and verifies the entry at `path`: it must claim `key`, hold `channelCount` channels and a frame
    /// count in `frames` (checked before anything is allocated), be exactly as long as its header says, hash to
    /// its trailer and hold only finite samples. With `touch`, a good entry's modification time is set to now
    /// (`futimens`), which is what a cache's least-recently-used order reads. Anything but a regular file
    /// (a folder, a FIFO, a device) is `.damaged` without being read. Errors reading a file that opened are
    /// thrown, naming the file.
    public static func read(_ path: String, key: [UInt8], channelCount: Int, frames: ClosedRange<Int>,
                            touch: Bool = false) throws -> Contents {
        let operation = "read prepared material"
        // O_NONBLOCK: a FIFO put where an entry should be must not block the open; O_NOFOLLOW: no link is an entry.
        let fd: Int32
        do {
            fd = try LibC.open(path, flags: O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, operation: operation)
        } catch let error as AudioIOError where error.code == ENOENT {
            return .absent
        } catch let error as AudioIOError where error.code == ELOOP {
            return .damaged("is a symbolic link, not a cache entry")
        }
        defer { try? LibC.close(fd, path: path, operation: operation) }
        let status = FileIdentity(try LibC.fstat(fd, path: path, operation: operation))
        guard status.kind == .regular else { return .damaged("is not a regular file") }
        let size = status.size
        guard size >= Int64(headerBytes + trailerBytes) else {
            return .damaged("is \(size) bytes, shorter than any cache entry (truncated?)")
        }
        var header = [UInt8](repeating: 0, count: headerBytes)
        guard try header.withUnsafeMutableBytes({ try readAll(fd, $0, path: path, operation: operation) }) else {
            return .damaged("ended inside its header (truncated?)")
        }
        let fileMagic = Array(header[0..<8])
        if fileMagic == previousMagic { return .outdated }
        guard fileMagic == magic else { return .damaged("is not a mixrender cache entry (its first bytes are wrong)") }
        func int64(at offset: Int) -> Int64 {
            header.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Int64.self)) }
        }
        let channels = int64(at: 8), length = int64(at: 16), dataBytes = int64(at: 24)
        guard Array(header[32..<headerBytes]) == key else {
            return .damaged("belongs to another sound (the key in its header is not this one's)")
        }
        guard channels == Int64(channelCount) else {
            return .damaged("says \(channels) channels where this sound has \(channelCount)")
        }
        guard length >= Int64(frames.lowerBound) && length <= Int64(frames.upperBound) else {
            return .damaged("says \(length) frames where this sound has \(frames.lowerBound)-\(frames.upperBound)")
        }
        let (product, overflow) = channels.multipliedReportingOverflow(by: length * 4)
        guard !overflow, dataBytes == product else {
            return .damaged("says \(dataBytes) bytes of audio, not the \(channels) x \(length) frames it claims")
        }
        guard size == Int64(headerBytes + trailerBytes) + dataBytes else {
            return .damaged("is \(size) bytes where its header says \(Int64(headerBytes + trailerBytes) + dataBytes) (truncated or extended)")
        }
        // Sizes agree with the key's bounds: now allocate, read, hash and check, a chunk at a time.
        var checksum = ContentHash()
        header.withUnsafeBytes { checksum.update($0) }
        let audio = AudioBlock(channelCount: Int(channels), capacity: max(Int(length), 1))
        var isFinite = true
        for c in 0..<Int(channels) {
            let channel = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(audio.channel(c))[0..<(Int(length) * 4)])
            var done = 0
            while done < channel.count {
                let chunk = UnsafeMutableRawBufferPointer(rebasing: channel[done..<min(channel.count, done + chunkBytes)])
                guard try readAll(fd, chunk, path: path, operation: operation) else { return .damaged("ended early (truncated)") }
                checksum.update(UnsafeRawBufferPointer(chunk))
                if isFinite { isFinite = areFinite(UnsafeBufferPointer(chunk.bindMemory(to: Float.self))) }
                done += chunk.count
            }
        }
        var trailer = [UInt8](repeating: 0, count: trailerBytes)
        guard try trailer.withUnsafeMutableBytes({ try readAll(fd, $0, path: path, operation: operation) }) else {
            return .damaged("ended early (truncated)")
        }
        guard trailer == checksum.digest else { return .damaged("does not match its checksum (its bytes were changed)") }
        guard isFinite else { return .damaged("holds NaN or infinite samples") }
        if touch { try? LibC.touch(fd, path: path, operation: operation) }
        return .audio(audio, length: Int(length))
    }

    /// Whether every sample is finite: `x * 0` is 0 for a finite `x` and NaN for NaN or an infinity, summed
    /// lane by lane in SIMD registers (one pass, no branch per sample).
    static func areFinite(_ samples: UnsafeBufferPointer<Float>) -> Bool {
        var sum = SIMD16<Float>()
        let whole = samples.count / 16 * 16
        if let base = samples.baseAddress {
            let raw = UnsafeRawPointer(base)
            for i in 0..<(whole / 16) { sum += raw.loadUnaligned(fromByteOffset: i * 64, as: SIMD16<Float>.self) * 0 }
        }
        var rest: Float = 0
        for i in whole..<samples.count { rest += samples[i] * 0 }
        return sum.sum() == 0 && rest == 0
    }

    /// Fills `bytes`; false if the file ends first.
    private static func readAll(_ fd: Int32, _ bytes: UnsafeMutableRawBufferPointer, path: String, operation: String) throws -> Bool {
        var done = 0
        while done < bytes.count {
            let n = try LibC.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: bytes[done...]), path: path, operation: operation)
            if n == 0 { return false }
            done += n
        }
        return true
    }
}
