import Glibc

/// An anonymous temporary file for data that does not fit in memory: created in a folder (by default
/// the temporary folder, `TMPDIR`) with `mkstemp` and unlinked at once with `unlink`, so nothing is left
/// behind even after a crash, and the space is freed when it is closed or dropped.
///
/// Bytes are appended with `write` and read back from any offset with `pread` (the file has no read
/// position to keep in step). Errors are `AudioIOError`s naming the folder:
/// `cannot write a temporary file in '/tmp': No space left on device (write)`.
/// One thread at a time.
///
/// Layout: a file descriptor, the folder's name and a byte count; the data lives in the file, not in
/// memory. `init` allocates only the names; `append` and `read` allocate nothing, except an error.
public final class SpillFile {
    /// The folder the file was created in.
    public let folder: String
    /// Bytes appended so far: the file's length.
    public private(set) var byteCount: Int64 = 0
    private var fd: Int32

    /// Creates the file (`mkstemp` on `<folder>/<prefix>XXXXXX`) and unlinks it (`unlink`).
    public init(in folder: String = FileSystem.temporaryFolder, prefix: String = "mixrender-spill-") throws {
        self.folder = folder
        let operation = "create a temporary file in"
        let (fd, path) = try LibC.mkstemp("\(folder)/\(prefix)XXXXXX", displayPath: folder, operation: operation)
        do {
            try LibC.unlink(path, displayPath: folder, operation: operation)
        } catch {
            try? LibC.close(fd, path: folder, operation: operation)
            throw error
        }
        self.fd = fd
    }

    deinit { if fd >= 0 { try? LibC.close(fd, path: folder, operation: "close a temporary file in") } }

    /// Appends `bytes` at the end (`write`, repeated until all are written).
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        try checkOpen("write")
        try LibC.writeAll(fd, bytes, path: folder, operation: "write a temporary file in")
        byteCount += Int64(bytes.count)
    }

    /// Fills `buffer` with the bytes from `offset` on (`pread`, repeated until it is full). Asking for
    /// bytes past `byteCount` throws.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws {
        try checkOpen("pread")
        var done = 0
        while done < buffer.count {
            let n = try LibC.pread(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]),
                                   at: offset + Int64(done), path: folder, operation: "read back a temporary file in")
            if n == 0 {
                throw AudioIOError(path: folder, function: "pread",
                                   reason: "the file ends at byte \(offset + Int64(done)), before the \(buffer.count) bytes asked for",
                                   operation: "read back a temporary file in")
            }
            done += n
        }
    }

    /// Closes the file (`close`), which frees its space. Further use throws.
    public func close() throws {
        guard fd >= 0 else { return }
        let fd = self.fd
        self.fd = -1
        try LibC.close(fd, path: folder, operation: "close a temporary file in")
    }

    private func checkOpen(_ function: String) throws {
        if fd < 0 { throw LibC.failure(function, path: folder, operation: "use a temporary file in", code: EBADF) }
    }
}
