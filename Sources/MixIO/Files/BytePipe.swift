import Synchronization

/// A pipe inside this process: an encoder writes a stream into `writeDescriptor` (`AudioFileWriter.open(fileDescriptor:)`)
/// while another thread reads its bytes back from the other end (the library's `AsyncSequence` of encoded bytes).
///
/// The pipe's own buffer (64 KiB on Linux) is the only room between them: a writer ahead of its reader waits in
/// `write`, so a slow reader slows the render instead of piling the stream up in memory.
///
/// **Threads.** One thread reads (`read`, `closeReading`), another writes and then calls `closeWriting`; each end
/// is closed once, whatever the order (a `Mutex` guards the two descriptors). `Sendable`.
public final class BytePipe: Sendable {
    private struct Ends { var read: Int32; var write: Int32 }
    private let ends: Mutex<Ends>
    /// The end to write into; stays valid until `closeWriting`.
    public let writeDescriptor: Int32

    /// Makes the pipe (`pipe2`, close-on-exec: a speech helper started meanwhile does not inherit it).
    public init() throws {
        let fds = try LibC.pipe(operation: "make a pipe for the encoded stream")
        ends = Mutex(Ends(read: fds.read, write: fds.write))
        writeDescriptor = fds.write
    }

    /// Reads what is there, up to `maximumBytes`, waiting for at least one byte; empty at the end of the stream
    /// (every writer closed) or once `closeReading` was called.
    public func read(maximumBytes: Int = 64 << 10) throws -> [UInt8] {
        guard let fd = ends.withLock({ $0.read >= 0 ? $0.read : nil }) else { return [] }
        var bytes = [UInt8](repeating: 0, count: maximumBytes)
        let count = try bytes.withUnsafeMutableBytes {
            try LibC.read(fd, into: $0, path: "", operation: "read the encoded stream")
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Closes the end the encoder wrote into: the reader then reads the end of the stream. Safe to call twice.
    public func closeWriting() {
        let fd = ends.withLock { ends -> Int32 in defer { ends.write = -1 }; return ends.write }
        if fd >= 0 { try? LibC.close(fd, path: "", operation: "close the encoded stream") }
    }

    /// Closes the reading end. Safe to call twice; call it only once the writer has finished (a writer into a pipe
    /// nobody reads would get SIGPIPE).
    public func closeReading() {
        let fd = ends.withLock { ends -> Int32 in defer { ends.read = -1 }; return ends.read }
        if fd >= 0 { try? LibC.close(fd, path: "", operation: "close the encoded stream") }
    }

    deinit {
        closeWriting()
        closeReading()
    }
}
