import Glibc

/// A text file written a line at a time, each line in one `write` with `O_APPEND`, so that a reader (or a process
/// stopped halfway) only ever sees whole lines: a batch's results file, which lists every job that finished even
/// if the batch is stopped. `init` creates or empties the file. Errors name the file and the C function.
///
/// Layout: the path and the descriptor, under a `Locked`. Thread-safe (`Sendable`): a batch's workers append as
/// their jobs end; lines never interleave, each is written whole under the lock.
public final class LineFile: Sendable {
    public let path: String
    private let fd: Locked<Int32?>

    public init(path: String) throws {
        self.path = path
        fd = Locked(try LibC.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, operation: "write"))
    }

    deinit { if let fd = fd.withLock({ $0 }) { try? LibC.close(fd, path: path, operation: "write") } }

    /// Appends `line` and a newline.
    public func append(_ line: String) throws {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        try fd.withLock { fd in
            guard let fd else { return }
            try bytes.withUnsafeBytes { try LibC.writeAll(fd, $0, path: path, operation: "write") }
        }
    }

    public func close() throws {
        try fd.withLock { fd in
            guard let open = fd else { return }
            fd = nil
            try LibC.close(open, path: path, operation: "write")
        }
    }
}
