import AsyncHTTPClient
import Foundation
import MixIO
import NIOCore
import NIOHTTP1

/// Makes one attempt of an upload: the file, streamed from disk with its length (`Content-Length`), its type (unless
/// the destination's headers give one), its MD5 (`Content-MD5`, when the destination asks) and the destination's
/// headers, sent with the destination's method to its URL. Success is a 2xx; the rest is judged as a webhook's answer
/// is (`WebhookSender.outcome`): a 3xx is not followed, a 4xx other than 408, 409, 425 and 429 is final.
///
/// Before anything is sent the file is read once for its SHA-256, which must be the one its render recorded (the
/// result folder is not trusted: a file changed since is not sent), and its MD5. Nothing this reports names the
/// URL's query (a pre-signed URL's credentials) or a path of the server.
struct FileUploader: Sendable {
    /// The longest wait for a connection, and for the answer once the file is sent.
    var timeout: TimeInterval = 30
    /// The slowest transfer allowed, in bytes a second: the attempt's deadline grows with the file.
    var slowestBytesPerSecond: Double = 256 * 1024
    var userAgent = "mixrender-uploads"
    var proxy = WebhookProxy(environment: ProcessInfo.processInfo.environment)

    /// The file at `path` (`bytes` long, SHA-256 `sha256` in hex, of `contentType`) sent to `destination`.
    func upload(path: String, bytes: Int, sha256: String, contentType: String,
                to destination: UploadDestination) async -> WebhookOutcome {
        guard let url = URL(string: destination.url) else { return .giveUp(reason: "the destination is not a URL") }
        let digests: (bytes: Int64, sha256: String, md5: [UInt8])
        do { digests = try await ResultFiles.run { try ContentHash.fileWithMD5(path: path) } } catch {
            return .retry(reason: "the render's file cannot be read on the server", retryAfter: nil)
        }
        guard digests.bytes == Int64(bytes), digests.sha256 == sha256 else {
            return .giveUp(reason: "the file is not the one its render wrote (its size or SHA-256 differs): not sent")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: destination.method)
        for (name, value) in destination.headers.sorted(by: { $0.key < $1.key }) {
            request.headers.replaceOrAdd(name: name, value: value)
        }
        if !request.headers.contains(name: "content-type") {
            request.headers.replaceOrAdd(name: "content-type", value: contentType)
        }
        if destination.contentMD5 {
            request.headers.replaceOrAdd(name: "content-md5", value: Data(digests.md5).base64EncodedString())
        }
        request.headers.replaceOrAdd(name: "user-agent", value: userAgent)
        request.body = .stream(FileChunks(path: path), length: .known(Int64(bytes)))

        let whole = timeout + Double(bytes) / max(slowestBytesPerSecond, 1)
        return await WebhookSender.attempt(request, url: url, proxy: proxy, timeout: timeout, deadline: whole, now: Date())
    }
}

/// A file read in chunks as the client asks for them (each read, on the blocking-I/O pool, when the last was sent, so
/// a slow destination holds one chunk in memory, not the file).
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let path: String
    static let chunkBytes = 256 * 1024

    struct AsyncIterator: AsyncIteratorProtocol {
        let path: String
        var reader: FileChunkReader?
        var opened = false

        mutating func next() async throws -> ByteBuffer? {
            if !opened {
                opened = true
                let path = self.path
                do { reader = try await ResultFiles.run { try FileChunkReader(path: path) } } catch { throw UploadFileError() }
            }
            guard let file = reader else { return nil }
            let chunk: ByteBuffer
            do {
                // Read straight into the buffer the request body sends: one allocation a chunk, no copy.
                chunk = try await ResultFiles.run {
                    var buffer = ByteBufferAllocator().buffer(capacity: FileChunks.chunkBytes)
                    _ = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: FileChunks.chunkBytes) { try file.read(into: $0) }
                    return buffer
                }
            } catch {
                file.close()
                reader = nil
                throw UploadFileError()
            }
            guard chunk.readableBytes > 0 else {
                reader = nil
                return nil
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(path: path) }
}

/// The render's file could not be opened (its message, shown to a client, names no server path).
struct UploadFileError: Error, CustomStringConvertible {
    var description: String { "the render's file cannot be opened on the server" }
}
