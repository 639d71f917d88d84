import HTTPTypes
import Hummingbird
import MixRender
import OpenAPIRuntime

/// The API's paths and the methods each takes, as the generated code registers them (openapi.yaml): what
/// `MethodNotAllowedMiddleware` answers from, so it stays in step with the document.
struct RouteTable: Sendable {
    private struct Route: Sendable {
        /// The path's segments; nil for a parameter (`{id}`), which matches any one segment.
        var segments: [String?]
        var methods: [HTTPRequest.Method]
    }

    private let routes: [Route]

    /// The routes `api` registers on a transport.
    init(of api: some APIProtocol) throws {
        let recorder = Recorder()
        try api.registerHandlers(on: recorder)
        var routes: [Route] = []
        for (method, path) in recorder.registered {
            let segments = Self.segments(of: path).map { $0.hasPrefix("{") && $0.hasSuffix("}") ? nil : String($0) }
            if let index = routes.firstIndex(where: { $0.segments == segments }) {
                routes[index].methods.append(method)
            } else {
                routes.append(Route(segments: segments, methods: [method]))
            }
        }
        self.routes = routes
    }

    /// The methods `path` takes, or nil when the API has no such path.
    func methods(at path: String) -> [HTTPRequest.Method]? {
        let given = Self.segments(of: path)
        return routes.first { route in
            route.segments.count == given.count && zip(route.segments, given).allSatisfy { $0 == nil || $0! == $1 }
        }?.methods
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
