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
}
