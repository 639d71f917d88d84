import Foundation

/// Where the render service keeps its jobs: SQLite in the server's state folder (one server), or PostgreSQL
/// (several servers sharing one database and one result folder). A job's id is its render's cache key, so the
/// same request from any token, on any server, is one job that renders once.
///
/// Every accepted job is durable when `submit` returns: a restart, or a `kill -9`, loses none. A job is rendered
/// by the worker that holds its lease; a worker renews its leases while it renders, and a job whose lease has
/// run out (its server died) is claimed again by any worker.
///
/// Ownership: each token that submitted a job owns it (`JobOwner`); a token sees only the jobs it owns (another
/// token's id is `nil`, which the API answers 404). A cancel is an owner's (`DELETE`): it withdraws that owner, who
/// from then on does not see the job, and the job itself is cancelled when no owner still wants it. Finished jobs are
/// forgotten (`forget`) a while after they finish.
protocol JobStore: Sendable {
    /// Runs what the store needs while it is used, until a graceful shutdown or the task's cancel: PostgreSQL's
    /// connection pool (calls made before it runs wait for it); nothing for SQLite, which returns at once. The
    /// server runs it as a service (`JobStoreService`), structured, never in a task of its own.
    func run() async

    /// Creates the tables if they are not there (idempotent, safe from several servers at once).
    func migrate() async throws

    /// Submits `job` for `owner`: creates it (queued), or, when a job with its id exists, adds `owner` to it. A job
    /// that was cancelled or failed is queued again (its attempts reset); one that succeeded stays succeeded.
    /// The owner's `uploads`, when it gives any, replace those it gave before (`UploadPlan`): one it gives again keeps
    /// its state unless it failed or was skipped; a new one waits for the render, or is due at once if it succeeded.
    /// `limits` are checked only when the owner does not own the job already (the same request twice is never
    /// refused): the owner's unfinished jobs and the queue's length. The job comes back as the owner sees it, its own
    /// uploads with it (as `job(id:owner:)` gives it).
    func submit(_ job: NewJob, owner: JobOwner, limits: SubmitLimits, now: Date) async throws -> SubmitOutcome

    /// The job `id` as `owner` sees it, or nil when `owner` does not own it.
    func job(id: String, owner: String) async throws -> JobView?

    /// The job `id`, whoever owns it (the workers' view), or nil.
    func job(id: String) async throws -> JobRecord?

    /// Withdraws `owner` from job `id`, finished or not: from then on `job(id:owner:)` is nil for it (until it submits
    /// the same job again). When no owner wants the job any more, a queued job is cancelled at once and a rendering one
    /// is marked cancelled (its worker sees that when it renews its lease, stops, and calls `finish` with
    /// `.cancelled`). nil when `owner` does not own it (or has withdrawn already).
    func cancel(id: String, owner: String, now: Date) async throws -> Withdrawal?

    /// Deletes the finished jobs (succeeded, failed or cancelled) that finished before `before`, with their owners and
    /// webhook deliveries, and returns their ids (their result files are the caller's to delete).
    func forget(finishedBefore before: Date) async throws -> [String]

    /// Claims the oldest queued job, or a rendering job whose lease ran out before `now`, for `worker` until
    /// `leaseUntil`: it becomes `rendering`, `startedAt` is set, `attempts` goes up by one. Two workers (on two
    /// servers) never claim the same job (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite: one writer).
    func claim(worker: String, now: Date, leaseUntil: Date) async throws -> JobRecord?

    /// Extends `worker`'s leases on `ids` to `leaseUntil` and records their progress; returns the ids among them that
    /// are no longer `worker`'s to render (cancelled, or claimed by another worker after the lease ran out): their
    /// renders must stop.
    func renew(worker: String, progress: [String: JobProgress], leaseUntil: Date) async throws -> Set<String>

    /// Ends job `id` as `outcome` (only if `worker` still holds it; returns false otherwise, and changes nothing), and
    /// queues a delivery of `webhookPayload` (a JSON document) for each owner that gave a webhook and still wants the
    /// job, in the same transaction, each with a new message id (`msg_` and 32 random hex digits). The uploads waiting
    /// for the job become due (it succeeded) or are skipped (it did not).
    func finish(id: String, worker: String, outcome: JobOutcome, webhookPayload: String, now: Date) async throws -> Bool

