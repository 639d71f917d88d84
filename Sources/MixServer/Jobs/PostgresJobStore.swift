import Foundation
import Logging
import PostgresNIO

/// The jobs of several servers sharing one PostgreSQL database. Each claim locks the job it takes and skips jobs
/// another server has locked (`FOR UPDATE SKIP LOCKED`), so two servers never claim the same job; submissions take
/// one advisory lock, so the limits hold across servers.
final class PostgresJobStore: JobStore {
    /// Where the store connects (the URL it was given, parsed).
    let location: PostgresLocation
    private let client: PostgresClient
    private let logger: Logger

    /// The advisory lock held while the tables are created (any server, any schema of the database).
    static let migrationLock: Int64 = 0x6D69_7872_656E_6401
    /// The advisory lock held while a job is submitted, so that two servers count the limits one after the other.
    static let submitLock: Int64 = 0x6D69_7872_656E_6402
    /// How long `ping` waits for its answer.
    static let pingTimeout: Duration = .seconds(5)

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`), its tables in `schema`
    /// (the server's default `search_path` when nil). `migrate` creates the schema and the tables.
    init(url: String, schema: String? = nil, logger: Logger = Logger(label: "mixrender.jobs")) throws {
        location = try PostgresLocation(url: url, schema: schema)
        self.logger = logger
        client = PostgresClient(configuration: location.clientConfiguration(), backgroundLogger: logger)
    }

    /// Runs the connection pool (`PostgresClient.run`) until a graceful shutdown or the task's cancel.
    func run() async {
        await client.run()
    }

    // MARK: Schema

    /// The schema, one statement a string, each safe to run again.
    private static let tables: [PostgresQuery] = [
        """
        CREATE TABLE IF NOT EXISTS jobs (
            id TEXT NOT NULL PRIMARY KEY,
            state TEXT NOT NULL CHECK (state IN ('queued', 'rendering', 'succeeded', 'failed', 'cancelled')),
            format TEXT NOT NULL,
            name TEXT NOT NULL,
            request TEXT NOT NULL,
            duration_seconds DOUBLE PRECISION NOT NULL,
            created_at TIMESTAMPTZ NOT NULL,
            queued_at TIMESTAMPTZ NOT NULL,
            started_at TIMESTAMPTZ,
            finished_at TIMESTAMPTZ,
            attempts BIGINT NOT NULL DEFAULT 0,
            progress_fraction DOUBLE PRECISION,
            progress_speed DOUBLE PRECISION,
            progress_seconds_left DOUBLE PRECISION,
            problem TEXT,
            result TEXT,
            worker TEXT,
            lease_until TIMESTAMPTZ
        )
        """,
        "CREATE INDEX IF NOT EXISTS jobs_queue ON jobs (state, queued_at, id)",
        // Priorities (interactive before background): jobs made before are interactive, as every job was.
        "ALTER TABLE jobs ADD COLUMN IF NOT EXISTS priority SMALLINT NOT NULL DEFAULT 0",
        "CREATE INDEX IF NOT EXISTS jobs_claim_order ON jobs (state, priority, queued_at, id)",
        "CREATE INDEX IF NOT EXISTS jobs_worker ON jobs (worker) WHERE worker IS NOT NULL",
        """
        CREATE TABLE IF NOT EXISTS job_owners (
            job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
            token TEXT NOT NULL,
            webhook_url TEXT,
            added_at TIMESTAMPTZ NOT NULL,
            withdrawn_at TIMESTAMPTZ,
            PRIMARY KEY (job_id, token)
        )
        """,
        "CREATE INDEX IF NOT EXISTS job_owners_token ON job_owners (token)",
        """
        CREATE TABLE IF NOT EXISTS webhook_deliveries (
            id TEXT NOT NULL PRIMARY KEY,
            job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
            token TEXT NOT NULL,
            url TEXT NOT NULL,
            payload TEXT NOT NULL,
            attempts BIGINT NOT NULL DEFAULT 0,
            created_at TIMESTAMPTZ NOT NULL,
            next_attempt_at TIMESTAMPTZ NOT NULL,
            lease_until TIMESTAMPTZ,
            last_attempt_at TIMESTAMPTZ,
            delivered_at TIMESTAMPTZ,
            gave_up_at TIMESTAMPTZ
        )
        """,
        """
        CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_attempt_at, created_at)
            WHERE delivered_at IS NULL AND gave_up_at IS NULL
        """,
        // Uploads of a render's files to destinations its owners gave (pre-signed URLs).
        """
        CREATE TABLE IF NOT EXISTS uploads (
            id TEXT NOT NULL PRIMARY KEY,
            job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
            token TEXT NOT NULL,
            position BIGINT NOT NULL,
            destination TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('waiting', 'pending', 'delivered', 'failed', 'skipped')),
            attempts BIGINT NOT NULL DEFAULT 0,
            last_status BIGINT,
            last_error TEXT,
            next_attempt_at TIMESTAMPTZ,
            lease_until TIMESTAMPTZ,
            finished_at TIMESTAMPTZ
        )
        """,
        "CREATE INDEX IF NOT EXISTS uploads_owner ON uploads (job_id, token, position)",
        "CREATE INDEX IF NOT EXISTS uploads_due ON uploads (next_attempt_at) WHERE state = 'pending'",
    ]

    /// Creates the schema and tables over a connection of its own (not the pool, which retries a failing connection
    /// for a minute): a wrong password or an unknown database is reported at once. Servers starting together take
    /// turns (an advisory lock), so concurrent `CREATE ... IF NOT EXISTS` cannot collide.
    func migrate() async throws {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: location.connectionConfiguration(), id: 1,
                                                              logger: logger)
        } catch {
            throw JobStoreError("job store \(location): cannot connect: \(Self.describe(error))")
        }
        do {
            try await connection.withTransaction(logger: logger) { connection in
                _ = try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger).collect()
                if let schema = location.schema {
                    try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(schema)\""),
                                               logger: logger)
                }
                for statement in Self.tables {
                    try await connection.query(statement, logger: logger)
                }
            }
            try await connection.close()
        } catch {
            try? await connection.close()
            throw JobStoreError("job store \(location): cannot create the tables: \(Self.describe(error))")
        }
    }

    // MARK: Jobs

    func submit(_ job: NewJob, owner: JobOwner, limits: SubmitLimits, now: Date) async throws -> SubmitOutcome {
        try await transaction { connection, logger in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(\(Self.submitLock))", logger: logger).collect()
            let existing = try await Self.record(connection, id: job.id, lock: true, logger: logger)
            let owned = try await connection.query("""
                SELECT 1 FROM job_owners WHERE job_id = \(job.id) AND token = \(owner.token)
                """, logger: logger).collect().isEmpty == false
            let step = SubmitStep(existing: existing?.state, resultMissing: job.resultMissing)
            if !owned {
                let tokenUnfinished = try await Self.count(connection, """
                    SELECT count(*) FROM jobs JOIN job_owners ON job_owners.job_id = jobs.id
                    WHERE job_owners.token = \(owner.token) AND job_owners.withdrawn_at IS NULL
                        AND jobs.state IN ('queued', 'rendering')
                    """, logger: logger)
                let queued = try await Self.count(connection, "SELECT count(*) FROM jobs WHERE state = 'queued'",
                                                  logger: logger)
                if let refusal = step.refusal(existing: existing?.state, tokenUnfinished: tokenUnfinished, queued: queued,
                                              limits: limits) {
                    return refusal
                }
            }
            switch step {
            case .create:
                try await connection.query("""
                    INSERT INTO jobs (id, state, format, name, request, duration_seconds, created_at, queued_at, attempts, priority)
                    VALUES (\(job.id), 'queued', \(job.format), \(job.name), \(job.request), \(job.durationSeconds),
                        \(now), \(now), 0, \(Int16(job.priority.rawValue)))
                    """, logger: logger)
            case .requeue:
                try await connection.query("""
                    UPDATE jobs SET state = 'queued', format = \(job.format), name = \(job.name), request = \(job.request),
                        duration_seconds = \(job.durationSeconds), queued_at = \(now), started_at = NULL,
                        finished_at = NULL, attempts = 0, progress_fraction = NULL, progress_speed = NULL,
                        progress_seconds_left = NULL, problem = NULL, result = NULL, worker = NULL, lease_until = NULL,
                        priority = \(Int16(job.priority.rawValue))
                    WHERE id = \(job.id)
                    """, logger: logger)
            case .keep:
                // Wanted again, perhaps more urgently: the job takes the more urgent of the two priorities.
                try await connection.query("""
                    UPDATE jobs SET priority = least(priority, \(Int16(job.priority.rawValue))) WHERE id = \(job.id)
                    """, logger: logger)
            }
            // The owner wants the job (again); a webhook given now replaces the one given before.
            try await connection.query("""
                INSERT INTO job_owners (job_id, token, webhook_url, added_at)
                VALUES (\(job.id), \(owner.token), \(owner.webhookURL), \(now))
                ON CONFLICT (job_id, token) DO UPDATE
                SET withdrawn_at = NULL, webhook_url = coalesce(excluded.webhook_url, job_owners.webhook_url)
                """, logger: logger)
            guard let record = try await Self.record(connection, id: job.id, lock: false, logger: logger) else {
                throw JobStoreError("job \(job.id) vanished while it was submitted")
            }
            if !owner.uploads.isEmpty {
                try await Self.plan(connection, uploads: owner.uploads, job: record, token: owner.token, now: now, logger: logger)
            }
            // As the owner sees it, its uploads with it (`job(id:owner:)`).
            var view = JobRules.view(record, withdrawn: false)
            view.uploads = try await Self.uploads(connection, id: job.id, owner: owner.token, logger: logger)
            return step.outcome(view)
        }
    }

    func job(id: String, owner: String) async throws -> JobView? {
        try await withConnection { connection, logger in
            try await Self.view(connection, id: id, owner: owner, logger: logger)
        }
    }

    func job(id: String) async throws -> JobRecord? {
        try await withConnection { connection, logger in
            try await Self.record(connection, id: id, lock: false, logger: logger)
        }
    }

    func cancel(id: String, owner: String, now: Date) async throws -> Withdrawal? {
        try await transaction { connection, logger in
            // The job's row lock orders this cancel with a submit adding an owner, and with the job's worker.
            guard try await Self.record(connection, id: id, lock: true, logger: logger) != nil,
                  try await Self.view(connection, id: id, owner: owner, logger: logger) != nil else { return nil }
            try await connection.query("""
                UPDATE job_owners SET withdrawn_at = \(now) WHERE job_id = \(id) AND token = \(owner)
                """, logger: logger)
            let wanted = try await Self.count(connection, """
                SELECT count(*) FROM job_owners WHERE job_id = \(id) AND withdrawn_at IS NULL
                """, logger: logger)
            if wanted == 0 {
                // A rendering job keeps its worker until the worker, told by `renew`, finishes it as cancelled.
                try await connection.query("""
                    UPDATE jobs SET state = 'cancelled', finished_at = \(now)
                    WHERE id = \(id) AND state IN ('queued', 'rendering')
                    """, logger: logger)
            }
            guard let record = try await Self.record(connection, id: id, lock: false, logger: logger) else {
                throw JobStoreError("job \(id) vanished while it was cancelled")
            }
            return Withdrawal(view: JobRules.view(record, withdrawn: true), wantedByOthers: wanted > 0)
        }
    }

    func forget(finishedBefore before: Date) async throws -> [String] {
        try await transaction { connection, logger in
            // Owners and deliveries go with their job (ON DELETE CASCADE).
            let rows = try await connection.query("""
                DELETE FROM jobs WHERE state IN ('succeeded', 'failed', 'cancelled') AND finished_at < \(before) RETURNING id
                """, logger: logger).collect()
            return try rows.map { try $0.decode(String.self) }.sorted()
        }
    }

    func claim(worker: String, now: Date, leaseUntil: Date) async throws -> JobRecord? {
        try await transaction { connection, logger in
            // A job another server is claiming (or submitting, or cancelling) is locked: skip it, take the next.
            let candidates = try await connection.query("""
                SELECT id FROM jobs WHERE state = 'queued' OR (state = 'rendering' AND lease_until < \(now))
                ORDER BY priority, queued_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
                """, logger: logger).collect()
            guard let row = candidates.first else { return nil }
            let id = try row.decode(String.self)
            let claimed = try await connection.query("""
                UPDATE jobs SET state = 'rendering', worker = \(worker), lease_until = \(leaseUntil), started_at = \(now),
                    finished_at = NULL, attempts = attempts + 1, progress_fraction = NULL, progress_speed = NULL,
                    progress_seconds_left = NULL
                WHERE id = \(id)
                RETURNING \(unescaped: JobRules.jobColumns)
                """, logger: logger).collect()
            return try claimed.first.map(Self.record)
        }
    }

    func renew(worker: String, progress: [String: JobProgress], leaseUntil: Date) async throws -> Set<String> {
        try await transaction { connection, logger in
            var lost = Set<String>()
            for (id, progress) in progress.sorted(by: { $0.key < $1.key }) {
                let renewed = try await connection.query("""
                    UPDATE jobs SET lease_until = \(leaseUntil), progress_fraction = \(progress.fraction),
                        progress_speed = \(progress.speed), progress_seconds_left = \(progress.secondsLeft)
                    WHERE id = \(id) AND worker = \(worker) AND state = 'rendering'
                    RETURNING id
                    """, logger: logger).collect()
                if renewed.isEmpty { lost.insert(id) }
            }
            return lost
        }
    }

    func finish(id: String, worker: String, outcome: JobOutcome, webhookPayload: String, now: Date) async throws -> Bool {
        try await transaction { connection, logger in
            let (state, result, problem) = JobRules.columns(outcome)
            // A job marked cancelled (no owner wants it) is still its worker's to finish, but only as cancelled.
            let finished = try await connection.query("""
                UPDATE jobs SET state = \(state), result = \(result), problem = \(problem),
                    finished_at = coalesce(finished_at, \(now)), worker = NULL, lease_until = NULL
                WHERE id = \(id) AND worker = \(worker)
                    AND (state = 'rendering' OR (state = 'cancelled' AND \(state) = 'cancelled'))
                RETURNING id
                """, logger: logger).collect()
            if finished.isEmpty { return false }
            if let reason = JobRules.skipReason(outcome) {
                try await connection.query("""
                    UPDATE uploads SET state = 'skipped', last_error = \(reason), finished_at = \(now)
                    WHERE job_id = \(id) AND state = 'waiting'
                    """, logger: logger)
            } else {
                try await connection.query("""
                    UPDATE uploads SET state = 'pending', next_attempt_at = \(now) WHERE job_id = \(id) AND state = 'waiting'
                    """, logger: logger)
            }
            let owners = try await connection.query("""
                SELECT token, webhook_url FROM job_owners
                WHERE job_id = \(id) AND withdrawn_at IS NULL AND webhook_url IS NOT NULL ORDER BY added_at, token
                """, logger: logger).collect()
            for owner in owners {
                let (token, url) = try owner.decode((String, String).self)
                try await connection.query("""
                    INSERT INTO webhook_deliveries (id, job_id, token, url, payload, attempts, created_at, next_attempt_at)
                    VALUES (\(JobRules.newMessageID()), \(id), \(token), \(url), \(webhookPayload), 0, \(now), \(now))
                    """, logger: logger)
            }
            return true
        }
    }

    func requeue(worker: String) async throws {
        try await transaction { connection, logger in
            try await connection.query("""
                UPDATE jobs SET state = 'queued', worker = NULL, lease_until = NULL, started_at = NULL,
                    progress_fraction = NULL, progress_speed = NULL, progress_seconds_left = NULL
                WHERE worker = \(worker) AND state = 'rendering'
                """, logger: logger)
            // Jobs marked cancelled while this worker rendered them: nobody will finish them now.
            try await connection.query("""
                UPDATE jobs SET worker = NULL, lease_until = NULL WHERE worker = \(worker) AND state = 'cancelled'
                """, logger: logger)
        }
    }

    // MARK: Webhook deliveries

    func dueDeliveries(now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDelivery] {
        try await transaction { connection, logger in
            let rows = try await connection.query("""
                SELECT id, job_id, url, payload, attempts, created_at FROM webhook_deliveries
                WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= \(now)
                    AND (lease_until IS NULL OR lease_until <= \(now))
                ORDER BY created_at, id LIMIT \(max(limit, 0)) FOR UPDATE SKIP LOCKED
                """, logger: logger).collect()
            let deliveries = try rows.map { row in
                let (id, jobID, url, payload, attempts, createdAt) = try row.decode(
                    (String, String, String, String, Int, Date).self)
                return WebhookDelivery(id: id, jobID: jobID, url: url, payload: payload, attempts: attempts,
                                       createdAt: createdAt)
            }
            if !deliveries.isEmpty {
                try await connection.query("""
                    UPDATE webhook_deliveries SET lease_until = \(leaseUntil) WHERE id = ANY(\(deliveries.map(\.id)))
                    """, logger: logger)
            }
            return deliveries
        }
    }

    func recordDelivery(id: String, delivered: Bool, retryAt: Date?, now: Date) async throws {
        let (deliveredAt, gaveUpAt) = JobRules.deliveryEnd(delivered: delivered, retryAt: retryAt, now: now)
        try await withConnection { connection, logger in
            _ = try await connection.query("""
                UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = \(now), lease_until = NULL,
                    delivered_at = \(deliveredAt), gave_up_at = \(gaveUpAt),
                    next_attempt_at = coalesce(\(retryAt), next_attempt_at)
                WHERE id = \(id) AND delivered_at IS NULL AND gave_up_at IS NULL
                """, logger: logger)
        }
    }

    // MARK: Uploads

    /// Applies `UploadPlan` to `token`'s uploads of `job`.
    private static func plan(_ connection: PostgresConnection, uploads: [UploadDestination], job: JobRecord, token: String,
                             now: Date, logger: Logger) async throws {
        let rows = try await connection.query("""
            SELECT id, destination, state FROM uploads WHERE job_id = \(job.id) AND token = \(token)
            """, logger: logger).collect()
        let existing = try rows.map { row in
            let (id, destination, state) = try row.decode((String, String, String).self)
            return UploadPlan.Existing(id: id, destination: destination, state: try JobRules.uploadState(state, upload: id))
        }
        let plan = UploadPlan(existing: existing, wanted: uploads, jobState: job.state)
        let due: Date? = plan.initial == .pending ? now : nil
        let initial = plan.initial.rawValue
        if !plan.delete.isEmpty {
            try await connection.query("DELETE FROM uploads WHERE id = ANY(\(plan.delete))", logger: logger)
        }
        for (id, position) in plan.keep {
            try await connection.query("UPDATE uploads SET position = \(position) WHERE id = \(id)", logger: logger)
        }
        for (id, position) in plan.restart {
            try await connection.query("""
                UPDATE uploads SET position = \(position), state = \(initial), attempts = 0, last_status = NULL,
                    last_error = NULL, next_attempt_at = \(due), lease_until = NULL, finished_at = NULL
                WHERE id = \(id)
                """, logger: logger)
        }
        for (id, position, destination) in plan.insert {
            try await connection.query("""
                INSERT INTO uploads (id, job_id, token, position, destination, state, attempts, next_attempt_at)
                VALUES (\(id), \(job.id), \(token), \(position), \(destination), \(initial), 0, \(due))
                """, logger: logger)
        }
    }

    func dueUploads(now: Date, leaseUntil: Date, limit: Int) async throws -> [FileUpload] {
        try await transaction { connection, logger in
            let rows = try await connection.query("""
                SELECT \(unescaped: JobRules.uploadColumns(of: "uploads")) FROM uploads
                JOIN job_owners ON job_owners.job_id = uploads.job_id AND job_owners.token = uploads.token
                WHERE uploads.state = 'pending' AND uploads.next_attempt_at <= \(now) AND job_owners.withdrawn_at IS NULL
                    AND (uploads.lease_until IS NULL OR uploads.lease_until <= \(now))
                ORDER BY uploads.next_attempt_at, uploads.id LIMIT \(max(limit, 0)) FOR UPDATE OF uploads SKIP LOCKED
                """, logger: logger).collect()
            let uploads = try rows.map(Self.upload)
            if !uploads.isEmpty {
                try await connection.query("""
                    UPDATE uploads SET lease_until = \(leaseUntil) WHERE id = ANY(\(uploads.map(\.id)))
                    """, logger: logger)
            }
            return uploads
        }
    }

    func recordUpload(id: String, attempt: UploadAttempt, now: Date,
                      payload: @escaping @Sendable (JobRecord, [FileUpload]) -> String) async throws {
        try await transaction { connection, logger in
            let settled = attempt.state.isSettled
            let finishedAt: Date? = settled ? now : nil
            let updated = try await connection.query("""
                UPDATE uploads SET attempts = attempts + 1, state = \(attempt.state.rawValue), last_status = \(attempt.status),
                    last_error = \(attempt.error), lease_until = NULL,
                    next_attempt_at = coalesce(\(attempt.retryAt), next_attempt_at), finished_at = \(finishedAt)
                WHERE id = \(id) AND state = 'pending'
                RETURNING job_id, token
                """, logger: logger).collect()
            guard settled, let row = updated.first else { return }
            let (jobID, token) = try row.decode((String, String).self)
            // The job's row lock orders two uploads of one owner settling at once: the second sees the first settled.
            guard let job = try await Self.record(connection, id: jobID, lock: true, logger: logger) else { return }
            let uploads = try await Self.uploads(connection, id: jobID, owner: token, logger: logger)
            guard uploads.allSatisfy({ $0.state.isSettled }) else { return }
            let owners = try await connection.query("""
                SELECT webhook_url FROM job_owners
                WHERE job_id = \(jobID) AND token = \(token) AND withdrawn_at IS NULL AND webhook_url IS NOT NULL
                """, logger: logger).collect()
            guard let webhook = try owners.first?.decode(String.self) else { return }
            try await connection.query("""
                INSERT INTO webhook_deliveries (id, job_id, token, url, payload, attempts, created_at, next_attempt_at)
                VALUES (\(JobRules.newMessageID()), \(jobID), \(token), \(webhook), \(payload(job, uploads)), 0, \(now), \(now))
                """, logger: logger)
        }
    }

    func uploads(id: String, owner: String) async throws -> [FileUpload] {
        try await withConnection { connection, logger in
            try await Self.uploads(connection, id: id, owner: owner, logger: logger)
        }
    }

    private static func uploads(_ connection: PostgresConnection, id: String, owner: String,
                                logger: Logger) async throws -> [FileUpload] {
        try await connection.query("""
            SELECT \(unescaped: JobRules.uploadColumns) FROM uploads WHERE job_id = \(id) AND token = \(owner)
            ORDER BY position, id
            """, logger: logger).collect().map(upload)
    }

    private static func upload(_ row: PostgresRow) throws -> FileUpload {
        try upload(PostgresRandomAccessRow(row), from: 0)
    }

    /// The upload in `cells`, its columns (`JobRules.uploadColumns`) from column `first` on.
    private static func upload(_ cells: PostgresRandomAccessRow, from first: Int) throws -> FileUpload {
        func cell<Value: PostgresDecodable>(_ index: Int, as type: Value.Type = Value.self) throws -> Value {
            try cells[first + index].decode(Value.self)
        }
        let id: String = try cell(0)
        return FileUpload(id: id, jobID: try cell(1), token: try cell(2), position: try cell(3),
                          destination: try UploadDestination.parse(cell(4), upload: id),
                          state: try JobRules.uploadState(cell(5), upload: id), attempts: try cell(6),
                          lastStatus: try cell(7), lastError: try cell(8), nextAttemptAt: try cell(9), finishedAt: try cell(10))
    }

    // MARK: Service

    func counts() async throws -> JobCounts {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'rendering')
                FROM jobs WHERE state IN ('queued', 'rendering')
                """, logger: logger).collect()
            guard let row = rows.first else { return JobCounts(queued: 0, rendering: 0) }
            let (queued, rendering) = try row.decode((Int, Int).self)
            return JobCounts(queued: queued, rendering: rendering)
        }
    }

    /// A round trip, given up after `pingTimeout` (the pool keeps trying to connect to a database that is down).
    func ping() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await self.withConnection { connection, logger in
                    _ = try await connection.query("SELECT 1", logger: logger).collect()
                }
            }
            group.addTask {
                try await Task.sleep(for: Self.pingTimeout)
                throw JobStoreError("job store \(self.location): no answer in \(Self.pingTimeout)")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Nothing to do: the pool's connections close when `run` returns.
    func close() async throws {}

    // MARK: Reading rows

    private static func record(_ connection: PostgresConnection, id: String, lock: Bool,
                               logger: Logger) async throws -> JobRecord? {
        let rows = try await connection.query("""
            SELECT \(unescaped: JobRules.jobColumns) FROM jobs WHERE id = \(id) \(unescaped: lock ? "FOR UPDATE" : "")
            """, logger: logger).collect()
        return try rows.first.map(record)
    }

    /// The job as `owner` sees it, with the owner's uploads of its files: one query (a status call is one round trip).
    private static func view(_ connection: PostgresConnection, id: String, owner: String,
                             logger: Logger) async throws -> JobView? {
        // An owner that withdrew (DELETE) does not see the job any more.
        let rows = try await connection.query("""
            SELECT \(unescaped: JobRules.jobColumns(of: "jobs")), \(unescaped: JobRules.uploadColumns(of: "uploads"))
            FROM job_owners JOIN jobs ON jobs.id = job_owners.job_id
            LEFT JOIN uploads ON uploads.job_id = job_owners.job_id AND uploads.token = job_owners.token
            WHERE job_owners.job_id = \(id) AND job_owners.token = \(owner) AND job_owners.withdrawn_at IS NULL
            ORDER BY uploads.position, uploads.id
            """, logger: logger).collect()
        guard let row = rows.first else { return nil }
        var view = JobRules.view(try record(row), withdrawn: false)
        let first = JobRules.jobColumnCount
        // A job without uploads is one row whose upload columns are NULL (the LEFT JOIN).
        view.uploads = try rows.compactMap { row in
            let cells = PostgresRandomAccessRow(row)
            return cells[first].bytes == nil ? nil : try upload(cells, from: first)
        }
        return view
    }

    private static func record(_ row: PostgresRow) throws -> JobRecord {
        try record(PostgresRandomAccessRow(row), from: 0)
    }

    /// The job in `cells`, its columns (`JobRules.jobColumns`) from column `first` on.
    private static func record(_ cells: PostgresRandomAccessRow, from first: Int) throws -> JobRecord {
        func cell<Value: PostgresDecodable>(_ index: Int, as type: Value.Type = Value.self) throws -> Value {
            try cells[first + index].decode(Value.self)
        }
        let id: String = try cell(0)
        return JobRecord(
            id: id, state: try JobRules.state(cell(1), job: id), format: try cell(2), name: try cell(3),
            request: try cell(4), durationSeconds: try cell(5), createdAt: try cell(6), startedAt: try cell(7),
            finishedAt: try cell(8), attempts: try cell(9),
            progress: JobRules.progress(fraction: try cell(10), speed: try cell(11), secondsLeft: try cell(12)),
            problem: try cell(13), result: try cell(14), worker: try cell(15), leaseUntil: try cell(16))
    }

    private static func count(_ connection: PostgresConnection, _ query: PostgresQuery,
                              logger: Logger) async throws -> Int {
        let rows = try await connection.query(query, logger: logger).collect()
        return try rows.first?.decode(Int.self) ?? 0
    }

    // MARK: Database access

    private func withConnection<T: Sendable>(
        _ body: (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let logger = logger
        do {
            return try await client.withConnection { connection in try await body(connection, logger) }
        } catch let error as JobStoreError {
            throw error
        } catch {
            throw JobStoreError("job store \(location): \(Self.describe(error))")
        }
    }

    private func transaction<T: Sendable>(
        _ body: (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let logger = logger
        do {
            return try await client.withConnection { connection in
                try await connection.withTransaction(logger: logger) { connection in try await body(connection, logger) }
            }
        } catch let error as PostgresTransactionError where error.closureError is JobStoreError {
            throw error.closureError!
        } catch let error as JobStoreError {
            throw error
        } catch {
            throw JobStoreError("job store \(location): \(Self.describe(error))")
        }
    }

    /// An error on one line: PostgreSQL's message and SQLSTATE, or what failed on the way (PostgresNIO's own
    /// descriptions hide both).
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as PostgresTransactionError:
            if let inner = error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError {
                return describe(inner)
            }
            return "transaction failed"
        case let error as PSQLError:
            if let info = error.serverInfo, let message = info[.message] {
                let state = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                let detail = info[.detail].map { ": \($0)" } ?? ""
                return message + detail + state
            }
            if let underlying = error.underlying {
                return "\(error.code): \(describe(underlying))"
            }
            return "\(error.code)"
        case let error as PostgresDecodingError:
            return "cannot read column \(error.columnName) as \(error.targetType) (it is \(error.postgresType))"
        default:
            return "\(error)".replacingOccurrences(of: "\n", with: " ")
        }
    }
}

/// Where a PostgreSQL job store connects, from a URL like `postgres://user:password@host:5432/database`
/// (`postgresql://` too). TLS is off for a loopback host and required (with certificate checks) for any other,
/// unless the URL says `?sslmode=disable` or `?sslmode=require`.
struct PostgresLocation: Sendable, CustomStringConvertible {
    var host: String
    var port: Int
    var username: String
    var password: String?
    var database: String
    var useTLS: Bool
    /// The schema of the store's tables (its connections' `search_path`), or nil for the server's default.
    var schema: String?

