import Foundation
import Logging
import Metrics
import MixIO
import MixRender
import ServiceLifecycle

/// Renders the queued jobs: `--jobs` workers claim jobs from the store (any server's), render each into a
/// partial result folder and move it into place whole, then finish the job (queuing its webhooks). A lease keeper
/// renews this server's leases with their progress and stops renders no longer wanted; a webhook sender delivers
/// what finished jobs queued.
///
/// On a graceful shutdown (SIGTERM) it stops claiming, stops its renders (nothing partial is left behind) and
/// puts their jobs back in the queue, for this server when it starts again or for another one.
final class JobRunner: Service, Sendable {
    let store: any JobStore
    let planner: RenderPlanner
    let results: ResultStore
    /// Where a render reports its progress, which the service and the event streams read.
    let live: LiveProgress
    /// What the service wakes the runner with (a job queued here, a cancel here).
    let wake: JobSignal
    let worker: String
    let budgetBytes: Int64
    let webhookSender: WebhookSender
    let uploader: FileUploader
    /// When a failed upload is tried again.
    let uploadSchedule: RetrySchedule
    /// Partial result folders older than this are a dead render's, swept at start: any age when this server is the
    /// only one (SQLite), an hour when servers share the result folder (another's render may be writing).
    let partialsSweepAge: Double
    /// A finished job is forgotten (its rows and files deleted) this long after it finished (`--forget-after`).
    let forgetAfterSeconds: Double
    let logger: Logger
    private var limits: ServiceLimits { planner.limits }
    /// How long a claimed job stays this server's without a renewal (a dead server's jobs are claimed again after it).
    static let leaseSeconds: Double = 30
    static let renewSeconds: Double = 5

    private let running = Locked([String: Task<Result<String, any Error>, Never>]())
    private let stopping = Locked(false)
    /// Closed when the runner stops: the loops that wait for a time wait on it.
    private let stopped = ChangeSignal()
    /// Closed when the store's tables are there (`storeIsReady`), or when the runner stops before they are.
    private let ready = ChangeSignal()
    /// Changes when a job finishes here (its webhooks are queued).
    private let finished = ChangeSignal()
    /// How long a worker with nothing to do, or the webhook sender, waits for a change here before it looks at the
    /// store itself (for what other servers queued, and deliveries whose retry time has come).
    static let storeLookSeconds = 1.0
    private let rendersCounter = Counter(label: "mixrender_renders_total")
    private let failuresCounter = Counter(label: "mixrender_render_failures_total")
    private let renderSeconds = Timer(label: "mixrender_render_seconds")

    init(store: any JobStore, planner: RenderPlanner, results: ResultStore, live: LiveProgress, wake: JobSignal,
         worker: String, budgetBytes: Int64, webhookSender: WebhookSender, uploader: FileUploader = FileUploader(),
         uploadSchedule: RetrySchedule = .uploads, partialsSweepAge: Double, forgetAfterSeconds: Double, logger: Logger) {
        self.uploader = uploader
        self.uploadSchedule = uploadSchedule
        self.store = store
        self.planner = planner
        self.results = results
        self.live = live
        self.wake = wake
        self.partialsSweepAge = partialsSweepAge
        self.forgetAfterSeconds = forgetAfterSeconds
        self.worker = worker
        self.budgetBytes = budgetBytes
        self.webhookSender = webhookSender
        self.logger = logger
    }

    /// The store's tables are there (migrated, before the server takes requests): the runner may start.
    func storeIsReady() { ready.close() }

