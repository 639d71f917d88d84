import Foundation
import Testing
@testable import MixServer

@Suite struct WebhookSenderTests {
    static let body = #"{"type":"render.succeeded","data":{"id":"abc"}}"#

    private func sender(timeout: TimeInterval = 10) throws -> (WebhookSender, WebhookSigner) {
        let signer = try WebhookSigner(secret: WebhookSigner.makeSecret())
        return (WebhookSender(signer: signer, timeout: timeout), signer)
    }

    @Test func deliversASignedCallThatVerifies() async throws {
        let server = try LoopbackHTTPServer { _ in .status(204) }
        defer { server.stop() }
        let (sender, signer) = try sender()
        let before = Int(Date().timeIntervalSince1970)
        let outcome = await sender.send(id: "msg_0123456789abcdef", url: server.url("/hooks/render?x=1"), body: Self.body)
        let after = Int(Date().timeIntervalSince1970.rounded(.up))
        #expect(outcome == .delivered(status: 204))
        let requests = server.requests
        try #require(requests.count == 1)
        let request = requests[0]
        #expect(request.method == "POST")
        #expect(request.target == "/hooks/render?x=1")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["webhook-id"] == "msg_0123456789abcdef")
        #expect(String(decoding: request.body, as: UTF8.self) == Self.body)
        let timestamp = try #require(Int(request.headers["webhook-timestamp"] ?? ""))
        // Stamped while it was sent (no duration is asserted: a loaded machine may take long to send).
        #expect((before...after).contains(timestamp))
        // The receiver's check, on the bytes and headers as they arrived, at the time they were stamped.
        let stamped = Date(timeIntervalSince1970: TimeInterval(timestamp))
        try signer.verify(headers: request.headers, body: request.body, now: stamped)
        let stranger = try WebhookSigner(secret: WebhookSigner.makeSecret())
        #expect(throws: WebhookVerificationError.self) {
            try stranger.verify(headers: request.headers, body: request.body, now: stamped)
        }
    }

    @Test func serverErrorMeansRetry() async throws {
        let server = try LoopbackHTTPServer { _ in .status(500) }
        defer { server.stop() }
        let outcome = try await sender().0.send(id: "msg_1", url: server.url(), body: Self.body)
        guard case .retry(let reason, let retryAfter, _) = outcome else {
            Issue.record("expected a retry, got \(outcome)")
            return
        }
        #expect(reason.hasPrefix("the receiver answered 500"))
        #expect(retryAfter == nil)
    }

    @Test func goneMeansGiveUp() async throws {
        let server = try LoopbackHTTPServer { _ in .status(410) }
        defer { server.stop() }
        let outcome = try await sender().0.send(id: "msg_1", url: server.url(), body: Self.body)
        guard case .giveUp(let reason, _) = outcome else {
            Issue.record("expected to give up, got \(outcome)")
            return
        }
        #expect(reason.hasPrefix("the receiver answered 410"))
    }

    @Test func tooManyRequestsIsRetriedAfterWhatTheReceiverAsks() async throws {
        let server = try LoopbackHTTPServer { _ in .status(429, headers: ["Retry-After: 120"]) }
        defer { server.stop() }
        let outcome = try await sender().0.send(id: "msg_1", url: server.url(), body: Self.body)
        guard case .retry(_, let retryAfter, _) = outcome else {
            Issue.record("expected a retry, got \(outcome)")
            return
        }
        #expect(retryAfter == 120)
    }

    @Test func redirectIsNotFollowed() async throws {
        let server = try LoopbackHTTPServer { request in
            request.target == "/hook" ? .status(307, headers: ["Location: /elsewhere"]) : .status(200)
        }
        defer { server.stop() }
        let outcome = try await sender().0.send(id: "msg_1", url: server.url(), body: Self.body)
        guard case .retry(let reason, _, _) = outcome else {
            Issue.record("expected a retry, got \(outcome)")
            return
        }
        #expect(reason.contains("307"))
        #expect(reason.contains("redirects are not followed"))
        #expect(server.requests.map(\.target) == ["/hook"])
    }

    @Test func silentReceiverTimesOut() async throws {
        let server = try LoopbackHTTPServer { _ in .silence }
        defer { server.stop() }
        let start = Date()
        let outcome = try await sender(timeout: 1).0.send(id: "msg_1", url: server.url(), body: Self.body)
        let elapsed = Date().timeIntervalSince(start)
        guard case .retry(let reason, _, _) = outcome else {
            Issue.record("expected a retry, got \(outcome)")
            return
        }
        #expect(reason == "no response within 1 s" || reason == "the call timed out")
        #expect(elapsed >= 0.9, "it waited for its timeout (no upper bound is asserted: the machine may be loaded)")
    }

    @Test func refusedConnectionMeansRetry() async throws {
        let server = try LoopbackHTTPServer { _ in .status(200) }
        let url = server.url()
        server.stop()
        let outcome = try await sender().0.send(id: "msg_1", url: url, body: Self.body)
        #expect(outcome == .retry(reason: "could not connect to the receiver", retryAfter: nil))
    }

    @Test(arguments: [
        (200, "delivered"), (201, "delivered"), (299, "delivered"),
        (301, "retry"), (308, "retry"), (400, "give up"), (401, "give up"), (403, "give up"), (404, "give up"),
        (408, "retry"), (409, "retry"), (410, "give up"), (413, "give up"), (422, "give up"), (425, "retry"),
        (429, "retry"), (500, "retry"), (502, "retry"), (503, "retry"), (504, "retry"), (100, "retry"),
    ])
    func statusDecidesTheOutcome(status: Int, expected: String) {
        let kind = switch WebhookSender.outcome(status: status, retryAfter: nil) {
        case .delivered: "delivered"
        case .retry: "retry"
        case .giveUp: "give up"
        }
        #expect(kind == expected)
    }

    @Test func readsRetryAfter() {
        let now = Date(timeIntervalSince1970: 1_700_000_000) // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(WebhookSender.seconds(retryAfter: "120", now: now) == 120)
        #expect(WebhookSender.seconds(retryAfter: " 0 ", now: now) == 0)
        #expect(WebhookSender.seconds(retryAfter: "Tue, 14 Nov 2023 22:15:20 GMT", now: now) == 120)
        #expect(WebhookSender.seconds(retryAfter: "Tue, 14 Nov 2023 22:00:00 GMT", now: now) == 0)
        #expect(WebhookSender.seconds(retryAfter: "-5", now: now) == nil)
        #expect(WebhookSender.seconds(retryAfter: "soon", now: now) == nil)
        #expect(WebhookSender.seconds(retryAfter: "99999999999999999999", now: now) == nil)
    }
}

