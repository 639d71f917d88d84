import Crypto
import DSPTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Hummingbird
import TestSupport
import Testing

/// Webhooks received by a real receiver, a server killed mid-render, and two servers over one PostgreSQL.
@Suite(.serialized) struct DurabilityAndWebhookTests {
    @Test func aWebhookArrivesSignedAsStandardWebhooks() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let server = try ServerProcess.start(arguments: ["--webhook-host", "127.0.0.1:\(receiver.port)"])
        defer { server.stop() }
        let refused = try await server.request("POST", "/v1/renders", json: [
            "preset": RenderServiceTests.shortPreset(seed: 21), "webhook": ["url": "http://127.0.0.1:1/elsewhere"]])
        #expect(refused.status == 422)
        #expect(refused.object["jsonPath"] as? String == "webhook.url")
        let submitted = try await server.request("POST", "/v1/renders", json: [
            "preset": RenderServiceTests.shortPreset(seed: 21), "webhook": ["url": "http://127.0.0.1:\(receiver.port)/hook"]])
        #expect(submitted.status == 202)
        let id = try #require(submitted.object["id"] as? String)
        let call = try await receiver.next(seconds: 60)
        let secret = try String(contentsOf: server.state.appendingPathComponent("webhook-secret"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.hasPrefix("whsec_"))
        let key = try #require(Data(base64Encoded: String(secret.dropFirst("whsec_".count))))
        let messageID = try #require(call.headers["webhook-id"])
        let timestamp = try #require(call.headers["webhook-timestamp"])
        #expect(abs((Double(timestamp) ?? 0) - Date().timeIntervalSince1970) < 300)
        let signed = Data("\(messageID).\(timestamp).".utf8) + call.body
        let expected = "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))).base64EncodedString()
        #expect(call.headers["webhook-signature"]?.split(separator: " ").map(String.init).contains(expected) == true)
        let payload = try #require(try JSONSerialization.jsonObject(with: call.body) as? [String: Any])
        #expect(payload["type"] as? String == "render.succeeded")
        let data = try #require(payload["data"] as? [String: Any])
        #expect(data["id"] as? String == id)
        #expect(data["state"] as? String == "succeeded")
    }

    @Test func aWebhookIsRetriedWithTheSameIDUntilItIsTaken() async throws {
        let receiver = try await WebhookReceiver.start(failing: 1)
        defer { receiver.stop() }
        let server = try ServerProcess.start(arguments: ["--webhook-host", "127.0.0.1:\(receiver.port)"])
        defer { server.stop() }
        _ = try await server.request("POST", "/v1/renders", json: [
            "preset": RenderServiceTests.shortPreset(seed: 22), "webhook": ["url": "http://127.0.0.1:\(receiver.port)/hook"]])
        let refusedCall = try await receiver.next(seconds: 60)
        let takenCall = try await receiver.next(seconds: 60)
        #expect(refusedCall.headers["webhook-id"] == takenCall.headers["webhook-id"])
        #expect(refusedCall.body == takenCall.body)
    }

