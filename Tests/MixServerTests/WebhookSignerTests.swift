import Foundation
import Testing
@testable import MixServer

@Suite struct WebhookSignerTests {
    // Standard Webhooks' published vector: the reference libraries' test suites (Go's TestWebhookSign, PHP's
    // testSignFunctionWorks) sign this and expect this signature; OpenSSL's HMAC gives the same.
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    static let timestamp = 1614265330
    static let body = #"{"test": 2432232314}"#
    static let expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    static let then = Date(timeIntervalSince1970: TimeInterval(timestamp))

    @Test func signsTheStandardWebhooksVector() throws {
        let signer = try WebhookSigner(secret: Self.secret)
        #expect(signer.signature(id: Self.id, timestamp: Self.timestamp, body: Self.body) == Self.expected)
        #expect(signer.signature(id: Self.id, timestamp: Self.timestamp, body: Data(Self.body.utf8)) == Self.expected)
    }

    @Test func headersCarryIDTimestampAndSignature() throws {
        let headers = try WebhookSigner(secret: Self.secret).headers(id: Self.id, timestamp: Self.timestamp, body: Self.body)
        #expect(headers == ["webhook-id": Self.id, "webhook-timestamp": "1614265330", "webhook-signature": Self.expected])
    }

    @Test func verifiesTheVectorAndSeveralSignatures() throws {
        let signer = try WebhookSigner(secret: Self.secret)
        var headers = ["Webhook-Id": Self.id, "WEBHOOK-TIMESTAMP": "1614265330", "webhook-signature": Self.expected]
        try signer.verify(headers: headers, body: Self.body, now: Self.then)
        // Rotation: other keys' signatures and other versions beside it.
        headers["webhook-signature"] = "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v1a,aGVsbG8= v2,\(Self.expected.dropFirst(3))  \(Self.expected)"
        try signer.verify(headers: headers, body: Self.body, now: Self.then.addingTimeInterval(299))
        try signer.verify(headers: headers, body: Self.body, now: Self.then.addingTimeInterval(-299))
    }

    @Test func refusesWhatDoesNotVerify() throws {
        let signer = try WebhookSigner(secret: Self.secret)
        let good = ["webhook-id": Self.id, "webhook-timestamp": "1614265330", "webhook-signature": Self.expected]
        func reason(_ headers: [String: String], body: String = Self.body, now: Date = Self.then) -> String? {
            do {
                try signer.verify(headers: headers, body: body, now: now)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(reason(good) == nil)
        #expect(reason(good, body: #"{"test": 2432232315}"#) == "webhook not verified: no webhook-signature matches this secret")
        #expect(reason(good.merging(["webhook-id": "msg_other"]) { $1 })?.contains("no webhook-signature matches") == true)
        #expect(reason(good, now: Self.then.addingTimeInterval(301)) == "webhook not verified: webhook-timestamp is 301 s old; at most 300 s is allowed")
        #expect(reason(good, now: Self.then.addingTimeInterval(-301)) == "webhook not verified: webhook-timestamp is 301 s in the future; at most 300 s is allowed")
        #expect(reason(good.filter { $0.key != "webhook-id" }) == "webhook not verified: missing webhook-id header")
        #expect(reason(good.filter { $0.key != "webhook-timestamp" }) == "webhook not verified: missing webhook-timestamp header")
        #expect(reason(good.filter { $0.key != "webhook-signature" }) == "webhook not verified: missing webhook-signature header")
        #expect(reason(good.merging(["webhook-timestamp": "1614265330.5"]) { $1 })?.contains("not an integer") == true)
        #expect(reason(good.merging(["webhook-timestamp": "99999999999999999999999"]) { $1 })?.contains("not an integer") == true)
        #expect(reason(good.merging(["webhook-signature": "v1,!!!"]) { $1 })?.contains("no webhook-signature matches") == true)
        #expect(reason(good.merging(["webhook-signature": ""]) { $1 })?.contains("no webhook-signature matches") == true)
        // Another secret's signer refuses the vector.
        let other = try WebhookSigner(secret: WebhookSigner.makeSecret())
        #expect(throws: WebhookVerificationError.self) { try other.verify(headers: good, body: Self.body, now: Self.then) }
    }

    @Test func makesSecretsItCanRead() throws {
        let secret = WebhookSigner.makeSecret()
        #expect(secret.hasPrefix("whsec_"))
        #expect(Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32)
        #expect(secret != WebhookSigner.makeSecret())
        let signer = try WebhookSigner(secret: secret + "\n")
        let headers = signer.headers(id: "msg_1", timestamp: 1_700_000_000, body: "{}")
        try signer.verify(headers: headers, body: "{}", now: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(!signer.description.contains(secret.dropFirst(6)))
    }

    @Test(arguments: [
        ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "does not start with 'whsec_'"),
        ("whsec_", "its key has 0 bytes; Standard Webhooks wants 24 to 64"),
        ("whsec_not base64!", "the text after 'whsec_' is not base64"),
        ("whsec_" + Data(repeating: 7, count: 23).base64EncodedString(), "its key has 23 bytes; Standard Webhooks wants 24 to 64"),
        ("whsec_" + Data(repeating: 7, count: 65).base64EncodedString(), "its key has 65 bytes; Standard Webhooks wants 24 to 64"),
    ])
    func refusesMalformedSecrets(secret: String, reason: String) {
        #expect {
            _ = try WebhookSigner(secret: secret)
        } throws: { error in
            let description = (error as? WebhookSecretError)?.description ?? ""
            return description == "webhook secret: \(reason) (expected 'whsec_' and the base64 of 24 to 64 random bytes)"
                && !description.contains("\n")
        }
    }

    @Test func takesKeysOf24To64Bytes() throws {
        _ = try WebhookSigner(secret: "whsec_" + Data(repeating: 1, count: 24).base64EncodedString())
        _ = try WebhookSigner(secret: "whsec_" + Data(repeating: 1, count: 64).base64EncodedString())
    }
}
