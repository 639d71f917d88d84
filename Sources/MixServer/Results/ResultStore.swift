import Foundation
import MixIO

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
            try FileSystem.makeFolders(folder)
        } catch {
            throw ResultStoreError("results folder '\(folder)': cannot be created (\(error.fileReason))")
        }
        guard let real = try? FileSystem.realPath(folder), FileSystem.entry(at: real)?.kind == .folder else {
            throw ResultStoreError("results folder '\(folder)': not a folder")
        }
        self.folder = real
    }

    /// The folder of result `id` when it is there, else nil.
    func path(of id: String) -> String? {
        guard Self.isID(id) else { return nil }
        let path = folder + "/" + id
        return FileSystem.entry(at: path)?.kind == .folder ? path : nil
    }

    /// A new, empty temporary folder to write a result into; `commit` or `discard` it.
    func makePartial() throws(ResultStoreError) -> String {
        let path = folder + "/" + RandomBytes.name(prefix: Self.partialPrefix)
        do {
            try FileSystem.makeNewFolder(path)
        } catch {
            throw ResultStoreError("the results folder cannot take a new render: a temporary folder cannot be made in it (\(error.fileReason))")
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
        let destination = folder + "/" + id
        if FileSystem.entry(at: destination) != nil {
            discard(partial)
            return false
        }
        do {
            try FileSystem.rename(partial, to: destination)
        } catch let error as AudioIOError where error.cause == .alreadyExists {
            // A folder that appeared meanwhile (rename does not replace a non-empty folder).
            discard(partial)
            return false
        } catch {
            throw ResultStoreError("result \(id): cannot be put in place (\(error.fileReason))")
        }
        try? FileSystem.sync(folder)
        try? touch(id, now: now)
        return true
    }

    /// Deletes a temporary folder that will not be committed (a failed or cancelled render).
    func discard(_ partial: String) {
        FileSystem.removeTree(partial)
    }

    /// Marks result `id` used at `now` (its folder's modification time), so that the budget keeps it longer.
    func touch(_ id: String, now: Date = Date()) throws(ResultStoreError) {
        guard let path = path(of: id) else { throw ResultStoreError("result \(id.prefix(80)): not there") }
        do {
            try FileSystem.setModificationTime(path, nanoseconds: Int64((now.timeIntervalSince1970 * 1e9).rounded(.down)))
        } catch {
            throw ResultStoreError("result \(id): cannot be marked used (\(error.fileReason))")
        }
    }

    /// The results in place: id, total bytes of their files, last use.
    func results() -> [(id: String, bytes: Int64, lastUsed: Date)] {
        guard let entries = try? FileSystem.folderEntries(folder) else { return [] }
        return entries.filter(Self.isID).compactMap { id in
            let path = folder + "/" + id
            guard let entry = FileSystem.entry(at: path), entry.kind == .folder else { return nil }
            return (id, Self.bytes(in: path), Self.date(entry.modified))
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
        let away = folder + "/" + RandomBytes.name(prefix: Self.deletingPrefix)
        guard (try? FileSystem.rename(path, to: away)) != nil else { return false }
        FileSystem.removeTree(away)
        return true
    }

    /// Deletes temporary folders left by a server that stopped while writing (`.partial-*` whose newest file is older
    /// than `age`, so a long render still writing is left alone) and deletions that stopped halfway
    /// (`.deleting-*`, at any age); returns how many.
    @discardableResult
    func sweepPartials(olderThan age: TimeInterval = 3600, now: Date = Date()) -> Int {
        StaleEntries.sweep(in: folder, prefix: Self.deletingPrefix, olderThan: nil, now: now)
            + StaleEntries.sweep(in: folder, prefix: Self.partialPrefix, olderThan: age, now: now)
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
        FileSystem.walk(path) { _, entry in
            if entry.kind == .regular { total += entry.size }
        }
        return total
    }

    /// Syncs every regular file under `path`, its folders, and `path` itself, so that a rename of `path` publishes
    /// only what is on the device.
    private static func syncFiles(in path: String) {
        FileSystem.walk(path) { file, entry in
            if entry.kind == .regular || entry.kind == .folder { try? FileSystem.sync(file) }
        }
        try? FileSystem.sync(path)
    }

    /// A `FileEntry.modified` (nanoseconds since 1970) as a `Date`.
    static func date(_ nanoseconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(nanoseconds) / 1e9)
    }
}

/// Why the result store cannot do what was asked.
struct ResultStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
