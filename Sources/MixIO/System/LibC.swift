// Linux only, as the project is: the wrappers share the C functions' names, so they call them as `Glibc.open`.
import CMalloc
import Glibc
import Synchronization

/// `struct stat`, named apart from the `stat` function (and from `LibC.stat`).
typealias CStat = Glibc.stat

// Called at file scope, where `stat` can still mean the C function (inside `LibC` it is the wrapper,
// and `Glibc.stat(...)` picks the struct's initializer).
private func cStat(_ path: String, _ status: inout CStat) -> Int32 { stat(path, &status) }
private func cLinkStat(_ path: String, _ status: inout CStat) -> Int32 { lstat(path, &status) }
/// `statvfs(2)`, named apart from its struct for the same reason.
private func cStatFileSystem(_ path: String, _ status: inout Glibc.statvfs) -> Int32 { statvfs(path, &status) }
// The same for `flock`, whose name is also a struct's.
private func cFlock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }

/// The libc calls MixIO makes for files, the process and the terminal: one small wrapper per C function,
/// in the style of swift-system. Each says in its documentation which C function it calls, retries on
/// `EINTR` where that is the right thing, and on failure throws an `AudioIOError` naming that function,
/// with `strerror(errno)` as the reason and `errno` as the code. The caller says which path the user
/// knows and what was being done, so messages read `cannot write 'night.ogg': No space left on device (write)`.
///
/// Everything outside MixIO reaches these through `FileSystem`, `SpillFile`, `AtomicOutputFile`,
/// `InterruptCleanup`, `Terminal`, `CurrentProcess`, `BytePipe` and `DurableFile`.
enum LibC {
    /// `strerror(code)`, as Swift text.
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The error for a failed call to `function`, from `code` (by default the current `errno`).
    static func failure(_ function: String, path: String, operation: String, code: Int32 = errno) -> AudioIOError {
        AudioIOError(path: path, function: function, reason: describe(code), operation: operation, code: code)
    }

    /// Throws unless `path` can reach C whole: a NUL character would end the C string there, so `a\0b`
    /// would quietly name `a`. Every wrapper that hands a path to C calls it first.
    static func checkPath(_ path: String, function: String, operation: String) throws {
        if path.utf8.contains(0) {
            throw AudioIOError(path: path, function: function, reason: "the path contains a NUL character",
                               operation: operation, code: EINVAL)
        }
    }

    // MARK: - File descriptors

    /// Calls `open(path, flags, mode)`; returns the descriptor.
    static func open(_ path: String, flags: Int32, mode: mode_t = 0o644, displayPath: String? = nil,
                     operation: String) throws -> Int32 {
        try checkPath(path, function: "open", operation: operation)
        guard let fd = openRetrying(path, flags, mode) else { throw failure("open", path: displayPath ?? path, operation: operation) }
        return fd
    }

    /// `open(path, flags, mode)`, again while it is interrupted (`EINTR`); nil on failure, with `errno` set.
    private static func openRetrying(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32? {
        while true {
            let fd = flags & (O_CREAT | oTMPFILE) != 0 ? Glibc.open(path, flags, mode) : Glibc.open(path, flags)
            if fd >= 0 { return fd }
            if errno != EINTR { return nil }
        }
    }

    /// O_TMPFILE, a macro Swift does not import: __O_TMPFILE (020000000, the same on every Linux architecture
    /// glibc supports but Alpha, SPARC and PA-RISC) with O_DIRECTORY.
    private static let oTMPFILE: Int32 = 0o20000000 | O_DIRECTORY

    /// Calls `open(folder, O_TMPFILE | O_RDWR, 0644)`: a file with no name in `folder`, which vanishes with
    /// its last descriptor (even when the process is killed). nil when the folder's file system cannot make
    /// one (`EOPNOTSUPP`, `EISDIR` on kernels without it, ...); the caller then names its temporary file.
    static func openUnnamed(inFolder folder: String) -> Int32? {
        guard !folder.utf8.contains(0) else { return nil }
        return openRetrying(folder, oTMPFILE | O_RDWR | O_CLOEXEC, 0o644)
    }

    /// Calls `linkat(AT_FDCWD, "/proc/self/fd/<fd>", AT_FDCWD, path, AT_SYMLINK_FOLLOW)`: gives the unnamed
    /// file open at `fd` the name `path` (the way open(2) documents for `O_TMPFILE`, without privileges).
    static func link(descriptor fd: Int32, to path: String, displayPath: String, operation: String) throws {
        try checkPath(path, function: "linkat", operation: operation)
        if Glibc.linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) != 0 {
            throw failure("linkat", path: displayPath, operation: operation)
        }
    }

