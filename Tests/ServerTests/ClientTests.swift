import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession
import Testing

/// The server against its own document: a client generated from openapi.yaml (the one an iOS app or a back end
/// would generate) calls the real server over URLSession, so every response it decodes had the status, content type
/// and shape the document gives. A response that breaks the document fails to decode and fails the test.
@Suite(.serialized) struct ClientTests {
    /// Adds the bearer token to every request.
    struct Bearer: ClientMiddleware {
        let token: String
        func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                       next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            request.headerFields[.authorization] = "Bearer \(token)"
            return try await next(request, body, baseURL)
        }
    }

    static func preset(seed: Int) throws -> OpenAPIObjectContainer {
        try object(#"{"duration": "2s", "output": {"sampleRate": 24000}, "chapters": [{"at": "0:00", "name": "Start"}], "tracks": [{"generator": {"type": "pink", "seed": \#(seed)}, "gainDb": -12}]}"#)
    }

    static func object(_ json: String) throws -> OpenAPIObjectContainer {
        try JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(json.utf8))
    }

    @Test func aGeneratedClientSubmitsFollowsAndReadsARenderAsTheDocumentSays() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let client = Client(serverURL: server.base, transport: URLSessionTransport(), middlewares: [Bearer(token: server.token)])

        let created = try await client.createRender(body: .json(.init(preset: try Self.preset(seed: 51), format: .opus)))
        let accepted = try created.accepted
        let id = try accepted.body.json.id
        #expect(accepted.headers.Location == "/v1/renders/\(id)")
        var render = try accepted.body.json
        let deadline = Date() + 120
        while render.state != .succeeded, render.state != .failed, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            render = try await client.getRender(path: .init(id: id)).ok.body.json
        }
        #expect(render.state == .succeeded)
        #expect(render.result?.contentType == "audio/ogg; codecs=opus")
        #expect(render.chapters?.map(\.name) == ["Start"])
        #expect(render.progress?.fraction == 1)

        let again = try await client.createRender(body: .json(.init(preset: try Self.preset(seed: 51), format: .opus)))
        #expect(try again.ok.body.json.id == id)

        let timeline = try await client.getRenderTimeline(path: .init(id: id)).ok.body.json
        #expect(!timeline.value.isEmpty)
        let report = try await client.getRenderReport(path: .init(id: id)).ok.body.json
        #expect(report.value["cacheKey"] != nil)
        let waveform = try await client.getRenderWaveform(path: .init(id: id), query: .init(format: .png)).ok.body.png
        let bytes = try await [UInt8](collecting: waveform, upTo: 16 << 20)
        #expect(bytes.prefix(4) == [0x89, 0x50, 0x4E, 0x47])

        let wrong = try await client.validatePreset(body: .json(.init(preset: try Self.object(#"{"duration": "2s", "tracks": [{"generator": {"type": "purple"}}]}"#))))
        let validation = try wrong.ok.body.json
        #expect(validation.valid == false)
        #expect(validation.error?.jsonPath == "preset.tracks[0].generator.type")

        let refused = try await client.createRender(body: .json(.init(preset: try Self.object(#"{"duration": "-2s", "tracks": []}"#))))
        #expect(try refused.unprocessableContent.body.application_problem_plus_json.jsonPath == "preset.duration")

        let missing = try await client.getRender(path: .init(id: String(repeating: "0", count: 64)))
        #expect(try missing.notFound.body.application_problem_plus_json.status == 404)

        let anonymous = Client(serverURL: server.base, transport: URLSessionTransport())
        let unauthorized = try await anonymous.listSounds()
        #expect(try unauthorized.unauthorized.headers.WWW_hyphen_Authenticate?.hasPrefix("Bearer") == true)

        let sounds = try await client.listSounds().ok.body.json
        #expect(sounds.sounds.isEmpty)
        #expect(try await client.getHealth().ok.body.plainText != nil)
    }
}
