import Glibc

/// A regular file read from its start in chunks with `open`, `read` and `close`: one chunk in memory at a time,
/// whatever the file's size (a render's file hashed, or sent to an upload destination as the receiver takes it).
///
/// The descriptor is opened by `init` and closed at the end of the file, by `close()`, or when the reader goes.
/// `Sendable`: the descriptor is only reached under a lock, so chunks may be read on any thread, one at a time.
/// Errors name the file and the C function.
public final class FileChunkReader: Sendable {
    public let path: String
    private let descriptor: Locked<Int32?>
    private static let operation = "read"

    /// Opens `path` for reading; a folder is refused (`EISDIR`).
    public init(path: String) throws {
        self.path = path
        let fd = try LibC.open(path, flags: O_RDONLY | O_CLOEXEC, operation: Self.operation)
        do {
            if FileIdentity(try LibC.fstat(fd, path: path, operation: Self.operation)).kind == .folder {
                throw LibC.failure("read", path: path, operation: Self.operation, code: EISDIR)
            }
        } catch {
            try? LibC.close(fd, path: path, operation: Self.operation)
            throw error
        }
        descriptor = Locked(fd)
    }

    deinit { close() }

    /// Reads up to `buffer.count` bytes into `buffer` and answers how many (0 at the end of the file, which closes it).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let path = self.path
        return try descriptor.withLock { fd throws -> Int in
            guard let open = fd else { return 0 }
            let n = try LibC.read(open, into: buffer, path: path, operation: Self.operation)
            if n == 0 {
                fd = nil
                try LibC.close(open, path: path, operation: Self.operation)
            }
            return n
        }
    }

    /// Closes the file before its end (reads after it answer the end).
    public func close() {
        let path = self.path
        descriptor.withLock { fd in
            if let open = fd { try? LibC.close(open, path: path, operation: Self.operation) }
            fd = nil
        }
    }
}