    /// Runs `body` with file descriptor 2 pointing at /dev/null (`dup`, `open`, `dup2`, then `dup2` back),
    /// for C libraries that print their own notes on stderr (libmpg123, inside libsndfile's MP3 reader:
    /// "Note: Illegal Audio-MPEG-Header ..."), so that only mixrender's one-line error reaches the user.
    /// Process-wide: calls are serialised by `silencing`, and mixrender prints nothing of its own while a
    /// file is being opened. If any step fails, `body` runs with stderr as it is.
    static func withStandardErrorSilenced<T>(_ body: () throws -> T) rethrows -> T {
        try silencing.withLock { _ in
            let saved = Glibc.dup(2)
            let null = Glibc.open("/dev/null", O_WRONLY | O_CLOEXEC)
            guard saved >= 0, null >= 0, Glibc.dup2(null, 2) >= 0 else {
                if saved >= 0 { Glibc.close(saved) }
                if null >= 0 { Glibc.close(null) }
                return try body()
            }
            Glibc.close(null)
            defer { Glibc.dup2(saved, 2); Glibc.close(saved) }
            return try body()
        }
    }

    private static let silencing = Locked(())

    /// Calls `close(fd)`. Not retried on `EINTR`: Linux has closed the descriptor by then.
    static func close(_ fd: Int32, path: String, operation: String) throws {
        if Glibc.close(fd) != 0 && errno != EINTR { throw failure("close", path: path, operation: operation) }
    }

