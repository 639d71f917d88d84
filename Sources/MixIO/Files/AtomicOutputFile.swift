#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A file that appears at its path only when complete: written beside the destination under a hidden
/// temporary name (`.<name>.<pid>.partial.<ext>`, the extension kept last so libsndfile and other tools
/// see the same type), renamed over the destination on `commit`, removed on `discard`, when dropped
/// uncommitted, or on Ctrl-C once the CLI has called `InterruptCleanup.install()`.
///
/// Nothing is created by `init`: whoever writes opens `temporaryPath` itself.
///
/// Layout: the two paths and a done flag. `init` allocates the paths and a C copy of the temporary one
/// for `InterruptCleanup`, which `commit` or `discard` frees. Not thread-safe: one thread at a time
/// (the cleanup registration itself is locked). The temporary name depends only on the destination and
/// the process, so two at once for one destination in one process share it (and `discard` removes it):
/// to check a destination without writing it, use `check(destination:)`.
public final class AtomicOutputFile {
    public let destination: String
    public let temporaryPath: String
    private var isDone = false

    /// Checks the destination (`check(destination:)`) and registers the temporary path with
    /// `InterruptCleanup`. Nothing is created.
    public init(destination: String) throws {
        let (folder, name) = try Self.check(destination: destination)
        self.destination = destination
        let temporaryName = Self.temporaryName(for: name)
        temporaryPath = folder == "/" ? "/" + temporaryName : folder + "/" + temporaryName
        InterruptCleanup.register(temporaryPath)
    }

    /// Checks that `destination` can be written, without creating or registering anything: its folder
    /// exists and is writable, it is not a folder, its path holds no NUL (`stat`, `access`). Returns its
    /// folder (absolute) and name. Throws an `AudioIOError` that names no function: `cannot write
    /// 'out/night.ogg': folder '/home/me/out' does not exist` (with `code` ENOENT, EACCES or EISDIR, so
    /// its `cause` sorts it).
    @discardableResult
    public static func check(destination: String) throws -> (folder: String, name: String) {
        try LibC.checkPath(destination, function: "", operation: "write")
        let (folder, name) = split(destination)
        guard FileSystem.identity(of: folder)?.kind == .folder else {
            throw AudioIOError(path: destination, function: "", reason: "folder '\(folder)' does not exist",
                               operation: "write", code: ENOENT)
        }
        guard FileSystem.isWritable(folder) else {
            throw AudioIOError(path: destination, function: "", reason: "folder '\(folder)' is not writable",
                               operation: "write", code: EACCES)
        }
        if FileSystem.identity(of: destination)?.kind == .folder {
            throw AudioIOError(path: destination, function: "", reason: "it is a folder", operation: "write", code: EISDIR)
        }
        return (folder, name)
    }

    deinit { if !isDone { discard() } }

    /// Moves the finished temporary file to the destination with `rename` (atomic on one file system).
    /// On failure the temporary file is removed and the error reads `cannot write '<dest>': <reason> (rename)`.
    public func commit() throws {
        do {
            try FileSystem.rename(temporaryPath, to: destination)
        } catch {
            discard()
            throw error
        }
        isDone = true
        InterruptCleanup.unregister(temporaryPath)
    }

    /// Removes the temporary file with `unlink`, if there is one.
    public func discard() {
        try? FileSystem.removeFile(temporaryPath)
        isDone = true
        InterruptCleanup.unregister(temporaryPath)
    }

    /// The longest file name Linux file systems take (`NAME_MAX`), in bytes.
    static let maximumNameBytes = 255

    /// `.<name>.<pid>.partial.<ext>`, with `<name>` shortened (at a character boundary) when the whole
    /// would be longer than a file system takes, so that any destination name that is itself allowed works.
    static func temporaryName(for name: String) -> String {
        let suffix = ".\(CurrentProcess.id).partial.\(pathExtension(name))"
        var stem = name
        while 1 + stem.utf8.count + suffix.utf8.count > maximumNameBytes, !stem.isEmpty { stem.removeLast() }
        return "." + stem + suffix
    }

    /// The folder a destination is in and its name: `("/home/me/out", "night.ogg")` for `out/night.ogg`.
    /// A relative folder is made absolute with the current folder (so messages name it in full); nothing
    /// else is rewritten (`..` and symbolic links are left for the kernel to follow). Trailing slashes
    /// are ignored, as doubled ones before the name.
    static func split(_ destination: String) -> (folder: String, name: String) {
        let path = FileSystem.trimmingTrailingSlashes(destination)
        let folder: String, name: String
        if let slash = path.lastIndex(of: "/") {
            name = String(path[path.index(after: slash)...])
            let head = FileSystem.trimmingTrailingSlashes(String(path[...slash]))
            folder = head
        } else {
            name = path
            folder = ""
        }
        if folder.hasPrefix("/") { return (folder, name) }
        guard let current = try? FileSystem.currentFolder() else { return (folder.isEmpty ? "." : folder, name) }
        if folder.isEmpty { return (current, name) }
        return (current == "/" ? "/" + folder : current + "/" + folder, name)
    }

    /// `ogg` for `night.ogg`, empty for `night`, `.hidden` and `night.`.
    static func pathExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }
}
