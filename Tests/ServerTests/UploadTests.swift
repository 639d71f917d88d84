import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Hummingbird
import Testing

/// Delivery (issue 56): a render's files uploaded to pre-signed URLs a request gives, against a real receiver on
/// loopback that checks each file's length and MD5 as a storage service does, and one that fails twice first.
@Suite(.serialized) struct UploadTests {
    @Test func eachFileIsUploadedWhereTheRequestSaysRetriedUntilTakenAndTheWebhookSaysSo() async throws {
        // The flac's destination answers 503 twice before it takes the file.
        let receiver = try await UploadReceiver.start(failing: ["/bucket/night.flac": 2])
        defer { receiver.stop() }
        let host = "127.0.0.1:\(receiver.port)"
        let server = try ServerProcess.start(arguments: ["--delivery-host", host, "--webhook-host", host])
        defer { server.stop() }
        let secret = "SECRETSIGNATURE0123456789"
        let preset = RenderServiceTests.shortPreset(seed: 56, seconds: 3)
        let uploads: [[String: Any]] = [
            ["output": "flac", "url": "http://\(host)/bucket/night.flac?token=\(secret)&X-Amz-Signature=\(secret)",
             "headers": ["x-upsert": "true"]],
            ["output": "ogg", "url": "http://\(host)/bucket/night.ogg?token=\(secret)", "method": "PUT"],
        ]
        let submitted = try await server.request("POST", "/v1/renders", json: [
            "preset": preset, "outputs": ["flac", "ogg"], "deliveries": uploads,
            "webhook": ["url": "http://\(host)/hook"]])
        #expect(submitted.status == 202, "\(String(decoding: submitted.body, as: UTF8.self))")
        let id = try #require(submitted.object["id"] as? String)
        let shown = try #require(submitted.object["deliveries"] as? [[String: Any]])
        #expect(shown.map { $0["state"] as? String } == ["waiting", "waiting"] || shown.allSatisfy { $0["state"] as? String != "delivered" })
        #expect(shown.map { $0["url"] as? String } == ["http://\(host)/bucket/night.flac", "http://\(host)/bucket/night.ogg"])

        // First the render's own webhook, then the one saying where the files went.
        let finished = try await receiver.nextHook(seconds: 120)
        #expect(finished["type"] as? String == "render.succeeded")
        let delivered = try await receiver.nextHook(seconds: 120)
        #expect(delivered["type"] as? String == "render.delivered")
        let data = try #require(delivered["data"] as? [String: Any])
        #expect(data["id"] as? String == id && data["state"] as? String == "succeeded")
        let reported = try #require(data["deliveries"] as? [[String: Any]])
        #expect(reported.map { $0["state"] as? String } == ["delivered", "delivered"])
        #expect(reported.map { $0["attempts"] as? Int } == [3, 1])
        #expect(reported.map { $0["status"] as? Int } == [200, 200])

        // What arrived is each file the server serves, whole, with its length, type and MD5.
        for (format, type) in [("flac", "audio/flac"), ("ogg", "audio/ogg")] {
            let served = try await server.request("GET", "/v1/renders/\(id)/audio/\(format)")
            #expect(served.status == 200)
            let arrived = receiver.files["/bucket/night.\(format)"]
            #expect(arrived?.body == served.body, "\(format): \(arrived?.body.count ?? -1) bytes arrived, \(served.body.count) served")
            #expect(arrived?.headers["content-type"] == type)
            #expect(arrived?.headers["content-length"] == "\(served.body.count)")
            #expect(arrived?.headers["content-md5"] == Data(Insecure.MD5.hash(data: served.body)).base64EncodedString())
            #expect(arrived?.query.contains(secret) == true)
        }
        #expect(receiver.files["/bucket/night.flac"]?.headers["x-upsert"] == "true")
        #expect(receiver.attempts["/bucket/night.flac"] == 3 && receiver.attempts["/bucket/night.ogg"] == 1)

        // The status says the same; neither it nor the server's log shows the URLs' credentials.
        let status = try await server.request("GET", "/v1/renders/\(id)")
        let statusUploads = try #require(status.object["deliveries"] as? [[String: Any]])
        #expect(statusUploads.map { $0["state"] as? String } == ["delivered", "delivered"])
        #expect(!String(decoding: status.body, as: UTF8.self).contains(secret))
        #expect(!String(decoding: delivered["raw"] as? Data ?? Data(), as: UTF8.self).contains(secret))
        #expect(server.log.lines.contains { $0.contains("upload delivered") })
        #expect(!server.log.lines.contains { $0.contains(secret) }, "the log shows a pre-signed URL's query")

        // Asking again without deliveries keeps them, delivered, and sends nothing again.
        let again = try await server.request("POST", "/v1/renders", json: ["preset": preset, "outputs": ["flac", "ogg"]])
        #expect(again.status == 200)
        #expect((again.object["deliveries"] as? [[String: Any]])?.map { $0["state"] as? String } == ["delivered", "delivered"])
        try await Task.sleep(for: .seconds(2))
        #expect(receiver.attempts["/bucket/night.flac"] == 3 && receiver.attempts["/bucket/night.ogg"] == 1)
    }

