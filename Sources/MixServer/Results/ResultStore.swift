import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The finished renders' folders (`<results>/<id>/…`: the audio, its waveform, timeline and report), kept within a
/// size budget by deleting the least recently used.
///
/// A result is written whole into a temporary folder (`<results>/.partial-<random>`) and renamed into place, so a
/// reader sees all of a result or none of it; a deleted one is first renamed away (`.deleting-<random>`) for the
/// same reason. Use is recorded as the folder's modification time (`touch`), which every server sharing the folder
/// sees. A file being read while its result is deleted stays readable until it is closed (POSIX).
struct ResultStore: Sendable {
    /// The results' folder, as a real path.
    let folder: String

    static let partialPrefix = ".partial-"
    static let deletingPrefix = ".deleting-"

    /// A store in `folder` (created when missing).
    init(folder: String) throws(ResultStoreError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ResultStoreError("results folder '\(folder)': cannot be created (\(error.localizedDescription))")
        }
        guard case .success(let real) = LocalFiles.realPath(folder), LocalFiles.kind(real) == .directory else {
            throw ResultStoreError("results folder '\(folder)': not a folder")
        }
        self.folder = real
    }

    /// The folder of result `id` when it is there, else nil.
    func path(of id: String) -> String? {
        guard Self.isID(id) else { return nil }
        let path = folder + "/" + id
        return LocalFiles.kind(path) == .directory ? path : nil
    }

    /// A new, empty temporary folder to write a result into; `commit` or `discard` it.
    func makePartial() throws(ResultStoreError) -> String {
        let path = folder + "/" + Self.partialPrefix + LocalFiles.hex(LocalFiles.randomBytes(12))
        guard mkdir(path, 0o755) == 0 else {
            throw ResultStoreError("the results folder cannot take a new render: a temporary folder cannot be made in it (\(LocalFiles.reason()))")
        }
        return path
    }

    /// Puts the finished temporary folder `partial` in place as result `id`: its files are synced, then it is renamed
    /// (atomically) and marked used now. When result `id` is there already (another worker, or another server,
    /// finished the same render first), `partial` is deleted and the one in place is kept: `false`.
    @discardableResult
    func commit(_ partial: String, as id: String, now: Date = Date()) throws(ResultStoreError) -> Bool {
        guard Self.isID(id) else { throw ResultStoreError("result id '\(id.prefix(80))': not a result id") }
        guard partial.hasPrefix(folder + "/" + Self.partialPrefix), !partial.dropFirst(folder.count + 1).contains("/") else {
            throw ResultStoreError("'\(partial)' is not a temporary folder of this store")
        }
        Self.syncFiles(in: partial)
        LocalFiles.syncFolder(partial)
        let destination = folder + "/" + id
        if LocalFiles.kind(destination) != nil {
            discard(partial)
            return false
        }
        if rename(partial, destination) != 0 {
            let code = errno
            // A folder that appeared meanwhile (rename does not replace a non-empty folder).
            if code == EEXIST || code == ENOTEMPTY {
                discard(partial)
                return false
            }
            throw ResultStoreError("result \(id): cannot be put in place (\(LocalFiles.reason(code)))")
        }
        LocalFiles.syncFolder(folder)
        try? touch(id, now: now)
        return true
    }

    /// Deletes a temporary folder that will not be committed (a failed or cancelled render).
    func discard(_ partial: String) {
        try? FileManager.default.removeItem(atPath: partial)
    }

    /// Marks result `id` used at `now` (its folder's modification time), so that the budget keeps it longer.
    func touch(_ id: String, now: Date = Date()) throws(ResultStoreError) {
        guard let path = path(of: id) else { throw ResultStoreError("result \(id.prefix(80)): not there") }
        var times = [timespec](repeating: timespec(), count: 2)
        let seconds = now.timeIntervalSince1970.rounded(.down)
        times[0] = timespec(tv_sec: Int(seconds), tv_nsec: Int((now.timeIntervalSince1970 - seconds) * 1e9))
        times[1] = times[0]
        guard utimensat(AT_FDCWD, path, times, 0) == 0 else {
            throw ResultStoreError("result \(id): cannot be marked used (\(LocalFiles.reason()))")
        }
    }

    /// The results in place: id, total bytes of their files, last use.
    func results() -> [(id: String, bytes: Int64, lastUsed: Date)] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return entries.filter(Self.isID).compactMap { id in
            let path = folder + "/" + id
            guard LocalFiles.kind(path) == .directory, let (_, modified) = LocalFiles.sizeAndModification(path) else { return nil }
            return (id, Self.bytes(in: path), modified)
        }
    }

    /// Deletes the least recently used results until the results' files take at most `bytes` in all, never one in
    /// `keeping` (those being rendered, read or sent); returns the ids deleted, oldest first. When the results in
    /// `keeping` alone pass the budget, it stays passed.
    @discardableResult
    func enforceBudget(bytes budget: Int64, keeping: Set<String>) -> [String] {
        let all = results()
        var total = all.reduce(Int64(0)) { $0 + $1.bytes }
        var deleted: [String] = []
        let oldestFirst = all.sorted { ($0.lastUsed, $0.id) < ($1.lastUsed, $1.id) }
        for result in oldestFirst where total > budget && !keeping.contains(result.id) {
            if delete(result.id) {
                total -= result.bytes
                deleted.append(result.id)
            }
        }
        return deleted
    }

    /// Deletes result `id`: renamed away first (readers then see it gone at once), then removed. False when it was
    /// not there.
    @discardableResult
    func delete(_ id: String) -> Bool {
        guard let path = path(of: id) else { return false }
        let away = folder + "/" + Self.deletingPrefix + LocalFiles.hex(LocalFiles.randomBytes(12))
        guard rename(path, away) == 0 else { return false }
        try? FileManager.default.removeItem(atPath: away)
        return true
    }

    /// Deletes temporary folders left by a server that stopped while writing (`.partial-*` whose newest file is older
    /// than `age`, so a long render still writing is left alone) and deletions that stopped halfway
    /// (`.deleting-*`); returns how many.
    @discardableResult
    func sweepPartials(olderThan age: TimeInterval = 3600, now: Date = Date()) -> Int {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var removed = 0
        for entry in entries {
            let path = folder + "/" + entry
            if entry.hasPrefix(Self.deletingPrefix)
                || (entry.hasPrefix(Self.partialPrefix) && now.timeIntervalSince(Self.newestModification(in: path)) > age) {
                try? FileManager.default.removeItem(atPath: path)
                if LocalFiles.kind(path) == nil { removed += 1 }
            }
        }
        return removed
    }

    /// Whether `id` can name a result: 1 to 128 letters, digits, `-`, `_` (a render's id is 64 hex digits).
    static func isID(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2d || byte == 0x5f
        }
    }

    /// The total size of the regular files under `path` (links are not followed).
    private static func bytes(in path: String) -> Int64 {
        var total: Int64 = 0
        walk(path) { file, kind in
            if kind == .regular, let (size, _) = LocalFiles.sizeAndModification(file) { total += size }
        }
        return total
    }

    /// The latest modification time of `path` and of everything under it.
    private static func newestModification(in path: String) -> Date {
        var newest = LocalFiles.sizeAndModification(path)?.modified ?? .distantPast
        walk(path) { file, _ in
            if let (_, modified) = LocalFiles.sizeAndModification(file), modified > newest { newest = modified }
        }
        return newest
    }

    /// fsyncs every regular file under `path`, and its folders.
    private static func syncFiles(in path: String) {
        walk(path) { file, kind in
            if kind == .regular {
                let descriptor = open(file, O_RDONLY | O_CLOEXEC)
                if descriptor >= 0 {
                    _ = fsync(descriptor)
                    close(descriptor)
                }
            } else if kind == .directory {
                LocalFiles.syncFolder(file)
            }
        }
    }

    /// Calls `visit` with every entry under `path` (depth first, links not followed).
    private static func walk(_ path: String, _ visit: (String, LocalFiles.Kind) -> Void) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for entry in entries {
            let child = path + "/" + entry
            guard let kind = LocalFiles.kind(child) else { continue }
            visit(child, kind)
            if kind == .directory { walk(child, visit) }
        }
    }
}

/// Why the result store cannot do what was asked.
struct ResultStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
