import Logging
import MixRender

/// Whether the server can store what it is asked to: each folder it writes (the state folder with the SQLite jobs,
/// the results, the uploads) on a file system that is not read-only and has at least `minimumFreeBytes` free.
///
/// A server that cannot store says so as a server fault a client retries, never as the client's: a new render or
/// upload is answered `503` with `Retry-After`, and `/readyz` is not ready, so that a load balancer sends the work
/// elsewhere. The words it gives a client name the folder's role, never its path; the log names the path, in one
/// line when the fault is first seen and one when it has passed. Checked when asked (a `statvfs` per folder: a few
/// microseconds), so a disk freed by an operator is seen by the next request.
final class StorageWatch: Sendable {
    struct Folder: Sendable {
        /// What the folder is to a client: `results folder`.
        var role: String
        var path: String
    }

    let folders: [Folder]
    let minimumFreeBytes: Int64
    private let logger: Logger
    /// The fault last logged, so that it is logged once.
    private let logged = Locked<String?>(nil)

    init(folders: [Folder], minimumFreeBytes: Int64, logger: Logger) {
        self.folders = folders
        self.minimumFreeBytes = minimumFreeBytes
        self.logger = logger
    }

    /// Why nothing can be stored now (`the results folder's disk is full (3 MiB free, 64 MiB needed)`), in words fit
    /// for any answer, or nil when every folder can take writes.
    func fault() -> String? {
        var found: (folder: Folder, words: String)? = nil
        for folder in folders {
            guard let space = FileSystem.space(of: folder.path) else {
                found = (folder, "the \(folder.role) cannot be found")
                break
            }
            if space.readOnly {
                found = (folder, "the \(folder.role) is on a read-only file system")
                break
            }
            if space.freeBytes < minimumFreeBytes {
                found = (folder, "the \(folder.role)'s disk is full (\(Self.mebibytes(space.freeBytes)) free, "
                                 + "\(Self.mebibytes(minimumFreeBytes)) needed)")
                break
            }
        }
        let words = found?.words
        let changed = logged.withLock { logged in
            defer { logged = words }
            return logged != words
        }
        if changed {
            if let found {
                logger.error("cannot store: \(found.words): \(found.folder.path); new renders and uploads are answered 503")
            } else {
                logger.notice("can store again: new renders and uploads are taken")
            }
        }
        return words
    }

    /// The problem a request that would store something gets while `fault` is not nil.
    func problem(_ fault: String) -> ServiceError {
        .unavailable("the server cannot store anything now: \(fault); try again later", retryAfter: 30)
    }

    private static func mebibytes(_ bytes: Int64) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }
}
