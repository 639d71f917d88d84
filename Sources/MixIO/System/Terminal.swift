import Glibc

/// The terminal the process writes to, if any.
/// No state of its own: any thread may call it. `isTerminal` allocates nothing; `width` only when
/// `ioctl` fails (the error it discards).
public enum Terminal {
    /// File descriptor 1.
    public static let standardOutput: Int32 = 1
    /// File descriptor 2.
    public static let standardError: Int32 = 2

    /// Calls `isatty(fd)`: whether `fd` is a terminal (false for files, pipes and closed descriptors).
    public static func isTerminal(_ fd: Int32) -> Bool {
        LibC.isatty(fd)
    }

    /// Calls `ioctl(fd, TIOCGWINSZ)`: the terminal's width in characters; nil when `fd` is not a
    /// terminal or reports no width.
    public static func width(of fd: Int32 = standardOutput) -> Int? {
        guard let size = try? LibC.windowSize(fd), size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Flushes what `print` buffered for standard output (`fflush(stdout)`) and throws if any of it could not be
    /// written, now or earlier (`ferror(stdout)`): `> /dev/full`, a closed pipe. Commands whose only result is
    /// what they print must not exit 0 then. The error names "standard output" and the reason
    /// (`AudioIOError.writeReason`).
    public static func flushStandardOutput() throws {
        let flushed = LibC.flushStandardOutput()
        guard flushed.failed else { return }
        let code = flushed.code != 0 ? flushed.code : EIO
        throw AudioIOError(path: "standard output", function: "", reason: AudioIOError.writeReason(code), operation: "write", code: code)
    }
}
