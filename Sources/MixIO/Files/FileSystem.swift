import Glibc

/// What `stat` says about a path: which file it is (device and inode), how big, and what kind.
/// A value of four integers and a kind; allocates nothing. `Sendable`, safe to share.
public struct FileIdentity: Sendable, Hashable {
    /// A plain enum value (`Sendable`); allocates nothing.
    public enum Kind: Sendable, Hashable {
        case regular
        case folder
        /// A device, a pipe, a socket (a symbolic link is followed, never reported).
        case other
    }

    /// `st_dev`: the file system the file is on.
    public var device: UInt64
    /// `st_ino`: the file within its file system.
    public var inode: UInt64
    /// `st_size`, in bytes (0 for files in /proc, which have no size until read).
    public var size: Int64
    public var kind: Kind
    /// `st_mtim`: when the contents last changed, in nanoseconds since 1970.
    public var modified: Int64

    public init(device: UInt64, inode: UInt64, size: Int64, kind: Kind, modified: Int64 = 0) {
        self.device = device; self.inode = inode; self.size = size; self.kind = kind; self.modified = modified
    }

    init(_ s: CStat) {
        let type = s.st_mode & S_IFMT
        self.init(device: UInt64(s.st_dev), inode: UInt64(s.st_ino), size: Int64(s.st_size),
                  kind: type == S_IFREG ? .regular : type == S_IFDIR ? .folder : .other,
                  modified: Int64(s.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(s.st_mtim.tv_nsec))
    }
}

/// Where a path leads, for telling whether two paths are one file (`FileSystem.location(of:)`): the file
/// it names (device and inode, symbolic links followed), or, for a file not made yet, the nearest existing
/// folder above it and the names that will lead from there to it. `dup/a.wav`, `dup/../dup/a.wav`, its
/// absolute path and a path through a symbolic link to `dup` are one location, whether or not `a.wav` exists.
/// A value; `Sendable`, `Hashable`.
public struct FileLocation: Sendable, Hashable {
    /// The existing file or folder the path reaches (only its device and inode are compared).
    public var device: UInt64
    public var inode: UInt64
    /// The names below it that do not exist yet, outermost first; empty when the path names an existing file.
    public var names: [String]
    /// What `stat` said of the existing part.
    public var kind: FileIdentity.Kind

    init(identity: FileIdentity, names: [String]) {
        device = identity.device; inode = identity.inode; kind = identity.kind; self.names = names
    }

    /// Whether the path names a file or folder that exists.
    public var exists: Bool { names.isEmpty }

    public static func == (a: FileLocation, b: FileLocation) -> Bool {
        a.device == b.device && a.inode == b.inode && a.names == b.names
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(device); hasher.combine(inode); hasher.combine(names)
    }
}

/// Files and folders, through libc. Failures throw `AudioIOError` naming the C function:
/// `cannot read 'night.json': Permission denied (open)`; its `cause` sorts the common `errno`s.
///
/// No state of its own: any thread may call these at once (what they touch, the current folder and
/// `TMPDIR`, is the process's). They allocate what they return (paths, `readDocument`'s bytes) and
/// errors' messages.
public enum FileSystem {
    /// Calls `stat` (following symbolic links); nil when the path names nothing reachable.
    public static func identity(of path: String) -> FileIdentity? {
        try? status(of: path)
    }

    /// Whether the open file descriptor `descriptor` is a regular file (`fstat`), which an encoder may seek back
    /// in: standard output redirected to a file is, a pipe or a terminal is not.
    public static func isRegularFile(descriptor: Int32) -> Bool {
        (try? FileIdentity(LibC.fstat(descriptor, path: "", operation: "inspect")))?.kind == .regular
    }

    /// Calls `stat` (following symbolic links); throws when the path names nothing reachable.
    public static func status(of path: String) throws -> FileIdentity {
        FileIdentity(try LibC.stat(path, operation: "look at"))
    }

    /// The file system holding `path`: the bytes an unprivileged user may still write there, and whether it is
    /// mounted read-only (`statvfs`); nil when it cannot be read (`path` is gone, say).
    public static func space(of path: String) -> (freeBytes: Int64, readOnly: Bool)? {
        LibC.fileSystemSpace(of: path)
    }

    /// Calls `access(path, W_OK)`: whether this process may create and remove files in a folder (or write a file).
    public static func isWritable(_ path: String) -> Bool {
        (try? LibC.access(path, W_OK, operation: "write to")) != nil
    }

