import Foundation
import Logging
import MixRender

/// What the API asks of the server, in its own words: plan a requested render (its id is its cache key), submit
/// it for a token, show it as that token sees it, cancel it. The HTTP handlers (`APIHandlers`) only translate.
///
/// Planning runs the library's analysis (`PresetRender.prepare`) with the server's sounds (`SoundLibrary`) as the
/// only files a preset may name, and shares prepared material with the renders (`material`), so a request
/// submitted twice, or rendered after it was planned, says and decodes nothing again.
final class RenderService: Sendable {
    let store: any JobStore
    let results: ResultStore
    let sounds: SoundLibrary
    let limits: ServiceLimits
    let material: PreparedMaterial
    let live: LiveProgress
    let wake: JobSignal
    let webhooks: WebhookURLPolicy
    let logger: Logger
    /// Whether the folders it writes can take writes: a new render is refused (503) while they cannot.
    let storage: StorageWatch

    init(store: any JobStore, results: ResultStore, sounds: SoundLibrary, limits: ServiceLimits, material: PreparedMaterial, live: LiveProgress,
         wake: JobSignal, webhooks: WebhookURLPolicy, storage: StorageWatch, logger: Logger) {
        self.store = store
        self.storage = storage
        self.results = results
        self.sounds = sounds
        self.limits = limits
        self.material = material
        self.live = live
        self.wake = wake
        self.webhooks = webhooks
        self.logger = logger
    }

    /// A render planned: its id (the file cache key), the library's prepared render, what it warned.
    struct Planned: Sendable {
        var id: String
        var render: PresetRender
        var spec: RenderSpec
        var warnings: [String]
    }

    /// Plans `spec` as a render would (its JSON, values, sounds, speech and length checked), within the
    /// server's limits, and finds its id. Every fault is a `ServiceError` naming where in the request.
    func plan(_ spec: RenderSpec) async throws(ServiceError) -> Planned {
        if case .array(let tracks)? = spec.preset["tracks"], tracks.count > limits.maxTracks {
            throw .invalid(jsonPath: "preset.tracks",
                           reason: "has \(tracks.count) tracks; this server renders at most \(limits.maxTracks)")
        }
        let render: PresetRender
        do {
            render = try await withTimeLimit(seconds: limits.prepareSeconds) { [sounds, material] in
                try await PresetRender.prepare(preset: spec.preset, name: spec.name, overrides: spec.overrides,
                                               sources: sounds.resolver, material: material)
            }
        } catch let error as EngineError {
            throw ServiceError(error, nameOf: sounds.name(ofPath:))
        } catch is TimeLimitExceeded {
            throw .invalid(jsonPath: "preset", reason: "took longer than \(Int(limits.prepareSeconds)) s to prepare (its speech and sounds); this server gives a preset at most that")
        } catch {
            throw .internalFault("planning failed: \(error)")
        }
        if render.durationSeconds > limits.maxDurationSeconds {
            let path = spec.overrides.durationSeconds != nil ? "overrides.durationSeconds" : "preset.duration"
            throw .invalid(jsonPath: path, reason: "renders \(TimeParser.string(fromSeconds: render.durationSeconds)); this server renders at most \(TimeParser.string(fromSeconds: limits.maxDurationSeconds))")
        }
        if render.renderJob.preset.tracks.count > limits.maxTracks {
            throw .invalid(jsonPath: "preset.bed", reason: "brings the preset to \(render.renderJob.preset.tracks.count) tracks; this server renders at most \(limits.maxTracks)")
        }
        var warnings = render.warnings
        do {
            warnings += try render.check(outputFile: "render.\(spec.format.fileExtension)")
            let id = try render.fileCacheKey(format: spec.format)
            return Planned(id: id, render: render, spec: spec, warnings: warnings.map { ServiceError.hidingPaths($0, nameOf: sounds.name(ofPath:)) })
        } catch let error as EngineError {
            throw ServiceError(error, nameOf: sounds.name(ofPath:))
        } catch {
            throw .internalFault("planning failed: \(error)")
        }
    }

