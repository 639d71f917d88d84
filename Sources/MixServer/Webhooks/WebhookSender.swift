import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What became of one webhook attempt.
enum WebhookOutcome: Sendable, Equatable {
    /// The receiver answered 2xx.
    case delivered(status: Int)
    /// The attempt failed in a way that may pass (5xx, 3xx, 408, 409, 425, 429, no answer, timeout); `retryAfter` is
    /// the receiver's `Retry-After`, in seconds from the attempt, when it gave one.
    case retry(reason: String, retryAfter: TimeInterval?)
    /// The receiver refused the call for good (a 4xx other than 408, 409, 425 and 429, such as 410 Gone).
    case giveUp(reason: String)
}

/// Makes one attempt of a webhook delivery: a POST of the JSON body with the Standard Webhooks headers
/// (`WebhookSigner`), `content-type: application/json`, a time limit, and no redirect followed (Standard Webhooks:
/// a 3xx is a failure; following it would also let a receiver send the server somewhere the allow list does not
/// name). Success is a 2xx. Check the URL with `WebhookURLPolicy` first.
///
/// Each attempt has its own ephemeral URLSession: no cookies, no cache, no connection shared with another receiver.
/// On Linux, URLSession is libcurl's, which takes a proxy from the `http_proxy`, `https_proxy` and `no_proxy`
/// environment variables.
struct WebhookSender: Sendable {
    let signer: WebhookSigner
    /// The longest an attempt may take, from connecting to the response's status line.
    let timeout: TimeInterval
    let userAgent: String

    init(signer: WebhookSigner, timeout: TimeInterval = 10, userAgent: String = "mixrender-webhooks") {
        self.signer = signer
        self.timeout = timeout
        self.userAgent = userAgent
    }

    /// POSTs `body` to `url` as delivery `id` (the same for every attempt), signed with the attempt's time `now`.
    /// The response's body is not read: its status decides.
    func send(id: String, url: URL, body: String, now: Date = Date()) async -> WebhookOutcome {
        let bodyData = Data(body.utf8)
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = bodyData
        request.httpShouldHandleCookies = false
        let timestamp = Int(now.timeIntervalSince1970.rounded(.down))
        for (name, value) in signer.headers(id: id, timestamp: timestamp, body: bodyData) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        request.setValue(userAgent, forHTTPHeaderField: "user-agent")

        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData

        let call = WebhookCall(timeout: timeout)
        let session = URLSession(configuration: configuration, delegate: call, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: request)
        let ending = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                call.start(task, continuation: continuation)
            }
        } onCancel: {
            call.end(.failure("the attempt was cancelled"))
        }
        switch ending {
        case .failure(let reason):
            return .retry(reason: reason, retryAfter: nil)
        case .response(let status, let retryAfterHeader):
            return Self.outcome(status: status, retryAfter: retryAfterHeader.flatMap { Self.seconds(retryAfter: $0, now: now) })
        }
    }

    /// The outcome of a response with `status`.
    static func outcome(status: Int, retryAfter: TimeInterval?) -> WebhookOutcome {
        let answer = "the receiver answered \(status) (\(HTTPURLResponse.localizedString(forStatusCode: status)))"
        switch status {
        case 200..<300:
            return .delivered(status: status)
        case 300..<400:
            return .retry(reason: answer + "; redirects are not followed", retryAfter: retryAfter)
        case 408, 409, 425, 429:
            return .retry(reason: answer, retryAfter: retryAfter)
        case 400..<500:
            return .giveUp(reason: answer)
        default:
            return .retry(reason: answer, retryAfter: retryAfter)
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

/// How an attempt ended: a response's status line, or no response and why.
private enum WebhookCallEnding: Sendable {
    case response(status: Int, retryAfter: String?)
    case failure(String)
}

/// The URLSession delegate of one attempt: refuses redirects, takes the response's status and stops the transfer
/// there, ends the attempt at the time limit whatever URLSession does, and resumes the waiting task exactly once.
private final class WebhookCall: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let timeout: TimeInterval
    private let lock = NSLock()
    // Guarded by `lock`.
    private var continuation: CheckedContinuation<WebhookCallEnding, Never>?
    private var ending: WebhookCallEnding?
    private var task: URLSessionTask?

    init(timeout: TimeInterval) {
        self.timeout = timeout
    }

    func start(_ task: URLSessionTask, continuation: CheckedContinuation<WebhookCallEnding, Never>) {
        lock.lock()
        if let ending {
            lock.unlock()
            continuation.resume(returning: ending)
            return
        }
        self.continuation = continuation
        self.task = task
        lock.unlock()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
            end(.failure("no response within \(Self.seconds(timeout))"))
        }
        task.resume()
    }

    /// Ends the attempt (the first ending wins) and stops its transfer.
    func end(_ result: WebhookCallEnding) {
        lock.lock()
        guard ending == nil else {
            lock.unlock()
            return
        }
        ending = result
        let waiting = continuation
        continuation = nil
        let running = task
        task = nil
        lock.unlock()
        running?.cancel()
        waiting?.resume(returning: result)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse {
            end(.response(status: http.statusCode, retryAfter: http.value(forHTTPHeaderField: "Retry-After")))
        } else {
            end(.failure("the answer is not HTTP"))
        }
        completionHandler(.cancel)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            end(.failure(Self.describe(error)))
        } else {
            end(.failure("the receiver closed the connection without an answer"))
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "the call failed: \(error)" }
        switch error.code {
        case .timedOut: return "the call timed out"
        case .cannotConnectToHost: return "could not connect to the receiver"
        case .cannotFindHost, .dnsLookupFailed: return "the receiver's host name does not resolve"
        case .networkConnectionLost: return "the connection was lost"
        case .notConnectedToInternet: return "no network"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return "the TLS connection failed (\(error.code.rawValue))"
        case .badServerResponse: return "the receiver's answer is not valid HTTP"
        case .cancelled: return "the call was cancelled"
        default: return "the call failed (URL error \(error.code.rawValue))"
        }
    }

    private static func seconds(_ interval: TimeInterval) -> String {
        interval == interval.rounded() ? "\(Int(interval)) s" : "\(interval) s"
    }
}
