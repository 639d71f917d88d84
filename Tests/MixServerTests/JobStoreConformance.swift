import Foundation
import Logging
import MixIO
import PostgresNIO
import Testing
@testable import MixServer

/// The `JobStore` contract, run against SQLite and PostgreSQL alike: each test gets a fresh database (a temporary
/// folder, or a new schema in the database of `MIXRENDER_TEST_POSTGRES_URL`) and opens as many stores on it as
/// it needs (separate instances, separate connections: as separate servers would).
@Suite struct JobStoreConformance {
    // MARK: Submitting

    @Test(arguments: StoreKind.allCases)
    func submitCreatesAJobAndAddsOwnersToIt(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let job = newJob(1)
            let first = try await store.submit(job, owner: owner("t1"), limits: roomy, now: t0)
            guard case .queued(let view) = first else { Issue.record("first submit: \(first)"); return }
            #expect(view.state == .queued)
            #expect(view.record == JobRecord(id: job.id, state: .queued, format: "m4a", name: "preset 1",
                                             request: job.request, durationSeconds: 61.5, createdAt: t0, startedAt: nil,
                                             finishedAt: nil, attempts: 0, progress: nil, problem: nil, result: nil,
                                             worker: nil, leaseUntil: nil))

            // The same request again, and from another token: the same job.
            #expect(try await store.submit(job, owner: owner("t1"), limits: roomy, now: t0 + 1) == .existing(view))
            #expect(try await store.submit(job, owner: owner("t2"), limits: roomy, now: t0 + 2) == .existing(view))
            #expect(try await store.job(id: job.id) == view.record)
            #expect(try await store.job(id: job.id, owner: "t1") == view)
            #expect(try await store.job(id: job.id, owner: "t2") == view)
            #expect(try await store.counts() == JobCounts(queued: 1, rendering: 0))
            #expect(try await store.job(id: newJob(2).id) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aTokenMayOwnOnlySoManyUnfinishedJobsButResubmittingIsNeverRefused(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let limits = SubmitLimits(jobsPerToken: 2, queueLength: 100)
            #expect(try await store.submit(newJob(1), owner: owner("t1"), limits: limits, now: t0).state == .queued)
            #expect(try await store.submit(newJob(2), owner: owner("t1"), limits: limits, now: t0 + 1).state == .queued)
            #expect(try await store.submit(newJob(3), owner: owner("t1"), limits: limits, now: t0 + 2)
                    == .tooManyForToken(limit: 2))
            // Joining another token's unfinished job counts too.
            _ = try await store.submit(newJob(4), owner: owner("t2"), limits: limits, now: t0 + 3)
            #expect(try await store.submit(newJob(4), owner: owner("t1"), limits: limits, now: t0 + 4)
                    == .tooManyForToken(limit: 2))
            #expect(try await store.job(id: newJob(4).id, owner: "t1") == nil)
            // A job t1 owns already: never refused.
            guard case .existing(let again) = try await store.submit(newJob(1), owner: owner("t1"), limits: limits,
                                                                     now: t0 + 5) else {
                Issue.record("re-submitting an owned job was refused"); return
            }
            #expect(again.state == .queued)
            // Another token has its own count.
            #expect(try await store.submit(newJob(3), owner: owner("t2"), limits: limits, now: t0 + 6).state == .queued)
            // Once one of t1's jobs has finished, t1 may submit another.
            let claimed = try #require(try await store.claim(worker: "w1", now: t0 + 7, leaseUntil: t0 + 60))
            #expect(claimed.id == newJob(1).id)
            #expect(try await store.finish(id: claimed.id, worker: "w1", outcome: .succeeded(result: "{}"),
                                           webhookPayload: "{}", now: t0 + 8))
            #expect(try await store.submit(newJob(5), owner: owner("t1"), limits: limits, now: t0 + 9).state == .queued)
            // Joining a succeeded job adds no unfinished job: allowed at the limit.
            #expect(try await store.submit(newJob(1), owner: owner("t3"), limits: SubmitLimits(jobsPerToken: 0, queueLength: 0),
                                           now: t0 + 10) == .existing(try #require(try await store.job(id: newJob(1).id,
                                                                                                       owner: "t1"))))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theQueueHoldsOnlySoManyJobsButAnOwnerResubmittingIsNeverRefused(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let limits = SubmitLimits(jobsPerToken: 10, queueLength: 2)
            #expect(try await store.submit(newJob(1), owner: owner("t1"), limits: limits, now: t0).state == .queued)
            #expect(try await store.submit(newJob(2), owner: owner("t2"), limits: limits, now: t0 + 1).state == .queued)
            #expect(try await store.submit(newJob(3), owner: owner("t3"), limits: limits, now: t0 + 2)
                    == .queueFull(limit: 2))
            #expect(try await store.job(id: newJob(3).id) == nil)
            // Joining a queued job does not lengthen the queue.
            #expect(try await store.submit(newJob(1), owner: owner("t3"), limits: limits, now: t0 + 3).state == .queued)
            // t1 withdraws: job 1 is still wanted by t3; t3 withdraws too: job 1 is cancelled, the queue has room.
            #expect(try await store.cancel(id: newJob(1).id, owner: "t1", now: t0 + 4)?.view.state == .cancelled)
            #expect(try await store.counts().queued == 2)
            #expect(try await store.cancel(id: newJob(1).id, owner: "t3", now: t0 + 5)?.view.state == .cancelled)
            #expect(try await store.counts().queued == 1)
            #expect(try await store.submit(newJob(3), owner: owner("t3"), limits: limits, now: t0 + 6).state == .queued)
            #expect(try await store.counts().queued == 2)
            // The queue is full, but t1 owns job 1 already: it is queued again.
            let resubmitted = try await store.submit(newJob(1), owner: owner("t1"), limits: limits, now: t0 + 7)
            guard case .queued(let view) = resubmitted else { Issue.record("re-submit: \(resubmitted)"); return }
            #expect(view.state == .queued)
            #expect(try await store.counts().queued == 3)
            // t3 withdrew from job 1 and did not come back: it does not see it.
            #expect(try await store.job(id: newJob(1).id, owner: "t3") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aCancelledOrFailedJobIsQueuedAgainAndASucceededOneStays(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            _ = try await store.submit(newJob(1), owner: owner("t1"), limits: roomy, now: t0)
            _ = try await store.submit(newJob(2), owner: owner("t1"), limits: roomy, now: t0 + 1)
            let first = try #require(try await store.claim(worker: "w1", now: t0 + 2, leaseUntil: t0 + 60))
            #expect(try await store.finish(id: first.id, worker: "w1", outcome: .failed(problem: #"{"title":"x"}"#),
                                           webhookPayload: "{}", now: t0 + 3))
            let failed = try #require(try await store.job(id: first.id))
            #expect(failed.state == .failed && failed.problem == #"{"title":"x"}"# && failed.attempts == 1)
            #expect(failed.finishedAt == t0 + 3 && failed.worker == nil && failed.leaseUntil == nil)

            // Failed, submitted again (by another token): queued, attempts reset, behind the job queued before.
            let again = try await store.submit(newJob(1), owner: owner("t2"), limits: roomy, now: t0 + 4)
            guard case .queued(let view) = again else { Issue.record("re-submit of a failed job: \(again)"); return }
            #expect(view.record == JobRecord(id: first.id, state: .queued, format: "m4a", name: "preset 1",
                                             request: newJob(1).request, durationSeconds: 61.5, createdAt: t0,
                                             startedAt: nil, finishedAt: nil, attempts: 0, progress: nil, problem: nil,
                                             result: nil, worker: nil, leaseUntil: nil))
            #expect(try await store.job(id: first.id, owner: "t1")?.state == .queued)
            #expect(try await store.claim(worker: "w1", now: t0 + 5, leaseUntil: t0 + 60)?.id == newJob(2).id)

            // Succeeded: stays so.
            let second = try #require(try await store.claim(worker: "w1", now: t0 + 6, leaseUntil: t0 + 60))
            #expect(second.id == newJob(1).id && second.attempts == 1)
            #expect(try await store.finish(id: second.id, worker: "w1", outcome: .succeeded(result: #"{"ok":1}"#),
                                           webhookPayload: "{}", now: t0 + 7))
            let succeeded = try await store.submit(newJob(1), owner: owner("t1"), limits: roomy, now: t0 + 8)
            guard case .existing(let done) = succeeded else { Issue.record("re-submit of a succeeded job: \(succeeded)"); return }
            #expect(done.state == .succeeded && done.record.result == #"{"ok":1}"# && done.record.attempts == 1)

            // Cancelled, submitted again by its owner: queued.
            _ = try await store.submit(newJob(3), owner: owner("t1"), limits: roomy, now: t0 + 9)
            #expect(try await store.cancel(id: newJob(3).id, owner: "t1", now: t0 + 10)?.view.state == .cancelled)
            #expect(try await store.job(id: newJob(3).id)?.state == .cancelled)
            #expect(try await store.submit(newJob(3), owner: owner("t1"), limits: roomy, now: t0 + 11).state == .queued)
            #expect(try await store.job(id: newJob(3).id, owner: "t1")?.state == .queued)
        }
    }

    // MARK: Owners and cancelling

    @Test(arguments: StoreKind.allCases)
    func aTokenSeesOnlyTheJobsItOwns(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            _ = try await store.submit(newJob(1), owner: owner("t1"), limits: roomy, now: t0)
            #expect(try await store.job(id: newJob(1).id, owner: "t2") == nil)
            #expect(try await store.cancel(id: newJob(1).id, owner: "t2", now: t0 + 1) == nil)
            #expect(try await store.job(id: newJob(1).id, owner: "t1")?.state == .queued)
            #expect(try await store.job(id: newJob(9).id, owner: "t1") == nil)
            #expect(try await store.cancel(id: newJob(9).id, owner: "t1", now: t0 + 1) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func cancellingAQueuedJobCancelsItWhenNoOwnerWantsIt(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            _ = try await store.submit(newJob(1), owner: owner("t1"), limits: roomy, now: t0)
            let withdrawal = try #require(try await store.cancel(id: newJob(1).id, owner: "t1", now: t0 + 1))
            let view = withdrawal.view
            #expect(view.state == .cancelled && view.record.state == .cancelled && view.record.finishedAt == t0 + 1)
            #expect(!withdrawal.wantedByOthers)
            #expect(try await store.counts() == JobCounts(queued: 0, rendering: 0))
            #expect(try await store.claim(worker: "w1", now: t0 + 2, leaseUntil: t0 + 60) == nil)
            // The owner does not see it any more; cancelling again finds nothing (the API's 404).
            #expect(try await store.job(id: newJob(1).id, owner: "t1") == nil)
            #expect(try await store.cancel(id: newJob(1).id, owner: "t1", now: t0 + 3) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func cancellingARenderingJobMarksItCancelledOnceNoOwnerWantsIt(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let id = newJob(1).id
            _ = try await store.submit(newJob(1), owner: owner("t1"), limits: roomy, now: t0)
            _ = try await store.submit(newJob(1), owner: owner("t2"), limits: roomy, now: t0 + 1)
            _ = try #require(try await store.claim(worker: "w1", now: t0 + 2, leaseUntil: t0 + 60))

            // t1 withdraws: its last view is cancelled, it sees the job no more, the job renders on for t2.
            let first = try #require(try await store.cancel(id: id, owner: "t1", now: t0 + 3))
            #expect(first.view.state == .cancelled && first.wantedByOthers)
            #expect(try await store.job(id: id, owner: "t1") == nil)
            #expect(try await store.job(id: id, owner: "t2")?.state == .rendering)
            #expect(try await store.job(id: id)?.state == .rendering)
            #expect(try await store.renew(worker: "w1", progress: [id: progress(0.5)], leaseUntil: t0 + 70).isEmpty)

            // t2 withdraws: the job is marked cancelled; its worker learns it when it renews, and finishes it.
            let last = try #require(try await store.cancel(id: id, owner: "t2", now: t0 + 4))
            #expect(last.view.state == .cancelled && !last.wantedByOthers)
            let marked = try #require(try await store.job(id: id))
            #expect(marked.state == .cancelled && marked.worker == "w1" && marked.finishedAt == t0 + 4)
            #expect(try await store.counts() == JobCounts(queued: 0, rendering: 0))
            #expect(try await store.renew(worker: "w1", progress: [id: progress(0.6)], leaseUntil: t0 + 80) == [id])
            #expect(try await store.finish(id: id, worker: "w1", outcome: .succeeded(result: "{}"), webhookPayload: "{}",
                                           now: t0 + 5) == false)
            #expect(try await store.finish(id: id, worker: "w1", outcome: .cancelled, webhookPayload: "{}", now: t0 + 5))
            let finished = try #require(try await store.job(id: id))
            #expect(finished.state == .cancelled && finished.worker == nil && finished.leaseUntil == nil)
            #expect(finished.finishedAt == t0 + 4)
            #expect(try await store.claim(worker: "w2", now: t0 + 100, leaseUntil: t0 + 160) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anOwnerThatWithdrewNoLongerSeesTheJobWhateverItDoesForOthers(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let id = newJob(1).id
            _ = try await store.submit(newJob(1), owner: owner("t1", webhook: "https://a.example/hook"), limits: roomy, now: t0)
            _ = try await store.submit(newJob(1), owner: owner("t2", webhook: "https://b.example/hook"), limits: roomy,
                                       now: t0 + 1)
            #expect(try await store.cancel(id: id, owner: "t1", now: t0 + 2)?.view.state == .cancelled)
            _ = try #require(try await store.claim(worker: "w1", now: t0 + 3, leaseUntil: t0 + 60))
            #expect(try await store.finish(id: id, worker: "w1", outcome: .succeeded(result: "{}"), webhookPayload: "{}",
                                           now: t0 + 4))
            #expect(try await store.job(id: id, owner: "t1") == nil)
            #expect(try await store.job(id: id, owner: "t2")?.state == .succeeded)
            // Withdrawing from a finished job leaves it as it is (its files may go: nobody owns it now).
            let withdrawal = try #require(try await store.cancel(id: id, owner: "t2", now: t0 + 5))
            #expect(withdrawal.view.state == .succeeded && !withdrawal.wantedByOthers)
            #expect(try await store.job(id: id, owner: "t2") == nil)
            #expect(try await store.job(id: id)?.state == .succeeded)
            // Only the owner that still wanted the job is called.
            let deliveries = try await store.dueDeliveries(now: t0 + 5, leaseUntil: t0 + 35, limit: 10)
            #expect(deliveries.map(\.url) == ["https://b.example/hook"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func finishedJobsAreForgottenOnceTheirTimeHasPassed(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let (done, waiting) = (newJob(1).id, newJob(2).id)
            _ = try await store.submit(newJob(1), owner: owner("t1", webhook: "https://a.example/hook"), limits: roomy, now: t0)
            _ = try await store.submit(newJob(2), owner: owner("t1"), limits: roomy, now: t0 + 1)
            _ = try #require(try await store.claim(worker: "w1", now: t0 + 2, leaseUntil: t0 + 60))
            #expect(try await store.finish(id: done, worker: "w1", outcome: .succeeded(result: "{}"), webhookPayload: "{}", now: t0 + 3))
            #expect(try await store.forget(finishedBefore: t0 + 3).isEmpty, "finished at t0 + 3, not before")
            #expect(try await store.forget(finishedBefore: t0 + 10) == [done])
            #expect(try await store.job(id: done) == nil)
            #expect(try await store.job(id: done, owner: "t1") == nil)
            #expect(try await store.dueDeliveries(now: t0 + 20, leaseUntil: t0 + 50, limit: 10).isEmpty, "its delivery went with it")
            #expect(try await store.job(id: waiting)?.state == .queued, "an unfinished job is never forgotten")
            #expect(try await store.forget(finishedBefore: t0 + 1000).isEmpty)
            // The same request again is a new job.
            #expect(try await store.submit(newJob(1), owner: owner("t1"), limits: roomy, now: t0 + 30).state == .queued)
        }
    }

    // MARK: Claiming

    @Test(arguments: StoreKind.allCases)
    func claimsTakeTheOldestQueuedJobFirst(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            _ = try await store.submit(newJob(1), owner: owner("t1"), limits: roomy, now: t0 + 3)
            _ = try await store.submit(newJob(2), owner: owner("t1"), limits: roomy, now: t0 + 1)
            _ = try await store.submit(newJob(3), owner: owner("t1"), limits: roomy, now: t0 + 2)
            let first = try #require(try await store.claim(worker: "w1", now: t0 + 10, leaseUntil: t0 + 70))
            #expect(first == JobRecord(id: newJob(2).id, state: .rendering, format: "m4a", name: "preset 2",
                                       request: newJob(2).request, durationSeconds: 61.5, createdAt: t0 + 1,
                                       startedAt: t0 + 10, finishedAt: nil, attempts: 1, progress: nil, problem: nil,
                                       result: nil, worker: "w1", leaseUntil: t0 + 70))
            #expect(try await store.job(id: first.id) == first)
            #expect(try await store.job(id: first.id, owner: "t1")?.state == .rendering)
            #expect(try await store.claim(worker: "w1", now: t0 + 11, leaseUntil: t0 + 70)?.id == newJob(3).id)
            #expect(try await store.claim(worker: "w2", now: t0 + 12, leaseUntil: t0 + 70)?.id == newJob(1).id)
            #expect(try await store.claim(worker: "w2", now: t0 + 13, leaseUntil: t0 + 70) == nil)
            #expect(try await store.counts() == JobCounts(queued: 0, rendering: 3))
        }
    }

    /// Every interactive job is claimed before any background one, each kind oldest first; a background job asked
    /// for again as interactive moves up, and asked for again as background stays where it was.
    @Test(arguments: StoreKind.allCases)
    func interactiveJobsOvertakeQueuedBackgroundJobs(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            func job(_ n: Int, _ priority: JobPriority) -> NewJob {
                var job = newJob(n)
                job.priority = priority
                return job
            }
            for n in 1...20 {
                _ = try await store.submit(job(n, .background), owner: owner("catalogue"), limits: roomy, now: t0 + Double(n))
            }
            _ = try await store.submit(job(21, .interactive), owner: owner("app"), limits: roomy, now: t0 + 30)
            _ = try await store.submit(job(22, .interactive), owner: owner("app"), limits: roomy, now: t0 + 31)
            // Job 5, queued as background, is asked for by a user now; job 6 again as background, by another token.
            _ = try await store.submit(job(5, .interactive), owner: owner("app"), limits: roomy, now: t0 + 32)
            _ = try await store.submit(job(6, .background), owner: owner("app"), limits: roomy, now: t0 + 33)
            var order: [String] = []
            while let claimed = try await store.claim(worker: "w1", now: t0 + 40, leaseUntil: t0 + 100) { order.append(claimed.id) }
            let expected = [5, 21, 22] + [1, 2, 3, 4] + Array(6...20)
            #expect(order == expected.map { newJob($0).id }, "claimed \(order.map { id in (1...22).first { newJob($0).id == id } ?? 0 })")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentClaimersNeverGetTheSameJob(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let setup = try await database.open()
            let ids = (1...50).map { newJob($0).id }
            for n in 1...50 {
                _ = try await setup.submit(newJob(n), owner: owner("t\(n % 3)"), limits: roomy, now: t0 + Double(n) / 1000)
            }
            var stores: [any JobStore] = []
            for _ in 1...4 { stores.append(try await database.open()) }
            let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        var mine: [String] = []
                        while let job = try await store.claim(worker: "w\(index)", now: t0 + 1, leaseUntil: t0 + 600) {
                            #expect(job.worker == "w\(index)" && job.attempts == 1)
                            mine.append(job.id)
                        }
                        return mine
                    }
                }
                var all: [[String]] = []
                for try await mine in group { all.append(mine) }
                return all
            }
            let every = claimed.flatMap { $0 }
            #expect(every.count == 50)
            #expect(Set(every) == Set(ids))
            // Each claimer took its jobs oldest first.
            for mine in claimed { #expect(mine == mine.sorted()) }
            #expect(try await setup.counts() == JobCounts(queued: 0, rendering: 50))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aJobWhoseLeaseRanOutIsClaimedAgain(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let id = newJob(1).id
            _ = try await store.submit(newJob(1), owner: owner("t1"), limits: roomy, now: t0)
            _ = try #require(try await store.claim(worker: "w1", now: t0 + 1, leaseUntil: t0 + 10))
            #expect(try await store.claim(worker: "w2", now: t0 + 9, leaseUntil: t0 + 20) == nil)
            #expect(try await store.claim(worker: "w2", now: t0 + 10, leaseUntil: t0 + 20) == nil)
            let again = try #require(try await store.claim(worker: "w2", now: t0 + 11, leaseUntil: t0 + 30))
            #expect(again.id == id && again.worker == "w2" && again.attempts == 2 && again.startedAt == t0 + 11)
            #expect(again.leaseUntil == t0 + 30)
            // The first worker learns that the job is no longer its own, and cannot finish it.
            #expect(try await store.renew(worker: "w1", progress: [id: progress(0.9)], leaseUntil: t0 + 40) == [id])
            #expect(try await store.finish(id: id, worker: "w1", outcome: .succeeded(result: "{}"), webhookPayload: "{}",
                                           now: t0 + 12) == false)
            #expect(try await store.renew(worker: "w2", progress: [id: progress(0.1)], leaseUntil: t0 + 40).isEmpty)
            #expect(try await store.finish(id: id, worker: "w2", outcome: .succeeded(result: "{}"), webhookPayload: "{}",
                                           now: t0 + 13))
            #expect(try await store.job(id: id)?.state == .succeeded)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func renewExtendsLeasesAndReportsTheJobsNoLongerTheWorkers(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            for n in 1...3 { _ = try await store.submit(newJob(n), owner: owner("t1"), limits: roomy, now: t0 + Double(n)) }
            for _ in 1...3 { _ = try #require(try await store.claim(worker: "w1", now: t0 + 5, leaseUntil: t0 + 10)) }
            let (cancelled, stolen, kept, unknown) = (newJob(1).id, newJob(2).id, newJob(3).id, newJob(4).id)
            _ = try await store.cancel(id: cancelled, owner: "t1", now: t0 + 6)
            // Job 3's lease ran out too, but nobody claimed it: it is still w1's.
            #expect(try await store.claim(worker: "w2", now: t0 + 11, leaseUntil: t0 + 20)?.id == stolen)
            let lost = try await store.renew(worker: "w1",
                                             progress: [cancelled: progress(0.2), stolen: progress(0.3),
                                                        kept: JobProgress(fraction: 0.4, speed: 12.5, secondsLeft: 3.25),
                                                        unknown: progress(0.5)],
                                             leaseUntil: t0 + 40)
            #expect(lost == [cancelled, stolen, unknown])
            let renewed = try #require(try await store.job(id: kept))
            #expect(renewed.leaseUntil == t0 + 40 && renewed.worker == "w1" && renewed.state == .rendering)
            #expect(renewed.progress == JobProgress(fraction: 0.4, speed: 12.5, secondsLeft: 3.25))
            #expect(try await store.job(id: stolen)?.leaseUntil == t0 + 20)
            #expect(try await store.job(id: stolen)?.progress == nil)
            // Job 2's new lease (w2's) and job 3's renewed one have not run out.
            #expect(try await store.claim(worker: "w3", now: t0 + 15, leaseUntil: t0 + 50) == nil)
            #expect(try await store.renew(worker: "w1", progress: [:], leaseUntil: t0 + 50).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func onlyTheWorkerHoldingAJobFinishesIt(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let id = newJob(1).id
            _ = try await store.submit(newJob(1), owner: owner("t1", webhook: "https://a.example/hook"), limits: roomy, now: t0)
            _ = try await store.submit(newJob(2), owner: owner("t1", webhook: "https://a.example/hook"), limits: roomy,
                                       now: t0 + 1)
            let claimed = try #require(try await store.claim(worker: "w1", now: t0 + 2, leaseUntil: t0 + 60))
            #expect(try await store.finish(id: id, worker: "w2", outcome: .succeeded(result: "{}"), webhookPayload: "{}",
                                           now: t0 + 3) == false)
            #expect(try await store.job(id: id) == claimed)
            // A queued job has no worker to finish it.
            #expect(try await store.finish(id: newJob(2).id, worker: "w1", outcome: .failed(problem: "{}"),
                                           webhookPayload: "{}", now: t0 + 3) == false)
            #expect(try await store.job(id: newJob(2).id)?.state == .queued)
            #expect(try await store.dueDeliveries(now: t0 + 100, leaseUntil: t0 + 130, limit: 10).isEmpty)
            #expect(try await store.finish(id: id, worker: "w1", outcome: .succeeded(result: #"{"bytes":3}"#),
                                           webhookPayload: "{}", now: t0 + 4))
            // Finished: no worker holds it any more.
            #expect(try await store.finish(id: id, worker: "w1", outcome: .failed(problem: "{}"), webhookPayload: "{}",
                                           now: t0 + 5) == false)
            let finished = try #require(try await store.job(id: id))
            #expect(finished.state == .succeeded && finished.result == #"{"bytes":3}"# && finished.finishedAt == t0 + 4)
            #expect(finished.worker == nil && finished.leaseUntil == nil && finished.startedAt == t0 + 2)
            #expect(try await store.dueDeliveries(now: t0 + 100, leaseUntil: t0 + 130, limit: 10).count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func requeuePutsAWorkersJobsBackInTheQueue(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            for n in 1...3 { _ = try await store.submit(newJob(n), owner: owner("t1"), limits: roomy, now: t0 + Double(n)) }
            _ = try await store.claim(worker: "w1", now: t0 + 5, leaseUntil: t0 + 60)
            _ = try await store.claim(worker: "w1", now: t0 + 5, leaseUntil: t0 + 60)
            _ = try await store.claim(worker: "w2", now: t0 + 5, leaseUntil: t0 + 60)
            _ = try await store.renew(worker: "w1", progress: [newJob(1).id: progress(0.7)], leaseUntil: t0 + 60)
            try await store.requeue(worker: "w1")
            #expect(try await store.counts() == JobCounts(queued: 2, rendering: 1))
            let back = try #require(try await store.job(id: newJob(1).id))
            #expect(back.state == .queued && back.worker == nil && back.leaseUntil == nil && back.progress == nil)
            #expect(back.startedAt == nil && back.attempts == 1)
            #expect(try await store.job(id: newJob(3).id)?.worker == "w2")
            #expect(try await store.renew(worker: "w1", progress: [newJob(1).id: progress(0.8)], leaseUntil: t0 + 70)
                    == [newJob(1).id])
            // Claimed again in its old place, its attempts counting on.
            let again = try #require(try await store.claim(worker: "w3", now: t0 + 6, leaseUntil: t0 + 60))
            #expect(again.id == newJob(1).id && again.attempts == 2)
            try await store.requeue(worker: "nobody")
            #expect(try await store.counts() == JobCounts(queued: 1, rendering: 2))
        }
    }

    // MARK: Webhook deliveries

    @Test(arguments: StoreKind.allCases)
    func finishingQueuesOneDeliveryForEachOwnerWithAWebhookThatStillWantsTheJob(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let id = newJob(1).id
            _ = try await store.submit(newJob(1), owner: owner("t1", webhook: "https://a.example/1"), limits: roomy, now: t0)
            _ = try await store.submit(newJob(1), owner: owner("t2", webhook: "https://b.example/2"), limits: roomy,
                                       now: t0 + 1)
            _ = try await store.submit(newJob(1), owner: owner("t3"), limits: roomy, now: t0 + 2)
            _ = try await store.submit(newJob(1), owner: owner("t4", webhook: "https://d.example/4"), limits: roomy,
                                       now: t0 + 3)
            _ = try await store.submit(newJob(1), owner: owner("t5"), limits: roomy, now: t0 + 4)
            // t5 gives a webhook when it submits again; t4 withdraws.
            _ = try await store.submit(newJob(1), owner: owner("t5", webhook: "https://e.example/5"), limits: roomy,
                                       now: t0 + 5)
            _ = try await store.cancel(id: id, owner: "t4", now: t0 + 6)
            _ = try #require(try await store.claim(worker: "w1", now: t0 + 7, leaseUntil: t0 + 60))
            #expect(try await store.dueDeliveries(now: t0 + 7, leaseUntil: t0 + 37, limit: 10).isEmpty)
            let payload = #"{"type":"render.succeeded","data":{"id":"\#(id)"}}"#
            #expect(try await store.finish(id: id, worker: "w1", outcome: .succeeded(result: "{}"), webhookPayload: payload,
                                           now: t0 + 8))
            let deliveries = try await store.dueDeliveries(now: t0 + 8, leaseUntil: t0 + 38, limit: 10)
            #expect(deliveries.map(\.url).sorted() == ["https://a.example/1", "https://b.example/2", "https://e.example/5"])
            for delivery in deliveries {
                #expect(delivery.jobID == id && delivery.payload == payload && delivery.attempts == 0)
                #expect(delivery.createdAt == t0 + 8)
                #expect(delivery.id.range(of: "^msg_[0-9a-f]{32}$", options: .regularExpression) != nil, "\(delivery.id)")
            }
            #expect(Set(deliveries.map(\.id)).count == 3)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deliveriesAreLeasedRetriedAndGivenUp(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let other = try await database.open()
            _ = try await store.submit(newJob(1), owner: owner("t1", webhook: "https://a.example/1"), limits: roomy, now: t0)
            _ = try await store.submit(newJob(2), owner: owner("t1", webhook: "https://a.example/1"), limits: roomy,
                                       now: t0 + 1)
            _ = try await store.claim(worker: "w1", now: t0 + 2, leaseUntil: t0 + 600)
            _ = try await store.claim(worker: "w1", now: t0 + 2, leaseUntil: t0 + 600)
            #expect(try await store.finish(id: newJob(1).id, worker: "w1", outcome: .succeeded(result: "{}"),
                                           webhookPayload: "{\"n\":1}", now: t0 + 3))
            #expect(try await store.finish(id: newJob(2).id, worker: "w1", outcome: .failed(problem: "{}"),
                                           webhookPayload: "{\"n\":2}", now: t0 + 4))
            // Not due before it was queued; then oldest first, at most `limit`.
            #expect(try await store.dueDeliveries(now: t0 + 2, leaseUntil: t0 + 30, limit: 10).isEmpty)
            let first = try await store.dueDeliveries(now: t0 + 10, leaseUntil: t0 + 40, limit: 1)
            #expect(first.map(\.jobID) == [newJob(1).id])
            // Leased: another server does not get it; it gets the other one.
            let second = try await other.dueDeliveries(now: t0 + 11, leaseUntil: t0 + 41, limit: 10)
            #expect(second.map(\.jobID) == [newJob(2).id])
            #expect(try await other.dueDeliveries(now: t0 + 12, leaseUntil: t0 + 42, limit: 10).isEmpty)
            // The first server died: once the lease ran out, the delivery is due again, its attempts unchanged.
            let retaken = try await other.dueDeliveries(now: t0 + 40, leaseUntil: t0 + 70, limit: 10)
            #expect(retaken == first)

            // Delivered: never again.
            try await other.recordDelivery(id: first[0].id, delivered: true, retryAt: nil, now: t0 + 41)
            // Failed, to be tried again at t0 + 100: not due before, due then with one attempt counted.
            try await store.recordDelivery(id: second[0].id, delivered: false, retryAt: t0 + 100, now: t0 + 42)
            #expect(try await store.dueDeliveries(now: t0 + 99, leaseUntil: t0 + 129, limit: 10).isEmpty)
            let retry = try await store.dueDeliveries(now: t0 + 100, leaseUntil: t0 + 130, limit: 10)
            #expect(retry.count == 1 && retry.first?.id == second[0].id && retry.first?.attempts == 1)
            #expect(retry.first?.payload == "{\"n\":2}" && retry.first?.createdAt == t0 + 4)
            // Failed again, given up: never again.
            try await store.recordDelivery(id: second[0].id, delivered: false, retryAt: nil, now: t0 + 101)
            #expect(try await store.dueDeliveries(now: t0 + 100_000, leaseUntil: t0 + 100_030, limit: 10).isEmpty)
            // A late record of a delivery that has ended changes nothing.
            try await store.recordDelivery(id: second[0].id, delivered: false, retryAt: t0 + 200, now: t0 + 102)
            #expect(try await store.dueDeliveries(now: t0 + 100_000, leaseUntil: t0 + 100_030, limit: 10).isEmpty)
        }
    }

    // MARK: Uploads

    @Test(arguments: StoreKind.allCases)
    func uploadsWaitForTheRenderThenSettleAndTheLastQueuesTheOwnersWebhook(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let id = newJob(1).id
            var first = owner("t1", webhook: "https://hooks.example/1")
            first.uploads = [destination("flac", "https://s.example/a.flac?sig=1"), destination("m4a", "https://s.example/a.m4a?sig=2")]
            var second = owner("t2")
            second.uploads = [destination("m4a", "https://t.example/b.m4a")]
            // Submit answers the job as its owner sees it, its own uploads with it (as `job(id:owner:)` does).
            guard case .queued(let created) = try await store.submit(newJob(1), owner: first, limits: roomy, now: t0),
                  case .existing(let joined) = try await store.submit(newJob(1), owner: second, limits: roomy, now: t0 + 1) else {
                Issue.record("the first submit queues the job, the second joins it")
                return
            }
            #expect(created.uploads.map(\.destination) == first.uploads)
            #expect(joined.uploads.map(\.destination) == second.uploads)
            let waiting = try await store.uploads(id: id, owner: "t1")
            #expect(waiting.map(\.state) == [.waiting, .waiting] && waiting.map(\.position) == [0, 1])
            #expect(waiting.map(\.destination) == first.uploads)
            #expect(waiting.allSatisfy { $0.id.range(of: "^upl_[0-9a-f]{32}$", options: .regularExpression) != nil })
            _ = try #require(try await store.claim(worker: "w1", now: t0 + 2, leaseUntil: t0 + 60))
            #expect(try await store.dueUploads(now: t0 + 2, leaseUntil: t0 + 100, limit: 10).isEmpty)
            #expect(try await store.finish(id: id, worker: "w1", outcome: .succeeded(result: "{}"), webhookPayload: "{\"n\":0}",
                                           now: t0 + 3))
            let due = try await store.dueUploads(now: t0 + 3, leaseUntil: t0 + 100, limit: 10)
            #expect(due.count == 3 && due.allSatisfy { $0.state == .pending && $0.nextAttemptAt == t0 + 3 })
            // Leased: not due again until the lease runs out.
            #expect(try await store.dueUploads(now: t0 + 4, leaseUntil: t0 + 100, limit: 10).isEmpty)
            let webhookAtFinish = try await store.dueDeliveries(now: t0 + 4, leaseUntil: t0 + 30, limit: 10)
            #expect(webhookAtFinish.map(\.payload) == ["{\"n\":0}"])
            try await store.recordDelivery(id: webhookAtFinish[0].id, delivered: true, retryAt: nil, now: t0 + 4)

            let flac = try #require(due.first { $0.token == "t1" && $0.destination.output == "flac" })
            let m4a = try #require(due.first { $0.token == "t1" && $0.destination.output == "m4a" })
            let other = try #require(due.first { $0.token == "t2" })
            let seen = Locked<[[UploadState]]>([])
            let payload: @Sendable (JobRecord, [FileUpload]) -> String = { job, uploads in
                seen.withLock { $0.append(uploads.map(\.state)) }
                return #"{"job":"\#(job.id)","uploads":\#(uploads.count)}"#
            }
            // One of t1's two settles: no webhook yet.
            try await store.recordUpload(id: flac.id, attempt: UploadAttempt(state: .delivered, status: 200), now: t0 + 5, payload: payload)
            #expect(try await store.dueDeliveries(now: t0 + 5, leaseUntil: t0 + 30, limit: 10).isEmpty)
            // A failure to be tried again: pending, due at its time, one attempt counted, the answer kept.
            try await store.recordUpload(id: m4a.id, attempt: UploadAttempt(state: .pending, status: 503, error: "the receiver answered 503",
                                                                            retryAt: t0 + 50), now: t0 + 6, payload: payload)
            #expect(try await store.dueUploads(now: t0 + 49, leaseUntil: t0 + 100, limit: 10).map(\.id) == [])
            let again = try await store.dueUploads(now: t0 + 50, leaseUntil: t0 + 100, limit: 10)
            #expect(again.map(\.id) == [m4a.id] && again.first?.attempts == 1 && again.first?.lastStatus == 503)
            #expect(seen.withLock { $0 }.isEmpty)
            // Given up: t1's last settles, and its webhook is queued with what the closure made of the job and the uploads.
            try await store.recordUpload(id: m4a.id, attempt: UploadAttempt(state: .failed, status: 403, error: "the receiver answered 403"),
                                         now: t0 + 51, payload: payload)
            #expect(seen.withLock { $0 } == [[.delivered, .failed]])
            let settled = try await store.dueDeliveries(now: t0 + 51, leaseUntil: t0 + 80, limit: 10)
            #expect(settled.map(\.payload) == [#"{"job":"\#(id)","uploads":2}"#] && settled.map(\.url) == ["https://hooks.example/1"])
            for delivery in settled { try await store.recordDelivery(id: delivery.id, delivered: true, retryAt: nil, now: t0 + 51) }
            let ended = try await store.uploads(id: id, owner: "t1")
            #expect(ended.map(\.state) == [.delivered, .failed] && ended.map(\.attempts) == [1, 2])
            #expect(ended.map(\.finishedAt) == [t0 + 5, t0 + 51] && ended[1].lastError == "the receiver answered 403")
            // A late record changes nothing and queues nothing.
            try await store.recordUpload(id: m4a.id, attempt: UploadAttempt(state: .delivered, status: 200), now: t0 + 52, payload: payload)
            #expect(try await store.uploads(id: id, owner: "t1") == ended)
            // t2 gave no webhook: its upload settling queues none.
            try await store.recordUpload(id: other.id, attempt: UploadAttempt(state: .delivered, status: 201), now: t0 + 53, payload: payload)
            #expect(try await store.dueDeliveries(now: t0 + 100, leaseUntil: t0 + 130, limit: 10).isEmpty)
            #expect(try await store.uploads(id: id, owner: "t2").map(\.state) == [.delivered])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aFailedRenderSkipsItsUploadsAndAskingAgainStartsThemAgain(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            let id = newJob(1).id
            var asking = owner("t1")
            asking.uploads = [destination("m4a", "https://s.example/a.m4a")]
            _ = try await store.submit(newJob(1), owner: asking, limits: roomy, now: t0)
            _ = try await store.claim(worker: "w1", now: t0 + 1, leaseUntil: t0 + 60)
            #expect(try await store.finish(id: id, worker: "w1", outcome: .failed(problem: "{}"), webhookPayload: "{}", now: t0 + 2))
            let skipped = try await store.uploads(id: id, owner: "t1")
            #expect(skipped.map(\.state) == [.skipped] && skipped.first?.finishedAt == t0 + 2)
            #expect(skipped.first?.lastError?.contains("the render failed") == true)
            #expect(try await store.dueUploads(now: t0 + 100, leaseUntil: t0 + 200, limit: 10).isEmpty)
            // Asked again: the job is queued again and the same upload waits for it, its attempts cleared.
            _ = try await store.submit(newJob(1), owner: asking, limits: roomy, now: t0 + 3)
            let restarted = try await store.uploads(id: id, owner: "t1")
            #expect(restarted.map(\.id) == skipped.map(\.id) && restarted.map(\.state) == [.waiting])
            #expect(restarted.first?.lastError == nil && restarted.first?.finishedAt == nil)
            // Submitting without uploads keeps them; with others, they replace them (one kept, one new).
            _ = try await store.submit(newJob(1), owner: owner("t1"), limits: roomy, now: t0 + 4)
            #expect(try await store.uploads(id: id, owner: "t1").map(\.id) == skipped.map(\.id))
            asking.uploads = [destination("flac", "https://s.example/a.flac"), destination("m4a", "https://s.example/a.m4a")]
            _ = try await store.submit(newJob(1), owner: asking, limits: roomy, now: t0 + 5)
            let replaced = try await store.uploads(id: id, owner: "t1")
            #expect(replaced.map(\.destination.output) == ["flac", "m4a"] && replaced[1].id == skipped[0].id)
            asking.uploads = [destination("ogg", "https://s.example/a.ogg")]
            _ = try await store.submit(newJob(1), owner: asking, limits: roomy, now: t0 + 6)
            #expect(try await store.uploads(id: id, owner: "t1").map(\.destination.output) == ["ogg"])
            // Uploads asked for of a render that has succeeded are due at once.
            _ = try await store.claim(worker: "w1", now: t0 + 7, leaseUntil: t0 + 60)
            #expect(try await store.finish(id: id, worker: "w1", outcome: .succeeded(result: "{}"), webhookPayload: "{}", now: t0 + 8))
            var late = owner("t2")
            late.uploads = [destination("m4a", "https://u.example/c.m4a")]
            _ = try await store.submit(newJob(1), owner: late, limits: roomy, now: t0 + 9)
            #expect(try await store.uploads(id: id, owner: "t2").map(\.state) == [.pending])
            // An owner that withdrew is no longer uploaded to.
            _ = try await store.cancel(id: id, owner: "t1", now: t0 + 10)
            let due = try await store.dueUploads(now: t0 + 10, leaseUntil: t0 + 100, limit: 10)
            #expect(due.map(\.token) == ["t2"])
        }
    }

    // MARK: The database

    @Test(arguments: StoreKind.allCases)
    func jobsOutliveTheStoreThatAcceptedThem(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let store = try await database.open()
            _ = try await store.submit(newJob(1), owner: owner("t1", webhook: "https://a.example/1"), limits: roomy, now: t0)
            _ = try await store.submit(newJob(2), owner: owner("t1"), limits: roomy, now: t0 + 1)
            let claimed = try #require(try await store.claim(worker: "w1", now: t0 + 2, leaseUntil: t0 + 60))
            #expect(try await store.finish(id: claimed.id, worker: "w1", outcome: .succeeded(result: "{}"),
                                           webhookPayload: "{}", now: t0 + 3))
            let before = (try await store.job(id: newJob(1).id, owner: "t1"), try await store.job(id: newJob(2).id))
            try await store.close()

            let reopened = try await database.open()
            #expect(try await reopened.job(id: newJob(1).id, owner: "t1") == before.0)
            #expect(try await reopened.job(id: newJob(2).id) == before.1)
            #expect(try await reopened.counts() == JobCounts(queued: 1, rendering: 0))
            #expect(try await reopened.dueDeliveries(now: t0 + 4, leaseUntil: t0 + 34, limit: 10).count == 1)
            #expect(try await reopened.claim(worker: "w1", now: t0 + 5, leaseUntil: t0 + 60)?.id == newJob(2).id)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func migratingTwiceAndFromTwoStoresAtOnceIsHarmless(_ kind: StoreKind) async throws {
        try await withDatabase(kind) { database in
            let stores = [try database.make(), try database.make(), try database.make()]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for store in stores { group.addTask { try await store.migrate() } }
                try await group.waitForAll()
            }
            try await stores[0].migrate()
            _ = try await stores[1].submit(newJob(1), owner: owner("t1"), limits: roomy, now: t0)
            #expect(try await stores[2].job(id: newJob(1).id)?.state == .queued)
            try await stores[2].ping()
        }
    }
}

