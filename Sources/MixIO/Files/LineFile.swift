import Glibc

/// A text file written a line at a time, each line in one `write` with `O_APPEND`, so that a reader (or a process
/// stopped halfway) only ever sees whole lines: a batch's results file, which lists every job that finished even
/// if the batch is stopped. `init` creates or empties the file. Errors name the file and the C function.
///
/// Layout: the descriptor and the path. Not thread-safe: one thread at a time.
public final class LineFile {
    public let path: String
    private var fd: Int32?

    public init(path: String) throws {
        self.path = path
        fd = try LibC.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, operation: "write")
    }

    deinit { if let fd { try? LibC.close(fd, path: path, operation: "write") } }

    /// Appends `line` and a newline.
    public func append(_ line: String) throws {
        guard let fd else { return }
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        try bytes.withUnsafeBytes { all in
            var done = 0
            while done < all.count {
                done += try LibC.write(fd, UnsafeRawBufferPointer(rebasing: all[done...]), path: path, operation: "write")
            }
        }
    }

    public func close() throws {
        guard let fd else { return }
        self.fd = nil
        try LibC.close(fd, path: path, operation: "write")
    }
}
