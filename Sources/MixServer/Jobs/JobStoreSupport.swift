import Foundation

/// Why a job store could not do what it was asked: one line naming the database and the reason.
struct JobStoreError: Error, CustomStringConvertible, Equatable {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The rules both stores follow; each store runs them inside its own transaction.
enum JobRules {
    /// The columns of a job, in the order both stores read them (`JobRecord`'s fields; `queued_at` orders the queue
    /// and is not part of the record).
    static let jobColumns = """
        id, state, format, name, request, duration_seconds, created_at, started_at, finished_at, attempts, \
        progress_fraction, progress_speed, progress_seconds_left, problem, result, worker, lease_until
        """

    /// How many `jobColumns` there are (where a joined table's columns begin in a row).
    static let jobColumnCount = jobColumns.split(separator: ",").count

    /// `jobColumns`, each named with `table` (for a query that joins another table).
    static func jobColumns(of table: String) -> String {
        jobColumns.split(separator: ",").map { "\(table).\($0.trimmingCharacters(in: .whitespaces))" }
            .joined(separator: ", ")
    }

    /// A new Standard Webhooks message id: `msg_` and 32 random hex digits.
    static func newMessageID() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return "msg_" + hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// A state as the database keeps it.
    static func state(_ stored: String, job id: String) throws -> JobState {
        guard let state = JobState(rawValue: stored) else {
            throw JobStoreError("job \(id) has the unknown state '\(stored)' in the database")
        }
        return state
    }

    /// Progress from its three columns (none when the worker has not recorded any).
    static func progress(fraction: Double?, speed: Double?, secondsLeft: Double?) -> JobProgress? {
        fraction.map { JobProgress(fraction: $0, speed: speed, secondsLeft: secondsLeft) }
    }

    /// When an attempt ends a delivery: delivered now, or given up now (no retry); neither when it is tried again.
    static func deliveryEnd(delivered: Bool, retryAt: Date?, now: Date) -> (deliveredAt: Date?, gaveUpAt: Date?) {
        (delivered ? now : nil, !delivered && retryAt == nil ? now : nil)
    }

    /// The state, result and problem columns of a finished job.
    static func columns(_ outcome: JobOutcome) -> (state: String, result: String?, problem: String?) {
        switch outcome {
        case .succeeded(let result): (JobState.succeeded.rawValue, result, nil)
        case .failed(let problem): (JobState.failed.rawValue, nil, problem)
        case .cancelled: (JobState.cancelled.rawValue, nil, nil)
        }
    }

    /// What an owner sees. `withdrawn`: the view `cancel` gives as the owner withdraws (after which it sees nothing),
    /// cancelled if the job had not finished, else as it ended.
    static func view(_ record: JobRecord, withdrawn: Bool) -> JobView {
        JobView(record: record, state: withdrawn && !record.state.isFinal ? .cancelled : record.state)
    }
}

/// What `submit` does to the job it is given, decided from the job as it is (nil when there is none).
enum SubmitStep: Equatable {
    /// No such job: create it, queued.
    case create
    /// A cancelled or failed job: queue it again, its attempts reset.
    case requeue
    /// Queued, rendering or succeeded: leave the job as it is, add the owner.
    case keep

    /// `resultMissing`: the succeeded job's files are gone from the result store, so it renders again.
    init(existing state: JobState?, resultMissing: Bool = false) {
        switch state {
        case nil: self = .create
        case .cancelled?, .failed?: self = .requeue
        case .succeeded? where resultMissing: self = .requeue
        case .queued?, .rendering?, .succeeded?: self = .keep
        }
    }

    /// Whether the job will be unfinished (queued or rendering) after this step.
    func leavesUnfinished(existing state: JobState?) -> Bool {
        switch self {
        case .create, .requeue: true
        case .keep: state == .queued || state == .rendering
        }
    }

    /// Why a token that does not own the job yet may not submit it, or nil. A token is refused only for what the
    /// submission adds: one more unfinished job of its own (`tokenUnfinished`: its unfinished jobs now), one more
    /// job in the queue (`queued`: the queue's length now). Joining a succeeded job adds neither.
    func refusal(existing state: JobState?, tokenUnfinished: Int, queued: Int, limits: SubmitLimits) -> SubmitOutcome? {
        if leavesUnfinished(existing: state) && tokenUnfinished >= limits.jobsPerToken {
            return .tooManyForToken(limit: limits.jobsPerToken)
        }
        if self != .keep && queued >= limits.queueLength {
            return .queueFull(limit: limits.queueLength)
        }
        return nil
    }

    /// The outcome for the owner's view after the step.
    func outcome(_ view: JobView) -> SubmitOutcome {
        self == .keep ? .existing(view) : .queued(view)
    }
}

/// What `submit` does to an owner's uploads when it gives some: each destination given again keeps its row (and its
/// state, unless it failed or was skipped: then it starts again), each new one gets a row, and the rows of
/// destinations no longer given go. Both stores apply it inside the submit's transaction.
struct UploadPlan {
    /// An upload the owner has: its id, its destination as stored (`UploadDestination.json`), its state.
    struct Existing: Equatable {
        var id: String
        var destination: String
        var state: UploadState
    }

    /// Rows to delete.
    var delete: [String] = []
    /// Rows kept as they are, at a new place in the list.
    var keep: [(id: String, position: Int)] = []
    /// Rows started again (failed or skipped before), at their place: `initial` state, no attempts.
    var restart: [(id: String, position: Int)] = []
    /// New rows: a new id, the destination as stored, `initial` state.
    var insert: [(id: String, position: Int, destination: String)] = []
    /// A new or restarted upload's state: due at once (`pending`) when the job has succeeded, else `waiting`.
    var initial: UploadState

    init(existing: [Existing], wanted: [UploadDestination], jobState: JobState) {
        initial = jobState == .succeeded ? .pending : .waiting
        var unmatched = existing
        for (position, destination) in wanted.enumerated() {
            let json = destination.json
            if let index = unmatched.firstIndex(where: { $0.destination == json }) {
                let row = unmatched.remove(at: index)
                if row.state == .failed || row.state == .skipped { restart.append((row.id, position)) }
                else { keep.append((row.id, position)) }
            } else {
                insert.append((JobRules.newUploadID(), position, json))
            }
        }
        delete = unmatched.map(\.id)
    }
}

extension JobRules {
    /// A new upload id: `upl_` and 32 random hex digits.
    static func newUploadID() -> String {
        "upl_" + newMessageID().dropFirst(4)
    }

    /// The columns of an upload, in the order both stores read them (`FileUpload`'s fields).
    static let uploadColumns = """
        id, job_id, token, position, destination, state, attempts, last_status, last_error, next_attempt_at, finished_at
        """

    /// `uploadColumns`, each named with `table`.
    static func uploadColumns(of table: String) -> String {
        uploadColumns.split(separator: ",").map { "\(table).\($0.trimmingCharacters(in: .whitespaces))" }
            .joined(separator: ", ")
    }

    /// An upload state as the database keeps it.
    static func uploadState(_ stored: String, upload id: String) throws -> UploadState {
        guard let state = UploadState(rawValue: stored) else {
            throw JobStoreError("upload \(id) has the unknown state '\(stored)' in the database")
        }
        return state
    }

    /// Why the uploads waiting for a job that ended as `outcome` are skipped; nil when it succeeded (they become due).
    static func skipReason(_ outcome: JobOutcome) -> String? {
        switch outcome {
        case .succeeded: nil
        case .failed: "the render failed: there is no file to upload"
        case .cancelled: "the render was cancelled: there is no file to upload"
        }
    }
}
