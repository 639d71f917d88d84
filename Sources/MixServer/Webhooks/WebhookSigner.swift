import Crypto
import Foundation
import MixIO

/// Signs webhook calls as Standard Webhooks 1.0 does (symmetric, `v1`): an HMAC-SHA256 of
/// `"<webhook-id>.<webhook-timestamp>.<body>"` with the server's secret, so that a receiver can check with any
/// Standard Webhooks library that the call comes from this server, unchanged and recent.
///
/// The secret is written `whsec_` followed by the base64 of 24 to 64 random bytes (the spec's 192 to 512 bits).
/// Its text never appears in an error or a description.
struct WebhookSigner: Sendable, CustomStringConvertible {
    /// How a secret is written before its base64.
    static let secretPrefix = "whsec_"
    /// How many bytes a secret's key may have (Standard Webhooks: at least 192 bits, at most 512).
    static let keyByteCounts = 24...64
    /// How far a receiver lets `webhook-timestamp` be from its clock (the reference libraries' five minutes).
    static let defaultTolerance: TimeInterval = 5 * 60

    /// The key's bytes (SymmetricKey is not Sendable).
    private let key: [UInt8]

    /// A signer for `secret` (`whsec_<base64>`); throws a one-line error saying what is wrong with it.
    init(secret: String) throws(WebhookSecretError) {
        let text = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix(Self.secretPrefix) else {
            throw WebhookSecretError("does not start with '\(Self.secretPrefix)'")
        }
        let encoded = text.dropFirst(Self.secretPrefix.count)
        guard let bytes = Data(base64Encoded: String(encoded)) else {
            throw WebhookSecretError("the text after '\(Self.secretPrefix)' is not base64")
        }
        guard Self.keyByteCounts.contains(bytes.count) else {
            throw WebhookSecretError("its key has \(bytes.count) bytes; Standard Webhooks wants 24 to 64")
        }
        key = Array(bytes)
    }

    /// A new random secret (32 bytes from the system's secure generator), as `whsec_<base64>`.
    static func makeSecret() -> String {
        secretPrefix + Data(RandomBytes.make(32)).base64EncodedString()
    }

    /// The signature of a stream URL (`StreamRoute`): base64url without padding of HMAC-SHA256 over
    /// `"stream.<id>.<expires>"`, with the same key (no webhook message signs such a text: a message id has no `.`).
    func streamSignature(id: String, expires: Int) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("stream.\(id).\(expires)".utf8), using: SymmetricKey(data: key))
        return Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Whether `signature` is `streamSignature(id:expires:)`, compared in constant time.
    func isStreamSignature(_ signature: String, id: String, expires: Int) -> Bool {
        ConstantTime.isEqual(Array(signature.utf8), Array(streamSignature(id: id, expires: expires).utf8))
    }

    /// Never the secret.
    var description: String { "WebhookSigner(\(Self.secretPrefix)…)" }

    /// The `webhook-signature` value for one attempt: `v1,` and the base64 HMAC-SHA256 of `"<id>.<timestamp>.<body>"`.
    /// `id` must not contain `.` (the server makes it: `msg_` and hex digits).
    func signature(id: String, timestamp: Int, body: Data) -> String {
        "v1," + Data(mac(id: id, timestamp: timestamp, body: body)).base64EncodedString()
    }

    /// `signature(id:timestamp:body:)` of a body given as text (its UTF-8 bytes are what is sent and signed).
    func signature(id: String, timestamp: Int, body: String) -> String {
        signature(id: id, timestamp: timestamp, body: Data(body.utf8))
    }

    /// The three Standard Webhooks headers for one attempt: `webhook-id`, `webhook-timestamp` (integer seconds since
    /// 1970) and `webhook-signature`. The id is the same for every attempt of a delivery; the timestamp is the
    /// attempt's.
    func headers(id: String, timestamp: Int, body: Data) -> [String: String] {
        [
            "webhook-id": id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": signature(id: id, timestamp: timestamp, body: body),
        ]
    }

    /// `headers(id:timestamp:body:)` of a body given as text.
    func headers(id: String, timestamp: Int, body: String) -> [String: String] {
        headers(id: id, timestamp: timestamp, body: Data(body.utf8))
    }

    /// Checks a received call as a receiver would: the three headers are there (names in any case), the timestamp
    /// is an integer within `tolerance` of `now`, and one of the space-separated `v1,` signatures is this secret's
    /// (compared in constant time; other versions, such as `v1a`, are skipped). Throws a one-line reason otherwise.
    func verify(headers: [String: String], body: Data, now: Date,
                tolerance: TimeInterval = defaultTolerance) throws(WebhookVerificationError) {
        var lowercased: [String: String] = [:]
        for (name, value) in headers {
            lowercased[name.lowercased()] = value
        }
        guard let id = lowercased["webhook-id"], !id.isEmpty else {
            throw WebhookVerificationError("missing webhook-id header")
        }
        guard let timestampText = lowercased["webhook-timestamp"] else {
            throw WebhookVerificationError("missing webhook-timestamp header")
        }
        guard let signatures = lowercased["webhook-signature"] else {
            throw WebhookVerificationError("missing webhook-signature header")
        }
        let trimmed = timestampText.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let timestamp = Int(trimmed) else {
            throw WebhookVerificationError("webhook-timestamp '\(timestampText.prefix(40))' is not an integer number of seconds")
        }
        let age = now.timeIntervalSince1970 - TimeInterval(timestamp)
        if age > tolerance {
            throw WebhookVerificationError("webhook-timestamp is \(Int(age)) s old; at most \(Int(tolerance)) s is allowed")
        }
        if -age > tolerance {
            throw WebhookVerificationError("webhook-timestamp is \(Int(-age)) s in the future; at most \(Int(tolerance)) s is allowed")
        }
        let expected = mac(id: id, timestamp: timestamp, body: body)
        var isMatched = false
        for candidate in signatures.split(separator: " ", omittingEmptySubsequences: true) {
            guard candidate.hasPrefix("v1,"),
                  let bytes = Data(base64Encoded: String(candidate.dropFirst(3))) else { continue }
            // Every candidate is compared, matched or not, so the time taken says nothing about which matched.
            if ConstantTime.isEqual(bytes, expected) { isMatched = true }
        }
        guard isMatched else {
            throw WebhookVerificationError("no webhook-signature matches this secret")
        }
    }

    /// `verify(headers:body:now:tolerance:)` of a body given as text.
    func verify(headers: [String: String], body: String, now: Date,
                tolerance: TimeInterval = defaultTolerance) throws(WebhookVerificationError) {
        try verify(headers: headers, body: Data(body.utf8), now: now, tolerance: tolerance)
    }

    private func mac(id: String, timestamp: Int, body: Data) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: key))
        hmac.update(data: Data("\(id).\(timestamp).".utf8))
        hmac.update(data: body)
        return Array(hmac.finalize())
    }
}

/// Why a webhook secret cannot be used; the secret itself is never in the message.
struct WebhookSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String {
        "webhook secret: \(reason) (expected '\(WebhookSigner.secretPrefix)' and the base64 of 24 to 64 random bytes)"
    }
}

/// Why a received webhook call was refused.
struct WebhookVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { "webhook not verified: \(reason)" }
}