    /// Puts `worker`'s rendering jobs back in the queue (a server stopping, or starting again under the same
    /// worker name): their leases end, their progress is cleared.
    func requeue(worker: String) async throws

    /// Webhook deliveries due at `now` (not delivered, not given up, next attempt not in the future), oldest
    /// first, at most `limit`, each claimed until `leaseUntil` so that another server does not send it at once.
    func dueDeliveries(now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDelivery]

    /// Records an attempt of delivery `id`: delivered, or to be tried again at `retryAt`, or given up (`retryAt` nil).
    func recordDelivery(id: String, delivered: Bool, retryAt: Date?, now: Date) async throws

    /// Uploads due at `now` (pending, next attempt not in the future, their owner still wanting the job), oldest
    /// first, at most `limit`, each claimed until `leaseUntil` so that another server does not send it at once.
    func dueUploads(now: Date, leaseUntil: Date, limit: Int) async throws -> [FileUpload]

    /// Records an attempt of upload `id` (only while it is pending; a late record changes nothing). When it was the
    /// owner's last upload of the job still to settle and the owner gave a webhook, queues, in the same transaction, a
    /// webhook delivery whose body `payload` makes from the job and the owner's uploads as they now are.
    func recordUpload(id: String, attempt: UploadAttempt, now: Date,
                      payload: @escaping @Sendable (JobRecord, [FileUpload]) -> String) async throws

    /// The uploads `owner` asked for of job `id`, in the order it gave them.
    func uploads(id: String, owner: String) async throws -> [FileUpload]

    /// How many jobs are queued and rendering (the metrics, `Retry-After`).
    func counts() async throws -> JobCounts

    /// A round trip to the database (`/readyz`).
    func ping() async throws

    /// Closes connections (the server stopping).
    func close() async throws
}

/// What `cancel` did: the job as its owner saw it as it withdrew (cancelled, if it had not finished), and whether
/// another owner still wants it (when none does, a finished job's files may go).
struct Withdrawal: Sendable, Equatable {
    var view: JobView
    var wantedByOthers: Bool
}

/// A job as submitted: what identifies it and what a worker needs to render it.
struct NewJob: Sendable, Equatable {
    /// The render's file cache key (64 hex digits).
    var id: String
    /// The output format's extension (`m4a`, `flac`, ...).
    var format: String
    /// What errors and the report call the preset.
    var name: String
    /// The render request as JSON (preset, format, settings, overrides; sounds already resolved to the names the
    /// server knows): everything a worker on any server needs to render it again.
    var request: String
    /// The render's length in seconds (known at submission: the preset was planned).
    var durationSeconds: Double
    /// The result store no longer holds this render's files (the size budget evicted them): a job that succeeded
    /// is queued again, as a failed one is.
    var resultMissing = false
    /// Which queued jobs go first: every interactive one before any background one, each kind in the order queued.
    /// A job two requests want has the more urgent of their priorities.
    var priority: JobPriority = .interactive
}

/// How soon a queued job renders (the request's `priority`): `interactive`, a user is waiting; `background`, a
/// catalogue run nobody waits on. Stored as its rank, lower first.
enum JobPriority: Int, Sendable, Equatable, CaseIterable {
    case interactive = 0
    case background = 1
}

/// An owner of a job: a token (its id, not the token), the webhook it asked for, and where its files go.
struct JobOwner: Sendable, Equatable {
    var token: String
    var webhookURL: String?
    /// Files to upload once the render succeeds; none: those given before, if any, are kept.
    var uploads: [UploadDestination] = []
}

/// Where one file of a render is uploaded: a pre-signed URL (Supabase Storage's signed upload URLs, S3's and Google
/// Cloud Storage's pre-signed PUTs), the method and headers to call it with, and whether to send the file's MD5.
/// Its `json` is how the stores keep it, and what tells one destination given twice from two.
struct UploadDestination: Codable, Sendable, Equatable {
    /// The output's format (its extension): which file of the render goes.
    var output: String
    var url: String
    /// `PUT` or `POST`.
    var method: String
    /// Headers sent with the file (names lowercased).
    var headers: [String: String]
    /// Sends `Content-MD5` (RFC 1864), which S3, Google Cloud Storage and Azure check against what they received.
    var contentMD5: Bool

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    static func parse(_ json: String, upload id: String) throws -> UploadDestination {
        do { return try JSONDecoder().decode(UploadDestination.self, from: Data(json.utf8)) } catch {
            throw JobStoreError("upload \(id) has an unreadable destination in the database")
        }
    }

