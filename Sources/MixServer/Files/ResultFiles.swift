import MixIO
import NIOPosix

/// The server's file work off the threads that run async tasks, on NIO's blocking-I/O thread pool: the small files of
/// a result (a waveform, the timeline, the report, `result.json`), read by the handlers that answer with them whole
/// and written by the runner, and the result store's and the sound library's work (`run`: a commit that syncs the
/// disk, a budget that walks every result, a delete that removes a tree, a listing). A slow disk then holds one pool
/// thread, not a thread every request needs. The audio itself is written by the render's own thread and streamed in
/// ranges by `AudioRoute`.
enum ResultFiles {
    /// Runs `body`, blocking file work through MixIO, on the pool. Throws `CancellationError`, without running it,
    /// when the task is cancelled before a pool thread takes it.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    /// The most any of these files is read (a PNG waveform at the largest size the API draws is a few MiB).
    static let maximumBytes = 64 << 20

    /// Writes `text` as the file `path` (a result's partial folder, which the result store syncs before it is renamed
    /// into place).
    static func write(_ text: String, to path: String) async throws {
        try await NIOThreadPool.singleton.runIfActive {
            try FileSystem.writeFile(path: path, bytes: Array(text.utf8))
        }
    }

    /// The bytes of `path` (a regular file, links not followed: the results folder is the server's own).
    static func read(_ path: String) async throws -> [UInt8] {
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                try FileSystem.readDocument(path: path, maximumBytes: maximumBytes, followsLinks: false)
            }
        } catch {
            throw ServiceError.internalFault("a result file cannot be read: \(error.fileReason)")
        }
    }
}
