import Crypto

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

    /// The size and SHA-256 of the file at `path`, read in chunks of `chunkBytes` (memory stays flat whatever the
    /// file's size). Errors name the file and the C function.
    public static func file(path: String, chunkBytes: Int = 1 << 20) throws -> (bytes: Int64, sha256: String) {
        var hash = ContentHash()
        let bytes = try eachChunk(of: path, chunkBytes: chunkBytes) { hash.update($0) }
        return (bytes, hash.hex)
    }

    /// The SHA-256 of `bytes`.
    public static func of(bytes: [UInt8]) -> String {
        var h = ContentHash()
        bytes.withUnsafeBytes { h.update($0) }
        return h.hex
    }

    /// The size, SHA-256 and MD5 of the file at `path`, from one reading: the MD5 for an upload's `Content-MD5`
    /// (what S3 and Google Cloud Storage check a body against), never as a content key.
    public static func fileWithMD5(path: String, chunkBytes: Int = 1 << 20) throws
        -> (bytes: Int64, sha256: String, md5: [UInt8]) {
        var hash = ContentHash()
        var md5 = Insecure.MD5()
        let bytes = try eachChunk(of: path, chunkBytes: chunkBytes) {
            hash.update($0)
            md5.update(bufferPointer: $0)
        }
        return (bytes, hash.hex, Array(md5.finalize()))
    }

    /// Calls `body` with each chunk of the file at `path` in order, and answers the file's size.
    private static func eachChunk(of path: String, chunkBytes: Int,
                                  _ body: (UnsafeRawBufferPointer) -> Void) throws -> Int64 {
        let reader = try FileChunkReader(path: path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(chunkBytes, 1), alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let n = try reader.read(into: buffer)
            if n == 0 { return total }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            total += Int64(n)
        }
    }
}