    @Test func aDestinationThatRefusesIsAFailedUploadNotAFailedRender() async throws {
        let receiver = try await UploadReceiver.start(refusing: ["/bucket/expired.m4a"])
        defer { receiver.stop() }
        let host = "127.0.0.1:\(receiver.port)"
        let server = try ServerProcess.start(arguments: ["--delivery-host", host, "--webhook-host", host])
        defer { server.stop() }
        let submitted = try await server.request("POST", "/v1/renders", json: [
            "preset": RenderServiceTests.shortPreset(seed: 57), "deliveries": [["url": "http://\(host)/bucket/expired.m4a?sig=x"]],
            "webhook": ["url": "http://\(host)/hook"]])
        #expect(submitted.status == 202)
        #expect(try await receiver.nextHook(seconds: 120)["type"] as? String == "render.succeeded")
        let failed = try await receiver.nextHook(seconds: 120)
        #expect(failed["type"] as? String == "render.delivery_failed")
        let data = try #require(failed["data"] as? [String: Any])
        #expect(data["state"] as? String == "succeeded")
        let upload = try #require((data["deliveries"] as? [[String: Any]])?.first)
        #expect(upload["state"] as? String == "failed" && upload["status"] as? Int == 403 && upload["attempts"] as? Int == 1)
        #expect((upload["error"] as? String)?.contains("403") == true)
        #expect(upload["output"] as? String == "m4a")
    }

    @Test func uploadsARequestCannotHaveAreRefusedNamingWhere() async throws {
        let server = try ServerProcess.start(arguments: ["--delivery-host", "storage.example.com"])
        defer { server.stop() }
        let preset = RenderServiceTests.shortPreset(seed: 58)
        let cases: [(upload: Any, status: Int, path: String, words: String)] = [
            (["url": "https://elsewhere.example.com/b/x.m4a"], 422, "deliveries[0].url", "not one the server allows"),
            (["url": "https://storage.example.com/b/x.flac", "output": "flac"], 422, "deliveries[0].output", "writes no flac file"),
            (["url": "https://storage.example.com/b/x", "headers": ["Host": "evil.example"]], 422, "deliveries[0].headers.Host", "set by the server"),
            (["url": "https://storage.example.com/b/x", "headers": ["x-a": "1\r\nx-injected: 2"]], 422, "deliveries[0].headers.x-a", "control characters"),
            (["url": "https://storage.example.com/b/x", "headers": ["bad name": "1"]], 422, "deliveries[0].headers", "not a header name"),
            (["url": "https://storage.example.com/b/x", "method": "DELETE"], 400, "deliveries[0].method", ""),
            (["url": "file:///etc/passwd"], 422, "deliveries[0].url", "must be http or https"),
            (["url": "https://user:pw@storage.example.com/b/x"], 422, "deliveries[0].url", "user name or password"),
        ]
        for item in cases {
            let reply = try await server.request("POST", "/v1/renders", json: ["preset": preset, "deliveries": [item.upload]])
            let text = String(decoding: reply.body, as: UTF8.self)
            #expect(reply.status == item.status, "\(item.upload): \(text)")
            #expect((reply.object["jsonPath"] as? String)?.hasPrefix(item.path) == true, "\(item.upload): \(text)")
            #expect(item.words.isEmpty || text.contains(item.words), "\(item.upload): \(text)")
        }
        let twice = ["url": "https://storage.example.com/b/x"]
        let reply = try await server.request("POST", "/v1/renders", json: ["preset": preset, "deliveries": [twice, twice]])
        #expect(reply.status == 400)
    }
}