/// Checks of the PostgreSQL store's own: its URL, and its errors.
@Suite struct PostgresJobStoreChecks {
    @Test func urlsAreReadWithTheirParts() throws {
        let plain = try PostgresLocation(url: "postgres://mixrender:se%40cret@127.0.0.1:5433/mix_db")
        #expect(plain.host == "127.0.0.1" && plain.port == 5433 && plain.username == "mixrender")
        #expect(plain.password == "se@cret" && plain.database == "mix_db" && !plain.useTLS)
        #expect("\(plain)" == "postgres://mixrender@127.0.0.1:5433/mix_db")
        let remote = try PostgresLocation(url: "postgresql://app@db.example.com/app")
        #expect(remote.port == 5432 && remote.password == nil && remote.useTLS)
        #expect(try PostgresLocation(url: "postgres://app@db.example.com?sslmode=disable").useTLS == false)
        #expect(try PostgresLocation(url: "postgres://app@db.example.com").database == "app")
        #expect(try PostgresLocation(url: "postgres://app@[::1]:5432/x").host == "::1")
    }

    @Test(arguments: [
        ("mysql://u:pw@host/db", "the scheme must be postgres:// or postgresql://, not mysql://"),
        ("postgres://host/db", "no user name"),
        ("postgres://u:pw@/db", "no host"),
        ("postgres://u:pw@host/db?sslmode=verify", "sslmode must be disable or require"),
        ("postgres://u:pw@host/db?application_name=x", "unknown parameter 'application_name'"),
        ("postgres://u:pw@host/a/b", "contains '/'"),
        ("not a url at all", "not a URL"),
    ])
    func badURLsAreRefusedWithoutShowingThePassword(_ url: String, reason: String) {
        do {
            _ = try PostgresLocation(url: url)
            Issue.record("\(url) was accepted")
        } catch {
            let message = "\(error)"
            #expect(message.contains(reason), "\(message)")
            #expect(!message.contains("pw"), "\(message)")
            #expect(!message.contains("\n"))
        }
    }

