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
        guard case .retry(let reason, let retryAfter) = outcome else {
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
        guard case .giveUp(let reason) = outcome else {
            Issue.record("expected to give up, got \(outcome)")
            return
        }
        #expect(reason.hasPrefix("the receiver answered 410"))
    }

    @Test func tooManyRequestsIsRetriedAfterWhatTheReceiverAsks() async throws {
        let server = try LoopbackHTTPServer { _ in .status(429, headers: ["Retry-After: 120"]) }
        defer { server.stop() }
        let outcome = try await sender().0.send(id: "msg_1", url: server.url(), body: Self.body)
        guard case .retry(_, let retryAfter) = outcome else {
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
        guard case .retry(let reason, _) = outcome else {
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
        guard case .retry(let reason, _) = outcome else {
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