    /// Submits `spec` for `token`, with the webhook it asked for: the job is stored before this returns.
    func submit(_ spec: RenderSpec, token: String, webhookURL: String?) async throws(ServiceError) -> (view: JobView, created: Bool, warnings: [String]) {
        if let webhookURL, let reason = webhooks.refusal(of: webhookURL) {
            throw .invalid(jsonPath: "webhook.url", reason: reason)
        }
        let planned = try await plan(spec)
        let job = NewJob(id: planned.id, format: spec.format.fileExtension, name: spec.name,
                         request: spec.storedRequest, durationSeconds: planned.render.durationSeconds,
                         resultMissing: results.folder(of: planned.id) == nil)
        if let fault = storage.fault() { throw storage.problem(fault) }
        let outcome: SubmitOutcome
        do {
            outcome = try await store.submit(job, owner: JobOwner(token: token, webhookURL: webhookURL),
                                             limits: SubmitLimits(jobsPerToken: limits.jobsPerToken, queueLength: limits.queueLength),
                                             now: Date())
        } catch {
            logger.error("the job store failed", metadata: ["job": "\(planned.id)", "error": "\(error)"])
            if let fault = storage.fault() { throw storage.problem(fault) }
            throw Self.storeUnavailable
        }
        switch outcome {
        case .queued(let view):
            wake.signal()
            logger.info("render queued", metadata: ["job": "\(planned.id)", "token": "\(token)", "format": "\(job.format)"])
            return (view, true, planned.warnings)
        case .existing(let view):
            return (view, false, planned.warnings)
        case .tooManyForToken(let limit):
            throw .busy("this token has \(limit) renders queued or rendering, the most it may have; wait for one to finish",
                           retryAfter: await retryAfter())
        case .queueFull(let limit):
            throw .busy("the queue holds \(limit) renders, the most it takes; try again later", retryAfter: await retryAfter())
        }
    }

    /// What a caller gets while the job store does not answer.
    static let storeUnavailable = ServiceError.unavailable("the job store did not answer; try again", retryAfter: 5)

    /// Seconds until a slot is likely free: the queue's length over the renders running at once, a few seconds each.
    private func retryAfter() async -> Int {
        let counts = (try? await store.counts()) ?? JobCounts(queued: 0, rendering: 0)
        return max(1, min(300, 2 * (counts.queued / max(1, limits.concurrentRenders) + 1)))
    }

    /// The job `id` as `token` sees it, with this server's live progress when it renders here.
    func view(id: String, token: String) async throws(ServiceError) -> JobView {
        guard Self.isRenderID(id) else { throw .notFound("no render '\(id)'") }
        let found: JobView?
        do { found = try await store.job(id: id, owner: token) } catch {
            throw Self.storeUnavailable
        }
        guard var view = found else { throw .notFound("no render '\(id)' for this token") }
        if view.state == .rendering, let progress = live.progress(of: id) { view.record.progress = progress }
        return view
    }

    /// Withdraws `token` from job `id` (`JobStore.cancel`, the API's DELETE): afterwards the token gets 404 for it. Its
    /// render stops here at once when no owner wants it, and a finished render's files go when no token owns it.
    func cancel(id: String, token: String) async throws(ServiceError) -> JobView {
        guard Self.isRenderID(id) else { throw .notFound("no render '\(id)'") }
        let found: Withdrawal?
        do { found = try await store.cancel(id: id, owner: token, now: Date()) } catch {
            throw Self.storeUnavailable
        }
        guard let withdrawal = found else { throw .notFound("no render '\(id)' for this token") }
        let view = withdrawal.view
        if view.record.state == .cancelled || view.record.state == .rendering { wake.cancelled(id) }
        // A finished render nobody owns any more: its files go now, not when the budget gets to them.
        if view.record.state == .succeeded, !withdrawal.wantedByOthers, results.delete(id) {
            logger.info("render's files deleted: no token owns it any more", metadata: ["job": "\(id)"])
        }
        logger.info("render deleted by a token", metadata: ["job": "\(id)", "token": "\(token)"])
        return view
    }

    /// Why render `id`'s files cannot be served in `state` (409).
    static func notReadyReason(id: String, state: JobState) -> String {
        state == .succeeded
            ? "render '\(id)' succeeded, but its files were removed to keep the results within the server's budget; submit it again to render it again"
            : "render '\(id)' is \(state.rawValue); its files exist once it has succeeded"
    }

    /// Whether `id` has the shape of a render id: 64 lowercase hexadecimal digits.
    static func isRenderID(_ id: String) -> Bool {
        id.utf8.count == 64 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// The server's limits on what a request may ask (docs/serve.md lists each, its option and default).
public struct ServiceLimits: Sendable, Equatable {
    public init() {}
    /// The largest JSON request body, in bytes.
    public var maxBodyBytes = 1 << 20
    /// The largest sound upload, in bytes.
    public var maxUploadBytes = 256 << 20
    public var maxTracks = 64
    public var maxDurationSeconds: Double = 12 * 3600
    public var jobsPerToken = 20
    public var queueLength = 1000
    /// The longest a render may take (wall clock) before it fails.
    public var jobSeconds: Double = 2 * 3600
    /// The longest planning a request may take (its speech said, its sounds probed).
    public var prepareSeconds: Double = 120
    /// Renders at once on this server (`--jobs`).
    public var concurrentRenders = 2
}

/// A time limit ran out (`withTimeLimit`).
struct TimeLimitExceeded: Error {}

/// `body`, cancelled with `TimeLimitExceeded` thrown when it takes longer than `seconds`.
func withTimeLimit<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            throw TimeLimitExceeded()
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}
