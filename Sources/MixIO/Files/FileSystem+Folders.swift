import Glibc

/// A path as `lstat` sees it, links not followed: what kind of entry it is, how big, and when it last changed.
/// For stores that own a folder (the server's results and uploads), which must never follow a link planted in
/// it. A value; `Sendable`.
public struct FileEntry: Sendable, Hashable {
    /// A plain enum value (`Sendable`); allocates nothing.
    public enum Kind: Sendable, Hashable {
        case regular, folder, symbolicLink
        /// A device, a pipe, a socket.
        case other
    }

    public var kind: Kind
    /// `st_size`, in bytes.
    public var size: Int64
    /// `st_mtim`: when the contents (or, for a folder, its names) last changed, in nanoseconds since 1970.
    public var modified: Int64

    init(_ s: CStat) {
        switch s.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .folder
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        size = Int64(s.st_size)
        modified = Int64(s.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(s.st_mtim.tv_nsec)
    }
}

/// Folders a store owns: entries seen without following links, real paths, new folders that must be new,
/// durability (`fsync` of a file or a folder), modification times set, and trees removed. Failures throw
/// `AudioIOError` naming the path and the C function, as the rest of `FileSystem`.
extension FileSystem {
    /// Calls `lstat`: the entry at `path` itself (a symbolic link is reported, not followed); nil when nothing is
    /// there (or it cannot be looked at).
    public static func entry(at path: String) -> FileEntry? {
        (try? LibC.lstat(path, operation: "look at")).map(FileEntry.init)
    }

    /// Calls `realpath`: `path` with every symbolic link, `.` and `..` resolved; throws when it names nothing.
    public static func realPath(_ path: String) throws -> String {
        try LibC.realpath(path, operation: "resolve")
    }

    /// Calls `mkdir(path, mode)`: a new folder, where nothing may be yet (`cause` is `.alreadyExists` when
    /// something is). `makeFolders` is the `mkdir -p` that takes a folder already there.
    public static func makeNewFolder(_ path: String, mode: UInt32 = 0o755) throws {
        try LibC.mkdirNew(path, mode: mode_t(mode), operation: "make the folder")
    }

    /// Calls `fsync` on the file or folder at `path` (opened read-only, links not followed): its contents, or a
    /// folder's names (a file created or renamed into it), reach the device and survive a power cut.
    public static func sync(_ path: String) throws {
        let operation = "sync"
        let fd = try LibC.open(path, flags: O_RDONLY | O_CLOEXEC | O_NOFOLLOW, operation: operation)
        defer { try? LibC.close(fd, path: path, operation: operation) }
        try LibC.fsync(fd, path: path, operation: operation)
    }

    /// Calls `utimensat` (links not followed): sets the access and modification times of `path` to
    /// `nanoseconds` since 1970, the way a store marks an entry used.
    public static func setModificationTime(_ path: String, nanoseconds: Int64) throws {
        try LibC.setTimes(path, nanoseconds: nanoseconds, operation: "mark used")
    }

    /// Removes `path` and, when it is a folder, everything under it (`rm -r`: `lstat`, `unlink`, `rmdir`; symbolic
    /// links are removed, never followed). What cannot be removed is left; true when nothing is left at `path`.
    @discardableResult
    public static func removeTree(_ path: String) -> Bool {
        guard let entry = entry(at: path) else { return true }
        if entry.kind == .folder {
            for name in (try? folderEntries(path)) ?? [] { removeTree(path + "/" + name) }
            return LibC.rmdir(path)
        }
        return (try? LibC.unlink(path, operation: "remove")) != nil
    }

    /// Calls `visit` with every entry under the folder `path` and its `lstat` (depth first, parents before what
    /// they hold; symbolic links are reported, never followed). Entries that vanish meanwhile are skipped.
    public static func walk(_ path: String, _ visit: (String, FileEntry) -> Void) {
        for name in (try? folderEntries(path)) ?? [] {
            let child = path + "/" + name
            guard let entry = entry(at: child) else { continue }
            visit(child, entry)
            if entry.kind == .folder { walk(child, visit) }
        }
    }
}