    @Test func aWrongPasswordIsReportedAtOnce() async throws {
        let location = try PostgresLocation(url: try postgresTestURL())
        let url = "postgres://\(location.username):wrong-password@\(location.host):\(location.port)/\(location.database)"
        let store = try PostgresJobStore(url: url, schema: "unused")
        // Reported as the server's refusal, not as the pool's retries running out (no timing is asserted: the
        // machine may be loaded).
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            do {
                try await store.migrate()
                Issue.record("migrate with a wrong password succeeded")
            } catch {
                #expect("\(error)".contains("password authentication failed"), "\(error)")
                #expect(!"\(error)".contains("wrong-password"))
            }
            group.cancelAll()
        }
        try await store.close()
    }
}

// MARK: - Fixtures

/// The store a parameterised test runs against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// A fresh database for one test: stores opened on it share it, as servers would.
final class TestDatabase: @unchecked Sendable {
    let kind: StoreKind
    private let folder: URL
    private let url: String?
    private let schema: String
    private let lock = NSLock()
    private var opened: [any JobStore] = []
    /// Each store's `run` (PostgreSQL's connection pool), as the server runs it beside its store, until `remove`.
    private var running: [Task<Void, Never>] = []

    init(kind: StoreKind) throws {
        self.kind = kind
        let name = "jobstore_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        schema = name
        url = kind == .postgres ? try postgresTestURL() : nil
    }