    init(url: String, schema: String? = nil) throws {
        func refuse(_ reason: String) -> JobStoreError {
            JobStoreError("PostgreSQL URL \(Self.redacted(url)): \(reason)")
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme else {
            throw refuse("not a URL (expected postgres://user:password@host:port/database)")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw refuse("the scheme must be postgres:// or postgresql://, not \(scheme)://")
        }
        var host = components.host ?? ""
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw refuse("no host") }
        guard let user = components.user, !user.isEmpty else { throw refuse("no user name (postgres://user:password@host)") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw refuse("port \(port) is not between 1 and 65535") }
        var database = components.path
        if database.hasPrefix("/") { database.removeFirst() }
        guard !database.contains("/") else { throw refuse("the database name '\(database)' contains '/'") }
        let loopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
        var useTLS = !loopback
        for item in components.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", "disable"?): useTLS = false
            case ("sslmode", "require"?): useTLS = true
            case ("sslmode", let value):
                throw refuse("sslmode must be disable or require, not '\(value ?? "")'")
            default:
                throw refuse("unknown parameter '\(item.name)' (only sslmode is understood)")
            }
        }
        if let schema {
            guard schema.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw JobStoreError("PostgreSQL schema '\(schema)': use lower-case letters, digits and '_' (at most 63)")
            }
        }
        self.host = host
        self.port = port
        self.username = user
        self.password = components.password
        self.database = database.isEmpty ? user : database
        self.useTLS = useTLS
        self.schema = schema
    }

    /// The URL without its password (for messages and logs).
    var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "postgres://\(username)@\(host):\(port)/\(database)" + (schema.map { " (schema \($0))" } ?? "")
    }

    /// The pool's configuration.
    func clientConfiguration() -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database,
            tls: useTLS ? .require(.makeClientConfiguration()) : .disable)
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// A single connection's configuration.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database,
            tls: useTLS ? .require(try NIOSSLContext(configuration: .makeClientConfiguration())) : .disable)
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    private var startupParameters: [(String, String)] {
        schema.map { [("search_path", "\"\($0)\"")] } ?? []
    }

    /// `url` with any password replaced by `***`, for a message about a URL that could not be read.
    private static func redacted(_ url: String) -> String {
        "'" + url.replacingOccurrences(of: "(://[^/@:]*:)[^@/]*@", with: "$1***@", options: .regularExpression) + "'"
    }
}
