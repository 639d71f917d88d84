import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// What became of one webhook attempt.
enum WebhookOutcome: Sendable, Equatable {
    /// The receiver answered 2xx.
    case delivered(status: Int)
    /// The attempt failed in a way that may pass (5xx, 3xx, 408, 409, 425, 429, no answer, timeout); `retryAfter` is
    /// the receiver's `Retry-After`, in seconds from the attempt, when it gave one; `status`, the HTTP status it
    /// answered, when it answered.
    case retry(reason: String, retryAfter: TimeInterval?, status: Int? = nil)
    /// The receiver refused the call for good (a 4xx other than 408, 409, 425 and 429, such as 410 Gone), or there is
    /// nothing to send; `status` as for `retry`.
    case giveUp(reason: String, status: Int? = nil)
}

/// Makes one attempt of a webhook delivery: a POST of the JSON body with the Standard Webhooks headers
/// (`WebhookSigner`), `content-type: application/json`, a time limit, and no redirect followed (Standard Webhooks:
/// a 3xx is a failure; following it would also let a receiver send the server somewhere the allow list does not
/// name). Success is a 2xx. Check the URL with `HostAllowList` first.
///
/// Each attempt has its own HTTP client (AsyncHTTPClient, over SwiftNIO): no cookies, no cache, no connection shared
/// with another receiver, and one try at connecting (a refused connection is an answer, retried on the delivery's
/// schedule, not within the attempt). A proxy is taken from the environment as curl takes it (`WebhookProxy`).
/// Foundation's URLSession is not used: on Linux it is libcurl's, whose libraries (GnuTLS, Kerberos, LDAP, ...) would
/// be mapped into every mixrender process, renders included, about 6 MB of resident memory.
struct WebhookSender: Sendable {
    let signer: WebhookSigner
    /// The longest an attempt may take, from connecting to the response's status line.
    let timeout: TimeInterval
    let userAgent: String
    /// The environment's proxy settings (`http_proxy`, `https_proxy`, `no_proxy`).
    let proxy: WebhookProxy

    init(signer: WebhookSigner, timeout: TimeInterval = 10, userAgent: String = "mixrender-webhooks",
         proxy: WebhookProxy = WebhookProxy(environment: ProcessInfo.processInfo.environment)) {
        self.signer = signer
        self.timeout = timeout
        self.userAgent = userAgent
        self.proxy = proxy
    }

    /// POSTs `body` to `url` as delivery `id` (the same for every attempt), signed with the attempt's time `now`.
    /// The response's body is not read: its status decides.
    func send(id: String, url: URL, body: String, now: Date = Date()) async -> WebhookOutcome {
        let bodyData = Data(body.utf8)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        let timestamp = Int(now.timeIntervalSince1970.rounded(.down))
        for (name, value) in signer.headers(id: id, timestamp: timestamp, body: bodyData) {
            request.headers.replaceOrAdd(name: name, value: value)
        }
        request.headers.replaceOrAdd(name: "content-type", value: "application/json")
        request.headers.replaceOrAdd(name: "user-agent", value: userAgent)
        request.body = .bytes(ByteBuffer(bytes: bodyData))

        return await Self.attempt(request, url: url, proxy: proxy, timeout: timeout, deadline: timeout, now: now)
    }

    /// One call of `request` to `url` (a webhook's, or an upload's): a client of its own, one try at connecting,
    /// no redirect followed, `timeout` to connect and between reads, the whole call within `deadline` seconds; the
    /// response's status judged by `outcome(status:retryAfter:)`, its body not read.
    static func attempt(_ request: HTTPClientRequest, url: URL, proxy: WebhookProxy, timeout: TimeInterval,
                        deadline: TimeInterval, now: Date) async -> WebhookOutcome {
        let limit = TimeAmount.nanoseconds(Int64((timeout * 1e9).rounded()))
        var pool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(1))
        pool.retryConnectionEstablishment = false
        let proxySetting: HTTPClient.Configuration.Proxy?
        switch proxy.setting(for: url) {
        case .success(let setting): proxySetting = setting
        case .failure(let problem): return .retry(reason: problem.description, retryAfter: nil)
        }
        let configuration = HTTPClient.Configuration(redirectConfiguration: .disallow,
                                                     timeout: .init(connect: limit, read: limit),
                                                     connectionPool: pool, proxy: proxySetting)
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let outcome: WebhookOutcome
        do {
            let response = try await client.execute(request, deadline: .now() + .nanoseconds(Int64((deadline * 1e9).rounded())))
            let retryAfter = response.headers.first(name: "retry-after").flatMap { Self.seconds(retryAfter: $0, now: now) }
            outcome = Self.outcome(status: Int(response.status.code), retryAfter: retryAfter)
            // The body is not wanted: dropping the response closes the connection (the client is shut down below).
        } catch {
            outcome = .retry(reason: Self.describe(error, timeout: deadline), retryAfter: nil)
        }
        try? await client.shutdown()
        return outcome
    }

    /// The outcome of a response with `status`.
    static func outcome(status: Int, retryAfter: TimeInterval?) -> WebhookOutcome {
        let phrase = HTTPResponseStatus(statusCode: status).reasonPhrase
        let answer = "the receiver answered \(status)" + (phrase.isEmpty ? "" : " (\(phrase))")
        switch status {
        case 200..<300:
            return .delivered(status: status)
        case 300..<400:
            return .retry(reason: answer + "; redirects are not followed", retryAfter: retryAfter, status: status)
        case 408, 409, 425, 429:
            return .retry(reason: answer, retryAfter: retryAfter, status: status)
        case 400..<500:
            return .giveUp(reason: answer, status: status)
        default:
            return .retry(reason: answer, retryAfter: retryAfter, status: status)
        }
    }

    /// A `Retry-After` value (delay in seconds, or an HTTP date) as seconds from `now`; nil when malformed.
    static func seconds(retryAfter value: String, now: Date) -> TimeInterval? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return TimeInterval(text)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

extension WebhookSender {
    /// Why an attempt got no answer, in a few words for the delivery's record.
    static func describe(_ error: any Error, timeout: TimeInterval) -> String {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .deadlineExceeded: return "no response within \(seconds(timeout))"
            case .connectTimeout, .readTimeout, .writeTimeout, .tlsHandshakeTimeout, .httpProxyHandshakeTimeout,
                 .socksHandshakeTimeout, .getConnectionFromPoolTimeout:
                return "the call timed out"
            case .remoteConnectionClosed: return "the receiver closed the connection without an answer"
            case .cancelled, .requestStreamCancelled: return "the call was cancelled"
            case .invalidProxyResponse, .proxyAuthenticationRequired: return "the proxy refused the call (\(error))"
            default: return "the call failed (\(error))"
            }
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return "the receiver's host name does not resolve"
            }
            return "could not connect to the receiver"
        case let error as IOError where [ECONNREFUSED, ECONNRESET, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT].contains(error.errnoCode):
            // A receiver given as an address is connected to directly, without NIOConnectionError's wrapping.
            return "could not connect to the receiver"
        case ChannelError.connectTimeout:
            return "the call timed out"
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return "the TLS connection failed (\(error))"
        case is HTTPParserError:
            return "the receiver's answer is not valid HTTP"
        case is CancellationError:
            return "the call was cancelled"
        default:
            return "the call failed (\(error))"
        }
    }

    private static func seconds(_ interval: TimeInterval) -> String {
        interval == interval.rounded() ? "\(Int(interval)) s" : "\(interval) s"
    }
}