    /// What a render measured stays in the cache folder (STATE/cache): a server started again on the same state
    /// measures the same mix's loudness no more, it reads it back (the report's normalisation says from where).
    @Test func aRestartedServerMeasuresNothingAgain() async throws {
        let first = try ServerProcess.start()
        let preset = RenderServiceTests.shortPreset(seed: 41)
        let before = try await first.request("POST", "/v1/renders", json: ["preset": preset, "format": "flac", "overrides": ["loudness": -18]])
        let id = try #require(before.object["id"] as? String)
        #expect(try await first.waitForRender(id).object["state"] as? String == "succeeded")
        let measured = try await first.request("GET", "/v1/renders/\(id)/report")
        func normalisation(_ report: ServerProcess.Reply) -> [String: Any]? {
            ((report.object["levels"] as? [String: Any])?["normalisation"] as? [String: Any])
        }
        #expect(normalisation(measured)?["reusedFrom"] is NSNull, "\(measured.object)")
        _ = first.stop()
        let cache = first.state.appendingPathComponent("cache")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []).isEmpty == false, "the cache folder holds the measurement")

        let second = try ServerProcess.start(state: first.folder, token: first.token)
        defer { second.stop() }
        // Another format of the same mix: another render, the same audio, its measurement read from the folder.
        let after = try await second.request("POST", "/v1/renders", json: ["preset": preset, "format": "wav", "overrides": ["loudness": -18]])
        let other = try #require(after.object["id"] as? String)
        #expect(other != id)
        #expect(try await second.waitForRender(other).object["state"] as? String == "succeeded")
        let reread = try await second.request("GET", "/v1/renders/\(other)/report")
        #expect(normalisation(reread)?["reusedFrom"] as? String == "cacheFolder", "\(reread.object)")
    }

    @Test func aKilledServerLosesNoJobAndServesNothingPartial() async throws {
        let first = try ServerProcess.start()
        // Twenty minutes: still rendering when the server is killed the moment it reports progress (the render takes
        // seconds, the kill milliseconds), and the second server renders it all again: two hours made this test 50 s long.
        let submitted = try await first.request("POST", "/v1/renders", json: ["preset": RenderServiceTests.longPreset(seed: 31, minutes: 20), "format": "flac"])
        let id = try #require(submitted.object["id"] as? String)
        try await RenderServiceTests().waitUntilRendering(first, id)
        first.kill9()
        // What the dead server left: no result for the id (only, perhaps, a partial folder nobody serves).
        let results = first.state.appendingPathComponent("results")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: results.path)) ?? []
        #expect(!left.contains(id))
        let second = try ServerProcess.start(state: first.folder, token: first.token)
        defer { second.stop() }
        let during = try await second.request("GET", "/v1/renders/\(id)/audio")
        #expect(during.status == 409 || during.status == 200)
        let done = try await second.waitForRender(id, seconds: 600)
        #expect(done.object["state"] as? String == "succeeded", "\(done.object)")
        let audio = try await second.request("GET", "/v1/renders/\(id)/audio", timeout: 600)
        let result = try #require(done.object["result"] as? [String: Any])
        #expect(audio.body.count == result["bytes"] as? Int)
        #expect(SHA256.hash(data: audio.body).map { String(format: "%02x", $0) }.joined() == result["sha256"] as? String)
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: results.path)) ?? []
        #expect(leftovers.filter { $0.hasPrefix(".partial") }.isEmpty, "the dead server's partial folder is swept: \(leftovers)")
    }

    @Test func aStoppedServerPutsItsRenderBackInTheQueueAndExitsCleanly() async throws {
        let first = try ServerProcess.start()
        let submitted = try await first.request("POST", "/v1/renders", json: ["preset": RenderServiceTests.longPreset(seed: 33, hours: 2), "format": "flac"])
        let id = try #require(submitted.object["id"] as? String)
        try await RenderServiceTests().waitUntilRendering(first, id)
        let started = Date()
        #expect(first.stop(seconds: 30) == 0, "SIGTERM: exit status 0")
        #expect(Date().timeIntervalSince(started) < 30)
        let second = try ServerProcess.start(state: first.folder, arguments: ["--jobs", "1"], token: first.token)
        defer { second.stop() }
        let after = try await second.request("GET", "/v1/renders/\(id)")
        #expect(["queued", "rendering"].contains(after.object["state"] as? String ?? ""), "\(after.object)")
        _ = try await second.request("DELETE", "/v1/renders/\(id)")
    }

    /// A clean stop leaves every job in `jobs.sqlite` itself, the WAL written back and emptied: the file alone, copied
    /// into a new state folder with the tokens (as an operator backs up or moves "the job database"), gives a new server
    /// the job. Before, a clean stop left the jobs in `jobs.sqlite-wal`, and the file alone held none.
    @Test func aCleanStopLeavesEveryJobInTheDatabaseFileAlone() async throws {
        let first = try ServerProcess.start()
        let submitted = try await first.request("POST", "/v1/renders", json: ["preset": RenderServiceTests.shortPreset(seed: 12), "format": "wav"])
        let id = try #require(submitted.object["id"] as? String)
        let done = try await first.waitForRender(id)
        #expect(done.object["state"] as? String == "succeeded", "\(done.object)")
        #expect(first.stop(seconds: 30) == 0, "SIGTERM: exit status 0")
        let wal = first.state.appendingPathComponent("jobs.sqlite-wal").path
        let walBytes = (try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int ?? 0
        #expect(walBytes == 0, "the WAL holds \(walBytes) bytes after a clean stop")
        let copy = try TemporaryFolder(prefix: "mixrender-serve-test")
        for name in ["jobs.sqlite", "tokens"] {
            try FileManager.default.copyItem(at: first.state.appendingPathComponent(name), to: copy.url.appendingPathComponent(name))
        }
        let second = try ServerProcess.start(state: copy, token: first.token)
        defer { second.stop() }
        let after = try await second.request("GET", "/v1/renders/\(id)")
        #expect(after.status == 200 && after.object["id"] as? String == id, "\(after.status) \(after.object)")
    }

    /// Two servers on one SQLite state would both be worker `local`: the second's start would take the first's running
    /// job back into the queue and render it twice. The second is refused in one line; the first keeps serving; the
    /// lock goes with its holder, even when it is killed.
    @Test func aSecondServerOnOneStateFolderIsRefusedAtStart() async throws {
        let first = try ServerProcess.start()
        let second = try CLI.run(["serve", "--port", "0", "--state", first.state.path])
        #expect(second.status != 0)
        let lines = second.stderr.split(separator: "\n")
        #expect(lines.count == 1 && second.stderr.contains("'\(first.state.path)' is in use by another mixrender serve"), "\(second.stderr)")
        let health = try await first.request("GET", "/healthz")
        #expect(health.status == 200, "the first server still answers")
        first.kill9()
        let third = try ServerProcess.start(state: first.folder, token: first.token)
        defer { third.stop() }
        #expect(try await third.request("GET", "/healthz").status == 200, "a dead server's lock is gone with it")
    }

    @Test func aRenderPastTheTimeLimitFails() async throws {
        let server = try ServerProcess.start(arguments: ["--job-time-limit", "1s"])
        defer { server.stop() }
        let submitted = try await server.request("POST", "/v1/renders", json: ["preset": RenderServiceTests.longPreset(seed: 34, hours: 3), "format": "flac"])
        let id = try #require(submitted.object["id"] as? String)
        let done = try await server.waitForRender(id, seconds: 60)
        #expect(done.object["state"] as? String == "failed")
        let error = try #require(done.object["error"] as? [String: Any])
        #expect((error["detail"] as? String)?.contains("longer than 1s") == true, "\(error)")
        let results = server.state.appendingPathComponent("results")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: results.path)) ?? []
        #expect(left.isEmpty, "nothing of it is kept: \(left)")
    }

    @Test func twoServersOverOnePostgreSQLRenderEachJobOnce() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["MIXRENDER_TEST_POSTGRES_URL"],
                               "set MIXRENDER_TEST_POSTGRES_URL (scripts/start-postgres.sh starts a server and prints it)")
        let database = try await PostgresScratch.make(url: url)
        let scratch = try TemporaryFolder(prefix: "mixrender-serve-test")
        defer { withExtendedLifetime(scratch) {} }
        let shared = scratch.url
        let tokens = shared.appendingPathComponent("tokens")
        let made = try CLI.run(["serve", "--new-token", "app", "--tokens", tokens.path])
        let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let common = ["--database", database, "--results", shared.appendingPathComponent("results").path, "--tokens", tokens.path,
                      "--uploads", shared.appendingPathComponent("sounds").path, "--webhook-secret-file", shared.appendingPathComponent("secret").path,
                      "--jobs", "1"]
        let a = try ServerProcess.start(arguments: common + ["--worker-name", "a"], token: token)
        defer { a.stop() }
        let b = try ServerProcess.start(arguments: common + ["--worker-name", "b"], token: token)
        defer { b.stop() }
        var ids: Set<String> = []
        for seed in 40..<46 {
            let body: [String: Any] = ["preset": RenderServiceTests.shortPreset(seed: seed, seconds: 30), "format": "ogg"]
            let viaA = try await a.request("POST", "/v1/renders", json: body)
            let viaB = try await b.request("POST", "/v1/renders", json: body)
            let id = try #require(viaA.object["id"] as? String)
            #expect(viaB.object["id"] as? String == id)
            ids.insert(id)
        }
        for id in ids {
            let done = try await a.waitForRender(id, seconds: 600)
            #expect(done.object["state"] as? String == "succeeded")
            let fromB = try await b.request("GET", "/v1/renders/\(id)/audio")
            #expect(fromB.status == 200)
        }
        // A sound uploaded to one server renders on either: the uploads folder is shared.
        let tone = RenderServiceTests.wavBytes(seconds: 1, sampleRate: 22050)
        let hash = SHA256.hash(data: tone).map { String(format: "%02x", $0) }.joined()
        #expect(try await a.request("PUT", "/v1/sounds/\(hash)", body: tone, headers: ["Content-Type": "application/octet-stream"]).status == 201)
        let usingIt = try await b.request("POST", "/v1/renders", json: [
            "preset": ["duration": "1s", "output": ["sampleRate": 22050], "tracks": [["file": "sha256:\(hash)"]]], "format": "wav"])
        let soundID = try #require(usingIt.object["id"] as? String, "\(usingIt.object)")
        #expect(try await a.waitForRender(soundID).object["state"] as? String == "succeeded")
        ids.insert(soundID)
        let renders = try await [a, b].asyncMap { server in
            let text = String(decoding: try await server.request("GET", "/metrics", token: "").body, as: UTF8.self)
            return text.split(separator: "\n").first { $0.hasPrefix("mixrender_renders_total ") }
                .flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        }
        #expect(renders.reduce(0, +) == ids.count, "each job rendered once: \(renders)")
        #expect(renders.allSatisfy { $0 > 0 }, "both servers rendered: \(renders)")
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}