    /// A new store on the database, not migrated.
    func make() throws -> any JobStore {
        let store: any JobStore = switch kind {
        case .sqlite: try SQLiteJobStore(folder: folder)
        case .postgres: try PostgresJobStore(url: url!, schema: schema)
        }
        let run = Task { await store.run() }
        lock.withLock {
            opened.append(store)
            running.append(run)
        }
        return store
    }

    /// A new store on the database, migrated.
    func open() async throws -> any JobStore {
        let store = try make()
        try await store.migrate()
        return store
    }

    /// Closes the stores and removes the database.
    func remove() async throws {
        for store in lock.withLock({ opened }) { try? await store.close() }
        for run in lock.withLock({ running }) {
            run.cancel()
            await run.value
        }
        switch kind {
        case .sqlite:
            try? FileManager.default.removeItem(at: folder)
        case .postgres:
            let location = try PostgresLocation(url: url!)
            let connection = try await PostgresConnection.connect(configuration: location.connectionConfiguration(), id: 0,
                                                                  logger: Logger(label: "jobstore-tests"))
            do {
                try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE"),
                                           logger: Logger(label: "jobstore-tests"))
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        }
    }
}

/// Runs `body` on a fresh database of `kind`, and removes it afterwards.
func withDatabase(_ kind: StoreKind, _ body: (TestDatabase) async throws -> Void) async throws {
    let database = try TestDatabase(kind: kind)
    do {
        try await body(database)
    } catch {
        try? await database.remove()
        throw error
    }
    try await database.remove()
}

