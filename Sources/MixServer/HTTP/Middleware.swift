import Foundation
import HTTPTypes
import Hummingbird
import MixRender
import NIOCore

/// The token a request came with, by its name in the tokens file: set by `AccessMiddleware` for the handlers below it.
enum RequestToken {
    @TaskLocal static var name: String?
    /// The templates the token is limited to (docs/templates.md); nil: it may do anything.
    @TaskLocal static var templates: TokenFile.TemplateLimit?

    /// Refuses a token limited to templates: what it asked (`what`) is not a template's render.
    static func refuseIfLimited(_ what: String) throws(ServiceError) {
        if let limit = templates {
            throw .forbidden("this token renders only templates (\(limit.field)); \(what) needs a token without that limit")
        }
    }
}

/// Bearer tokens: every operation needs a token the tokens file knows (401 otherwise, with `WWW-Authenticate`) but
/// those the document opens (`security: []` in openapi.yaml: the operations' endpoints, the page, the schema), as
/// `RouteTable` reads them; a path the API does not have is left to the router's 404. The handlers see the token's
/// name (`RequestToken.name`). Tokens are never logged.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let tokens: TokenSource
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard routes.methods(at: path) != nil, !routes.isOpen(request.method, at: path) else { return try await next(request, context) }
        guard let header = request.headers[.authorization] else {
            return ProblemResponse.make(HTTPProblem(.unauthorized("this call needs a token: Authorization: Bearer <token>")),
                                        headers: [.wwwAuthenticate: "Bearer realm=\"mixrender\""])
        }
        guard let entry = tokens.authenticate(authorization: header) else {
            return ProblemResponse.make(HTTPProblem(.unauthorized("the token is not one this server knows")),
                                        headers: [.wwwAuthenticate: "Bearer realm=\"mixrender\", error=\"invalid_token\""])
        }
        return try await RequestToken.$name.withValue(entry.name) {
            try await RequestToken.$templates.withValue(entry.templates) { try await next(request, context) }
        }
    }
}

/// Request bodies: a JSON body larger than `--max-body` and an upload larger than `--max-upload` are refused with
/// 413 before they are read (by their `Content-Length`) or as soon as they pass the limit (a chunked body).
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let jsonLimit: Int
    let uploadLimit: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let isUpload = request.method == .put && request.uri.path.hasPrefix("/v1/sounds/")
        let limit = isUpload ? uploadLimit : jsonLimit
        let what = isUpload ? "a sound" : "a request body"
        if let header = request.headers[.contentLength] {
            guard let length = Int(header), length >= 0 else {
                return ProblemResponse.make(HTTPProblem(.malformed("Content-Length '\(header)' is not a length")))
            }
            if length > limit {
                return ProblemResponse.make(HTTPProblem(.tooLarge("\(what) of \(length) bytes is larger than this server takes (\(limit) bytes)")))
            }
        }
        guard !isUpload, request.method == .post || request.method == .put || request.method == .patch else {
            return try await next(request, context)
        }
        var request = request
        do {
            let buffer = try await request.body.collect(upTo: limit)
            request.body = RequestBody(buffer: buffer)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return ProblemResponse.make(HTTPProblem(.tooLarge("\(what) is larger than this server takes (\(limit) bytes)")))
        }
        return try await next(request, context)
    }
}

/// Answers a problem (RFC 9457) as `application/problem+json`.
enum ProblemResponse {
    static func make(_ problem: HTTPProblem, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/problem+json"
        if let retry = problem.retryAfter { fields[.retryAfter] = String(retry) }
        return Response(status: HTTPResponse.Status(code: problem.status), headers: fields,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: problem.document.json(.compact))))
    }
}