/// A database of its own for one test run, on the PostgreSQL server the environment names: the servers' own
/// migration makes the tables in it.
enum PostgresScratch {
    /// A fresh database on the server of `url` (named `mixrender_<random>`), made with `psql` from Debian's
    /// postgresql-client; its URL.
    static func make(url: String) async throws -> String {
        guard var components = URLComponents(string: url) else { throw ServerError("MIXRENDER_TEST_POSTGRES_URL '\(url)' is not a URL") }
        let name = "mixrender_\(UUID().uuidString.prefix(8).lowercased())"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        process.arguments = [url, "-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE \(name)"]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ServerError("psql could not create database \(name) on \(url)") }
        components.path = "/" + name
        return components.string!
    }
}

/// A webhook receiver: a real HTTP server (Hummingbird) on a loopback port that records each call and answers
/// 500 to the first `failing` calls, 200 after.
final class WebhookReceiver: @unchecked Sendable {
    struct Call: Sendable {
        var headers: [String: String]
        var body: Data
    }

    let port: Int
    private let task: Task<Void, Error>
    private let calls: CallBox

    final class CallBox: @unchecked Sendable {
        let lock = NSLock()
        var calls: [Call] = []
        var taken = 0
        var failing: Int
        init(failing: Int) { self.failing = failing }
    }

    static func start(failing: Int = 0) async throws -> WebhookReceiver {
        let box = CallBox(failing: failing)
        let router = Router()
        router.post("/hook") { request, _ -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let fail = box.lock.withLock {
                box.calls.append(Call(headers: headers, body: Data(buffer: body)))
                let fail = box.failing > 0
                if fail { box.failing -= 1 }
                return fail
            }
            return fail ? .internalServerError : .ok
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) })
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw ServerError("the webhook receiver did not start") }
        return WebhookReceiver(port: port, task: task, calls: box)
    }

    private init(port: Int, task: Task<Void, Error>, calls: CallBox) {
        self.port = port
        self.task = task
        self.calls = calls
    }

    /// The next call not yet taken, waiting at most `seconds`.
    func next(seconds: Double) async throws -> Call {
        let deadline = Date() + seconds
        while Date() < deadline {
            let call: Call? = calls.lock.withLock {
                guard calls.taken < calls.calls.count else { return nil }
                defer { calls.taken += 1 }
                return calls.calls[calls.taken]
            }
            if let call { return call }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerError("no webhook call within \(seconds) s")
    }

    func stop() { task.cancel() }
}
