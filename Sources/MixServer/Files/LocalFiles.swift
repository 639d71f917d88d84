import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file calls the service's file stores need and Foundation does not give plainly: real paths, file
/// kinds without following links, writes that finish, and flushes that make a rename durable.
enum LocalFiles {
    /// What a path names, as `lstat` (or `stat`, when following links) sees it.
    enum Kind: Sendable, Equatable {
        case regular, directory, symbolicLink, other
    }

    /// The reason for the last failed call, as `strerror` words it.
    static func reason(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    /// The kind of `path` (following a final symbolic link when `followingLinks`), or nil when nothing is there.
    static func kind(_ path: String, followingLinks: Bool = false) -> Kind? {
        var status = stat()
        let result = followingLinks ? stat(path, &status) : lstat(path, &status)
        guard result == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// The size in bytes and the modification time of `path` (not following a final link), or nil.
    static func sizeAndModification(_ path: String) -> (size: Int64, modified: Date)? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        #if canImport(Darwin)
        let time = status.st_mtimespec
        #else
        let time = status.st_mtim
        #endif
        let modified = Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9)
        return (Int64(status.st_size), modified)
    }

    /// `path` with every symbolic link, `.` and `..` resolved (`realpath`), or the reason it cannot be.
    static func realPath(_ path: String) -> Result<String, CallFailure> {
        guard let resolved = realpath(path, nil) else {
            return .failure(CallFailure(code: errno))
        }
        defer { free(resolved) }
        return .success(String(cString: resolved))
    }

    /// Why a call failed: its `errno`.
    struct CallFailure: Error, Sendable, Equatable {
        var code: Int32
        var isMissing: Bool { code == ENOENT || code == ENOTDIR }
        var reason: String { LocalFiles.reason(code) }
    }

    /// Writes all of `bytes` to `descriptor` (retrying short writes and interruptions); the `errno` on failure.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }

    /// The bytes of the file at `path` (at most `limit`), or the `errno` of the failing call (`EFBIG` past `limit`).
    static func readAll(_ path: String, limit: Int) -> Result<[UInt8], CallFailure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(CallFailure(code: errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(CallFailure(code: errno))
            }
            if count == 0 { return .success(bytes) }
            guard bytes.count + count <= limit else { return .failure(CallFailure(code: EFBIG)) }
            bytes += buffer[0..<count]
        }
    }

    /// Flushes the folder `path` itself to disk, so that a file created or renamed in it survives a power cut.
    /// Errors are ignored: some file systems cannot sync a folder, and the data itself was synced already.
    static func syncFolder(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// Lowercase hexadecimal digits of `bytes`.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `count` random bytes from the system's cryptographically secure generator.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Whether `text` (UTF-8) is exactly 64 lowercase hexadecimal digits (a SHA-256 as the API writes it).
    static func isSHA256Hex(_ text: some Collection<UInt8>) -> Bool {
        text.count == 64 && text.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
