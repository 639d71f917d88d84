import MixIO
import NIOPosix

/// The result files a handler answers with whole (a waveform, the timeline, the report), read through MixIO on NIO's
/// blocking-I/O thread pool, never on the threads that run async tasks: a slow disk then holds one pool thread, not a
/// thread every request needs. The audio itself is streamed in ranges by `AudioRoute`.
enum ResultFiles {
    /// The most any of these files is read (a PNG waveform at the largest size the API draws is a few MiB).
    static let maximumBytes = 64 << 20

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