/// A storage service on loopback: `PUT` (or `POST`) of a file to `/bucket/NAME`, checked as S3 checks one (the
/// body's length against `Content-Length`, its MD5 against `Content-MD5`: 400 on a mismatch), and webhooks at `/hook`.
/// Paths in `failing` answer 503 that many times first; paths in `refusing` answer 403 (an expired URL).
final class UploadReceiver: @unchecked Sendable {
    struct File: Sendable {
        var headers: [String: String]
        var query: String
        var body: Data
    }

    let port: Int
    private let task: Task<Void, Error>
    private let box: Box

    final class Box: @unchecked Sendable {
        let lock = NSLock()
        var files: [String: File] = [:]
        var attempts: [String: Int] = [:]
        var failing: [String: Int]
        var refusing: Set<String>
        var hooks: [Data] = []
        var hooksTaken = 0
        init(failing: [String: Int], refusing: Set<String>) {
            self.failing = failing
            self.refusing = refusing
        }
    }

    var files: [String: File] { box.lock.withLock { box.files } }
    var attempts: [String: Int] { box.lock.withLock { box.attempts } }

    static func start(failing: [String: Int] = [:], refusing: Set<String> = []) async throws -> UploadReceiver {
        let box = Box(failing: failing, refusing: refusing)
        let router = Router()
        router.post("/hook") { request, _ -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 1 << 20)
            box.lock.withLock { box.hooks.append(Data(buffer: body)) }
            return .ok
        }
        let store: @Sendable (Request, BasicRequestContext) async throws -> HTTPResponse.Status = { request, _ in
            let path = request.uri.path
            let body = Data(buffer: try await request.body.collect(upTo: 64 << 20))
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            return box.lock.withLock {
                box.attempts[path, default: 0] += 1
                if box.refusing.contains(path) { return .forbidden }
                if let left = box.failing[path], left > 0 {
                    box.failing[path] = left - 1
                    return .serviceUnavailable
                }
                guard headers["content-length"] == "\(body.count)" else { return .badRequest }
                if let md5 = headers["content-md5"], md5 != Data(Insecure.MD5.hash(data: body)).base64EncodedString() {
                    return .badRequest
                }
                box.files[path] = File(headers: headers, query: request.uri.query ?? "", body: body)
                return .ok
            }
        }
        router.put("/bucket/:name", use: store)
        router.post("/bucket/:name", use: store)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) })
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw ServerError("the upload receiver did not start") }
        return UploadReceiver(port: port, task: task, box: box)
    }

    private init(port: Int, task: Task<Void, Error>, box: Box) {
        self.port = port
        self.task = task
        self.box = box
    }

    /// The next webhook body not yet taken, as JSON (with the raw bytes under `raw`), waiting at most `seconds`.
    func nextHook(seconds: Double) async throws -> [String: Any] {
        let deadline = Date() + seconds
        while Date() < deadline {
            let body: Data? = box.lock.withLock {
                guard box.hooksTaken < box.hooks.count else { return nil }
                defer { box.hooksTaken += 1 }
                return box.hooks[box.hooksTaken]
            }
            if let body {
                var object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
                object["raw"] = body
                return object
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerError("no webhook call within \(seconds) s")
    }

    func stop() { task.cancel() }
}
