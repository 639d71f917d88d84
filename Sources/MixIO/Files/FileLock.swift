import Glibc

/// An exclusive lock between processes on one file (`flock`), for work on a shared folder that must not run
/// twice at once, such as trimming a cache folder to its budget.
///
/// The lock file is made when missing (`open` with `O_CREAT`, mode 0644) and never removed: removing it
/// would let a second process lock a new file of the same name while the first still holds the old one.
/// The lock is the kernel's, held on the open descriptor: a process that dies (even by SIGKILL) lets go of
/// it, so a crash leaves nothing stale. Advisory: only code that takes it is kept out.
///
/// Stateless; any thread may call `withExclusiveLock` (two threads of one process each open the file, so
/// they exclude each other too).
public enum FileLock {
    /// Runs `body` while holding an exclusive lock on the file at `path` (waiting for other holders).
    /// Errors name the file and `open` or `flock`; `body`'s errors pass through.
    public static func withExclusiveLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let operation = "lock"
        let fd = try LibC.open(path, flags: O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode: 0o644, operation: operation)
        defer { try? LibC.close(fd, path: path, operation: operation) }   // closing lets go of the lock
        try LibC.flock(fd, LOCK_EX, path: path, operation: operation)
        return try body()
    }

    /// Takes an exclusive lock on the file at `path` without waiting, and holds it until the returned lock is
    /// released or deinitialised (or the process ends): nil when another open file already holds it. For a
    /// folder that one process at a time may own, as PostgreSQL's `postmaster.pid` keeps a second server off
    /// one data folder (without its stale-file problem: the kernel lets go of a dead holder's lock).
    public static func tryHolding(_ path: String) throws -> HeldFileLock? {
        let operation = "lock"
        let fd = try LibC.open(path, flags: O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode: 0o644, operation: operation)
        do {
            guard try LibC.tryFlock(fd, LOCK_EX, path: path, operation: operation) else {
                try? LibC.close(fd, path: path, operation: operation)
                return nil
            }
        } catch {
            try? LibC.close(fd, path: path, operation: operation)
            throw error
        }
        return HeldFileLock(fd: fd, path: path)
    }
}

/// An exclusive `flock` held on an open file (see `FileLock.tryHolding`); closing the descriptor lets go of it.
public final class HeldFileLock: Sendable {
    private let fd: Int32
    private let path: String
    private let released = Locked(false)

    fileprivate init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// Lets go of the lock (once; later calls do nothing).
    public func release() {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        if first { try? LibC.close(fd, path: path, operation: "unlock") }
    }

    deinit { release() }
}
