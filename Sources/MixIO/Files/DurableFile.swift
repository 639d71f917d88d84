import Glibc

/// A file written by a store that must know it reached the disk: an uploaded sound written under a temporary name
/// before it is renamed into place, or a line appended to a token file under a lock. `commit` syncs (`fsync`) and
/// closes it, and only then is it safe to rename or to report it written. Errors name the path and the C function
/// (`cannot write 'uploads/.upload-3f…': No space left on device (write)`).
///
/// Layout: the path and the open descriptor. Not thread-safe: one task at a time (it may move between threads).
/// Dropped before `commit`, it is closed (and, when it was created new, not removed: `discard` does that).
public final class DurableFile {
    /// How the file is opened.
    public enum Opening: Sendable {
        /// Created, where nothing may be yet (`O_CREAT | O_EXCL`): a temporary name no one else uses.
        case new
        /// Created when missing, written at its end (`O_APPEND`).
        case appending
    }

    public let path: String
    private var fd: Int32?
    private let operation = "write"

    /// Calls `open` with `permissions` for a file it creates. A symbolic link at `path` is never followed (a store's
    /// folder holds none it made) unless `followsLinks`: a file an operator names, such as a tokens file, may be a
    /// link to where they keep it. `.new` never writes through a link either way (`O_EXCL`).
    public init(path: String, opening: Opening, permissions: UInt32 = 0o644, followsLinks: Bool = false) throws {
        self.path = path
        let mode = opening == .new ? O_WRONLY | O_CREAT | O_EXCL : O_WRONLY | O_CREAT | O_APPEND
        fd = try LibC.open(path, flags: mode | O_CLOEXEC | (followsLinks ? 0 : O_NOFOLLOW), mode: mode_t(permissions),
                           operation: operation)
    }

    deinit { close() }

    /// Calls `flock(LOCK_EX)`, waiting for any other holder: until this file is closed no other writer that locks
    /// it (another process's `token add`) can write.
    public func lockExclusively() throws {
        try LibC.flock(try descriptor(), LOCK_EX, path: path, operation: "lock")
    }

    /// Writes all of `bytes` (retrying short writes).
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try LibC.writeAll(try descriptor(), bytes, path: path, operation: operation)
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Calls `fsync`, then `close`: what was written is on the device. The file cannot be written after.
    public func commit() throws {
        let fd = try descriptor()
        self.fd = nil
        do {
            try LibC.fsync(fd, path: path, operation: operation)
        } catch {
            try? LibC.close(fd, path: path, operation: operation)
            throw error
        }
        try LibC.close(fd, path: path, operation: operation)
    }

    /// Closes the file without syncing it (and without letting an error out); later calls do nothing.
    public func close() {
        if let fd { try? LibC.close(fd, path: path, operation: operation) }
        fd = nil
    }

    /// Closes the file and removes it: a temporary file that will not be renamed into place.
    public func discard() {
        close()
        try? FileSystem.removeFile(path)
    }

    private func descriptor() throws -> Int32 {
        guard let fd else {
            throw AudioIOError(path: path, function: "", reason: "the file is closed already", operation: operation, code: EBADF)
        }
        return fd
    }
}
