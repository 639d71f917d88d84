import Glibc
import MixDSP

/// Planar 32-bit float audio in a file of its own: what a persistent material cache (`--cache-dir`) keeps,
/// so that a later process reads prepared material instead of decoding and resampling it again.
///
/// Layout on disk (little-endian): the 8-byte magic `MIXRPLN1`, then three `Int64`s (channel count, frame
/// count, and the byte count of the channel data that follows, as a check), then each channel's frames as
/// `Float`s, one channel after another. A file that is shorter, longer or differently headed than that is not
/// read (`read` returns nil), so a truncated or foreign file is prepared again rather than trusted.
///
/// `write` goes through `AtomicOutputFile` (written without a name, or under a hidden one, and renamed into
/// place when complete), so a reader never sees half a file, and two processes writing the same entry at once
/// each rename a whole file over the other. Stateless; several threads may read and write different files at once.
public enum PlanarAudioFile {
    static let magic = Array("MIXRPLN1".utf8)
    static let headerBytes = 8 + 3 * 8

    /// Writes the first `length` frames of `audio` to `path`, atomically. Errors name the file and the C function.
    public static func write(_ audio: AudioBlock, length: Int, to path: String) throws {
        precondition(length >= 0 && length <= audio.capacity)
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
            try header.withUnsafeBytes { try writeAll(fd, $0, path: path, operation: operation) }
            for c in 0..<audio.channelCount {
                try writeAll(fd, UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(audio.channel(c))[0..<(length * 4)]),
                             path: path, operation: operation)
            }
            isOpen = false
            try LibC.close(fd, path: path, operation: operation)
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }

    /// The audio in `path` and its length, or nil when there is no such file or it is not a whole one of these
    /// (wrong magic, sizes that disagree, a channel count of 0 or over 64). Errors other than "no such file"
    /// while reading a file that looked right are thrown, naming the file.
    public static func read(_ path: String) throws -> (audio: AudioBlock, length: Int)? {
        let operation = "read prepared material"
        guard let status = try? LibC.stat(path, operation: operation), FileIdentity(status).kind == .regular else { return nil }
        let fd = try LibC.open(path, flags: O_RDONLY | O_CLOEXEC, operation: operation)
        defer { try? LibC.close(fd, path: path, operation: operation) }
        let size = FileIdentity(try LibC.fstat(fd, path: path, operation: operation)).size
        guard size >= Int64(headerBytes) else { return nil }
        var header = [UInt8](repeating: 0, count: headerBytes)
        guard try header.withUnsafeMutableBytes({ try readAll(fd, $0, path: path, operation: operation) }) else { return nil }
        guard Array(header[0..<8]) == magic else { return nil }
        func int64(at offset: Int) -> Int64 {
            header.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Int64.self)) }
        }
        let channels = int64(at: 8), length = int64(at: 16), dataBytes = int64(at: 24)
        guard channels > 0, channels <= 64, length >= 0, length <= Int64(Int32.max),
              dataBytes == channels * length * 4, size == Int64(headerBytes) + dataBytes else { return nil }
        let audio = AudioBlock(channelCount: Int(channels), capacity: max(Int(length), 1))
        for c in 0..<Int(channels) {
            let bytes = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(audio.channel(c))[0..<(Int(length) * 4)])
            guard try readAll(fd, bytes, path: path, operation: operation) else { return nil }
        }
        return (audio, Int(length))
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String, operation: String) throws {
        var done = 0
        while done < bytes.count {
            done += try LibC.write(fd, UnsafeRawBufferPointer(rebasing: bytes[done...]), path: path, operation: operation)
        }
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
