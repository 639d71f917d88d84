import Foundation
import HTTPTypes
import Hummingbird
import MixIO
import MixRender
import OpenAPIRuntime
import Prometheus

/// Whether the server takes renders (`/readyz`): not while it stops, nor when its database does not answer.
final class Readiness: Sendable {
    let store: any JobStore
    let storage: StorageWatch
    private let stopping = Locked(false)

    init(store: any JobStore, storage: StorageWatch) {
        self.store = store
        self.storage = storage
    }

    func stop() { stopping.withLock { $0 = true } }

    func notReadyReason() async -> String? {
        if stopping.withLock({ $0 }) { return "stopping" }
        do { try await store.ping() } catch { return "the job store does not answer" }
        return storage.fault().map { "cannot store: \($0)" }
    }
}

/// `/metrics`: the Prometheus registry's text, with the queue's gauges read from the store when asked.
struct MetricsEndpoint: Sendable {
    let registry: PrometheusCollectorRegistry
    let store: any JobStore
    let queued: Gauge
    let rendering: Gauge

    init(registry: PrometheusCollectorRegistry, store: any JobStore) {
        self.registry = registry
        self.store = store
        queued = registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "mixrender", metricName: "jobs_queued", unitName: "", helpText: "Renders waiting in the queue (all servers)."))
        rendering = registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "mixrender", metricName: "jobs_rendering", unitName: "", helpText: "Renders being rendered (all servers)."))
    }

    func text() async -> String {
        if let counts = try? await store.counts() {
            queued.set(Double(counts.queued))
            rendering.set(Double(counts.rendering))
        }
        return registry.emitToString()
    }
}

/// The files the server serves as they are: the page (`index.html` and what it loads), this API's document
/// (`openapi.yaml`) and the preset schema, from the target's resources, read once.
struct PageFiles: Sendable {
    private let files: [String: [UInt8]]

    init() throws {
        var files: [String: [UInt8]] = [:]
        guard let folder = Bundle.module.resourceURL?.appendingPathComponent("Page") else {
            throw ServiceError.internalFault("the server's page files are missing from its resources")
        }
        for name in (try? FileSystem.folderEntries(folder.path)) ?? [] {
            if let bytes = try? FileSystem.readDocument(path: folder.appendingPathComponent(name).path, maximumBytes: 16 << 20) {
                files[name] = bytes
            }
        }
        for required in ["index.html", "page.js", "page.css", "openapi.yaml", "preset.schema.json"] where files[required] == nil {
            throw ServiceError.internalFault("the server's resources lack \(required)")
        }
        self.files = files
    }

    func bytes(of name: String) throws -> [UInt8] {
        guard let bytes = files[name] else { throw ServiceError.notFound("no file \(name)") }
        return bytes
    }
}

/// A stored sound as the API's `Sound`: its hash, size, name and what it is (probed).
enum SoundDescription {
    static func of(hash: String, in sounds: SoundLibrary) async throws -> Components.Schemas.Sound? {
        guard let path = try? sounds.resolve("sha256:" + hash) else { return nil }
        let size = Int(FileSystem.identity(of: path)?.size ?? 0)
        var sound = Components.Schemas.Sound(sha256: hash, bytes: size, name: "sha256:" + hash)
        if let info = try? await AudioAnalysis.info(ofFile: path) {
            sound.format = info.formatName
            sound.sampleRate = info.sampleRate
            sound.channels = info.channelCount
            sound.durationSeconds = Double(info.frameCount) / Double(max(1, info.sampleRate))
        }
        return sound
    }
}

/// Every refusal a generated handler throws, answered as a problem document: a `ServiceError` by the one mapping
/// (`HTTPProblem.init(_:)`), and the handlers' own failures (a body that does not decode, a wrong `Accept`, a missing
/// parameter) with a 4xx status naming where, rather than the 500 the runtime would answer; and a null member of a
/// JSON body refused, which the document does not allow but the generated decoder would read as absent.
struct RequestErrorMiddleware: ServerMiddleware {
    func intercept(_ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
                   next: (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?) {
        // A JSON body is kept, to say where it is wrong when it does not decode (BodyLimitMiddleware has bounded it).
        var body = body
        var bytes: [UInt8]?
        if let given = body, Self.bodyType(of: operationID) != nil {
            let collected = try await [UInt8](collecting: given, upTo: .max)
            bytes = collected
            body = HTTPBody(collected)
            if let problem = DecodingProblem.duplicateKey(in: collected) { return Self.response(problem) }
            // A template is any JSON object to the document: what it holds is the template reader's to judge.
            if operationID != "publishTemplate", let path = DecodingProblem.nullMember(in: collected) {
                let reason = "must not be null (leave it out instead)"
                return Self.response(HTTPProblem(.malformed(jsonPath: path, reason: reason)))
            }
        }
        do {
            var (response, responseBody) = try await next(request, body, metadata)
            // The runtime writes a header's string percent-encoded (`%2Fv1%2Frenders`); a Location is a URI reference.
            if let location = response.headerFields[.location], let decoded = location.removingPercentEncoding {
                response.headerFields[.location] = decoded
            }
            return (response, responseBody)
        } catch let error as ServerError {
            if let problem = HTTPProblem.of(error.underlyingError) { return Self.response(problem) }
            if let decoding = error.underlyingError as? DecodingError {
                return Self.response(DecodingProblem.problem(decoding, body: bytes, decoding: Self.bodyType(of: operationID)))
            }
            let reason = "\(error.underlyingError)".split(separator: "\n").first.map(String.init) ?? "malformed request"
            if "\(error.underlyingError)".contains("Accept") || "\(error.underlyingError)".contains("content type") {
                return Self.response(.notAcceptable(String(reason.prefix(300))))
            }
            return Self.response(HTTPProblem(.malformed("the request does not fit the API (openapi.yaml): \(reason.prefix(300))")))
        }
    }

    /// The type an operation's JSON body decodes to (openapi.yaml), for the operations that take one.
    static func bodyType(of operationID: String) -> (any Decodable.Type)? {
        switch operationID {
        case "createRender", "validatePreset": return Components.Schemas.RenderRequest.self
        default: return nil
        }
    }

    static func response(_ problem: HTTPProblem) -> (HTTPResponse, HTTPBody?) {
        var fields = HTTPFields()
        fields[.contentType] = "application/problem+json"
        if let retry = problem.retryAfter { fields[.retryAfter] = String(retry) }
        return (HTTPResponse(status: .init(code: problem.status), headerFields: fields), HTTPBody(problem.document.json(.compact)))
    }
}

/// Registers the generated handlers on the router but for the operations served by hand (`AudioRoute`).
struct SelectiveTransport<Context: RequestContext>: ServerTransport {
    let router: Router<Context>
    let servedElsewhere: Set<String>

    func register(_ handler: @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
                  method: HTTPRequest.Method, path: String) throws {
        guard !servedElsewhere.contains("\(method.rawValue) \(path)") else { return }
        router.register(handler, method: method, path: path)
    }
}
