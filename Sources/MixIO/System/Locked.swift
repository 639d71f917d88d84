import Glibc

/// A value behind a lock: what the engine shares between threads (a batch's progress, prepared material's entries,
/// the speech helpers' table). The same shape as the standard library's `Synchronization.Mutex` (`withLock`, and
/// `sending` values in and out, so the compiler checks what crosses), but on a `pthread_mutex_t`: on Linux `Mutex`
/// locks with bare futex calls, which the Thread Sanitizer cannot see, so every access under it is reported as a
/// race (a two-thread counter under `Mutex` is reported; under this type it is not). `swift test --sanitize=thread`
/// runs in CI (docs/architecture.md, "Threads"), so the engine locks with this type.
///
/// Layout: the value and one heap-allocated `pthread_mutex_t` (a fixed address, as pthreads requires).
/// `@unchecked Sendable`, and safe: the value is only reached inside `withLock`, between `pthread_mutex_lock` and
/// `pthread_mutex_unlock`, and enters and leaves it as `sending`, so no reference to it stays behind on another thread.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // Default attributes cannot fail to initialise on glibc (it returns 0 always).
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