    /// The whole regular file at `path`, at most `maximumBytes` long: what mixrender reads of a document it is
    /// given (a preset, a bed, a job list, a results file). The file is opened with `O_NONBLOCK`, so a FIFO
    /// never waits for a writer, and refused unless `fstat` says it is a regular file, so a device such as
    /// `/dev/zero` is never read; a file longer than `maximumBytes` (by its size, and by what a read gives)
    /// is refused before it is held. Errors name the path: `read` with `EISDIR` for a folder, `EINVAL` ("not a
    /// regular file") for a device, a FIFO or a socket, `EFBIG` for a file too long (see `cause`).
    /// A cache's entry is read with `followsLinks` false (`O_NOFOLLOW`: a symbolic link at `path` is `open`'s
    /// `ELOOP`, never what it points to) and `touches` (a file read whole has its modification time set to now,
    /// `futimens`, the order a cache's least recently used are found in).
    public static func readDocument(path: String, maximumBytes: Int, followsLinks: Bool = true, touches: Bool = false) throws -> [UInt8] {
        let operation = "read"
        let fd = try LibC.open(path, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followsLinks ? 0 : O_NOFOLLOW), operation: operation)
        var isOpen = true
        defer { if isOpen { try? LibC.close(fd, path: path, operation: operation) } }
        let status = FileIdentity(try LibC.fstat(fd, path: path, operation: operation))
        switch status.kind {
        case .folder: throw LibC.failure("read", path: path, operation: operation, code: EISDIR)
        case .other:
            var error = AudioIOError(path: path, function: "", reason: "not a regular file (a device, a pipe or a socket)",
                                     operation: operation, code: EINVAL)
            error.checkedCause = .notRegularFile
            throw error
        case .regular: break
        }
        let tooLong = AudioIOError(path: path, function: "", reason: "longer than \(Self.byteCount(maximumBytes)), the most mixrender reads of such a file",
                                   operation: operation, code: EFBIG)
        guard status.size <= Int64(maximumBytes) else { throw tooLong }
        var bytes = [UInt8](repeating: 0, count: Int(status.size) + 1)
        var used = 0
        while true {
            if used == bytes.count {
                guard used <= maximumBytes else { throw tooLong }
                bytes += [UInt8](repeating: 0, count: min(max(bytes.count, 4096), maximumBytes + 1 - used))
            }
            let n = try bytes.withUnsafeMutableBytes {
                try LibC.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[used...]), path: path, operation: operation)
            }
            if n == 0 { break }
            used += n
        }
        guard used <= maximumBytes else { throw tooLong }
        bytes.removeSubrange(used...)
        if touches { try? LibC.touch(fd, path: path, operation: operation) }
        isOpen = false
        try LibC.close(fd, path: path, operation: operation)
        return bytes
    }

    /// `16 MiB`, `512 KiB` or `100 bytes`: a size limit as a person reads it.
    static func byteCount(_ bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    /// Where `path` leads (see `FileLocation`): the file it names, following symbolic links, or, for a path that
    /// names nothing yet, the nearest folder above it that exists and the names below that folder, with `.`
    /// and `..` folded away (folders that do not exist yet cannot be links, so folding them is exact). nil only
    /// when not even that folder can be looked at (a permission refused on the way).
    public static func location(of path: String) -> FileLocation? {
        guard !path.isEmpty, !path.utf8.contains(0) else { return nil }
        // 1. Up to the nearest part that exists: `a/b/c` -> `a/b` + `c`; `/c` -> `/` + `c`; `c` -> `.` + `c`.
        var head = Substring(path)
        var below: [Substring] = []   // the names under `head`, last first
        while (try? LibC.stat(head.isEmpty ? "." : String(head), operation: "look at")) == nil {
            while head.count > 1 && head.hasSuffix("/") { head = head.dropLast() }
            guard !head.isEmpty, head != "/" else { return nil }
            if let slash = head.lastIndex(of: "/") {
                below.append(head[head.index(after: slash)...])
                head = slash == head.startIndex ? "/" : head[..<slash]
            } else {
                below.append(head)
                head = ""
            }
        }
        // 2. Down again: through what exists (the kernel's way, links and `..` included), then by name, with
        //    `.` and `..` folded among names that do not exist yet (so `new/x/../../dup/a.wav` is `dup/a.wav`).
        var existing = head.isEmpty ? "." : String(head)
        var names: [String] = []
        for name in below.reversed() where name != "." {
            if names.isEmpty {
                let next = existing + (existing.hasSuffix("/") ? "" : "/") + name
                if (try? LibC.stat(next, operation: "look at")) != nil { existing = next; continue }
                guard name != ".." else { return nil }
                names.append(String(name))
            } else if name == ".." {
                names.removeLast()
            } else {
                names.append(String(name))
            }
        }
        guard let status = try? LibC.stat(existing, operation: "look at") else { return nil }
        return FileLocation(identity: FileIdentity(status), names: names)
    }

    /// Writes `bytes` to `path` with `open`, `write` and `close`: creating or truncating the file, or, with
    /// `mustExist`, writing into an existing one as it is (for files such as /proc/self/clear_refs).
    public static func writeFile(path: String, bytes: [UInt8], mustExist: Bool = false) throws {
        let operation = "write"
        let flags = O_WRONLY | O_CLOEXEC | (mustExist ? 0 : O_CREAT | O_TRUNC)
        let fd = try LibC.open(path, flags: flags, operation: operation)
        var isOpen = true
        defer { if isOpen { try? LibC.close(fd, path: path, operation: operation) } }
        try bytes.withUnsafeBytes { try LibC.writeAll(fd, $0, path: path, operation: operation) }
        isOpen = false
        try LibC.close(fd, path: path, operation: operation)
    }

    /// Calls `unlink`: removes a file (not a folder).
    public static func removeFile(_ path: String) throws {
        try LibC.unlink(path, operation: "remove")
    }

    /// Calls `rename`: moves `from` over `to` (atomically, on one file system). Errors name `to`.
    public static func rename(_ from: String, to: String) throws {
        try LibC.rename(from, to: to, operation: "write")
    }

    /// Calls `link`: gives the file at `from` the name `to` too, unless `to` exists (an error whose cause is
    /// `.alreadyExists`): a file put in place whole, never over another (a published template).
    public static func linkNew(_ from: String, to: String) throws {
        try LibC.link(from, to: to, operation: "write")
    }

    /// Puts `bytes` at `path`, whole or not at all and never over another file: written under a temporary name
    /// beside it and synced (`DurableFile`), then linked to `path` (`linkNew`), then the folder synced. A file already
    /// at `path` is an error whose cause is `.alreadyExists` (the caller reads it: another writer published first).
    /// A reader never sees a part of the file. Errors name the path and the C function.
    public static func publishNew(_ bytes: [UInt8], to path: String, permissions: UInt32 = 0o644) throws {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let temporary = folder + "/" + RandomBytes.name(prefix: ".publish-")
        do {
            let file = try DurableFile(path: temporary, opening: .new, permissions: permissions)
            try file.write(bytes)
            try file.commit()
        } catch {
            try? removeFile(temporary)
            throw error
        }
        defer { try? removeFile(temporary) }
        try linkNew(temporary, to: path)
        try sync(folder.isEmpty ? "/" : folder)
    }

    /// Makes the folder `path` and any missing folders above it (`mkdir` with mode 0755, like `mkdir -p`); a
    /// folder already there is fine. Errors name the path and `mkdir`.
    public static func makeFolders(_ path: String) throws {
        var partial = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            partial += "/" + component
            if identity(of: partial)?.kind == .folder { continue }
            try LibC.mkdir(partial, displayPath: path, operation: "make the folder")
        }
    }

    /// The names in the folder `path` (not `.` and `..`), in the order `readdir` gives them (`opendir`,
    /// `readdir`, `closedir`). Errors name the folder and `opendir`.
    public static func folderEntries(_ path: String) throws -> [String] {
        try LibC.checkPath(path, function: "opendir", operation: "list")
        guard let dir = opendir(path) else { throw LibC.failure("opendir", path: path, operation: "list") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The folders from this program's own (`/proc/self/exe`) up to the root, nearest first, each without its
    /// trailing slash (the root is ""), for finding what ships beside a program built in the project's `.build/`
    /// (the neural voice's environment, the presets); none when the program's file cannot be read.
    public static func foldersAboveProgram() -> [String] {
        guard var folder = try? LibC.readlink("/proc/self/exe", operation: "find this program's file") else { return [] }
        var folders: [String] = []
        while let slash = folder.lastIndex(of: "/") {
            folder = String(folder[..<slash])
            folders.append(folder)
        }
        return folders
    }

    /// Calls `readlink`: what the symbolic link at `path` points to, as written in it.
    public static func symbolicLinkDestination(of path: String) throws -> String {
        try LibC.readlink(path, operation: "read the link")
    }

    /// The folder for temporary files: `TMPDIR` (read with `getenv`), else `/tmp`; no trailing slash. Read holding
    /// `ALACScratchFolder.environmentLock`, under which an ALAC encoder is opened with `TMPDIR` naming its own folder.
    public static var temporaryFolder: String {
        let value = ALACScratchFolder.environmentLock.withLock { _ in LibC.getenv("TMPDIR") }
        guard let folder = value, !folder.isEmpty else { return "/tmp" }
        return trimmingTrailingSlashes(folder)
    }

    /// Calls `getcwd`: the current folder.
    public static func currentFolder() throws -> String {
        try LibC.getcwd()
    }

    /// `path` without slashes at its end, except a lone `/`.
    static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}

/// This process.
/// `id` allocates nothing and may be read from any thread.
public enum CurrentProcess {
    /// Calls `getpid`.
    public static var id: Int32 { LibC.getpid() }

    /// Gives the system back the heap memory freed so far (`malloc_trim(0)`: every arena's free pages, not
    /// only their tops). Memory that threads freed stays resident in their arenas until it is reused, so
    /// the engine calls this once it has prepared material: the decoders and resamplers that made it are
    /// gone, and a render would otherwise carry their pages to its peak. Any thread; a few milliseconds.
    public static func returnFreedMemory() { LibC.mallocTrim() }
}

/// CPU time, read with `clock_gettime`: the whole process's (every thread, `CLOCK_PROCESS_CPUTIME_ID`) or
/// the calling thread's (`CLOCK_THREAD_CPUTIME_ID`), in seconds since an arbitrary start, so only
/// differences mean anything. Any thread may read them; they allocate nothing (each is a system call
/// of well under a microsecond).
public enum CPUClock {
    public static var process: Double { LibC.clockSeconds(CLOCK_PROCESS_CPUTIME_ID) }
    public static var thread: Double { LibC.clockSeconds(CLOCK_THREAD_CPUTIME_ID) }
}
