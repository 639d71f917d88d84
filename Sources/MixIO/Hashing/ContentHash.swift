import Crypto
import Glibc

/// SHA-256 (swift-crypto's `SHA256`) of bytes, text and files, as lowercase hex: the render report's
/// input and output hashes and the cache key.
///
/// A value wrapping swift-crypto's hasher; `update` allocates nothing, `hex` allocates its string.
/// Not `Sendable` (swift-crypto's hasher is not declared so): one hasher, one thread.
public struct ContentHash {
    private var hasher = SHA256()

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bufferPointer: bytes) }

    /// The text's UTF-8 bytes.
    public mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
    }

    /// The digest's 32 bytes (the hasher can go on being used).
    public var digest: [UInt8] { Array(hasher.finalize()) }

    /// The digest as 64 lowercase hex digits (the hasher can go on being used: it is a copy that finishes).
    public var hex: String { Self.hex(hasher.finalize()) }

    /// `bytes` as lowercase hex digits, two a byte.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// The SHA-256 of `text`'s UTF-8 bytes.
    public static func of(_ text: String) -> String {
        var h = ContentHash()
        h.update(text)
        return h.hex
    }

    /// The SHA-256 of `text`'s UTF-8 bytes, as 32 bytes.
    public static func digest(of text: String) -> [UInt8] {
        var h = ContentHash()
        h.update(text)
        return h.digest
    }

    /// The size and SHA-256 of the file at `path`, read in chunks of `chunkBytes` with `open`, `read` and
    /// `close` (memory stays flat whatever the file's size). Errors name the file and the C function.
    public static func file(path: String, chunkBytes: Int = 1 << 20) throws -> (bytes: Int64, sha256: String) {
        let operation = "read"
        let fd = try LibC.open(path, flags: O_RDONLY | O_CLOEXEC, operation: operation)
        var isOpen = true
        defer { if isOpen { try? LibC.close(fd, path: path, operation: operation) } }
        if FileIdentity(try LibC.fstat(fd, path: path, operation: operation)).kind == .folder {
            throw LibC.failure("read", path: path, operation: operation, code: EISDIR)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkBytes, alignment: 16)
        defer { buffer.deallocate() }
        var hash = ContentHash()
        var total: Int64 = 0
        while true {
            let n = try LibC.read(fd, into: buffer, path: path, operation: operation)
            if n == 0 { break }
            hash.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            total += Int64(n)
        }
        isOpen = false
        try LibC.close(fd, path: path, operation: operation)
        return (total, hash.hex)
    }
}