    /// Calls `pipe(fds)`, then `fcntl(fd, F_SETFD, FD_CLOEXEC)` on both ends, so that a program started
    /// meanwhile does not inherit them (Glibc's Swift module has no `pipe2`).
    static func pipe(operation: String) throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else { throw failure("pipe", path: "", operation: operation) }
        for fd in fds where Glibc.fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 {
            let error = failure("fcntl", path: "", operation: operation)
            _ = Glibc.close(fds[0]); _ = Glibc.close(fds[1])
            throw error
        }
        return (fds[0], fds[1])
    }

    /// Calls `read(fd, buffer, count)` once; returns the bytes read, 0 at the end of the file.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String, operation: String) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = Glibc.read(fd, base, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { throw failure("read", path: path, operation: operation) }
        }
    }

    /// Calls `pread(fd, buffer, count, offset)` once; returns the bytes read, 0 at the end of the file.
    static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64,
                      path: String, operation: String) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = Glibc.pread(fd, base, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw failure("pread", path: path, operation: operation) }
        }
    }

    /// Calls `write(fd, bytes, count)` once; returns the bytes written (possibly fewer than given).
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String, operation: String) throws -> Int {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        while true {
            let n = Glibc.write(fd, base, bytes.count)
            if n >= 0 { return n }
            if errno != EINTR { throw failure("write", path: path, operation: operation) }
        }
    }

    /// Calls `write` until all of `bytes` is written (a short write goes on where it stopped).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String, operation: String) throws {
        var done = 0
        while done < bytes.count {
            done += try write(fd, UnsafeRawBufferPointer(rebasing: bytes[done...]), path: path, operation: operation)
        }
    }

    /// Calls `fallocate(fd, FALLOC_FL_KEEP_SIZE, offset, length)`: reserves the file system's blocks for `length`
    /// bytes from `offset` without changing the file's size, so that writes there cannot meet a full disk. True
    /// when reserved; false when the file system cannot (`EOPNOTSUPP`, `ENOSYS`); throws on any other failure
    /// (`ENOSPC`: there is no room), worded as a write (`AudioIOError.writeReason`).
    static func reserve(_ fd: Int32, from offset: Int64, bytes length: Int64, path: String, operation: String) throws -> Bool {
        while true {
            guard let fallocate = fallocateFunction else { return false }
            if fallocate(fd, 1 /* FALLOC_FL_KEEP_SIZE */, off_t(offset), off_t(length)) == 0 { return true }
            let code = errno
            if code == EINTR { continue }
            if code == EOPNOTSUPP || code == ENOSYS { return false }
            throw AudioIOError(path: path, function: "fallocate", reason: AudioIOError.writeReason(code), operation: operation, code: code)
        }
    }

    /// glibc's `fallocate`, which the Glibc module does not import (it is declared under `_GNU_SOURCE` only),
    /// looked up once with `dlsym`; nil if this C library has none.
    private static let fallocateFunction: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate") else { return nil }   // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32).self)
    }()

    /// Calls `flock(fd, operation)` (`LOCK_EX`, `LOCK_SH`, `LOCK_UN`), again while it is interrupted (`EINTR`):
    /// an advisory lock on the open file, held until unlocked or the descriptor's last copy is closed (so a
    /// process that dies, even by SIGKILL, lets go of it).
    static func flock(_ fd: Int32, _ lockOperation: Int32, path: String, operation: String) throws {
        while cFlock(fd, lockOperation) != 0 {
            if errno != EINTR { throw failure("flock", path: path, operation: operation) }
        }
    }

    /// `flock(fd, operation | LOCK_NB)`, again while interrupted: false when another open file holds a conflicting
    /// lock (`EWOULDBLOCK`), rather than waiting for it.
    static func tryFlock(_ fd: Int32, _ lockOperation: Int32, path: String, operation: String) throws -> Bool {
        while cFlock(fd, lockOperation | LOCK_NB) != 0 {
            if errno == EWOULDBLOCK { return false }
            if errno != EINTR { throw failure("flock", path: path, operation: operation) }
        }
        return true
    }

    /// Calls `futimens(fd, NULL)`: sets the open file's access and modification times to now.
    static func touch(_ fd: Int32, path: String, operation: String) throws {
        guard Glibc.futimens(fd, nil) == 0 else { throw failure("futimens", path: path, operation: operation) }
    }

    /// Calls `fstat(fd)`.
    static func fstat(_ fd: Int32, path: String, operation: String) throws -> CStat {
        var status = CStat()
        guard Glibc.fstat(fd, &status) == 0 else { throw failure("fstat", path: path, operation: operation) }
        return status
    }

    // MARK: - Paths

    /// Calls `stat(path)` (follows symbolic links).
    static func stat(_ path: String, operation: String) throws -> CStat {
        try checkPath(path, function: "stat", operation: operation)
        var status = CStat()
        guard cStat(path, &status) == 0 else { throw failure("stat", path: path, operation: operation) }
        return status
    }

    /// Calls `lstat(path)` (a symbolic link at `path` is reported as itself, not followed).
    static func lstat(_ path: String, operation: String) throws -> CStat {
        try checkPath(path, function: "lstat", operation: operation)
        var status = CStat()
        guard cLinkStat(path, &status) == 0 else { throw failure("lstat", path: path, operation: operation) }
        return status
    }

    /// Calls `realpath(path, NULL)`: `path` with every symbolic link, `.` and `..` resolved.
    static func realpath(_ path: String, operation: String) throws -> String {
        try checkPath(path, function: "realpath", operation: operation)
        guard let resolved = Glibc.realpath(path, nil) else { throw failure("realpath", path: path, operation: operation) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Calls `fsync(fd)`, again while it is interrupted: the file's data and metadata reach the device.
    static func fsync(_ fd: Int32, path: String, operation: String) throws {
        while Glibc.fsync(fd) != 0 {
            if errno != EINTR { throw failure("fsync", path: path, operation: operation) }
        }
    }

    /// Calls `utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW)` with one time for access and modification.
    static func setTimes(_ path: String, nanoseconds: Int64, operation: String) throws {
        try checkPath(path, function: "utimensat", operation: operation)
        let time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        let times = [time, time]
        guard Glibc.utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw failure("utimensat", path: path, operation: operation)
        }
    }

    /// Calls `mkdir(path, mode)`; unlike `mkdir(_:displayPath:operation:)`, something already at `path` is an error
    /// (`EEXIST`), for a folder that must be new.
    static func mkdirNew(_ path: String, mode: mode_t, operation: String) throws {
        try checkPath(path, function: "mkdir", operation: operation)
        guard Glibc.mkdir(path, mode) == 0 else { throw failure("mkdir", path: path, operation: operation) }
    }

    /// Calls `access(path, mode)`: throws unless the process may use `path` that way (`W_OK`, `R_OK`, ...).
    static func access(_ path: String, _ mode: Int32, operation: String) throws {
        try checkPath(path, function: "access", operation: operation)
        guard Glibc.access(path, mode) == 0 else { throw failure("access", path: path, operation: operation) }
    }

    /// Calls `unlink(path)`.
    static func unlink(_ path: String, displayPath: String? = nil, operation: String) throws {
        try checkPath(path, function: "unlink", operation: operation)
        guard Glibc.unlink(path) == 0 else { throw failure("unlink", path: displayPath ?? path, operation: operation) }
    }

    /// Calls `mkdir(path, 0755)`; a folder (or anything) already at `path` made by another process meanwhile is fine.
    static func mkdir(_ path: String, displayPath: String, operation: String) throws {
        try checkPath(path, function: "mkdir", operation: operation)
        guard Glibc.mkdir(path, 0o755) == 0 || errno == EEXIST else { throw failure("mkdir", path: displayPath, operation: operation) }
    }

    /// Calls `rename(from, to)`; errors name `displayPath` (by default `to`).
    static func rename(_ from: String, to: String, displayPath: String? = nil, operation: String) throws {
        try checkPath(from, function: "rename", operation: operation)
        try checkPath(to, function: "rename", operation: operation)
        guard Glibc.rename(from, to) == 0 else { throw failure("rename", path: displayPath ?? to, operation: operation) }
    }

    /// Calls `link(from, to)`: a second name for a file, which fails (`EEXIST`) when `to` exists.
    static func link(_ from: String, to: String, operation: String) throws {
        try checkPath(from, function: "link", operation: operation)
        try checkPath(to, function: "link", operation: operation)
        guard Glibc.link(from, to) == 0 else { throw failure("link", path: to, operation: operation) }
    }

    /// Calls `readlink(path)`: what a symbolic link points to, as written in it.
    static func readlink(_ path: String, operation: String) throws -> String {
        try checkPath(path, function: "readlink", operation: operation)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = Glibc.readlink(path, &buffer, buffer.count - 1)
        guard n >= 0 else { throw failure("readlink", path: path, operation: operation) }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Calls `mkstemp` on `template` (which ends in `XXXXXX`); returns the open descriptor and the path made.
    static func mkstemp(_ template: String, displayPath: String, operation: String) throws -> (fd: Int32, path: String) {
        try checkPath(template, function: "mkstemp", operation: operation)
        var bytes = Array(template.utf8CString)
        let fd = bytes.withUnsafeMutableBufferPointer { Glibc.mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw failure("mkstemp", path: displayPath, operation: operation) }
        return (fd, String(cString: bytes))
    }

    /// Calls `mkdtemp` on `template` (which ends in `XXXXXX`): a new folder, mode 0700; returns its path.
    static func mkdtemp(_ template: String, displayPath: String, operation: String) throws -> String {
        try checkPath(template, function: "mkdtemp", operation: operation)
        var bytes = Array(template.utf8CString)
        guard bytes.withUnsafeMutableBufferPointer({ Glibc.mkdtemp($0.baseAddress!) }) != nil else {
            throw failure("mkdtemp", path: displayPath, operation: operation)
        }
        return String(cString: bytes)
    }

    /// Calls `statvfs(path)`: the bytes an unprivileged user may still write on its file system (`f_bavail`
    /// blocks of `f_frsize`), or nil when it cannot be read.
    static func freeBytes(in path: String) -> Int64? {
        var status = Glibc.statvfs()
        guard cStatFileSystem(path, &status) == 0 else { return nil }
        let (bytes, overflow) = Int64(status.f_bavail).multipliedReportingOverflow(by: Int64(status.f_frsize))
        return overflow ? Int64.max : bytes
    }

    /// Calls `statvfs(path)`: `freeBytes`'s figure, and whether the file system is mounted read-only (`ST_RDONLY`);
    /// nil when it cannot be read.
    static func fileSystemSpace(of path: String) -> (freeBytes: Int64, readOnly: Bool)? {
        var status = Glibc.statvfs()
        guard cStatFileSystem(path, &status) == 0 else { return nil }
        let (bytes, overflow) = Int64(status.f_bavail).multipliedReportingOverflow(by: Int64(status.f_frsize))
        return (overflow ? Int64.max : bytes, status.f_flag & UInt(ST_RDONLY) != 0)
    }

    /// Calls `rmdir(path)`; whether it removed the folder.
    @discardableResult
    static func rmdir(_ path: String) -> Bool { Glibc.rmdir(path) == 0 }

    /// Calls `getcwd`.
    static func getcwd() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard Glibc.getcwd(&buffer, buffer.count) != nil else {
            throw failure("getcwd", path: "", operation: "find the current folder")
        }
        return String(cString: buffer)
    }

    // MARK: - Process and terminal

    /// Calls `getenv(name)`.
    static func getenv(_ name: String) -> String? { Glibc.getenv(name).map { String(cString: $0) } }

    /// Calls `setenv(name, value, 1)`. Not safe beside another thread's `getenv`: see `ALACScratchFolder`.
    static func setenv(_ name: String, _ value: String) { _ = Glibc.setenv(name, value, 1) }

    /// Calls `clock_gettime(clock)`: seconds (CPU seconds for the CPU-time clocks). These clocks cannot fail
    /// on Linux; 0 if one ever did.
    static func clockSeconds(_ clock: clockid_t) -> Double {
        var t = timespec()
        guard Glibc.clock_gettime(clock, &t) == 0 else { return 0 }
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Calls `getpid()` (which cannot fail).
    static func getpid() -> Int32 { Glibc.getpid() }

    /// `malloc_trim(0)`: glibc releases every arena's free pages (`MADV_DONTNEED`).
    static func mallocTrim() { _ = CMalloc.malloc_trim(0) }

    /// Calls `isatty(fd)`: false for anything but a terminal (`ENOTTY`) or a closed descriptor (`EBADF`).
    static func isatty(_ fd: Int32) -> Bool { Glibc.isatty(fd) == 1 }

    /// Calls `ioctl(fd, TIOCGWINSZ)`: the terminal's size in characters.
    static func windowSize(_ fd: Int32) throws -> winsize {
        var size = winsize()
        guard Glibc.ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 else {
            throw failure("ioctl", path: "", operation: "read the terminal's size")
        }
        return size
    }

    /// Calls `signal(number, handler)`: a handler, or `SIG_IGN`/`SIG_DFL`.
    static func signal(_ number: Int32, _ handler: sighandler_t?) throws {
        let previous = Glibc.signal(number, handler)
        // SIG_ERR is ((sighandler_t) -1), a macro Swift does not import.
        if let previous, unsafeBitCast(previous, to: Int.self) == -1 {
            throw failure("signal", path: "", operation: "set the handler of signal \(number)")
        }
    }

    /// Calls `pthread_sigmask(SIG_UNBLOCK, {numbers})` for the calling thread (new threads inherit it).
    static func unblockSignals(_ numbers: [Int32]) throws {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        let code = pthread_sigmask(SIG_UNBLOCK, &set, nil)   // returns the error rather than setting errno
        if code != 0 { throw failure("pthread_sigmask", path: "", operation: "unblock signals", code: code) }
    }

    /// Whether this process was built with the Thread Sanitizer: its runtime's entry point `__tsan_init` is
    /// linked in (looked up once with `dlsym`). Never true of a build mixrender ships.
    static let runsUnderThreadSanitizer: Bool = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil   // RTLD_DEFAULT

    /// Calls `fflush(stdout)` and `ferror(stdout)`: whether anything written to stdio's standard output failed,
    /// and `errno` when the flush itself failed (0 when only the earlier error flag is set).
    static func flushStandardOutput() -> (failed: Bool, code: Int32) {
        errno = 0
        let flushFailed = fflush(standardOutputStream) != 0
        let code = flushFailed ? errno : 0
        return (flushFailed || ferror(standardOutputStream) != 0, code)
    }

    /// Calls `unlink(path)` from a signal handler: async-signal-safe, no Swift allocation, result ignored.
    static func unlinkInSignalHandler(_ path: UnsafePointer<CChar>) { _ = Glibc.unlink(path) }

    /// Calls `rmdir(path)`, ignoring the result: async-signal-safe, for the interrupt handler (an empty folder only).
    static func rmdirInSignalHandler(_ path: UnsafePointer<CChar>) { _ = Glibc.rmdir(path) }

    /// Calls `_exit(status)`: async-signal-safe, no atexit handlers, no stdio flushing.
    static func exitInSignalHandler(_ status: Int32) -> Never { Glibc._exit(status) }
}

extension AudioIOError {
    /// The common reasons a libc call fails, from `code`.
    /// A plain enum value (`Sendable`); allocates nothing.
    public enum Cause: Sendable, Equatable {
        /// `ENOENT`, `ENOTDIR`: the path names nothing.
        case noSuchFile
        /// `EISDIR`: the path is a folder where a file was expected.
        case isFolder
        /// `EACCES`, `EPERM`.
        case permissionDenied
        /// `ELOOP`: a symbolic link where none is followed (`readDocument(followsLinks: false)`).
        case symbolicLink
        /// Not a regular file (a FIFO, a device), as `readDocument` found it.
        case notRegularFile
        /// `EFBIG`: longer than the most bytes the reader takes.
        case tooLarge
        /// `EEXIST`, `ENOTEMPTY`: something is at the path already (a new folder's name, a rename's target folder).
        case alreadyExists
        /// Anything else, or not a libc error.
        case other
    }

    public var cause: Cause {
        if let checkedCause { return checkedCause }
        switch code {
        case ENOENT?, ENOTDIR?: return .noSuchFile
        case EISDIR?: return .isFolder
        case EACCES?, EPERM?: return .permissionDenied
        case ELOOP?: return .symbolicLink
        case EFBIG?: return .tooLarge
        case EEXIST?, ENOTEMPTY?: return .alreadyExists
        default: return .other
        }
    }
}
