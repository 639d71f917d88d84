import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MixIO
import Testing
@testable import MixServer

/// The service's routes in process: `RenderServer.buildApplication` run by HummingbirdTesting's router client, its
/// services (job store, runner) and all, with no socket. Each refusal is checked as a client sees it: the status
/// from the one mapping (`HTTPProblem.init(_:)`), the problem document, and its headers. The end-to-end suites
/// (ServerTests) run the real `mixrender serve` on loopback beside these.
@Suite struct RouteTests {
    /// A server on a new state folder, its first token (announced once, as `serve` prints it), and a client.
    func withServer(_ body: @escaping @Sendable (any TestClientProtocol, _ token: String) async throws -> Void) async throws {
        try await withTemporaryFolder { folder in
            var configuration = ServerConfiguration()
            configuration.stateFolder = folder + "/state"
            configuration.port = 0
            let announced = Locked<[String]>([])
            let app = try await RenderServer.buildApplication(configuration) { line in announced.withLock { $0.append(line) } }
            let token = try #require(announced.withLock { $0 }.first { $0.hasPrefix("token: ") }).dropFirst("token: ".count)
            try await app.test(.router) { client in try await body(client, String(token)) }
        }
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    /// The problem document of `response`, checked to be one: its content type, and `status` equal to the answer's.
    static func problem(_ response: TestResponse) throws -> [String: Any] {
        #expect(response.headers[.contentType] == "application/problem+json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
        #expect(object["status"] as? Int == Int(response.status.code))
        return object
    }

    @Test func operationsAndThePageNeedNoToken() async throws {
        try await withServer { client, _ in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "ok\n")
            }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/v1/schema", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"$schema\""))
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<html"))
            }
        }
    }

    /// Which operations need no token is the document's word (`security: []`), read from it, not a list of paths.
    @Test func theDocumentSaysWhichOperationsAreOpen() throws {
        let document = String(decoding: try PageFiles().bytes(of: "openapi.yaml"), as: UTF8.self)
        let operations = RouteTable.operations(in: document)
        let open = operations.filter { $0.value.isOpen }.keys
        #expect(Set(open.map { "\($0.method.uppercased()) \($0.path)" }) == [
            "GET /v1/schema", "GET /healthz", "GET /readyz", "GET /metrics", "GET /openapi.yaml", "GET /page.js", "GET /page.css", "GET /",
            // A stream at a URL the server signed: the signature in its path stands for the token.
            "GET /v1/streams/{id}/{expires}/{signature}/{file}",
        ])
        // An operation marked open in a document is open in the table; any other needs a token.
        let planted = document.replacingOccurrences(of: "      operationId: listSounds\n", with: "      operationId: listSounds\n      security: []\n")
        let registered: [(HTTPRequest.Method, String)] = [(.get, "/v1/sounds"), (.get, "/v1/renders/{id}"), (.get, "/healthz")]
        let table = RouteTable(registered: registered, document: planted)
        #expect(table.isOpen(.get, at: "/v1/sounds"))
        #expect(!table.isOpen(.get, at: "/v1/renders/abc"))
        #expect(!table.isOpen(.put, at: "/v1/sounds"))
        #expect(!table.isOpen(.get, at: "/no/such/path"))
        #expect(RouteTable(registered: registered, document: document).isOpen(.head, at: "/healthz"))
        #expect(!RouteTable(registered: registered, document: document).isOpen(.get, at: "/v1/sounds"))
        // The query parameters each operation takes are the document's too: only the waveform's and the events' have any.
        let withQueries = operations.filter { !$0.value.queryParameters.isEmpty }
        #expect(withQueries.mapValues(\.queryParameters) == [
            RouteTable.Operation(method: "get", path: "/v1/renders/{id}/waveform"): ["format", "width", "pointsPerSecond"],
        ], "\(withQueries)")
    }

    /// A query parameter an operation does not take is a 400 naming it, after the token is checked; the ones it
    /// takes pass.
    @Test func anUnknownQueryParameterIsRefused() async throws {
        try await withServer { client, token in
            try await client.execute(uri: "/v1/renders/\(String(repeating: "ab", count: 32))/waveform?widht=300", method: .get,
                                     headers: Self.bearer(token)) { response in
                #expect(response.status == .badRequest)
                let problem = try Self.problem(response)
                #expect(problem["jsonPath"] as? String == "widht")
                #expect((problem["detail"] as? String)?.contains("this call takes format, width, pointsPerSecond") == true, "\(problem)")
            }
            try await client.execute(uri: "/v1/sounds?page=2", method: .get, headers: Self.bearer(token)) { response in
                #expect(response.status == .badRequest)
                let problem = try Self.problem(response)
                #expect((problem["detail"] as? String)?.contains("takes no query parameters") == true, "\(problem)")
            }
            try await client.execute(uri: "/v1/sounds?page=2", method: .get) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/healthz?probe=1", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            // Known parameters pass: a render this token does not have is a 404, not a 400.
            try await client.execute(uri: "/v1/renders/\(String(repeating: "ab", count: 32))/waveform?format=png", method: .get,
                                     headers: Self.bearer(token)) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func refusalsAreProblemsWithTheStatusTheMappingGives() async throws {
        try await withServer { client, token in
            // No token, a token the server does not know: 401 with the challenge.
            try await client.execute(uri: "/v1/renders/abc", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"mixrender\"")
                let problem = try Self.problem(response)
                #expect(problem["title"] as? String == "Unauthorized")
            }
            try await client.execute(uri: "/v1/renders/abc", method: .get, headers: Self.bearer("mxr_not-a-token")) { response in
                #expect(response.status == .unauthorized)
            }
            // A render this token does not have: 404 (ServiceError.notFound).
            try await client.execute(uri: "/v1/renders/" + String(repeating: "ab", count: 32), method: .get, headers: Self.bearer(token)) { response in
                #expect(response.status == .notFound)
                let problem = try Self.problem(response)
                #expect((problem["detail"] as? String)?.contains("for this token") == true)
            }
            // A method the path does not take: 405 with Allow.
            try await client.execute(uri: "/v1/renders", method: .put, headers: Self.bearer(token)) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow]?.contains("POST") == true)
                _ = try Self.problem(response)
            }
            var json = Self.bearer(token)
            json[.contentType] = "application/json"
            // A body that is not JSON, and a null member: 400 naming where.
            try await client.execute(uri: "/v1/renders", method: .post, headers: json, body: ByteBuffer(string: "{")) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/v1/renders", method: .post, headers: json,
                                     body: ByteBuffer(string: #"{"preset": {"duration": "1s", "tracks": []}, "name": null}"#)) { response in
                #expect(response.status == .badRequest)
                let problem = try Self.problem(response)
                #expect(problem["jsonPath"] as? String == "name")
            }
            // A format the document does not list: 400 at `format`, naming the ones it takes.
            try await client.execute(uri: "/v1/renders", method: .post, headers: json,
                                     body: ByteBuffer(string: #"{"preset": {"duration": "1s", "tracks": []}, "format": "aac"}"#)) { response in
                #expect(response.status == .badRequest)
                let problem = try Self.problem(response)
                #expect(problem["jsonPath"] as? String == "format")
                #expect(problem["detail"] as? String == "format: 'aac' is not one this API takes; expected one of m4a, ogg, opus, mp3, flac, wav, caf, aiff",
                        "\(problem)")
            }
            // A preset the engine refuses: 422 with the JSON path into the request (ServiceError.invalid).
            try await client.execute(uri: "/v1/renders", method: .post, headers: json,
                                     body: ByteBuffer(string: #"{"preset": {"duration": "1s", "tracks": [{"generator": {"type": "pink"}, "gainDb": "loud"}]}}"#)) { response in
                #expect(response.status == .unprocessableContent)
                let problem = try Self.problem(response)
                #expect(problem["jsonPath"] as? String == "preset.tracks[0].gainDb")
                #expect(problem["title"] as? String == "Invalid render request")
            }
            // validate answers an invalid preset as its result, not as a failure.
            try await client.execute(uri: "/v1/validate", method: .post, headers: json,
                                     body: ByteBuffer(string: #"{"preset": {"duration": "1s", "tracks": [{"generator": {"type": "pink"}, "gainDb": "loud"}]}}"#)) { response in
                #expect(response.status == .ok)
                let answer = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                #expect(answer["valid"] as? Bool == false)
                #expect((answer["error"] as? [String: Any])?["status"] as? Int == 422)
            }
            // A sound path that is not a hash: 400 at `sha256`.
            try await client.execute(uri: "/v1/sounds/nothex", method: .get, headers: Self.bearer(token)) { response in
                #expect(response.status == .badRequest)
                let problem = try Self.problem(response)
                #expect(problem["jsonPath"] as? String == "sha256")
            }
        }
    }

    @Test func aRenderIsSubmittedRenderedAndServedInRanges() async throws {
        try await withServer { client, token in
            var json = Self.bearer(token)
            json[.contentType] = "application/json"
            let request = #"{"preset": {"duration": "1s", "output": {"sampleRate": 22050}, "tracks": [{"generator": {"type": "brown", "seed": 5}, "gainDb": -12}]}, "format": "wav"}"#
            let id: String = try await client.execute(uri: "/v1/renders", method: .post, headers: json, body: ByteBuffer(string: request)) { response in
                #expect(response.status == .accepted)
                let render = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                let id = try #require(render["id"] as? String)
                #expect(response.headers[.location] == "/v1/renders/\(id)")
                return id
            }
            // The same request again is the same render (200, not a second job).
            try await client.execute(uri: "/v1/renders", method: .post, headers: json, body: ByteBuffer(string: request)) { response in
                #expect(response.status == .ok || response.status == .accepted)
            }
            // Its files are not ready until it succeeded: 409 (ServiceError.notReady), then the state settles.
            var state = ""
            let deadline = Date().addingTimeInterval(120)
            while state != "succeeded" {
                try #require(Date() < deadline, "render \(id) still \(state) after 120 s")
                try await client.execute(uri: "/v1/renders/\(id)", method: .get, headers: Self.bearer(token)) { response in
                    #expect(response.status == .ok)
                    let render = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                    state = render["state"] as? String ?? ""
                    #expect(state != "failed", "\(render)")
                }
                if state == "failed" { return }
                if state != "succeeded" {
                    try await client.execute(uri: "/v1/renders/\(id)/timeline", method: .get, headers: Self.bearer(token)) { response in
                        // It may have finished between the two calls.
                        #expect(response.status == .conflict || response.status == .ok)
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            let whole: ByteBuffer = try await client.execute(uri: "/v1/renders/\(id)/audio", method: .get, headers: Self.bearer(token)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "audio/wav")
                return response.body
            }
            // 1 s at 22050 Hz, 16-bit stereo PCM, and the RIFF header.
            #expect(whole.readableBytes > 22050 * 4)
            #expect(String(buffer: whole.getSlice(at: 0, length: 4)!) == "RIFF")
            var ranged = Self.bearer(token)
            ranged[.range] = "bytes=4-11"
            try await client.execute(uri: "/v1/renders/\(id)/audio", method: .get, headers: ranged) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 4-11/\(whole.readableBytes)")
                #expect(Array(buffer: response.body) == Array(buffer: whole.getSlice(at: 4, length: 8)!))
            }
            ranged[.range] = "bytes=\(whole.readableBytes + 10)-"
            try await client.execute(uri: "/v1/renders/\(id)/audio", method: .get, headers: ranged) { response in
                #expect(response.status == .rangeNotSatisfiable)
                _ = try Self.problem(response)
            }
            try await client.execute(uri: "/v1/renders/\(id)/waveform", method: .get, headers: Self.bearer(token)) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"data\""))
            }
            // Deleted for this token: afterwards it is not found.
            try await client.execute(uri: "/v1/renders/\(id)", method: .delete, headers: Self.bearer(token)) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/v1/renders/\(id)", method: .get, headers: Self.bearer(token)) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
