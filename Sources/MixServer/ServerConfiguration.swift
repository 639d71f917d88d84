import Foundation
import NIOCore

/// How `mixrender serve` runs (docs/serve.md lists every option, its default and what a client sees at a limit).
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// The state folder: the SQLite database, uploaded sounds, results, the tokens and the webhook secret.
    public var stateFolder = "mixrender-state"
    /// The hashed bearer tokens (`NAME sha256:<hex>` lines); nil: `<state>/tokens`, made with one token when absent.
    public var tokensFile: String? = nil
    /// A PostgreSQL URL: jobs in a database several servers share; nil: SQLite in the state folder.
    public var databaseURL: String? = nil
    /// Where results are kept; nil: `<state>/results` (servers over one database share one folder).
    public var resultsFolder: String? = nil
    /// The published templates, one file a version (docs/templates.md); nil: `<state>/templates` (servers over one
    /// database share one folder, as they share results).
    public var templatesFolder: String? = nil
    /// Where uploaded sounds are kept; nil: `<state>/sounds` (servers over one database share one folder).
    public var uploadsFolder: String? = nil
    /// The webhook signing secret's file; nil: `<state>/webhook-secret` (servers over one database share one).
    public var webhookSecretFile: String? = nil
    /// The operator's sound folders, by the name presets use (`library` for `library/rain.ogg`).
    public var soundFolders: [String: String] = [:]
    /// Results are kept up to this many bytes, least recently used out first.
    public var storeBudgetBytes: Int64 = 10 << 30
    /// Where prepared sounds, speech and loudness measurements are kept between renders and restarts; nil:
    /// `<state>/cache` (servers over one database may share one folder, as they share results).
    public var cacheFolder: String? = nil
    /// The cache folder is kept up to this many bytes, least recently used out first.
    public var cacheBudgetBytes: Int64 = 4 << 30
    /// Hosts (`host` or `host:port`) webhooks may call; none: webhooks are refused.
    public var webhookHosts: [String] = []
    /// Hosts (`host` or `host:port`) a render's files may be delivered to (a request's `deliveries`); none: refused.
    public var deliveryHosts: [String] = []
    /// This server's name in the job store's leases (unique per server over one database); nil: host name and port.
    public var workerName: String? = nil
    public var limits = ServiceLimits()
    /// Seconds a request's head may take to arrive whole, from the connection opening or the request's first byte
    /// (nginx's client_header_timeout, 60 s): bytes arriving do not reset it, so a dripped header is closed.
    public var headerTimeoutSeconds: Double = 60
    /// Seconds a request's body may go between two reads (nginx's client_body_timeout, 60 s).
    public var bodyTimeoutSeconds: Double = 60
    /// Seconds a connection may sit idle between a response's end and a next request (nginx's keepalive_timeout, 75 s).
    public var idleTimeoutSeconds: Double = 75

    var connectionTimeouts: ConnectionTimeouts.Limits {
        func amount(_ seconds: Double) -> TimeAmount { .nanoseconds(Int64(seconds * 1e9)) }
        return .init(header: amount(headerTimeoutSeconds), body: amount(bodyTimeoutSeconds), idle: amount(idleTimeoutSeconds))
    }
    /// A finished render (its job, owners, deliveries and files) is forgotten this long after it finished: 30 days.
    public var forgetAfterSeconds: Double = 30 * 86_400
    /// Connections held at once; past it a new one is answered 503 and closed. nil: from the descriptor limit (raised to
    /// its hard limit at start) less what renders need (`ConnectionLimits.maximum`).
    public var maxConnections: Int? = nil
    /// Connections held at once from one address (behind a proxy, every connection comes from the proxy's).
    public var maxConnectionsPerAddress = 512
    /// Below this many free bytes on the disk of a folder the server writes (state, results, uploads), it takes no new
    /// render or upload (503, with Retry-After) and `/readyz` says it is not ready.
    public var minimumFreeBytes: Int64 = 64 << 20

    public init() {}

    var tokensPath: String { tokensFile ?? stateFolder + "/tokens" }
    var resultsPath: String { resultsFolder ?? stateFolder + "/results" }
    var templatesPath: String { templatesFolder ?? stateFolder + "/templates" }
    var soundsPath: String { uploadsFolder ?? stateFolder + "/sounds" }
    var cachePath: String { cacheFolder ?? stateFolder + "/cache" }
    var databasePath: String { stateFolder + "/jobs.sqlite" }
    var webhookSecretPath: String { webhookSecretFile ?? stateFolder + "/webhook-secret" }
    var worker: String {
        workerName ?? (databaseURL == nil ? "local" : "\(ProcessInfo.processInfo.hostName):\(port)")
    }
}
