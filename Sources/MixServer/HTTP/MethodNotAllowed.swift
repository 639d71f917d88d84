import HTTPTypes
import Hummingbird
import MixRender
import OpenAPIRuntime

/// The API's paths, the methods each takes, as the generated code registers them, and which of those the document
/// (openapi.yaml) marks `security: []`, open to a caller with no token: what `MethodNotAllowedMiddleware` and
/// `AccessMiddleware` answer from, so both stay in step with the document.
struct RouteTable: Sendable {
    private struct Route: Sendable {
        /// The path's segments; nil for a parameter (`{id}`), which matches any one segment.
        var segments: [String?]
        var methods: [HTTPRequest.Method]
        /// The methods the document opens to callers without a token.
        var openMethods: Set<HTTPRequest.Method> = []
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
        let open = Self.openOperations(in: document)
        var routes: [Route] = []
        for (method, path) in registered {
            let segments = Self.segments(of: path).map { $0.hasPrefix("{") && $0.hasSuffix("}") ? nil : String($0) }
            let index = routes.firstIndex(where: { $0.segments == segments }) ?? {
                routes.append(Route(segments: segments, methods: []))
                return routes.count - 1
            }()
            routes[index].methods.append(method)
            if open.contains(OpenOperation(method: method.rawValue.lowercased(), path: path)) {
                routes[index].openMethods.insert(method)
            }
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

    private func route(at path: String) -> Route? {
        let given = Self.segments(of: path)
        return routes.first { route in
            route.segments.count == given.count && zip(route.segments, given).allSatisfy { $0 == nil || $0! == $1 }
        }
    }

    struct OpenOperation: Hashable {
        var method: String
        var path: String
    }

    /// The operations of `document` (openapi.yaml's text, as this project writes it: paths at two spaces under
    /// `paths:`, methods at four, an operation's members at six) that say `security: []`.
    static func openOperations(in document: String) -> Set<OpenOperation> {
        var open: Set<OpenOperation> = []
        var inPaths = false
        var path: String?, method: String?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            let text = line.dropFirst(indent)
            if text.isEmpty || text.hasPrefix("#") { continue }
            switch indent {
            case 0:
                inPaths = text == "paths:"
                path = nil; method = nil
            case 2 where inPaths && text.hasPrefix("/") && text.hasSuffix(":"):
                path = String(text.dropLast()); method = nil
            case 4 where path != nil && text.hasSuffix(":"):
                method = String(text.dropLast())
            case 6 where text.replacingOccurrences(of: " ", with: "") == "security:[]":
                if let path, let method { open.insert(OpenOperation(method: method, path: path)) }
            default:
                continue
            }
        }
        return open
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
