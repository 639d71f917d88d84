import Foundation
import GRDB
import MixIO

/// The jobs of one server: an SQLite database (WAL mode) in the server's state folder. SQLite has one writer at a
/// time, so every change is one immediate transaction and two workers never claim the same job; several servers
/// on one machine may share the file, but not over a network file system.
final class SQLiteJobStore: JobStore {
    /// The database's file name in the state folder.
    static let fileName = "jobs.sqlite"

    /// The database file.
    let file: URL
    private let pool: DatabasePool
    /// Set by the first `close`: a later one only closes the pool again, which is harmless, and does not reach the
    /// closed database for a checkpoint (which crashed in libsqlite3).
    private let closing = Locked(false)

    /// Opens (or creates) the database in `folder`; `migrate` creates its tables.
    init(folder: URL) throws {
        file = folder.appendingPathComponent(Self.fileName)
        var configuration = Configuration()
        configuration.label = "jobs"
        // Writers wait for each other (another server's transaction, a checkpoint) instead of failing at once.
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // A job is on disk when `submit` returns, even if the machine loses power.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            try FileSystem.makeFolders(folder.path)
            pool = try DatabasePool(path: file.path, configuration: configuration)
        } catch {
            throw JobStoreError("job store \(file.path): \(Self.describe(error))")
        }
    }

    // MARK: Schema

    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("jobs") { db in
            try db.execute(sql: """
                CREATE TABLE jobs (
                    id TEXT NOT NULL PRIMARY KEY,
                    state TEXT NOT NULL CHECK (state IN ('queued', 'rendering', 'succeeded', 'failed', 'cancelled')),
                    format TEXT NOT NULL,
                    name TEXT NOT NULL,
                    request TEXT NOT NULL,
                    duration_seconds REAL NOT NULL,
                    created_at TEXT NOT NULL,
                    queued_at TEXT NOT NULL,
                    started_at TEXT,
                    finished_at TEXT,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    progress_fraction REAL,
                    progress_speed REAL,
                    progress_seconds_left REAL,
                    problem TEXT,
                    result TEXT,
                    worker TEXT,
                    lease_until TEXT
                );
                CREATE INDEX jobs_queue ON jobs (state, queued_at, id);
                CREATE INDEX jobs_worker ON jobs (worker) WHERE worker IS NOT NULL;
                CREATE TABLE job_owners (
                    job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
                    token TEXT NOT NULL,
                    webhook_url TEXT,
                    added_at TEXT NOT NULL,
                    withdrawn_at TEXT,
                    PRIMARY KEY (job_id, token)
                );
                CREATE INDEX job_owners_token ON job_owners (token);
                CREATE TABLE webhook_deliveries (
                    id TEXT NOT NULL PRIMARY KEY,
                    job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
                    token TEXT NOT NULL,
                    url TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    created_at TEXT NOT NULL,
                    next_attempt_at TEXT NOT NULL,
                    lease_until TEXT,
                    last_attempt_at TEXT,
                    delivered_at TEXT,
                    gave_up_at TEXT
                );
                CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, created_at)
                    WHERE delivered_at IS NULL AND gave_up_at IS NULL;
                """)
        }
        // Priorities (interactive before background): existing jobs are interactive, as every job was.
        migrator.registerMigration("priority") { db in
            try db.execute(sql: """
                ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX jobs_claim_order ON jobs (state, priority, queued_at, id);
                """)
        }
        // Uploads of a render's files to destinations its owners gave (pre-signed URLs).
        migrator.registerMigration("uploads") { db in
            try db.execute(sql: """
                CREATE TABLE uploads (
                    id TEXT NOT NULL PRIMARY KEY,
                    job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
                    token TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    destination TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('waiting', 'pending', 'delivered', 'failed', 'skipped')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_status INTEGER,
                    last_error TEXT,
                    next_attempt_at TEXT,
                    lease_until TEXT,
                    finished_at TEXT
                );
                CREATE INDEX uploads_owner ON uploads (job_id, token, position);
                CREATE INDEX uploads_due ON uploads (next_attempt_at) WHERE state = 'pending';
                """)
        }
        return migrator
    }()

    func migrate() async throws {
        let migrator = Self.migrator
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                migrator.asyncMigrate(pool) { result in continuation.resume(with: result.map { _ in () }) }
            }
        } catch {
            // Another server on the same file may have migrated between our look at the applied migrations and our
            // transaction (ours then fails on a table that exists): that is success.
            let done = try? await pool.read { db in try migrator.hasCompletedMigrations(db) }
            if done != true {
                throw JobStoreError("job store \(file.path): cannot create the tables: \(Self.describe(error))")
            }
        }
    }

    // MARK: Jobs

    func submit(_ job: NewJob, owner: JobOwner, limits: SubmitLimits, now: Date) async throws -> SubmitOutcome {
        try await write { db in
            let existing = try Self.record(db, id: job.id)
            let owned = try Bool.fetchOne(db, sql: "SELECT 1 FROM job_owners WHERE job_id = ? AND token = ?",
                                          arguments: [job.id, owner.token]) != nil
            let step = SubmitStep(existing: existing?.state, resultMissing: job.resultMissing)
            if !owned {
                let tokenUnfinished = try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM jobs JOIN job_owners ON job_owners.job_id = jobs.id
                    WHERE job_owners.token = ? AND job_owners.withdrawn_at IS NULL AND jobs.state IN ('queued', 'rendering')
                    """, arguments: [owner.token]) ?? 0
                let queued = try Int.fetchOne(db, sql: "SELECT count(*) FROM jobs WHERE state = 'queued'") ?? 0
                if let refusal = step.refusal(existing: existing?.state, tokenUnfinished: tokenUnfinished, queued: queued,
                                              limits: limits) {
                    return refusal
                }
            }
            switch step {
            case .create:
                try db.execute(sql: """
                    INSERT INTO jobs (id, state, format, name, request, duration_seconds, created_at, queued_at, attempts, priority)
                    VALUES (?, 'queued', ?, ?, ?, ?, ?, ?, 0, ?)
                    """, arguments: [job.id, job.format, job.name, job.request, job.durationSeconds, now, now, job.priority.rawValue])
            case .requeue:
                try db.execute(sql: """
                    UPDATE jobs SET state = 'queued', format = ?, name = ?, request = ?, duration_seconds = ?, queued_at = ?,
                        started_at = NULL, finished_at = NULL, attempts = 0, progress_fraction = NULL, progress_speed = NULL,
                        progress_seconds_left = NULL, problem = NULL, result = NULL, worker = NULL, lease_until = NULL,
                        priority = ?
                    WHERE id = ?
                    """, arguments: [job.format, job.name, job.request, job.durationSeconds, now, job.priority.rawValue, job.id])
            case .keep:
                // Wanted again, perhaps more urgently: the job takes the more urgent of the two priorities.
                try db.execute(sql: "UPDATE jobs SET priority = min(priority, ?) WHERE id = ?",
                               arguments: [job.priority.rawValue, job.id])
            }
            // The owner wants the job (again); a webhook given now replaces the one given before.
            try db.execute(sql: """
                INSERT INTO job_owners (job_id, token, webhook_url, added_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (job_id, token) DO UPDATE
                SET withdrawn_at = NULL, webhook_url = coalesce(excluded.webhook_url, job_owners.webhook_url)
                """, arguments: [job.id, owner.token, owner.webhookURL, now])
            guard let record = try Self.record(db, id: job.id) else {
                throw JobStoreError("job \(job.id) vanished while it was submitted")
            }
            if !owner.uploads.isEmpty {
                try Self.plan(db, uploads: owner.uploads, job: record, token: owner.token, now: now)
            }
            // As the owner sees it, its uploads with it (`job(id:owner:)`).
            var view = JobRules.view(record, withdrawn: false)
            view.uploads = try Self.uploads(db, id: job.id, owner: owner.token)
            return step.outcome(view)
        }
    }

    func job(id: String, owner: String) async throws -> JobView? {
        try await read { db in try Self.view(db, id: id, owner: owner) }
    }

    func job(id: String) async throws -> JobRecord? {
        try await read { db in try Self.record(db, id: id) }
    }

    func cancel(id: String, owner: String, now: Date) async throws -> Withdrawal? {
        try await write { db in
            guard try Self.view(db, id: id, owner: owner) != nil else { return nil }
            try db.execute(sql: "UPDATE job_owners SET withdrawn_at = ? WHERE job_id = ? AND token = ?",
                           arguments: [now, id, owner])
            let wanted = try Int.fetchOne(db, sql: "SELECT count(*) FROM job_owners WHERE job_id = ? AND withdrawn_at IS NULL",
                                          arguments: [id]) ?? 0
            if wanted == 0 {
                // A rendering job keeps its worker until the worker, told by `renew`, finishes it as cancelled.
                try db.execute(sql: """
                    UPDATE jobs SET state = 'cancelled', finished_at = ? WHERE id = ? AND state IN ('queued', 'rendering')
                    """, arguments: [now, id])
            }
            guard let record = try Self.record(db, id: id) else { throw JobStoreError("job \(id) vanished while it was cancelled") }
            return Withdrawal(view: JobRules.view(record, withdrawn: true), wantedByOthers: wanted > 0)
        }
    }

    func forget(finishedBefore before: Date) async throws -> [String] {
        try await write { db in
            let ids = try String.fetchAll(db, sql: """
                SELECT id FROM jobs WHERE state IN ('succeeded', 'failed', 'cancelled') AND finished_at < ? ORDER BY id
                """, arguments: [before])
            for id in ids {
                try db.execute(sql: "DELETE FROM webhook_deliveries WHERE job_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM uploads WHERE job_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM job_owners WHERE job_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM jobs WHERE id = ?", arguments: [id])
            }
            return ids
        }
    }

    func claim(worker: String, now: Date, leaseUntil: Date) async throws -> JobRecord? {
        try await write { db in
            guard let id = try String.fetchOne(db, sql: """
                SELECT id FROM jobs WHERE state = 'queued' OR (state = 'rendering' AND lease_until < ?)
                ORDER BY priority, queued_at, id LIMIT 1
                """, arguments: [now]) else { return nil }
            try db.execute(sql: """
                UPDATE jobs SET state = 'rendering', worker = ?, lease_until = ?, started_at = ?, finished_at = NULL,
                    attempts = attempts + 1, progress_fraction = NULL, progress_speed = NULL, progress_seconds_left = NULL
                WHERE id = ?
                """, arguments: [worker, leaseUntil, now, id])
            return try Self.record(db, id: id)
        }
    }

    func renew(worker: String, progress: [String: JobProgress], leaseUntil: Date) async throws -> Set<String> {
        try await write { db in
            var lost = Set<String>()
            for (id, progress) in progress.sorted(by: { $0.key < $1.key }) {
                try db.execute(sql: """
                    UPDATE jobs SET lease_until = ?, progress_fraction = ?, progress_speed = ?, progress_seconds_left = ?
                    WHERE id = ? AND worker = ? AND state = 'rendering'
                    """, arguments: [leaseUntil, progress.fraction, progress.speed, progress.secondsLeft, id, worker])
                if db.changesCount == 0 { lost.insert(id) }
            }
            return lost
        }
    }

    func finish(id: String, worker: String, outcome: JobOutcome, webhookPayload: String, now: Date) async throws -> Bool {
        try await write { db in
            let (state, result, problem) = JobRules.columns(outcome)
            // A job marked cancelled (no owner wants it) is still its worker's to finish, but only as cancelled.
            try db.execute(sql: """
                UPDATE jobs SET state = ?, result = ?, problem = ?, finished_at = coalesce(finished_at, ?),
                    worker = NULL, lease_until = NULL
                WHERE id = ? AND worker = ? AND (state = 'rendering' OR (state = 'cancelled' AND ? = 'cancelled'))
                """, arguments: [state, result, problem, now, id, worker, state])
            if db.changesCount == 0 { return false }
            if let reason = JobRules.skipReason(outcome) {
                try db.execute(sql: """
                    UPDATE uploads SET state = 'skipped', last_error = ?, finished_at = ? WHERE job_id = ? AND state = 'waiting'
                    """, arguments: [reason, now, id])
            } else {
                try db.execute(sql: """
                    UPDATE uploads SET state = 'pending', next_attempt_at = ? WHERE job_id = ? AND state = 'waiting'
                    """, arguments: [now, id])
            }
            let owners = try Row.fetchAll(db, sql: """
                SELECT token, webhook_url FROM job_owners
                WHERE job_id = ? AND withdrawn_at IS NULL AND webhook_url IS NOT NULL ORDER BY added_at, token
                """, arguments: [id])
            for owner in owners {
                try db.execute(sql: """
                    INSERT INTO webhook_deliveries (id, job_id, token, url, payload, attempts, created_at, next_attempt_at)
                    VALUES (?, ?, ?, ?, ?, 0, ?, ?)
                    """, arguments: [JobRules.newMessageID(), id, try owner.decode(String.self, forColumn: "token"),
                                     try owner.decode(String.self, forColumn: "webhook_url"), webhookPayload, now, now])
            }
            return true
        }
    }

    func requeue(worker: String) async throws {
        try await write { db in
            try db.execute(sql: """
                UPDATE jobs SET state = 'queued', worker = NULL, lease_until = NULL, started_at = NULL,
                    progress_fraction = NULL, progress_speed = NULL, progress_seconds_left = NULL
                WHERE worker = ? AND state = 'rendering'
                """, arguments: [worker])
            // Jobs marked cancelled while this worker rendered them: nobody will finish them now.
            try db.execute(sql: "UPDATE jobs SET worker = NULL, lease_until = NULL WHERE worker = ? AND state = 'cancelled'",
                           arguments: [worker])
        }
    }

    // MARK: Webhook deliveries

    func dueDeliveries(now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDelivery] {
        try await write { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, job_id, url, payload, attempts, created_at FROM webhook_deliveries
                WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= ?
                    AND (lease_until IS NULL OR lease_until <= ?)
                ORDER BY created_at, id LIMIT ?
                """, arguments: [now, now, max(limit, 0)])
            let deliveries = try rows.map { row in
                WebhookDelivery(id: try row.decode(forColumn: "id"), jobID: try row.decode(forColumn: "job_id"),
                                url: try row.decode(forColumn: "url"), payload: try row.decode(forColumn: "payload"),
                                attempts: try row.decode(forColumn: "attempts"),
                                createdAt: try row.decode(forColumn: "created_at"))
            }
            for delivery in deliveries {
                try db.execute(sql: "UPDATE webhook_deliveries SET lease_until = ? WHERE id = ?",
                               arguments: [leaseUntil, delivery.id])
            }
            return deliveries
        }
    }

    func recordDelivery(id: String, delivered: Bool, retryAt: Date?, now: Date) async throws {
        try await write { db in
            let (deliveredAt, gaveUpAt) = JobRules.deliveryEnd(delivered: delivered, retryAt: retryAt, now: now)
            try db.execute(sql: """
                UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = ?, lease_until = NULL,
                    delivered_at = ?, gave_up_at = ?, next_attempt_at = coalesce(?, next_attempt_at)
                WHERE id = ? AND delivered_at IS NULL AND gave_up_at IS NULL
                """, arguments: [now, deliveredAt, gaveUpAt, retryAt, id])
        }
    }

    // MARK: Uploads

    /// Applies `UploadPlan` to `token`'s uploads of `job`.
    private static func plan(_ db: Database, uploads: [UploadDestination], job: JobRecord, token: String, now: Date) throws {
        let existing = try Row.fetchAll(db, sql: "SELECT id, destination, state FROM uploads WHERE job_id = ? AND token = ?",
                                        arguments: [job.id, token]).map { row in
            let id: String = try row.decode(forColumn: "id")
            return UploadPlan.Existing(id: id, destination: try row.decode(forColumn: "destination"),
                                       state: try JobRules.uploadState(row.decode(forColumn: "state"), upload: id))
        }
        let plan = UploadPlan(existing: existing, wanted: uploads, jobState: job.state)
        let due: Date? = plan.initial == .pending ? now : nil
        for id in plan.delete {
            try db.execute(sql: "DELETE FROM uploads WHERE id = ?", arguments: [id])
        }
        for (id, position) in plan.keep {
            try db.execute(sql: "UPDATE uploads SET position = ? WHERE id = ?", arguments: [position, id])
        }
        for (id, position) in plan.restart {
            try db.execute(sql: """
                UPDATE uploads SET position = ?, state = ?, attempts = 0, last_status = NULL, last_error = NULL,
                    next_attempt_at = ?, lease_until = NULL, finished_at = NULL
                WHERE id = ?
                """, arguments: [position, plan.initial.rawValue, due, id])
        }
        for (id, position, destination) in plan.insert {
            try db.execute(sql: """
                INSERT INTO uploads (id, job_id, token, position, destination, state, attempts, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, ?, 0, ?)
                """, arguments: [id, job.id, token, position, destination, plan.initial.rawValue, due])
        }
    }

    func dueUploads(now: Date, leaseUntil: Date, limit: Int) async throws -> [FileUpload] {
        try await write { db in
            let uploads = try Row.fetchAll(db, sql: """
                SELECT \(JobRules.uploadColumns(of: "uploads")) FROM uploads
                JOIN job_owners ON job_owners.job_id = uploads.job_id AND job_owners.token = uploads.token
                WHERE uploads.state = 'pending' AND uploads.next_attempt_at <= ? AND job_owners.withdrawn_at IS NULL
                    AND (uploads.lease_until IS NULL OR uploads.lease_until <= ?)
                ORDER BY uploads.next_attempt_at, uploads.id LIMIT ?
                """, arguments: [now, now, max(limit, 0)]).map(Self.upload)
            for upload in uploads {
                try db.execute(sql: "UPDATE uploads SET lease_until = ? WHERE id = ?", arguments: [leaseUntil, upload.id])
            }
            return uploads
        }
    }

    func recordUpload(id: String, attempt: UploadAttempt, now: Date,
                      payload: @escaping @Sendable (JobRecord, [FileUpload]) -> String) async throws {
        try await write { db in
            let settled = attempt.state.isSettled
            try db.execute(sql: """
                UPDATE uploads SET attempts = attempts + 1, state = ?, last_status = ?, last_error = ?, lease_until = NULL,
                    next_attempt_at = coalesce(?, next_attempt_at), finished_at = ?
                WHERE id = ? AND state = 'pending'
                """, arguments: [attempt.state.rawValue, attempt.status, attempt.error, attempt.retryAt,
                                 settled ? now : nil, id])
            guard db.changesCount > 0, settled,
                  let row = try Row.fetchOne(db, sql: "SELECT job_id, token FROM uploads WHERE id = ?", arguments: [id]) else { return }
            let jobID: String = try row.decode(forColumn: "job_id"), token: String = try row.decode(forColumn: "token")
            let uploads = try Self.uploads(db, id: jobID, owner: token)
            guard uploads.allSatisfy({ $0.state.isSettled }), let job = try Self.record(db, id: jobID),
                  let webhook = try String.fetchOne(db, sql: """
                      SELECT webhook_url FROM job_owners WHERE job_id = ? AND token = ? AND withdrawn_at IS NULL
                      """, arguments: [jobID, token]) else { return }
            try db.execute(sql: """
                INSERT INTO webhook_deliveries (id, job_id, token, url, payload, attempts, created_at, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, 0, ?, ?)
                """, arguments: [JobRules.newMessageID(), jobID, token, webhook, payload(job, uploads), now, now])
        }
    }

    func uploads(id: String, owner: String) async throws -> [FileUpload] {
        try await read { db in try Self.uploads(db, id: id, owner: owner) }
    }

    private static func uploads(_ db: Database, id: String, owner: String) throws -> [FileUpload] {
        // Cached statements (GRDB's, per connection): every status call asks these three, and preparing one costs
        // more than running it (SQLite's parse, GRDB's authorizer).
        try Row.fetchAll(try db.cachedStatement(sql: """
            SELECT \(JobRules.uploadColumns) FROM uploads WHERE job_id = ? AND token = ? ORDER BY position, id
            """), arguments: [id, owner]).map(upload)
    }

    private static func upload(_ row: Row) throws -> FileUpload {
        let id: String = try row.decode(atIndex: 0)
        return FileUpload(id: id, jobID: try row.decode(atIndex: 1), token: try row.decode(atIndex: 2),
                          position: try row.decode(atIndex: 3),
                          destination: try UploadDestination.parse(row.decode(atIndex: 4), upload: id),
                          state: try JobRules.uploadState(row.decode(atIndex: 5), upload: id), attempts: try row.decode(atIndex: 6),
                          lastStatus: try row.decode(atIndex: 7), lastError: try row.decode(atIndex: 8),
                          nextAttemptAt: try row.decode(atIndex: 9), finishedAt: try row.decode(atIndex: 10))
    }

    // MARK: Service

    func counts() async throws -> JobCounts {
        try await read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT count(*) FILTER (WHERE state = 'queued') AS queued, count(*) FILTER (WHERE state = 'rendering') AS rendering
                FROM jobs WHERE state IN ('queued', 'rendering')
                """)
            return JobCounts(queued: try row?.decode(forColumn: "queued") ?? 0,
                             rendering: try row?.decode(forColumn: "rendering") ?? 0)
        }
    }

    func ping() async throws {
        _ = try await read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    /// Writes the WAL back into the database file and empties it, then closes: after a clean stop `jobs.sqlite` alone
    /// holds every job, so that an operator who copies or backs up "the job database" has them all (before, a clean
    /// stop left them in `jobs.sqlite-wal`). Another server on the same file that is still reading or writing past the
    /// busy time-out makes the checkpoint give up (SQLITE_BUSY): that is no failure of this stop, and the last server
    /// to close writes the WAL back. Any other failure is the error, after the database is closed.
    /// Nothing runs beside a SQLite database.
    func run() async {}

    func close() async throws {
        let first = closing.withLock { closing in
            defer { closing = true }
            return !closing
        }
        var checkpointFailure: Error? = nil
        do {
            if first { try await pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) } }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            // Another server's connection: it checkpoints when it closes.
        } catch {
            checkpointFailure = error
        }
        do {
            try pool.close()
        } catch {
            throw JobStoreError("job store \(file.path): cannot close: \(Self.describe(error))")
        }
        if let checkpointFailure {
            throw JobStoreError("job store \(file.path): cannot write the WAL back at close: \(Self.describe(checkpointFailure))")
        }
    }

    // MARK: Reading rows

    private static func record(_ db: Database, id: String) throws -> JobRecord? {
        try Row.fetchOne(try db.cachedStatement(sql: "SELECT \(JobRules.jobColumns) FROM jobs WHERE id = ?"), arguments: [id]).map(jobRecord)
    }

    private static func view(_ db: Database, id: String, owner: String) throws -> JobView? {
        // An owner that withdrew (DELETE) does not see the job any more.
        guard try Row.fetchOne(try db.cachedStatement(sql: "SELECT 1 FROM job_owners WHERE job_id = ? AND token = ? AND withdrawn_at IS NULL"),
                               arguments: [id, owner]) != nil,
              let record = try record(db, id: id) else { return nil }
        var view = JobRules.view(record, withdrawn: false)
        view.uploads = try uploads(db, id: id, owner: owner)
        return view
    }

    private static func jobRecord(_ row: Row) throws -> JobRecord {
        let id: String = try row.decode(forColumn: "id")
        return JobRecord(
            id: id, state: try JobRules.state(row.decode(forColumn: "state"), job: id),
            format: try row.decode(forColumn: "format"), name: try row.decode(forColumn: "name"),
            request: try row.decode(forColumn: "request"), durationSeconds: try row.decode(forColumn: "duration_seconds"),
            createdAt: try row.decode(forColumn: "created_at"), startedAt: try row.decode(forColumn: "started_at"),
            finishedAt: try row.decode(forColumn: "finished_at"), attempts: try row.decode(forColumn: "attempts"),
            progress: JobRules.progress(fraction: try row.decode(forColumn: "progress_fraction"),
                                        speed: try row.decode(forColumn: "progress_speed"),
                                        secondsLeft: try row.decode(forColumn: "progress_seconds_left")),
            problem: try row.decode(forColumn: "problem"), result: try row.decode(forColumn: "result"),
            worker: try row.decode(forColumn: "worker"), leaseUntil: try row.decode(forColumn: "lease_until"))
    }

    // MARK: Database access

    private func write<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.write(updates)
        } catch let error as JobStoreError {
            throw error
        } catch {
            throw JobStoreError("job store \(file.path): \(Self.describe(error))")
        }
    }

    private func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(value)
        } catch let error as JobStoreError {
            throw error
        } catch {
            throw JobStoreError("job store \(file.path): \(Self.describe(error))")
        }
    }

    /// An error on one line: SQLite's message without the statement (which spans lines).
    private static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return "\(error.resultCode): \(error.message ?? "unknown error")"
        }
        return "\(error)"
    }
}
