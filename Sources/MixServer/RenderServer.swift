import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import MixIO
import MixRender
import OpenAPIHummingbird
import OpenAPIRuntime
import Prometheus
import ServiceLifecycle

/// `mixrender serve`: puts the render service together and runs it until SIGTERM or SIGINT (docs/serve.md).
///
/// The state folder holds the SQLite jobs (unless a PostgreSQL URL is given), the uploaded sounds, the results, the
/// tokens and the webhook secret; the first start makes the tokens file with one token and prints it. The pieces are
/// put together by `buildApplication` and run as the application's services.
public enum RenderServer {
    /// Runs the server; `announce` gets the lines a person starting it should see (the token made, the address).
    public static func run(_ configuration: ServerConfiguration, announce: @escaping @Sendable (String) -> Void) async throws {
        ProcessSystems.bootstrap()
        let app = try await buildApplication(configuration, announce: announce)
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// The whole service as one Hummingbird application, not yet running: its routes, and as its services the state
    /// folder's lock, the job store, the runner and the readiness guard. `run` runs it on a socket; the route tests
    /// run it in process (HummingbirdTesting's `app.test(.router)`), services and all, with no socket.
    ///
    /// On a graceful shutdown the application stops its services in reverse: the HTTP server stops taking requests
    /// first, then readiness falls, then the runner stops its renders and puts their jobs back in the queue, then the
    /// store closes, and the state folder's lock goes last.
    static func buildApplication(_ configuration: ServerConfiguration,
                                 announce: @escaping @Sendable (String) -> Void) async throws -> Application<RouterResponder<BasicRequestContext>> {
        let logger = Logger(label: "mixrender.serve")
        try StateFolder.prepare(configuration)
        // One server at a time on a folder whose jobs are in SQLite (with PostgreSQL, servers share folders by design).
        let ownership = configuration.databaseURL == nil ? try StateFolder.own(configuration) : nil
        let tokens = try TokenSource.open(configuration, announce: announce)
        let signer = try WebhookSecret.signer(configuration)
        let registry = ProcessSystems.registry

        let store: any JobStore
        if let url = configuration.databaseURL {
            store = try PostgresJobStore(url: url, logger: logger)
        } else {
            store = try SQLiteJobStore(folder: URL(fileURLWithPath: configuration.stateFolder))
        }
        let results = try ResultStore(folder: configuration.resultsPath)
        let sounds = try SoundLibrary(uploadsFolder: configuration.soundsPath,
                                      folders: configuration.soundFolders.map { "\($0.key)=\($0.value)" }.sorted())
        // A partial upload in the uploads folder is a dead server's: this one has taken no request yet.
        _ = sounds.sweepPartialUploads(olderThan: configuration.databaseURL == nil ? 0 : 3600)
        let webhooks = try HostAllowList(allowing: configuration.webhookHosts)
        let deliveryHosts = try HostAllowList(allowing: configuration.deliveryHosts, subject: "delivery")
        // Decoded sources shared by every render here, as a batch shares them (the budget bounds what stays held), and
        // kept with speech and measurements in the cache folder, so a restart or a second server makes none again.
        let material: RenderMaterial
        do {
            material = try RenderMaterial(budgetBytes: 512 << 20, folder: configuration.cachePath,
                                          folderBudgetBytes: configuration.cacheBudgetBytes)
        } catch {
            throw ServerSetupError("\(error)")
        }
        let storage = StorageWatch(folders: [.init(role: "state folder", path: configuration.stateFolder),
                                             .init(role: "results folder", path: configuration.resultsPath),
                                             .init(role: "uploads folder", path: configuration.soundsPath),
                                             .init(role: "cache folder", path: configuration.cachePath)],
                                   minimumFreeBytes: configuration.minimumFreeBytes, logger: logger)
        // The service (what requests ask) and the runner (the renders) stand side by side, made of the same parts.
        let planner = RenderPlanner(sounds: sounds, limits: configuration.limits, material: material)
        let live = LiveProgress(), wake = JobSignal()
        let service = RenderService(store: store, results: results, planner: planner, live: live, wake: wake,
                                    webhooks: webhooks, deliveryHosts: deliveryHosts,
                                    templates: TemplateStore(folder: configuration.templatesPath), streamSigner: signer,
                                    storage: storage, logger: logger)
        let runner = JobRunner(store: store, planner: planner, results: results, live: live, wake: wake,
                               worker: configuration.worker, budgetBytes: configuration.storeBudgetBytes,
                               webhookSender: WebhookSender(signer: signer),
                               partialsSweepAge: configuration.databaseURL == nil ? 0 : 3600,
                               forgetAfterSeconds: configuration.forgetAfterSeconds, logger: logger)
        let readiness = Readiness(store: store, storage: storage)
        let page = try PageFiles()

        let router = Router()
        router.add(middleware: LogRequestsMiddleware(.info))
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: ResponseCompressionMiddleware())
        router.add(middleware: BodyLimitMiddleware(jsonLimit: configuration.limits.maxBodyBytes,
                                                   uploadLimit: configuration.limits.maxUploadBytes))
        let handlers = APIHandlers(service: service, readiness: readiness,
                                   metrics: MetricsEndpoint(registry: registry, store: store), page: page)
        let routes = try RouteTable(of: handlers, document: String(decoding: try page.bytes(of: "openapi.yaml"), as: UTF8.self))
        router.add(middleware: AccessMiddleware(tokens: tokens, routes: routes))
        router.add(middleware: QueryParametersMiddleware(routes: routes))
        AudioRoute(service: service).register(on: router)
        WaveformRoute(service: service).register(on: router)
        StreamRoute(service: service, results: results).register(on: router)
        try handlers.registerHandlers(on: SelectiveTransport(router: router, servedElsewhere: ["GET /v1/renders/{id}/stream/{file}", "GET /v1/streams/{id}/{expires}/{signature}/{file}", "GET /v1/renders/{id}/audio",
                                                                                                  "HEAD /v1/renders/{id}/audio",
                                                                                                  "GET /v1/renders/{id}/audio/{format}",
                                                                                                  "HEAD /v1/renders/{id}/audio/{format}",
                                                                                                  "GET /v1/renders/{id}/waveform"]),
                                      middlewares: [RequestErrorMiddleware()])
        // Added after the routes, so it wraps only the router's answer to a request no route takes.
        router.add(middleware: MethodNotAllowedMiddleware(routes: routes))

        let host = configuration.host
        let descriptors = DescriptorLimit.raiseToHard() ?? 1024
        let connections = ConnectionLimits(
            maximum: configuration.maxConnections
                ?? ConnectionLimits.maximum(descriptors: descriptors, renders: configuration.limits.concurrentRenders),
            maximumPerAddress: configuration.maxConnectionsPerAddress, logger: logger)
        var services: [any Service] = [JobStoreService(store: store), runner, ReadinessGuard(readiness: readiness)]
        if let ownership { services.insert(FolderOwnership(lock: ownership), at: 0) }
        var app = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                // The time-outs are the server's own (ConnectionTimeouts), not Hummingbird's single idle time-out.
                RuledHTTP1Channel(inner: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: nil)),
                                  limits: connections, timeouts: configuration.connectionTimeouts)
            },
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: "mixrender",
                                 availableConnectionsDelegate: connections.acceptGate),
            services: services,
            onServerRunning: { channel in
                announce("listening on http://\(host):\(channel.localAddress?.port ?? configuration.port)")
            },
            logger: logger)
        // With the store running, and before the first request: its tables; then the runner starts claiming.
        app.beforeServerStarts {
            try await store.migrate()
            runner.storeIsReady()
        }
        return app
    }

    /// Adds a token named `name` to the server's tokens file (made if absent) and returns it, to be given once.
    /// `templates`: the template names the token is limited to rendering (`["*"]`: any template); nil: no limit.
    public static func addToken(named name: String, templates: [String]? = nil, configuration: ServerConfiguration) throws -> String {
        var limit: TokenFile.TemplateLimit? = nil
        if let templates {
            guard let parsed = TokenFile.TemplateLimit.parse(Substring(templates.joined(separator: ","))) else {
                throw ServerSetupError("--templates-only: give template names (lowercase letters, digits and '-'), separated by commas, or *")
            }
            limit = parsed
        }
        if configuration.tokensFile == nil { try StateFolder.prepare(configuration) }
        do {
            return try TokenFile.appending(name: name, to: configuration.tokensPath, templates: limit).token
        } catch {
            throw ServerSetupError("\(error)")
        }
    }
}

/// Holds the state folder's lock (`StateFolder.own`) while the server runs, and lets go of it when every other service
/// has stopped (it is first among them, so it stops last).
struct FolderOwnership: Service {
    let lock: HeldFileLock
    func run() async throws {
        try? await gracefulShutdown()
        lock.release()
    }
}

/// The job store as a service: runs what it needs (PostgreSQL's connection pool) until a graceful shutdown, then
/// closes it. It is first among the services (after the state folder's lock), so it stops after the runner has put
/// its jobs back in the queue.
struct JobStoreService: Service {
    let store: any JobStore
    func run() async throws {
        await store.run()
        try? await gracefulShutdown()
        try await store.close()
    }
}

/// Marks the server not ready as soon as a graceful shutdown starts (so a load balancer stops sending to it).
struct ReadinessGuard: Service {
    let readiness: Readiness
    func run() async throws {
        try? await gracefulShutdown()
        readiness.stop()
    }
}

/// What a process sets up once, whatever runs in it: logs to standard error (key=value metadata, the job id among
/// them), metrics into one Prometheus registry that `/metrics` emits.
enum ProcessSystems {
    static let registry = PrometheusCollectorRegistry()
    private static let done = Locked(false)

    static func bootstrap() {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    }
}
