#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A file that appears at its path only when complete.
///
/// Where the folder's file system allows it (ext4, XFS, Btrfs, tmpfs), the file is written with no name at
/// all (`O_TMPFILE`, made by `init` in the destination's folder; writers open it as `/proc/self/fd/<n>`): if
/// the process dies, even by SIGKILL or a power cut, the kernel frees it and nothing is left. `commit` links
/// it under the hidden name beside the destination and renames that over the destination.
///
/// Elsewhere it is written under that hidden temporary name (`.<name>.<pid>.partial.<ext>`, the extension
/// kept last so libsndfile and other tools see the same type), created by whoever writes `temporaryPath`,
/// renamed over the destination on `commit`, removed on `discard`, when dropped uncommitted, or on Ctrl-C
/// once the CLI has called `InterruptCleanup.install()`.
///
/// Layout: the paths, the unnamed file's descriptor (if any) and a done flag. `init` allocates the paths
/// and a C copy of the hidden one for `InterruptCleanup`, which `commit` or `discard` frees. Not
/// thread-safe: one thread at a time (the cleanup registration itself is locked). The hidden name depends
/// only on the destination and the process, so two named files at once for one destination in one process
/// share it: to check a destination without writing it, use `check(destination:)`.
public final class AtomicOutputFile {
    public let destination: String
    /// Where writers open the file while it is written: `/proc/self/fd/<n>` for an unnamed file, otherwise
    /// `hiddenPath`.
    public let temporaryPath: String
    /// The hidden name beside the destination that the file is renamed from.
    public let hiddenPath: String
    /// The unnamed file's descriptor, until `commit` or `discard` closes it.
    private var unnamed: Int32?
    private var isDone = false

    /// Whether the file being written has no name (so nothing can be left behind).
    public var isUnnamed: Bool { unnamed != nil }

    /// Checks the destination (`check(destination:)`), then makes an unnamed file in its folder, or, where
    /// the file system cannot, registers the hidden name with `InterruptCleanup` (creating nothing).
    public init(destination: String) throws {
        let (folder, name) = try Self.check(destination: destination)
        self.destination = destination
        let temporaryName = Self.temporaryName(for: name)
        hiddenPath = folder == "/" ? "/" + temporaryName : folder + "/" + temporaryName
        if let fd = LibC.openUnnamed(inFolder: folder), FileSystem.identity(of: "/proc/self/fd/\(fd)") != nil {
            unnamed = fd
            temporaryPath = "/proc/self/fd/\(fd)"
        } else {
            temporaryPath = hiddenPath
            InterruptCleanup.register(hiddenPath)
        }
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
            if let fd = unnamed {
                // Named for the instant between link and rename; Ctrl-C then removes the name.
                InterruptCleanup.register(hiddenPath)
                try? FileSystem.removeFile(hiddenPath)        // a leftover of an earlier run with this pid
                try LibC.link(descriptor: fd, to: hiddenPath, displayPath: destination, operation: "write")
            }
            try FileSystem.rename(hiddenPath, to: destination)
        } catch {
            discard()
            throw error
        }
        isDone = true
        closeUnnamed()
        InterruptCleanup.unregister(hiddenPath)
    }

    /// Removes the temporary file: closes the unnamed one (the kernel frees it), or unlinks the hidden name.
    public func discard() {
        if unnamed == nil || InterruptCleanup.registeredPaths.contains(hiddenPath) { try? FileSystem.removeFile(hiddenPath) }
        closeUnnamed()
        isDone = true
        InterruptCleanup.unregister(hiddenPath)
    }

    private func closeUnnamed() {
        if let fd = unnamed { try? LibC.close(fd, path: destination, operation: "write") }
        unnamed = nil
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
