import Foundation
import HTTPTypes
import Hummingbird
import MixIO
import MixRender
import NIOCore

/// `GET /v1/renders/{id}/stream/{file}`: the render as HTTP Live Streaming (`index.m3u8`, `init.mp4`,
/// `seg00000.m4s`, ...), to listen while it renders. While the render runs on this server the files come from its
/// partial folder, and the playlist is an EVENT playlist that grows (served `no-cache`, so a player asks again); once
/// it has succeeded, from its result (a VOD playlist). Segments never change once written: `immutable`. The
/// playlist names its segments relatively, so a player resolves them beside it. Written against Hummingbird, as
/// `AudioRoute` is; openapi.yaml documents it.
struct StreamRoute: Sendable {
    let service: RenderService
    let results: ResultStore

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/v1/renders/:id/stream/:file") { request, context in
            do { return try await self.respond(request, context: context) } catch let error as ServiceError {
                return ProblemResponse.make(HTTPProblem(error))
            }
        }
        // The same files at a signed URL, for a player that sends no token (AVPlayer given a URL by the app's back
        // end): the path holds the render, the expiry and the signature, so the segments' relative URLs keep them.
        router.get("/v1/streams/:id/:expires/:signature/:file") { request, context in
            do { return try await self.respondSigned(request, context: context) } catch let error as ServiceError {
                return ProblemResponse.make(HTTPProblem(error))
            }
        }
    }

    func respondSigned<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        let id = context.parameters.get("id") ?? "", file = context.parameters.get("file") ?? ""
        let signature = context.parameters.get("signature") ?? ""
        guard let expires = Int(context.parameters.get("expires") ?? ""), RenderService.isRenderID(id),
              let signer = service.streamSigner, signer.isStreamSignature(signature, id: id, expires: expires) else {
            throw ServiceError.notFound("no such stream (the URL is not one this server signed)")
        }
        guard Date().timeIntervalSince1970 < Double(expires) else {
            throw ServiceError.notFound("this stream URL expired; ask the render's status for a new one")
        }
        guard Self.isStreamFile(file) else {
            throw ServiceError.notFound("a stream has index.m3u8, init.mp4 and seg00000.m4s, ...; not '\(PrintableText.escaped(String(file.prefix(40))))'")
        }
        // The store is asked only when the file is in neither folder, for the error's words: a player fetching segment
        // after segment costs no query.
        let store = service.store
        return try await serve(id: id, file: file) {
            do {
                guard let record = try await store.job(id: id) else { throw ServiceError.notFound("no render '\(id)'") }
                return record.state
            } catch let error as ServiceError { throw error } catch { throw RenderService.storeUnavailable }
        }
    }

    /// Whether `name` is a file a stream has: its playlist, its initialisation segment, or a media segment.
    static func isStreamFile(_ name: String) -> Bool {
        if name == LiveStream.playlistName || name == "init.mp4" { return true }
        guard name.hasPrefix("seg"), name.hasSuffix(".m4s") else { return false }
        let digits = name.dropFirst(3).dropLast(4)
        return (5...9).contains(digits.count) && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
    }

    func respond<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        guard let token = RequestToken.name else { throw ServiceError.unauthorized("this call needs a token") }
        let id = context.parameters.get("id") ?? ""
        let file = context.parameters.get("file") ?? ""
        guard Self.isStreamFile(file) else {
            throw ServiceError.notFound("a stream has index.m3u8, init.mp4 and seg00000.m4s, ...; not '\(PrintableText.escaped(String(file.prefix(40))))'")
        }
        let view = try await service.view(id: id, token: token)
        guard service.parts.streams(view.record) else {
            throw ServiceError.notFound("render '\(id)' has no stream: its request did not ask for one (\"stream\": true)")
        }
        return try await serve(id: id, file: file) { view.state }
    }

    /// Stream file `file` of render `id`: the result's once it has succeeded, the partial folder's while it renders
    /// here. `state` gives the render's state, asked only when neither folder has the file (to say why).
    private func serve(id: String, file: String, state: () async throws -> JobState) async throws -> Response {
        let isPlaylist = file == LiveStream.playlistName
        let type = isPlaylist ? "application/vnd.apple.mpegurl" : "audio/mp4"
        // A finished result's stream (a VOD playlist) first; then the stream of a render running here.
        var folder = results.folder(of: id).map { $0 + "/" + ResultStore.streamFolderName }
        var isLive = false
        if folder.map({ FileSystem.entry(at: $0 + "/" + file) == nil }) ?? true, let live = service.live.streamFolder(of: id) {
            folder = live
            isLive = true
        }
        guard let folder, FileSystem.entry(at: folder + "/" + file) != nil else {
            let state = try await state()
            switch state {
            case .queued, .rendering:
                throw ServiceError.notFound(isPlaylist && service.live.streamFolder(of: id) == nil && state == .rendering
                    ? "render '\(id)' is rendering on another server, whose stream this server cannot serve; follow it from there, or wait for its files"
                    : "not written yet: render '\(id)' is \(state.rawValue); ask again in a moment")
            case .succeeded:
                throw ServiceError.notFound("render '\(id)' has no stream file '\(file)' (rendered before streams were, or its stream ended before it)")
            case .failed, .cancelled:
                throw ServiceError.notReady(RenderService.notReadyReason(id: id, state: state))
            }
        }
        let bytes = try await ResultFiles.read(folder + "/" + file)
        let caching = isPlaylist ? (isLive ? "no-cache" : "private, max-age=60") : "private, max-age=31536000, immutable"
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: caching],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
