import MixRender

/// A refusal as the API answers it (RFC 9457 problem details): the status, a title, one line of detail, and where in
/// the request (`preset.tracks[2].gainDb`) when the fault is there. Made from a `ServiceError` by `init(_:)`, the one
/// mapping from the domain's errors to HTTP, or for the faults only HTTP has (a method, an `Accept`, a range).
struct HTTPProblem: Error, Sendable, Equatable {
    var status: Int
    var title: String
    var detail: String
    /// Where in the request body, when the fault is there.
    var jsonPath: String?
    /// Why, without the path.
    var reason: String?
    /// Seconds to wait before trying again (429, 503).
    var retryAfter: Int?

    /// The status and title of each of the domain's errors.
    init(_ error: ServiceError) {
        let detail = error.detail
        switch error {
        case .malformed(let jsonPath, let reason):
            self.init(status: 400, title: "Bad request", detail: detail, jsonPath: jsonPath, reason: jsonPath == nil ? nil : reason)
        case .invalid(let jsonPath, let reason):
            self.init(status: 422, title: "Invalid render request", detail: detail, jsonPath: jsonPath, reason: reason)
        case .tooLarge: self.init(status: 413, title: "Content too large", detail: detail)
        case .notFound: self.init(status: 404, title: "Not found", detail: detail)
        case .notReady: self.init(status: 409, title: "Not ready", detail: detail)
        case .inputsChanged: self.init(status: 409, title: "Inputs changed", detail: detail)
        case .busy(_, let retryAfter): self.init(status: 429, title: "Too many requests", detail: detail, retryAfter: retryAfter)
        case .unavailable(_, let retryAfter): self.init(status: 503, title: "Unavailable", detail: detail, retryAfter: retryAfter)
        case .unauthorized: self.init(status: 401, title: "Unauthorized", detail: detail)
        case .forbidden: self.init(status: 403, title: "Forbidden", detail: detail)
        case .conflict: self.init(status: 409, title: "Conflict", detail: detail)
        case .renderFailed: self.init(status: 500, title: "Render failed", detail: detail)
        case .internalFault: self.init(status: 500, title: "Internal error", detail: detail)
        }
    }

    init(status: Int, title: String, detail: String, jsonPath: String? = nil, reason: String? = nil, retryAfter: Int? = nil) {
        self.status = status; self.title = title; self.detail = detail
        self.jsonPath = jsonPath; self.reason = reason; self.retryAfter = retryAfter
    }

    /// The problem a thrown error is answered with: a `ServiceError` by the mapping, an `HTTPProblem` as it is.
    static func of(_ error: any Error) -> HTTPProblem? {
        if let problem = error as? HTTPProblem { return problem }
        if let service = error as? ServiceError { return HTTPProblem(service) }
        return nil
    }

    static func methodNotAllowed(_ detail: String) -> HTTPProblem {
        HTTPProblem(status: 405, title: "Method not allowed", detail: detail)
    }

    static func notAcceptable(_ detail: String) -> HTTPProblem {
        HTTPProblem(status: 406, title: "Not acceptable", detail: detail)
    }

    static func rangeNotSatisfiable(_ detail: String) -> HTTPProblem {
        HTTPProblem(status: 416, title: "Range not satisfiable", detail: detail)
    }

    /// The problem as the API's JSON body.
    var document: JSONValue {
        var members: [JSONValue.Member] = [
            .init("type", .string("about:blank")), .init("title", .string(title)), .init("status", .number(Double(status))),
            .init("detail", .string(detail)),
        ]
        if let jsonPath { members.append(.init("jsonPath", .string(jsonPath))) }
        if let reason { members.append(.init("reason", .string(reason))) }
        return .object(JSONObject(members))
    }
}
