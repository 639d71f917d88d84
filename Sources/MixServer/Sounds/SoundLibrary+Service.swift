import Foundation
import MixIO
import MixRender
import OpenAPIRuntime

extension SoundLibrary {
    /// The engine's view of the library: every file name a preset gives (tracks, playlists, recordings, beds and
    /// the names inside a bed) goes through `resolve`; a refusal is reported at the name's JSON path.
    var resolver: SourceResolver {
        SourceResolver { [self] name in
            do { return .success(try resolve(name)) } catch let error as SoundReferenceError {
                return .failure(SourceResolver.Refusal(error.reason))
            } catch {
                return .failure(SourceResolver.Refusal("\(error)"))
            }
        }
    }

    /// The name a preset gives the file at `path`, for messages that would otherwise show the server's paths:
    /// `sha256:<hex>` for an upload, `NAME/path` for a file in an operator's folder; nil for any other path.
    func name(ofPath path: String) -> String? {
        if path.hasPrefix(uploadsFolder + "/") { return "sha256:" + path.dropFirst(uploadsFolder.count + 1) }
        for (name, folder) in folders where path.hasPrefix(folder + "/") {
            return name + "/" + path.dropFirst(folder.count + 1)
        }
        return nil
    }

    static func isSHA256(_ text: String) -> Bool { HexDigits.isSHA256(text.utf8) }

    /// Stores an upload (`store`), its failures as the service's errors: too large past the limit, invalid when the
    /// bytes hash to another value, unavailable when it cannot be written. True when it was stored now, false when it was there.
    func upload(sha256: String, body: HTTPBody, maximumBytes: Int) async throws(ServiceError) -> Bool {
        do {
            return try await store(sha256: sha256, body: body, maximumBytes: maximumBytes) == .created
        } catch let error as SoundUploadError {
            switch error {
            case .tooLarge: throw .tooLarge("\(error)")
            case .hashMismatch: throw .invalid(jsonPath: "", reason: "\(error)")
            case .invalidName: throw .malformed(jsonPath: "sha256", reason: "\(error)")
            // The server's disk, not the client's request: a 503 it may retry (here or on another server).
            case .cannotWrite: throw .unavailable("\(error); try again later", retryAfter: 30)
            }
        } catch {
            throw .malformed("the upload was cut short: \(error)")
        }
    }
}

extension ResultStore {
    /// The folder of the finished result `id`, or nil.
    func folder(of id: String) -> String? { path(of: id) }

    /// The most `resultDocument` reads of a `result.json` (a report with its timeline and warnings is a few KiB).
    static let resultDocumentBytes = 16 << 20

    /// The `result.json` of the finished result `id`, or nil when there is none (or it cannot be read).
    func resultDocument(of id: String) -> String? {
        guard let folder = path(of: id) else { return nil }
        let bytes = try? FileSystem.readDocument(path: folder + "/result.json", maximumBytes: Self.resultDocumentBytes, followsLinks: false)
        return bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Marks the result used now (the budget evicts the least recently used); a failure only loses that mark.
    func markUsed(_ id: String) { try? touch(id, now: Date()) }

    func commit(partial: String, id: String) throws {
        _ = try commit(partial, as: id)
    }

    func discard(partial: String) { discard(partial) }

    /// The audio file's name in a result folder.
    static func audioFileName(format: OutputFileFormat) -> String { "audio." + format.fileExtension }
    /// The folder of a result's HLS stream (`index.m3u8`, `init.mp4`, `seg00000.m4s`, ...).
    static let streamFolderName = "hls"
}

extension HostAllowList {
    /// Why `url` may not be called, or nil when it may.
    func refusal(of url: String) -> String? {
        if case .failure(let error) = check(url) { return error.description }
        return nil
    }
}

extension WebhookSender {
    /// Sends `delivery` (its message id and payload fixed when its job finished).
    func send(_ delivery: WebhookDelivery) async -> WebhookOutcome {
        guard let url = URL(string: delivery.url) else { return .giveUp(reason: "'\(delivery.url)' is not a URL") }
        return await send(id: delivery.id, url: url, body: delivery.payload)
    }
}