/// The test database's URL; its absence fails the PostgreSQL tests (they are part of the contract, not optional).
func postgresTestURL() throws -> String {
    guard let url = ProcessInfo.processInfo.environment["MIXRENDER_TEST_POSTGRES_URL"], !url.isEmpty else {
        throw JobStoreError("""
            MIXRENDER_TEST_POSTGRES_URL is not set: the PostgreSQL job store tests need a database; run \
            start-postgres.sh and set the variable to the URL it prints
            """)
    }
    return url
}

/// A whole second (exact in both databases), and the test's clock from there.
let t0 = Date(timeIntervalSinceReferenceDate: 771_692_800)
let roomy = SubmitLimits(jobsPerToken: 1000, queueLength: 1000)

func newJob(_ n: Int) -> NewJob {
    NewJob(id: String((String(repeating: "0", count: 64) + String(n, radix: 16)).suffix(64)), format: "m4a", name: "preset \(n)",
           request: #"{"preset":"p\#(n)","format":"m4a"}"#, durationSeconds: 61.5)
}

func owner(_ token: String, webhook: String? = nil) -> JobOwner {
    JobOwner(token: token, webhookURL: webhook)
}

func destination(_ output: String, _ url: String) -> UploadDestination {
    UploadDestination(output: output, url: url, method: "PUT", headers: ["x-upsert": "true"], contentMD5: true)
}

func progress(_ fraction: Double) -> JobProgress {
    JobProgress(fraction: fraction, speed: nil, secondsLeft: nil)
}

extension SubmitOutcome {
    /// The state the owner sees, or nil for a refusal.
    var state: JobState? {
        switch self {
        case .queued(let view), .existing(let view): view.state
        case .tooManyForToken, .queueFull: nil
        }
    }
}