@Suite struct WebhookProxyTests {
    static let body = WebhookSenderTests.body

    private static func url(_ text: String) -> URL { URL(string: text)! }

    @Test func takesTheProxyForTheReceiversSchemeAsCurlDoes() throws {
        let proxy = WebhookProxy(environment: ["https_proxy": "http://squid.internal:3128", "http_proxy": "plain.internal:8080",
                                               "HTTP_PROXY": "ignored:1", "no_proxy": " localhost, .example.org ,10.1.2.3"])
        let https = try #require(try proxy.setting(for: Self.url("https://hooks.example.com/x")).get())
        #expect(https.host == "squid.internal" && https.port == 3128)
        let http = try #require(try proxy.setting(for: Self.url("http://hooks.example.com/x")).get())
        #expect(http.host == "plain.internal" && http.port == 8080)
        for direct in ["https://localhost:9/x", "https://example.org/x", "https://a.b.example.org/x", "http://10.1.2.3/x"] {
            #expect(try proxy.setting(for: Self.url(direct)).get() == nil, "\(direct) is in no_proxy")
        }
        // A look-alike of a no_proxy domain is not in it.
        #expect(try proxy.setting(for: Self.url("https://notexample.org/x")).get() != nil)
    }

    @Test func upperCaseHTTPProxyIsNotReadAndAllProxyIsTheFallback() throws {
        let url = Self.url("http://hooks.example.com/x")
        #expect(try WebhookProxy(environment: ["HTTP_PROXY": "evil:1"]).setting(for: url).get() == nil)
        let all = try #require(try WebhookProxy(environment: ["ALL_PROXY": "socks5://socks.internal"]).setting(for: url).get())
        #expect(all.host == "socks.internal" && all.port == 1080)
        #expect(try WebhookProxy(environment: ["all_proxy": "x:1", "no_proxy": "*"]).setting(for: url).get() == nil)
        #expect(try WebhookProxy(environment: [:]).setting(for: url).get() == nil)
    }

    @Test(arguments: ["ftp://proxy:21", "http://:8080", "http://proxy:99999", "socks5://user:pw@proxy:1080", "https://proxy:443"])
    func refusesAProxyItCannotUse(value: String) throws {
        let url = Self.url("https://hooks.example.com/x")
        guard case .failure(let problem) = WebhookProxy(environment: ["https_proxy": value]).setting(for: url) else {
            Issue.record("\(value) was taken as a proxy")
            return
        }
        #expect(problem.description.hasPrefix("https_proxy '\(value)' "))
    }

    /// The call really goes to the proxy: a loopback "proxy" that refuses every CONNECT sees the receiver's address,
    /// and the attempt is retried with the proxy's refusal as its reason; the receiver itself is never called.
    @Test func callGoesThroughTheProxy() async throws {
        let receiver = try LoopbackHTTPServer { _ in .status(204) }
        defer { receiver.stop() }
        let proxy = try LoopbackHTTPServer { _ in .status(403) }
        defer { proxy.stop() }
        let sender = try WebhookSender(signer: WebhookSigner(secret: WebhookSigner.makeSecret()), timeout: 10,
                                       proxy: WebhookProxy(environment: ["http_proxy": "http://127.0.0.1:\(proxy.port)"]))
        let outcome = await sender.send(id: "msg_1", url: receiver.url(), body: Self.body)
        guard case .retry(let reason, _, _) = outcome else {
            Issue.record("expected a retry, got \(outcome)")
            return
        }
        #expect(reason.hasPrefix("the proxy refused the call"))
        #expect(proxy.requests.map(\.method) == ["CONNECT"])
        #expect(proxy.requests.first?.target == "127.0.0.1:\(receiver.port)")
        #expect(receiver.requests.isEmpty)
    }
}