    func run() async throws {
        // The store runs beside the runner (its own service); its tables are made before the server starts.
        await withGracefulShutdownHandler {
            await ready.wait(after: 0)
        } onGracefulShutdown: {
            self.stop()
        }
        guard !isStopping else { return }
        try? await store.requeue(worker: worker)   // a previous run of this server under the same name
        let results = results, sweepAge = partialsSweepAge
        _ = try? await ResultFiles.run { results.sweepPartials(olderThan: sweepAge) }
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<max(1, limits.concurrentRenders) {
                    group.addTask { await self.workLoop() }
                }
                group.addTask { await self.leaseLoop() }
                group.addTask { await self.webhookLoop() }
                group.addTask { await self.uploadLoop() }
                group.addTask { await self.forgetLoop() }
                await group.waitForAll()
            }
        } onGracefulShutdown: {
            self.stop()
        }
        // Every render has stopped: the jobs they held go back to the queue.
        do { try await store.requeue(worker: worker) } catch {
            logger.error("could not put this server's jobs back in the queue", metadata: ["error": "\(error)"])
        }
        logger.info("job runner stopped")
    }

    /// Stops claiming and cancels every render here.
    func stop() {
        stopping.withLock { $0 = true }
        for task in running.withLock({ Array($0.values) }) { task.cancel() }
        wake.stopWaiting()
        stopped.close()
        finished.close()
        ready.close()
    }

    var isStopping: Bool { stopping.withLock { $0 } }

    // MARK: - Workers

    private func workLoop() async {
        while !isStopping {
            // Read before the store is: a job queued here meanwhile ends the wait below at once.
            let seen = wake.queued.version
            let claimed: JobRecord?
            do {
                let now = Date()
                claimed = try await store.claim(worker: worker, now: now, leaseUntil: now + Self.leaseSeconds)
            } catch {
                logger.error("could not claim a job", metadata: ["error": "\(error)"])
                await wake.queued.wait(after: seen, timeout: .seconds(2))
                continue
            }
            guard let job = claimed else {
                await wake.queued.wait(after: seen, timeout: .seconds(Self.storeLookSeconds))
                continue
            }
            await run(job)
        }
    }

    /// Renders `job` in a task of its own (so the lease keeper can cancel it), then finishes it however it ended.
    /// The job is finished here, outside the render's task: a cancelled render's task is cancelled, and the store
    /// would refuse to record its end from there.
    private func run(_ job: JobRecord) async {
        let log = { var log = logger; log[metadataKey: "job"] = "\(job.id)"; return log }()
        log.info("render started", metadata: ["attempt": "\(job.attempts)", "format": "\(job.format)"])
        let started = Date()
        let task = Task { [self] () async -> Result<String, any Error> in
            do {
                return .success(try await withTimeLimit(seconds: limits.jobSeconds) { [self] in
                    try await render(job, logger: log)
                })
            } catch {
                return .failure(error)
            }
        }
        running.withLock { $0[job.id] = task }
        if isStopping { task.cancel() }
        let ended = await task.value
        switch ended {
        case .success(let result):
            await finish(job, .succeeded(result: result), logger: log)
            rendersCounter.increment()
            renderSeconds.recordSeconds(Date().timeIntervalSince(started))
            log.info("render succeeded", metadata: ["seconds": "\(String(format: "%.2f", Date().timeIntervalSince(started)))"])
        case .failure(is TimeLimitExceeded):
            failuresCounter.increment()
            let error = ServiceError.renderFailed("the render took longer than \(TimeParser.string(fromSeconds: limits.jobSeconds)), the most this server gives one")
            await finish(job, .failed(problem: HTTPProblem(error).document.json(.compact)), logger: log)
            log.warning("render stopped at its time limit")
        case .failure(is CancellationError):
            if isStopping {
                log.info("render stopped: the server is stopping; the job goes back to the queue")
            } else {
                await finish(job, .cancelled, logger: log)
                log.info("render cancelled")
            }
        case .failure(let error):
            failuresCounter.increment()
            let failure: ServiceError
            if let serviceError = error as? ServiceError { failure = serviceError }
            else if let engine = error as? EngineError { failure = ServiceError(engine, nameOf: planner.sounds.name(ofPath:)) }
            // Any other error's words may hold a server path, which no answer names: quoted paths become names.
            else { failure = .internalFault(ServiceError.hidingPaths("\(error)", nameOf: planner.sounds.name(ofPath:))) }
            // Stored as the document the API and the webhook will give for it.
            await finish(job, .failed(problem: HTTPProblem(failure).document.json(.compact)), logger: log)
            log.error("render failed", metadata: ["error": "\(error is ServiceError || error is EngineError ? failure.detail : "\(error)")"])
        }
        running.withLock { _ = $0.removeValue(forKey: job.id) }
        live.remove(job.id)
    }

    private func finish(_ job: JobRecord, _ outcome: JobOutcome, logger: Logger) async {
        var finished = job
        let now = Date()
        finished.finishedAt = now
        switch outcome {
        case .succeeded(let result): finished.state = .succeeded; finished.result = result
        case .failed(let problem): finished.state = .failed; finished.problem = problem
        case .cancelled: finished.state = .cancelled
        }
        let payload = WebhookPayload.document(for: finished, at: now).json(.compact)
        do {
            let held = try await store.finish(id: job.id, worker: worker, outcome: outcome, webhookPayload: payload, now: now)
            if !held { logger.warning("the job was no longer this server's when it finished; its result is kept, its state left to its holder") }
        } catch {
            logger.error("could not record the job's end; it will be rendered again", metadata: ["error": "\(error)"])
        }
        self.finished.change()
        if case .succeeded = outcome {
            let results = results, budget = budgetBytes, keeping = Set(running.withLock { $0.keys })
            _ = try? await ResultFiles.run { results.enforceBudget(bytes: budget, keeping: keeping) }
        }
    }

    /// Renders `job` into a partial folder, moved into the result store whole; returns the `Result` JSON.
    private func render(_ job: JobRecord, logger: Logger) async throws -> String {
        let results = results, id = job.id
        if let stored = try await ResultFiles.run({ results.resultDocument(of: id) }) {
            logger.info("the result was there already (rendered before a restart); kept")
            return stored
        }
        let spec = try RenderSpec(storedRequest: job.request)
        let planned = try await planner.plan(spec)
        guard planned.id == job.id else {
            throw ServiceError.inputsChanged("the preset's sounds or this server's mixrender changed since it was submitted (its key is now \(planned.id)); submit it again")
        }
        let partial = try await ResultFiles.run { try results.makePartial() }
        do {
            return try await render(job, into: partial, spec: spec, planned: planned)
        } catch {
            results.discard(partial: partial)   // here, not on the pool: a cancelled task must still remove it
            throw error
        }
    }

    /// Renders `job` into `partial` (its audio, report, timeline, waveforms and `result.json`) and commits it as the
    /// job's result; returns the `Result` JSON.
    private func render(_ job: JobRecord, into partial: String, spec: RenderSpec, planned: RenderPlanner.Planned) async throws -> String {
        let audioFiles = spec.formats.map { partial + "/" + ResultStore.audioFileName(format: $0) }
        let (progress, reporter) = AsyncStream.makeStream(of: RenderProgress.self, bufferingPolicy: .bufferingNewest(1))
        let live = self.live, id = job.id
        let watcher = Task {
            for await value in progress {
                let left = value.realtime > 0 ? Double(value.totalFrames - value.frames) / Double(value.sampleRate) / value.realtime : nil
                live.update(id, JobProgress(fraction: value.fraction, speed: value.realtime, secondsLeft: left))
            }
        }
        // The stream a listener can follow while it renders (HLS), when the request asked for one: in the partial
        // folder until the result is committed.
        var stream: LiveStream? = nil
        if spec.stream {
            let streamFolder = partial + "/" + ResultStore.streamFolderName
            try await ResultFiles.run { try FileSystem.makeFolders(streamFolder) }
            live.streamStarted(id, folder: streamFolder)
            // 2 s segments start a listener soonest; past an hour, 6 s (Apple's recommended target), since the muxer
            // writes the whole growing playlist again after each segment (an 8-hour render: 4800 lines, not 14,400).
            let segmentSeconds = planned.render.durationSeconds > 3600 ? 6.0 : 2.0
            // The m4a output's own quality or bitrate: the stream is that file's first encoding.
            let m4aEncoding = spec.formats.firstIndex(of: .m4a).flatMap { spec.encodings[$0] }
            stream = LiveStream(folder: streamFolder, segmentSeconds: segmentSeconds, encoding: m4aEncoding)
        }
        defer { if spec.stream { live.streamEnded(id) } }
        // The waveform files from a tap on the render's output (one analysis for all four): the JSON, the images, and
        // the binary columns zoomed requests are made from.
        let report = try await planned.render.renderWithReport(toFiles: audioFiles, encodings: spec.encodings,
                                                               stream: stream,
                                                               waveforms: ["json", "png", "svg", "dat"].map { partial + "/waveform.\($0)" },
                                                               progress: reporter)
        await watcher.value
        try Task.checkCancellation()
        // The report a client reads names files as the client does (its sounds by their names, the audio by its file
        // name), never by this server's paths.
        let sounds = planner.sounds, prefix = partial + "/"
        let clientReport = report.text(renamingPaths: { path in
            audioFiles.contains(path) ? String(path.dropFirst(prefix.count)) : sounds.name(ofPath: path) ?? (path.hasPrefix("/") ? "(a file of this server)" : path)
        }, warnings: { ServiceError.hidingPaths($0, nameOf: sounds.name(ofPath:)) })
        try await ResultFiles.write(clientReport, to: partial + "/report.json")
        try await ResultFiles.write(planned.render.timelineJSON, to: partial + "/timeline.json")
        let text = StoredResult(id: id, report: report, render: planned.render, fileName: ResultStore.audioFileName(format:),
                                warnings: planned.warnings).json
        try await ResultFiles.write(text, to: partial + "/result.json")
        let results = results
        try await ResultFiles.run { try results.commit(partial: partial, id: id) }
        return text
    }

    // MARK: - Leases

    /// Every few seconds (and at once when a cancel arrives here, which it awaits): renews this server's leases with
    /// their progress, and cancels the renders the store says are no longer this server's to make.
    private func leaseLoop() async {
        var lastRenewal = Date.distantPast
        while !isStopping {
            let seen = wake.cancels.version
            let cancelledHere = wake.takeCancelled()
            let ids = running.withLock { Array($0.keys) }
            for id in ids where cancelledHere.contains(id) { await stopIfUnwanted(id) }
            let sinceRenewal = Date().timeIntervalSince(lastRenewal)
            guard sinceRenewal >= Self.renewSeconds else {
                await wake.cancels.wait(after: seen, timeout: .seconds(Self.renewSeconds - sinceRenewal))
                continue
            }
            lastRenewal = Date()
            guard !ids.isEmpty else { continue }
            var progress: [String: JobProgress] = [:]
            for id in ids { progress[id] = live.progress(of: id) ?? JobProgress(fraction: 0) }
            do {
                let lost = try await store.renew(worker: worker, progress: progress, leaseUntil: Date() + Self.leaseSeconds)
                for id in lost { cancelRender(id, reason: "no longer this server's to render (cancelled, or its lease ran out)") }
            } catch {
                logger.error("could not renew this server's leases", metadata: ["error": "\(error)"])
            }
        }
    }

    /// A cancel arrived here for `id`: asks the store whether anyone still wants it (a renewal answers that).
    private func stopIfUnwanted(_ id: String) async {
        guard let progress = running.withLock({ $0[id] != nil }) ? live.progress(of: id) ?? JobProgress(fraction: 0) : nil else { return }
        if let lost = try? await store.renew(worker: worker, progress: [id: progress], leaseUntil: Date() + Self.leaseSeconds),
           lost.contains(id) {
            cancelRender(id, reason: "cancelled")
        }
    }

    private func cancelRender(_ id: String, reason: String) {
        guard let task = running.withLock({ $0[id] }) else { return }
        logger.info("render stopping", metadata: ["job": "\(id)", "reason": "\(reason)"])
        task.cancel()
    }

    // MARK: - Forgetting

    /// At start and then every `forgetAfterSeconds / 4` (at most hourly): forgets the jobs that finished longer ago
    /// than `--forget-after` (`JobStore.forget`), and deletes their files, so that the tables and the results do not
    /// grow for ever. With several servers, each sweeps; a job is forgotten once.
    private func forgetLoop() async {
        let interval = min(3600, max(1, forgetAfterSeconds / 4))
        var next = Date()
        while !isStopping {
            if Date() >= next {
                next = Date() + interval
                do {
                    let forgotten = try await store.forget(finishedBefore: Date() - forgetAfterSeconds)
                    let running = self.running.withLock { Set($0.keys) }
                    let results = results
                    _ = try? await ResultFiles.run { for id in forgotten where !running.contains(id) { _ = results.delete(id) } }
                    if !forgotten.isEmpty {
                        logger.info("renders forgotten", metadata: ["count": "\(forgotten.count)", "finishedBefore": "\(Date() - forgetAfterSeconds)"])
                    }
                } catch {
                    logger.error("could not forget old renders", metadata: ["error": "\(error)"])
                }
            }
            await stopped.wait(after: 0, timeout: .seconds(max(0.001, next.timeIntervalSinceNow)))
        }
    }

    // MARK: - Webhooks

    private func webhookLoop() async {
        while !isStopping {
            // Read before the store is: a job finishing here meanwhile ends the wait below at once.
            let seen = finished.version
            let due: [WebhookDelivery]
            do {
                let now = Date()
                due = try await store.dueDeliveries(now: now, leaseUntil: now + 60, limit: 16)
            } catch {
                logger.error("could not read the webhook deliveries", metadata: ["error": "\(error)"])
                await stopped.wait(after: 0, timeout: .seconds(2))
                continue
            }
            for delivery in due { await deliver(delivery) }
            // A full batch: there may be more due now.
            if due.count < 16 { await finished.wait(after: seen, timeout: .seconds(Self.storeLookSeconds)) }
        }
    }

    private func deliver(_ delivery: WebhookDelivery) async {
        let outcome = await webhookSender.send(delivery)
        let now = Date()
        var retryAt: Date? = nil
        let delivered: Bool
        switch outcome {
        case .delivered:
            delivered = true
        case .retry(let reason, let retryAfter, _):
            delivered = false
            retryAt = RetrySchedule.standard.nextAttempt(afterFailedAttempts: delivery.attempts + 1, retryAfter: retryAfter, now: now)
            logger.warning("webhook not delivered", metadata: ["job": "\(delivery.jobID)", "webhook": "\(delivery.id)", "reason": "\(reason)",
                                                             "retry": "\(retryAt.map { "\($0)" } ?? "given up")"])
        case .giveUp(let reason, _):
            delivered = false
            logger.warning("webhook refused; given up", metadata: ["job": "\(delivery.jobID)", "webhook": "\(delivery.id)", "reason": "\(reason)"])
        }
        do { try await store.recordDelivery(id: delivery.id, delivered: delivered, retryAt: retryAt, now: now) } catch {
            logger.error("could not record a webhook delivery", metadata: ["webhook": "\(delivery.id)", "error": "\(error)"])
        }
    }

    // MARK: - Uploads

    /// The most uploads this server makes at once.
    static let concurrentUploads = 4

    private func uploadLoop() async {
        while !isStopping {
            let seen = finished.version
            let due: [FileUpload]
            do {
                let now = Date()
                due = try await store.dueUploads(now: now, leaseUntil: now + 3600, limit: Self.concurrentUploads)
            } catch {
                logger.error("could not read the uploads", metadata: ["error": "\(error)"])
                await stopped.wait(after: 0, timeout: .seconds(2))
                continue
            }
            await withTaskGroup(of: Void.self) { group in
                for upload in due { group.addTask { await self.send(upload) } }
            }
            if due.count < Self.concurrentUploads { await finished.wait(after: seen, timeout: .seconds(Self.storeLookSeconds)) }
        }
    }

    /// One attempt of `upload`, recorded; when it settles the owner's last upload, the store queues the owner's webhook.
    private func send(_ upload: FileUpload) async {
        var log = logger
        log[metadataKey: "job"] = "\(upload.jobID)"
        log[metadataKey: "upload"] = "\(upload.id)"
        log[metadataKey: "destination"] = "\(upload.destination.shownURL)"
        let outcome: WebhookOutcome
        switch await file(of: upload) {
        case .success(let file):
            outcome = await uploader.upload(path: file.path, bytes: file.output.bytes, sha256: file.output.sha256,
                                            contentType: file.output.contentType, to: upload.destination)
        case .failure(let reason):
            outcome = .giveUp(reason: reason.description)
        }
        let now = Date()
        let attempt: UploadAttempt
        switch outcome {
        case .delivered(let status):
            attempt = UploadAttempt(state: .delivered, status: status)
            log.info("upload delivered", metadata: ["status": "\(status)"])
        case .retry(let reason, let retryAfter, let status):
            let retryAt = uploadSchedule.nextAttempt(afterFailedAttempts: upload.attempts + 1, retryAfter: retryAfter, now: now)
            attempt = UploadAttempt(state: retryAt == nil ? .failed : .pending, status: status, error: reason,
                                    retryAt: retryAt)
            log.warning("upload failed", metadata: ["reason": "\(reason)", "retry": "\(retryAt.map { "\($0)" } ?? "given up")"])
        case .giveUp(let reason, let status):
            attempt = UploadAttempt(state: .failed, status: status, error: reason)
            log.warning("upload refused; given up", metadata: ["reason": "\(reason)"])
        }
        do {
            try await store.recordUpload(id: upload.id, attempt: attempt, now: now) { job, uploads in
                WebhookPayload.document(for: job, uploads: uploads, at: now).json(.compact)
            }
        } catch {
            log.error("could not record an upload", metadata: ["error": "\(error)"])
        }
        finished.change()   // a webhook may have been queued
    }

    /// The file `upload` sends: its render's result names it; the message of a failure names no server path.
    private func file(of upload: FileUpload) async -> Result<(path: String, output: StoredResult.Output), UploadFileProblem> {
        guard let job = try? await store.job(id: upload.jobID), job.state == .succeeded, let text = job.result,
              let result = try? JSONDecoder().decode(StoredResult.self, from: Data(text.utf8)) else {
            return .failure(UploadFileProblem("the render has no result to upload"))
        }
        guard let output = result.output(format: upload.destination.output) else {
            return .failure(UploadFileProblem("the render wrote no '\(upload.destination.output)' file"))
        }
        guard let folder = results.folder(of: upload.jobID) else {
            return .failure(UploadFileProblem("the render's files were removed (the server's result budget) before they were uploaded"))
        }
        return .success((folder + "/" + output.file, output))
    }
}

/// Why an upload has no file to send.
struct UploadFileProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
