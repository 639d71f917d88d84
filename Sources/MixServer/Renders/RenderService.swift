import Foundation
import Logging
import MixRender
import OpenAPIRuntime

/// What the API asks of the server, in its own words: plan a requested render (its id is its cache key), submit
/// it for a token, show it as that token sees it, cancel it. The HTTP handlers (`APIHandlers`) only translate.
///
/// It stands beside the runner (`JobRunner`), not over it: both are made from the same parts (the store, the
/// planner, the live progress and the wake-ups), and neither reaches through the other.
final class RenderService: Sendable {
    let store: any JobStore
    let results: ResultStore
    let planner: RenderPlanner
    let live: LiveProgress
    /// What status calls read of each job's stored JSON, parsed once (`StoredParts`).
    let parts = StoredParts()
    let wake: JobSignal
    let webhooks: HostAllowList
    /// Where a render's files may be uploaded.
    let deliveryHosts: HostAllowList
    /// The published templates.
    let templates: TemplateStore
    /// Signs the stream URLs a player follows without a token (the webhook secret's key).
    let streamSigner: WebhookSigner?
    /// How long a signed stream URL plays.
    static let streamURLSeconds = 24 * 3600
    let logger: Logger
    /// Whether the folders it writes can take writes: a new render is refused (503) while they cannot.
    let storage: StorageWatch

    var sounds: SoundLibrary { planner.sounds }
    var limits: ServiceLimits { planner.limits }

    init(store: any JobStore, results: ResultStore, planner: RenderPlanner, live: LiveProgress, wake: JobSignal,
         webhooks: HostAllowList, deliveryHosts: HostAllowList, templates: TemplateStore,
         streamSigner: WebhookSigner? = nil, storage: StorageWatch, logger: Logger) {
        self.templates = templates
        self.streamSigner = streamSigner
        self.deliveryHosts = deliveryHosts
        self.store = store
        self.storage = storage
        self.results = results
        self.planner = planner
        self.live = live
        self.wake = wake
        self.webhooks = webhooks
        self.logger = logger
    }

    /// The render `request` asks for: what the document forbids refused first (`RenderSpec.checkShape`, 400s naming
    /// where, before a template is looked up), then its template filled (`filled`), then the server's rules (422s). Each
    /// check runs once.
    func spec(for request: Components.Schemas.RenderRequest) throws(ServiceError) -> RenderSpec {
        try RenderSpec.checkShape(request)
        return try RenderSpec(checkedRequest: try filled(request))
    }

    /// The request with its template filled (docs/templates.md): `preset` is the template's preset with the request's
    /// `variables`, and the template and variables are gone, so the render's id is the filled preset's (two users with
    /// the same choices share one render). A request with a preset is returned as it is, unless the token is limited
    /// to templates (403). Refusals name `template`, `variables` or `variables.NAME`.
    private func filled(_ request: Components.Schemas.RenderRequest) throws(ServiceError) -> Components.Schemas.RenderRequest {
        guard let reference = request.template else {
            if request.variables != nil {
                throw .invalid(jsonPath: "variables", reason: "fill a template's variables; give the template too, or leave them out")
            }
            try RequestToken.refuseIfLimited("a render of a preset")
            return request
        }
        if request.preset != nil {
            throw .invalid(jsonPath: "template", reason: "cannot be given with preset; give the preset alone, or the template and its variables")
        }
        if let limit = RequestToken.templates, !limit.allows(reference.name) {
            throw .forbidden("this token renders only templates (\(limit.field)), not '\(reference.name)'")
        }
        let template = try templates.template(name: reference.name, version: reference.version)
        var values: [String: JSONValue] = [:]
        if let given = request.variables {
            guard case .object(let object) = try RenderSpec.jsonValue(given, jsonPath: "variables") else {
                throw .malformed(jsonPath: "variables", reason: "must be an object")
            }
            for member in object.members { values[member.key] = member.value }
        }
        let preset: JSONValue
        do { preset = try template.resolve(values, file: "") } catch {
            if case .preset(let problem) = error { throw .invalid(jsonPath: problem.jsonPath, reason: problem.message) }
            throw .invalid(jsonPath: "variables", reason: "\(error)")
        }
        var filled = request
        filled.template = nil
        filled.variables = nil
        do {
            filled.preset = try JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(preset.json(.compact).utf8))
        } catch {
            throw .internalFault("the filled template cannot be read back: \(error)")
        }
        return filled
    }

    /// Plans `spec` (`RenderPlanner.plan`).
    func plan(_ spec: RenderSpec) async throws(ServiceError) -> RenderPlanner.Planned {
        try await planner.plan(spec)
    }

    /// Submits `spec` for `token`, with the webhook it asked for: the job is stored before this returns.
    func submit(_ spec: RenderSpec, token: String, webhookURL: String?) async throws(ServiceError) -> (view: JobView, created: Bool, warnings: [String]) {
        if let webhookURL, let reason = webhooks.refusal(of: webhookURL) {
            throw .invalid(jsonPath: "webhook.url", reason: reason)
        }
        for (index, upload) in spec.uploads.enumerated() {
            if let reason = deliveryHosts.refusal(of: upload.url) { throw .invalid(jsonPath: "deliveries[\(index)].url", reason: reason) }
        }
        let planned = try await plan(spec)
        let job = NewJob(id: planned.id, format: spec.format.fileExtension, name: spec.name,
                         request: spec.storedRequest, durationSeconds: planned.render.durationSeconds,
                         resultMissing: results.folder(of: planned.id) == nil, priority: spec.priority)
        if let fault = storage.fault() { throw storage.problem(fault) }
        let outcome: SubmitOutcome
        do {
            outcome = try await store.submit(job, owner: JobOwner(token: token, webhookURL: webhookURL, uploads: spec.uploads),
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

    /// The finished render `id` as `token` sees it, and its result folder, marked used (the result budget evicts the
    /// least recently used): what every download route starts with. A render not succeeded, or whose files are gone,
    /// is not ready (409, saying why).
    func finished(id: String, token: String) async throws(ServiceError) -> (view: JobView, folder: String) {
        let view = try await view(id: id, token: token)
        guard view.state == .succeeded, let folder = results.folder(of: id) else {
            throw .notReady(Self.notReadyReason(id: id, state: view.state))
        }
        let results = results
        _ = try? await ResultFiles.run { results.markUsed(id) }
        return (view, folder)
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
        let results = results
        if view.record.state == .succeeded, !withdrawal.wantedByOthers, (try? await ResultFiles.run { results.delete(id) }) == true {
            logger.info("render's files deleted: no token owns it any more", metadata: ["job": "\(id)"])
        }
        logger.info("render deleted by a token", metadata: ["job": "\(id)", "token": "\(token)"])
        return view
    }

    /// The playlist of render `id` at a URL that plays without a token until `now` + `streamURLSeconds` (rounded up to
    /// the hour, so that it stays the same for an hour): `/v1/streams/{id}/{expires}/{signature}/index.m3u8`, whose
    /// segments a player finds beside it.
    func signedStreamURL(id: String, now: Date = Date()) -> String? {
        guard let streamSigner else { return nil }
        let expires = (Int(now.timeIntervalSince1970) + Self.streamURLSeconds + 3599) / 3600 * 3600
        return "/v1/streams/\(id)/\(expires)/\(streamSigner.streamSignature(id: id, expires: expires))/index.m3u8"
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
