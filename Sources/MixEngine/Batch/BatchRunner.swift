import Foundation
import MixDSP
import MixIO

/// Where a batch stands: jobs done, failed and running, audio rendered, time.
/// A value of numbers; allocates nothing. `Sendable`.
public struct BatchProgress: Sendable {
    public var total: Int
    public var done = 0
    public var failed = 0
    public var running = 0
    /// Seconds of audio rendered so far, by every job (finished and running).
    public var audioSeconds = 0.0
    /// Finished jobs plus the finished fraction of running ones.
    public var jobsWorth = 0.0
    public var elapsed = 0.0

    /// Seconds of audio per second of wall clock, all jobs together.
    public var realtime: Double { elapsed > 0 ? audioSeconds / elapsed : 0 }
    /// Wall-clock seconds left, from the pace so far; nil before anything is known.
    public var secondsLeft: Double? {
        guard jobsWorth > 0.01 else { return nil }
        return elapsed * (Double(total) - jobsWorth) / jobsWorth
    }
}

/// How one job of a batch went.
/// A value; `error` is whatever the job threw (worded by the caller). `Sendable` (an `Error` is).
public struct BatchOutcome: Sendable {
    public var job: BatchJob
    public var result: RenderResult?
    public var error: Error?
    /// The plan's and the output's warnings.
    public var warnings: [String] = []
    /// What preparing this job's material did (nil if it failed before).
    public var material: PreparedMaterial.Outcome?
    /// Wall-clock seconds: reading and planning the preset, preparing material, rendering, and all of it.
    public var planSeconds = 0.0, prepareSeconds = 0.0, renderSeconds = 0.0, totalSeconds = 0.0
    public var succeeded: Bool { error == nil && result != nil }
}

/// Runs a batch's jobs, `workers` at a time, sharing one `PreparedMaterial`: a sound used by many jobs is
/// decoded and resampled once, held while jobs use it, and released under the material's budget.
///
/// Each job is read, planned and rendered like `mixrender render` (through `RenderJob`, to a temporary file
/// renamed into place when complete; its output's folder is made when missing); a job that fails is reported and the others go on. Jobs are taken in
/// list order by the first free worker.
///
/// Layout: the jobs, the material, and a `Locked` over the progress and the next job. `run` starts the worker
/// threads (`Thread`) and returns when every job is done; the callbacks are called from the workers, one at a
/// time (under the lock), so they need no locking of their own but must be quick.
/// `Sendable`: everything that changes after `init` is inside `state` (a `Locked`); the rest (the jobs, the material,
/// the clock) is constant.
public final class BatchRunner: Sendable {
    public let jobs: [BatchJob]
    public let workers: Int
    public let material: PreparedMaterial
    public let blockFrames: Int

    private struct State {
        var next = 0
        var progress: BatchProgress
        /// Per worker: the running job's seconds rendered and its length in seconds.
        var current: [(rendered: Double, length: Double)]
        var finishedAudio = 0.0
        var lastReport: ContinuousClock.Instant
    }
    private let state: Locked<State>
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant

    public init(jobs: [BatchJob], workers: Int, material: PreparedMaterial, blockFrames: Int = 4096) {
        self.jobs = jobs
        self.workers = max(1, min(workers, max(jobs.count, 1)))
        self.material = material
        self.blockFrames = blockFrames
        started = clock.now
        state = Locked(State(progress: BatchProgress(total: jobs.count), current: Array(repeating: (0, 0), count: self.workers),
                            lastReport: clock.now))
    }

    /// Runs every job. `progress` is called at most ten times a second while jobs render; `finished` once per job,
    /// as it ends, with the progress after it. Returns the outcomes in list order.
    public func run(progress: @escaping @Sendable (BatchProgress) -> Void = { _ in },
                    finished: @escaping @Sendable (BatchOutcome, BatchProgress) -> Void = { _, _ in }) -> [BatchOutcome] {
        let outcomes = Locked<[BatchOutcome?]>(Array(repeating: nil, count: jobs.count))
        let group = DispatchGroup()
        for worker in 0..<workers {
            group.enter()
            let thread = Thread { [self] in
                while let index = takeNext(worker) {
                    let outcome = runJob(jobs[index], worker: worker, progress: progress)
                    outcomes.withLock { $0[index] = outcome }
                    state.withLock { s in
                        s.progress.running -= 1
                        s.progress.done += 1
                        if !outcome.succeeded { s.progress.failed += 1 }
                        s.finishedAudio += outcome.result?.summary.durationSeconds ?? 0
                        s.current[worker] = (0, 0)
                        update(&s)
                        finished(outcome, s.progress)
                    }
                }
                group.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
        return outcomes.withLock { $0.map { $0! } }
    }

    /// Wall-clock seconds since the runner was made.
    public var elapsedSeconds: Double { (clock.now - started).seconds }

    private func takeNext(_ worker: Int) -> Int? {
        state.withLock { s in
            guard s.next < jobs.count else { return nil }
            defer { s.next += 1 }
            s.progress.running += 1
            return s.next
        }
    }

    private func update(_ s: inout State) {
        s.progress.elapsed = (clock.now - started).seconds
        s.progress.audioSeconds = s.finishedAudio + s.current.reduce(0) { $0 + $1.rendered }
        s.progress.jobsWorth = Double(s.progress.done) + s.current.reduce(0) { $0 + ($1.length > 0 ? min(1, $1.rendered / $1.length) : 0) }
    }

    private func runJob(_ batchJob: BatchJob, worker: Int, progress: @escaping (BatchProgress) -> Void) -> BatchOutcome {
        var outcome = BatchOutcome(job: batchJob)
        let jobStart = clock.now
        do {
            // Each worker's share of the cores for saying its texts.
            var analyzer = Analyzer(material: material)
            analyzer.speechLanes = max(1, Analyzer.defaultSpeechLanes / workers)
            let job = try RenderJob(presetPath: batchJob.preset, overrides: batchJob.overrides, analyzer: analyzer)
            // A job list names outputs in folders of their own (out/2026/night.ogg): they are made when missing.
            if let slash = batchJob.output.lastIndex(of: "/"), slash != batchJob.output.startIndex {
                let folder = String(batchJob.output[..<slash])
                do { try FileSystem.makeFolders(folder) } catch {
                    throw EngineError.output(path: batchJob.output, reason: "cannot make its folder: \(error)")
                }
            }
            let output = try job.outputPlan(to: .file(path: batchJob.output))
            outcome.warnings = job.plan.warnings + output.warnings
            outcome.planSeconds = (clock.now - jobStart).seconds

            let prepareStart = clock.now
            let lease = try material.lease(for: job.plan)
            defer { lease.release() }
            outcome.material = lease.report
            outcome.prepareSeconds = (clock.now - prepareStart).seconds

            let renderStart = clock.now
            let rate = Double(job.plan.sampleRate)
            let length = Double(job.range.count) / rate
            state.withLock { $0.current[worker] = (0, length) }
            outcome.result = try job.render(output, blockFrames: blockFrames, material: material) { [self] frames in
                state.withLock { s in
                    s.current[worker].rendered = Double(frames) / rate
                    guard clock.now - s.lastReport >= .milliseconds(100) else { return }
                    s.lastReport = clock.now
                    update(&s)
                    progress(s.progress)
                }
            }
            outcome.renderSeconds = (clock.now - renderStart).seconds
        } catch {
            outcome.error = error
        }
        outcome.totalSeconds = (clock.now - jobStart).seconds
        return outcome
    }
}
