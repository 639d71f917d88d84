import Foundation
import HTTPTypes
import Hummingbird
import MixRender
import NIOCore

/// `GET` and `HEAD /v1/renders/{id}/audio`: the rendered file with its own content type, `ETag` (its SHA-256),
/// `Accept-Ranges`, one byte range when asked (`Range`, `If-Range`: an interrupted download resumes), `304` for
/// a matching `If-None-Match`. Only a result moved into the store whole is ever served. Written against
/// Hummingbird rather than generated: a generated handler would answer the document's `audio/*` as the type.
struct AudioRoute: Sendable {
    let service: RenderService

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/v1/renders/:id/audio") { request, context in try await self.respond(request, context: context, head: false) }
        router.head("/v1/renders/:id/audio") { request, context in try await self.respond(request, context: context, head: true) }
        router.get("/v1/renders/:id/audio/:format") { request, context in try await self.respond(request, context: context, head: false) }
        router.head("/v1/renders/:id/audio/:format") { request, context in try await self.respond(request, context: context, head: true) }
    }

    func respond<Context: RequestContext>(_ request: Request, context: Context, head: Bool) async throws -> Response {
        guard let token = RequestToken.name else {
            return ProblemResponse.make(HTTPProblem(.unauthorized("this call needs a token")))
        }
        let id = context.parameters.get("id") ?? ""
        let view: JobView, folder: String
        do { (view, folder) = try await service.finished(id: id, token: token) } catch {
            return ProblemResponse.make(HTTPProblem(error))
        }
        guard let text = view.record.result, let stored = try? JSONDecoder().decode(StoredResult.self, from: Data(text.utf8)) else {
            return ProblemResponse.make(HTTPProblem(.notReady(RenderService.notReadyReason(id: id, state: view.state))))
        }
        // `/audio/{format}`: one of several outputs; `/audio`: the first.
        var file = (name: stored.file, bytes: stored.bytes, sha256: stored.sha256, contentType: stored.contentType, format: view.record.format)
        if let format = context.parameters.get("format") {
            guard let output = stored.output(format: format) else {
                let formats = stored.outputs?.map(\.format) ?? [view.record.format]
                return ProblemResponse.make(HTTPProblem(.notFound("render '\(id)' wrote no '\(format)' file; it wrote \(formats.joined(separator: ", "))")))
            }
            file = (output.file, output.bytes, output.sha256, output.contentType, output.format)
        }
        let path = folder + "/" + file.name
        let tag = EntityTag(opaque: file.sha256)
        var headers: HTTPFields = [.eTag: tag.header, .acceptRanges: "bytes", .contentType: file.contentType,
                                   .contentDisposition: "attachment; filename=\"\(Self.downloadName(view.record, format: file.format))\""]
        if let ifNoneMatch = request.headers[.ifNoneMatch], tag.matches(ifNoneMatch: ifNoneMatch) {
            return Response(status: .notModified, headers: [.eTag: tag.header])
        }
        let length = Int64(file.bytes)
        let rangeHeader = tag.allowsRange(ifRange: request.headers[.ifRange]) ? request.headers[.range] : nil
        let range = ByteRange(header: head ? nil : rangeHeader, fileLength: length)
        if range.status == 416 {
            headers = [.contentRange: range.contentRange ?? "bytes */\(length)", .contentType: "application/problem+json"]
            let problem = HTTPProblem.rangeNotSatisfiable("the range '\(rangeHeader ?? "")' is outside the file's \(length) bytes")
            return Response(status: .rangeNotSatisfiable, headers: headers,
                            body: ResponseBody(byteBuffer: ByteBuffer(string: problem.document.json(.compact))))
        }
        if let contentRange = range.contentRange { headers[.contentRange] = contentRange }
        headers[.contentLength] = String(range.length)
        let status: HTTPResponse.Status = range.status == 206 ? .partialContent : .ok
        if head { return Response(status: status, headers: headers, body: ResponseBody()) }
        let body = range.length == 0 ? ResponseBody()
            : try await FileIO().loadFile(path: path, range: Int(range.first)...Int(range.first + range.length - 1), context: context)
        return Response(status: status, headers: headers, body: body)
    }

    /// The file name a download is saved as: the preset's name made safe, and the format's extension.
    static func downloadName(_ record: JobRecord, format: String) -> String {
        let safe = record.name.unicodeScalars.map { scalar -> Character in
            CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" ? Character(scalar) : "-"
        }
        let stem = String(String(safe).prefix(80)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return (stem.isEmpty ? "render" : stem) + "." + format
    }
}
