import Foundation

/// A file that appears at its path only when complete: written beside the destination under a
/// hidden temporary name, renamed over it on `commit`, removed on failure or Ctrl-C.
public final class AtomicOutputFile {
    public let destination: String
    public let temporaryPath: String
    private var isDone = false

    /// Checks that the destination's folder exists and is writable; nothing is created yet.
    public init(destination: String) throws {
        let url = URL(fileURLWithPath: destination)
        let folder = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw OutputError(message: "cannot write '\(destination)': folder '\(folder)' does not exist")
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw OutputError(message: "cannot write '\(destination)': folder '\(folder)' is not writable")
        }
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory), isDirectory.boolValue {
            throw OutputError(message: "cannot write '\(destination)': it is a folder")
        }
        self.destination = destination
        let name = url.lastPathComponent
        // Keep the extension last: libsndfile and tools see the same type.
        self.temporaryPath = url.deletingLastPathComponent()
            .appendingPathComponent(".\(name).\(getpid()).partial.\(url.pathExtension)").path
        InterruptCleanup.register(temporaryPath)
    }

    deinit { if !isDone { discard() } }

    /// Moves the finished temporary file to the destination (atomic on one file system).
    public func commit() throws {
        guard rename(temporaryPath, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw OutputError(message: "cannot write '\(destination)': \(reason) (rename)")
        }
        isDone = true
        InterruptCleanup.unregister(temporaryPath)
    }

    /// Removes the temporary file, if any.
    public func discard() {
        unlink(temporaryPath)
        isDone = true
        InterruptCleanup.unregister(temporaryPath)
    }
}

/// An output path that cannot be used.
public struct OutputError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// Removes registered temporary files when the process is interrupted (SIGINT, SIGTERM, SIGHUP),
/// then exits with 128 + the signal number, like a shell would report it.
public enum InterruptCleanup {
    // One slot is enough for a render (one output, plus an optional waveform file); keep a few.
    // The handler reads these with async-signal-safe calls only (unlink, _exit).
    private static let slotCount = 4
    nonisolated(unsafe) private static var slots = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slotCount)
    nonisolated(unsafe) private static var isInstalled = false
    private static let lock = NSLock()

    static func register(_ path: String) {
        lock.lock(); defer { lock.unlock() }
        if !isInstalled {
            slots.initialize(repeating: nil, count: slotCount)
            // A parent may have started us with these signals blocked (the mask survives exec):
            // unblock them, so Ctrl-C always cleans up.
            var set = sigset_t()
            sigemptyset(&set)
            for sig in [SIGINT, SIGTERM, SIGHUP] {
                signal(sig, interruptHandler)
                sigaddset(&set, sig)
            }
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            isInstalled = true
        }
        for i in 0..<slotCount where slots[i] == nil { slots[i] = strdup(path); return }
    }

    static func unregister(_ path: String) {
        lock.lock(); defer { lock.unlock() }
        guard isInstalled else { return }
        for i in 0..<slotCount {
            if let p = slots[i], String(cString: p) == path { slots[i] = nil; free(p) }
        }
    }

    fileprivate static func removeAll() {
        for i in 0..<slotCount { if let p = slots[i] { unlink(p) } }
    }
}

private func interruptHandler(_ signal: Int32) {
    InterruptCleanup.removeAll()
    _exit(128 + signal)
}
