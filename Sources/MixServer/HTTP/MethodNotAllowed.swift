import HTTPTypes
import Hummingbird
import MixRender
import OpenAPIRuntime

/// The API's paths, the methods each takes, as the generated code registers them, which of those the document
/// (openapi.yaml) marks `security: []`, open to a caller with no token, and the query parameters each takes: what
/// `MethodNotAllowedMiddleware`, `AccessMiddleware` and `QueryParametersMiddleware` answer from, so all three stay in
/// step with the document.
struct RouteTable: Sendable {
    private struct Route: Sendable {
        /// The path's segments; nil for a parameter (`{id}`), which matches any one segment.
        var segments: [String?]
        var methods: [HTTPRequest.Method]
        /// The methods the document opens to callers without a token.
        var openMethods: Set<HTTPRequest.Method> = []
        /// The query parameters each method takes (none when it has no entry).
        var queryParameters: [HTTPRequest.Method: [String]] = [:]
    }

    private let routes: [Route]

    /// The routes `api` registers on a transport, open where `document` (openapi.yaml's text) says `security: []`.
    init(of api: some APIProtocol, document: String) throws {
        let recorder = Recorder()
        try api.registerHandlers(on: recorder)
        self.init(registered: recorder.registered, document: document)
    }

    /// The routes `registered` (method and path template, `/v1/renders/{id}`), open where `document` says.
    init(registered: [(HTTPRequest.Method, String)], document: String) {
        let operations = Self.operations(in: document)
        var routes: [Route] = []
        for (method, path) in registered {
            let segments = Self.segments(of: path).map { $0.hasPrefix("{") && $0.hasSuffix("}") ? nil : String($0) }
            let index = routes.firstIndex(where: { $0.segments == segments }) ?? {
                routes.append(Route(segments: segments, methods: []))
                return routes.count - 1
            }()
            routes[index].methods.append(method)
            let documented = operations[Operation(method: method.rawValue.lowercased(), path: path)]
            if documented?.isOpen == true { routes[index].openMethods.insert(method) }
            routes[index].queryParameters[method] = documented?.queryParameters ?? []
        }
        self.routes = routes
    }

    /// The methods `path` takes, or nil when the API has no such path.
    func methods(at path: String) -> [HTTPRequest.Method]? {
        route(at: path)?.methods
    }

    /// Whether `method` on `path` is an operation the document opens to callers without a token (`security: []`).
    /// A path the API does not have is not open, nor a method it does not take there.
    func isOpen(_ method: HTTPRequest.Method, at path: String) -> Bool {
        guard let route = route(at: path) else { return false }
        // HEAD where the document has only GET is answered as the GET is.
        let asked = method == .head && !route.methods.contains(.head) ? .get : method
        return route.openMethods.contains(asked)
    }

    /// The query parameters `method` on `path` takes (HEAD those of GET where the document has only GET); nil when the
    /// API has no such operation.
    func queryParameters(of method: HTTPRequest.Method, at path: String) -> [String]? {
        guard let route = route(at: path) else { return nil }
        let asked = method == .head && !route.methods.contains(.head) ? .get : method
        return route.queryParameters[asked]
    }

    private func route(at path: String) -> Route? {
        let given = Self.segments(of: path)
        return routes.first { route in
            route.segments.count == given.count && zip(route.segments, given).allSatisfy { $0 == nil || $0! == $1 }
        }
    }

    struct Operation: Hashable {
        var method: String
        var path: String
    }

    /// What the document says of one operation: whether it is open (`security: []`) and the names of its query
    /// parameters, in the document's order.
    struct Documented: Equatable {
        var isOpen = false
        var queryParameters: [String] = []
    }

    /// The operations of `document` (openapi.yaml's text, as this project writes it: paths at two spaces under
    /// `paths:`, methods at four, an operation's members at six, its parameters' `- name:` at eight and their `in:`
    /// at ten).
    static func operations(in document: String) -> [Operation: Documented] {
        var found: [Operation: Documented] = [:]
        var inPaths = false, inParameters = false
        var path: String?, method: String?, parameter: String?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            let text = line.dropFirst(indent)
            if text.isEmpty || text.hasPrefix("#") { continue }
            let operation = path.flatMap { path in method.map { Operation(method: $0, path: path) } }
            switch indent {
            case 0:
                inPaths = text == "paths:"
                path = nil; method = nil
            case 2 where inPaths && text.hasPrefix("/") && text.hasSuffix(":"):
                path = String(text.dropLast()); method = nil
            case 4 where path != nil && text.hasSuffix(":"):
                method = String(text.dropLast())
                if let operation = path.map({ Operation(method: method!, path: $0) }) { found[operation] = found[operation] ?? Documented() }
            case 6 where operation != nil:
                inParameters = text == "parameters:"
                if text.replacingOccurrences(of: " ", with: "") == "security:[]" { found[operation!]?.isOpen = true }
            case 8 where operation != nil && inParameters:
                parameter = text.hasPrefix("- name: ") ? String(text.dropFirst("- name: ".count)) : nil
            case 10 where operation != nil && inParameters && text == "in: query":
                if let parameter { found[operation!]?.queryParameters.append(parameter) }
            default:
                continue
            }
        }
        return found
    }

    /// A path's segments, as the router splits it (empty ones left out).
    private static func segments(of path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// A transport that only notes what is registered on it.
    private final class Recorder: ServerTransport {
        var registered: [(HTTPRequest.Method, String)] = []

        func register(_ handler: @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
                      method: HTTPRequest.Method, path: String) throws {
            registered.append((method, path))
        }
    }
}

/// A query parameter the operation does not take (`?widht=300`, `?format=png` where there is no format) is answered
/// 400 naming it and the ones it takes: the generated code would ignore it, and the caller would never learn that
/// it asked for nothing.
struct QueryParametersMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let taken = routes.queryParameters(of: request.method, at: request.uri.path) else { return try await next(request, context) }
        for (name, _) in request.uri.queryParameters where !taken.contains(String(name)) {
            let given = PrintableText.escaped(String(name))
            let takes = taken.isEmpty ? "this call takes no query parameters" : "this call takes " + taken.joined(separator: ", ")
            return ProblemResponse.make(HTTPProblem(.malformed(jsonPath: given, reason: "is not a query parameter of \(request.uri.path); \(takes)")))
        }
        return try await next(request, context)
    }
}

/// A method the API does not take on a path it has (`TRACE /v1/renders`, `PUT /healthz`) is answered 405 with
/// `Allow` listing the methods it takes (RFC 9110), where the router alone would answer 404 as for an unknown path.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let methods = routes.methods(at: request.uri.path), !methods.contains(request.method) else { throw error }
            let allowed = methods.map(\.rawValue).joined(separator: ", ")
            return ProblemResponse.make(.methodNotAllowed("\(request.uri.path) takes \(allowed), not \(request.method.rawValue)"),
                                        headers: [.allow: allowed])
        }
    }
}
