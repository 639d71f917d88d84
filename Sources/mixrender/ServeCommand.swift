import ArgumentParser
import Dispatch
import Foundation
import MixRender
import MixServer

/// `mixrender serve`: the render service an app's back end calls (docs/serve.md).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the render service: an HTTP API to submit renders, follow them and download the results (docs/serve.md).",
        discussion: """
            With no options it keeps its state (jobs in SQLite, uploaded sounds, results, tokens) in ./mixrender-state,
            listens on 127.0.0.1:8080, and prints a token the first time. The page at http://127.0.0.1:8080/ renders
            a preset in the browser. SIGTERM or Ctrl-C stops taking requests and puts running renders back in the queue.
            """)

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed).")
    var port = 8080

    @Option(help: "The state folder: jobs (SQLite), uploaded sounds, results, tokens, the webhook secret.")
    var state = "mixrender-state"

    @OptionGroup var voices: VoicesFolderOptions

    @Option(help: "Renders at once (default: the number of cores).")
    var jobs: Int?

    @Option(help: "The file of hashed bearer tokens (default: STATE/tokens, made with one token when absent).")
    var tokens: String?

    @Option(help: "A PostgreSQL URL (postgres://user:password@host:port/database): jobs in a database several servers share.")
    var database: String?

    @Option(help: "Where results are kept (default: STATE/results; servers over one database share one folder).")
    var results: String?

    @Option(help: "Where uploaded sounds are kept (default: STATE/sounds; servers over one database share one folder).")
    var uploads: String?

    @Option(name: .customLong("webhook-secret-file"), help: "The webhook signing secret, whsec_... (default: STATE/webhook-secret, made when absent; servers over one database share one).")
    var webhookSecretFile: String?

    @Option(help: "An operator sound folder, NAME=DIR: presets name its files NAME/path (repeatable).")
    var sounds: [String] = []

    @Option(name: .customLong("store-budget"), help: "Results are kept up to this size, least recently used out first (10G).")
    var storeBudget = "10G"

    @Option(name: .customLong("cache-dir"), help: "Where prepared sounds, speech and loudness measurements are kept between renders and restarts (default: STATE/cache; servers over one database may share one).")
    var cacheDir: String?

    @Option(name: .customLong("cache-budget"), help: "The cache folder is kept up to this size, least recently used out first (4G).")
    var cacheBudget = "4G"

    @Option(name: .customLong("forget-after"), help: "A finished render, its record and its files are forgotten this long after it finished (720h).")
    var forgetAfter = "720h"

    @Option(name: .customLong("max-connections"), help: "Connections held at once; past it a new one is answered 503 (from the descriptor limit).")
    var maxConnections: Int? = nil

    @Option(name: .customLong("max-connections-per-address"), help: "Connections held at once from one address; past it a new one is answered 503 (512).")
    var maxConnectionsPerAddress = 512

    @Option(name: .customLong("min-free-space"), help: "Below this much free space where it writes, the server takes no new render or upload and is not ready (64M).")
    var minFreeSpace = "64M"

    @Option(name: .customLong("max-body"), help: "The largest JSON request body (1M).")
    var maxBody = "1M"

    @Option(name: .customLong("max-upload"), help: "The largest sound upload (256M).")
    var maxUpload = "256M"

    @Option(name: .customLong("max-tracks"), help: "The most tracks a preset may have (64).")
    var maxTracks = 64

    @Option(name: .customLong("max-duration"), help: "The longest render (12h).")
    var maxDuration = "12h"

    @Option(name: .customLong("jobs-per-token"), help: "The most renders one token may have queued or rendering (20).")
    var jobsPerToken = 20

    @Option(name: .customLong("queue-length"), help: "The most renders queued in all (1000).")
    var queueLength = 1000

    @Option(name: .customLong("job-time-limit"), help: "The longest one render may take (2h).")
    var jobTimeLimit = "2h"

    @Option(name: .customLong("header-timeout"), help: "A connection is closed when a request's head takes longer than this to arrive whole (60s).")
    var headerTimeout = "60s"

    @Option(name: .customLong("body-timeout"), help: "A connection is closed when a request's body sends nothing for this long (60s).")
    var bodyTimeout = "60s"

    @Option(name: .customLong("idle-timeout"), help: "A connection is closed when it is idle this long between requests (75s).")
    var idleTimeout = "75s"

    @Option(name: .customLong("webhook-host"), help: "A host (host or host:port) webhooks may call (repeatable; none: webhooks refused).")
    var webhookHosts: [String] = []

    @Option(name: .customLong("delivery-host"), help: "A host (host or host:port) a render's files may be uploaded to, as a request's deliveries ask (repeatable; none: deliveries refused).")
    var deliveryHosts: [String] = []

    @Option(name: .customLong("worker-name"), help: .hidden)
    var workerName: String?

    @Option(name: .customLong("new-token"), help: "Print a new token named NAME, add its hash to the tokens file, and exit.")
    var newToken: String?

    @Option(name: .customLong("templates-only"), help: ArgumentHelp("With --new-token: the token renders only these templates (names separated by commas, or * for any template), and nothing else: the key an app's users can reach (docs/templates.md).", valueName: "NAMES"))
    var templatesOnly: String?

    @Option(name: .customLong("templates"), help: ArgumentHelp("The folder of published templates (default: STATE/templates; servers sharing a database share it).", valueName: "DIR"))
    var templatesFolder: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw CLIError("--port must be from 0 to 65535, not \(port)") }
        if let jobs, !(1...256).contains(jobs) { throw CLIError("--jobs must be from 1 to 256, not \(jobs)") }
        guard (1...4096).contains(maxTracks) else { throw CLIError("--max-tracks must be from 1 to 4096, not \(maxTracks)") }
        guard (1...1_000_000).contains(jobsPerToken) else { throw CLIError("--jobs-per-token must be from 1 to 1000000, not \(jobsPerToken)") }
        guard (1...10_000_000).contains(queueLength) else { throw CLIError("--queue-length must be from 1 to 10000000, not \(queueLength)") }
        if let maxConnections, !(1...1_000_000).contains(maxConnections) {
            throw CLIError("--max-connections must be from 1 to 1000000, not \(maxConnections)")
        }
        guard (1...1_000_000).contains(maxConnectionsPerAddress) else {
            throw CLIError("--max-connections-per-address must be from 1 to 1000000, not \(maxConnectionsPerAddress)")
        }
    }

    func run() throws {
        voices.apply()
        // The voices folder is read and checked now, once: each refused voice is a line for the operator at start.
        for refusal in InstalledVoices.current().refused { FileHandle.standardError.write(Data("warning: \(refusal.reason)\n".utf8)) }
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.stateFolder = state
        configuration.tokensFile = tokens
        configuration.databaseURL = database
        configuration.resultsFolder = results
        configuration.uploadsFolder = uploads
        configuration.webhookSecretFile = webhookSecretFile
        configuration.workerName = workerName
        configuration.webhookHosts = webhookHosts
        configuration.deliveryHosts = deliveryHosts
        for folder in sounds {
            guard let equals = folder.firstIndex(of: "="), equals != folder.startIndex else {
                throw CLIError("--sounds: '\(folder)' is not NAME=DIR")
            }
            let name = String(folder[..<equals]), path = String(folder[folder.index(after: equals)...])
            guard !path.isEmpty else { throw CLIError("--sounds: '\(folder)' names no folder") }
            guard configuration.soundFolders[name] == nil else { throw CLIError("--sounds: '\(name)' is given twice") }
            configuration.soundFolders[name] = path
        }
        configuration.storeBudgetBytes = try Self.bytes(storeBudget, option: "--store-budget")
        configuration.cacheFolder = cacheDir
        configuration.cacheBudgetBytes = try Self.bytes(cacheBudget, option: "--cache-budget")
        configuration.minimumFreeBytes = try Self.bytes(minFreeSpace, option: "--min-free-space")
        configuration.forgetAfterSeconds = try Self.seconds(forgetAfter, option: "--forget-after", atMostHours: 24 * 3660)
        configuration.maxConnections = maxConnections
        configuration.maxConnectionsPerAddress = maxConnectionsPerAddress
        var limits = ServiceLimits()
        limits.maxBodyBytes = Int(try Self.bytes(maxBody, option: "--max-body", atMost: 64 << 20))
        limits.maxUploadBytes = Int(try Self.bytes(maxUpload, option: "--max-upload", atMost: 16 << 30))
        limits.maxTracks = maxTracks
        limits.maxDurationSeconds = try Self.seconds(maxDuration, option: "--max-duration")
        limits.jobsPerToken = jobsPerToken
        limits.queueLength = queueLength
        limits.jobSeconds = try Self.seconds(jobTimeLimit, option: "--job-time-limit")
        limits.concurrentRenders = jobs ?? ProcessInfo.processInfo.activeProcessorCount
        configuration.limits = limits
        // At most an hour: longer lets idle clients hold every connection.
        configuration.headerTimeoutSeconds = try Self.seconds(headerTimeout, option: "--header-timeout", atMostHours: 1)
        configuration.bodyTimeoutSeconds = try Self.seconds(bodyTimeout, option: "--body-timeout", atMostHours: 1)
        configuration.idleTimeoutSeconds = try Self.seconds(idleTimeout, option: "--idle-timeout", atMostHours: 1)

        if templatesOnly != nil, newToken == nil { throw CLIError("--templates-only: give it with --new-token NAME, for the token it makes") }
        configuration.templatesFolder = templatesFolder
        if let newToken {
            let token = try RenderServer.addToken(named: newToken, templates: templatesOnly.map { [$0] }, configuration: configuration)
            print(token)
            return
        }
        // The server runs on Swift's concurrency pool; this thread waits for it to stop (SIGTERM, SIGINT).
        let outcome = Locked<Result<Void, Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await RenderServer.run(configuration) { line in
                    print(line)
                    try? Terminal.flushStandardOutput()
                }
                outcome.withLock { $0 = .success(()) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        if case .failure(let error)? = outcome.withLock({ $0 }) { throw CLIError("serve: \(error)") }
    }

    /// `text` as bytes: a number with an optional K, M, G or T (powers of 1024).
    static func bytes(_ text: String, option: String, atMost limit: Int64 = 1 << 50) throws -> Int64 {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(text.uppercased()), unit: Int64 = 1
        if digits.hasSuffix("B") { digits = digits.dropLast() }
        if let last = digits.last, let scale = units[last] { unit = scale; digits = digits.dropLast() }
        guard let value = Double(digits), value.isFinite, value > 0, value * Double(unit) <= Double(limit) else {
            throw CLIError("\(option): '\(text)' is not a size from 1 byte to \(limit >> 20)M (a number with K, M, G or T)")
        }
        return Int64(value * Double(unit))
    }

    static func seconds(_ text: String, option: String, atMostHours hours: Int = 1_000) throws -> Double {
        guard let seconds = TimeParser.seconds(text), seconds > 0, seconds <= Double(hours) * 3600 else {
            throw CLIError("\(option): '\(text)' is not a length of time up to \(hours)h (seconds, or 90s, 45m, 8h, 1:30:00)")
        }
        return seconds
    }
}
