import Foundation  // NSLock

/// Removes registered temporary files when the process is interrupted (SIGINT, SIGTERM, SIGHUP), then
/// exits with 128 + the signal number, as a shell reports it (130 for Ctrl-C).
///
/// Nothing happens on a signal until `install()` is called: the program decides (the CLI does it once,
/// in the commands that write files); creating an `AtomicOutputFile` only registers its temporary path.
/// Paths can be registered and unregistered whether or not the handler is installed.
///
/// The handler uses async-signal-safe calls only (`unlink`, `_exit`) on C strings copied at registration.
///
/// Layout: process-wide state, a fixed table of 64 slots for C strings, made once on first use. `register`
/// allocates a C copy of its path, `unregister` frees it; the handler allocates nothing. Thread-safe:
/// everything but the handler takes one `NSLock` (the handler reads the table without it).
public enum InterruptCleanup {
    /// The signals handled.
    public static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    // A render holds one output and at most one waveform file at a time; more slots cost 8 bytes each
    // (tests in one process hold many at once). A path beyond the last slot is not removed on interruption.
    private static let slotCount = 64
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let slots = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slotCount)
        slots.initialize(repeating: nil, count: slotCount)
        return slots
    }()
    /// Whether each slot holds a folder (removed with `rmdir`) rather than a file (`unlink`).
    nonisolated(unsafe) private static let isFolder: UnsafeMutablePointer<Bool> = {
        let kinds = UnsafeMutablePointer<Bool>.allocate(capacity: slotCount)
        kinds.initialize(repeating: false, count: slotCount)
        return kinds
    }()
    nonisolated(unsafe) private static var installed = false
    private static let lock = NSLock()

    /// Whether `install()` has run.
    public static var isInstalled: Bool { lock.withLock { installed } }

    /// Unblocks SIGINT, SIGTERM and SIGHUP for the calling thread (`pthread_sigmask`: a parent may have
    /// started us with them blocked, and the mask survives exec; threads started later inherit it), then
    /// installs the handler (`signal`). SIGXFSZ is ignored (`signal(SIGXFSZ, SIG_IGN)`): past the file size
    /// limit (`ulimit -f`) a write then fails with `EFBIG`, which the writer reports as an error naming the
    /// output and the reason, and the temporary file is removed, instead of the process dying with the
    /// partial file left behind. SIGPIPE is ignored too: when the program reading a stream (`-o -`) stops, the
    /// write fails with `EPIPE` and the render ends with one line saying so and a non-zero status, instead of
    /// dying silently with status 141. Call once at start-up, before other threads start; later calls do nothing.
    public static func install() throws {
        _ = (slots, isFolder)   // made now, never inside the handler
        try lock.withLock {
            guard !installed else { return }
            try LibC.unblockSignals(signals)
            for number in signals { try LibC.signal(number, interruptHandler) }
            try LibC.signal(SIGXFSZ, SIG_IGN)
            try LibC.signal(SIGPIPE, SIG_IGN)
            installed = true
        }
    }

    /// Adds `path` to the files removed on interruption.
    public static func register(_ path: String) { register(path, isFolder: false) }

    private static func register(_ path: String, isFolder folder: Bool) {
        _ = isFolder   // made now, never inside the handler
        lock.withLock {
            for i in 0..<slotCount where slots[i] == nil {
                isFolder[i] = folder
                let utf8 = Array(path.utf8CString)
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
                copy.initialize(from: utf8, count: utf8.count)
                slots[i] = copy
                return
            }
        }
    }

    /// Removes `path` from the files removed on interruption.
    public static func unregister(_ path: String) {
        lock.withLock {
            for i in 0..<slotCount {
                if let p = slots[i], String(cString: p) == path {
                    slots[i] = nil
                    p.deallocate()
                }
            }
        }
    }

    /// Adds the folder `path` to those removed on interruption when they are empty (`rmdir`, which is
    /// async-signal-safe; a folder with something in it is left to whoever fills it: the speech helpers
    /// remove their own folders as they end).
    public static func registerFolder(_ path: String) { register(absolute(path), isFolder: true) }

    /// Removes the folder `path` from those removed on interruption.
    public static func unregisterFolder(_ path: String) { unregister(absolute(path)) }

    /// `path` from the root (the handler cannot ask for the current folder).
    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : ((try? LibC.getcwd()) ?? ".") + "/" + path
    }

    /// The paths registered now.
    public static var registeredPaths: [String] {
        lock.withLock { (0..<slotCount).compactMap { isFolder[$0] ? nil : slots[$0].map { String(cString: $0) } } }
    }

    /// Called by the signal handler: no locks, no allocation.
    fileprivate static func removeAllInSignalHandler() {
        for i in 0..<slotCount {
            guard let p = slots[i] else { continue }
            if isFolder[i] { LibC.rmdirInSignalHandler(p) } else { LibC.unlinkInSignalHandler(p) }
        }
    }
}

private func interruptHandler(_ signal: Int32) {
    InterruptCleanup.removeAllInSignalHandler()
    LibC.exitInSignalHandler(128 + signal)
}