    /// The URL without its query and fragment (a pre-signed URL's credentials): what logs and answers show.
    var shownURL: String { Self.shown(url) }

    static func shown(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(not a URL)" }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.string ?? "(not a URL)"
    }
}

/// Where an upload is: `waiting` for its render, `pending` (due, or to be tried again), `delivered`, `failed` (given
/// up), or `skipped` (the render failed or was cancelled: there is no file).
enum UploadState: String, Sendable, Equatable, CaseIterable {
    case waiting, pending, delivered, failed, skipped

    var isSettled: Bool { self == .delivered || self == .failed || self == .skipped }
}

/// One upload of a render's file for one owner, as the store keeps it.
struct FileUpload: Sendable, Equatable {
    /// `upl_` and 32 random hex digits.
    var id: String
    var jobID: String
    var token: String
    /// Its place in the owner's list.
    var position: Int
    var destination: UploadDestination
    var state: UploadState
    var attempts: Int
    /// The HTTP status of the last answer, if there was one.
    var lastStatus: Int?
    /// Why the last attempt failed, or why it was skipped.
    var lastError: String?
    var nextAttemptAt: Date?
    /// When it was delivered, given up or skipped.
    var finishedAt: Date?
}

/// What an upload attempt came to.
struct UploadAttempt: Sendable, Equatable {
    /// `delivered`; `pending` (with `retryAt`); or `failed`.
    var state: UploadState
    var status: Int?
    var error: String?
    var retryAt: Date?
}

/// What `submit` checks before adding an owner to a job it does not own yet.
struct SubmitLimits: Sendable, Equatable {
    /// The most unfinished (queued or rendering) jobs one token may own.
    var jobsPerToken: Int
    /// The most queued jobs in all.
    var queueLength: Int
}

enum SubmitOutcome: Sendable, Equatable {
    /// A new job (queued), or a finished job that was cancelled or failed and is queued again.
    case queued(JobView)
    /// The job existed and is wanted still: queued, rendering or succeeded (`view.state` says which).
    case existing(JobView)
    /// The owner has `limit` unfinished jobs already.
    case tooManyForToken(limit: Int)
    /// The queue holds `limit` jobs already.
    case queueFull(limit: Int)
}

enum JobState: String, Sendable, Equatable, CaseIterable {
    case queued, rendering, succeeded, failed, cancelled

    var isFinal: Bool { self == .succeeded || self == .failed || self == .cancelled }
}

/// Progress of a render, as the worker last recorded it.
struct JobProgress: Sendable, Equatable {
    var fraction: Double
    /// Seconds of audio per second of rendering.
    var speed: Double?
    var secondsLeft: Double?
}

/// How a job ended. `problem` and `result` are JSON documents the service writes and reads (the API's `Problem`
/// and `Result`); the store keeps them as text.
enum JobOutcome: Sendable, Equatable {
    case succeeded(result: String)
    case failed(problem: String)
    case cancelled
}

/// A job in the store, whoever owns it.
struct JobRecord: Sendable, Equatable {
    var id: String
    var state: JobState
    var format: String
    var name: String
    var request: String
    var durationSeconds: Double
    var createdAt: Date
    var startedAt: Date?
    var finishedAt: Date?
    var attempts: Int
    var progress: JobProgress?
    /// The `Problem` JSON of a failed job.
    var problem: String?
    /// The `Result` JSON of a succeeded job.
    var result: String?
    /// The worker holding the lease, while rendering.
    var worker: String?
    var leaseUntil: Date?
}

/// A job as one owner sees it: the record, with the state that owner sees (cancelled once it withdrew from an
/// unfinished job, whatever the job does for its other owners).
struct JobView: Sendable, Equatable {
    var record: JobRecord
    var state: JobState
    /// The owner's uploads of the render's files, in their order (`job(id:owner:)` fills them; other views leave them
    /// empty).
    var uploads: [FileUpload] = []
}

/// One webhook call to make: `id` is the Standard Webhooks message id (`webhook-id`), the same for every attempt,
/// so the receiver can drop a repeat; `payload` is the JSON body, fixed when the job finished.
struct WebhookDelivery: Sendable, Equatable {
    var id: String
    var jobID: String
    var url: String
    var payload: String
    var attempts: Int
    var createdAt: Date
}

struct JobCounts: Sendable, Equatable {
    var queued: Int
    var rendering: Int
}
