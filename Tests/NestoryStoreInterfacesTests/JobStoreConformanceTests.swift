import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// The job queue behaves the same on every engine.
@Suite struct JobStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_000)
    /// The server process the tests claim as, with a lease that does not pass during a test.
    let holder = "test-host/1/a"
    var far: Date { now.addingTimeInterval(86_400) }

    func household(_ stores: Stores, _ name: String = "Home") async throws -> Household {
        try await stores.accounts.createHousehold(name: name, currency: .usd, now: now)
    }

    @Test(arguments: Engine.available)
    func aJobIsClaimedWhenDueOldestFirstAndOnlyOnce(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await household(stores)
            let jobs = stores.jobs
            let first = try await jobs.enqueueJob(home.id, kind: "report", subject: nil, payload: #"{"n":1}"#, maxAttempts: 3, now: now)
            let second = try await jobs.enqueueJob(home.id, kind: "report", subject: nil, payload: #"{"n":2}"#, maxAttempts: 1,
                                                   now: now.addingTimeInterval(1))
            _ = try await jobs.enqueueJob(home.id, kind: "backup", subject: nil, payload: "{}", maxAttempts: 1, now: now)
            #expect(first.state == .queued)
            #expect(first.maxAttempts == 3)
            #expect(try await jobs.queuedJobCounts() == ["report": 2, "backup": 1])
            #expect(try await jobs.nextJobDue(kinds: ["report"]) == now)
            #expect(try await jobs.nextJobDue(kinds: ["nothing"]) == nil)
            #expect(try await jobs.nextJobDue(kinds: []) == nil)

            // Not due before it was queued.
            #expect(try await jobs.claimJob(kind: "report", holder: holder, leaseUntil: far, now: now.addingTimeInterval(-1)) == nil)
            let claimed = try #require(try await jobs.claimJob(kind: "report", holder: holder, leaseUntil: far, now: now.addingTimeInterval(5)))
            #expect(claimed.id == first.id)
            #expect(claimed.state == .running)
            #expect(claimed.attempts == 1)
            #expect(claimed.startedAt == now.addingTimeInterval(5))
            #expect(claimed.claimedBy == holder && claimed.leaseUntil == far)
            #expect(first.claimedBy == nil && first.leaseUntil == nil)
            #expect(try await jobs.claimJob(kind: "report", holder: holder, leaseUntil: far, now: now.addingTimeInterval(5))?.id == second.id)
            #expect(try await jobs.claimJob(kind: "report", holder: holder, leaseUntil: far, now: now.addingTimeInterval(5)) == nil)
            #expect(try await jobs.queuedJobCounts() == ["backup": 1])
            await #expect(throws: DomainError.notFound("The household")) {
                _ = try await jobs.enqueueJob(HouseholdID(), kind: "report", subject: nil, payload: "{}", maxAttempts: 1, now: now)
            }
        }
    }

    @Test(arguments: Engine.available)
    func manyClaimersAtOnceGetEachJobExactlyOnce(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await household(stores)
            var queued: Set<JobID> = []
            for index in 0..<40 {
                queued.insert(try await stores.jobs.enqueueJob(home.id, kind: "receipt", subject: nil, payload: "{\"i\":\(index)}", maxAttempts: 1,
                                                               now: now).id)
            }
            // For PostgreSQL, a second store on the same schema stands for a second server.
            let claimers: [any JobStore] = [stores.jobs, stores.jobs, stores.jobs, stores.jobs]
            let at = now.addingTimeInterval(1)
            let claimed = try await withThrowingTaskGroup(of: [JobID].self) { group in
                for claimer in claimers {
                    group.addTask {
                        var mine: [JobID] = []
                        while let job = try await claimer.claimJob(kind: "receipt", holder: holder, leaseUntil: far, now: at) { mine.append(job.id) }
                        return mine
                    }
                }
                return try await group.reduce(into: [JobID]()) { $0 += $1 }
            }
            #expect(claimed.count == 40)
            #expect(Set(claimed) == queued)
        }
    }

    @Test(arguments: Engine.available)
    func progressResultsAndItemResultsAreKept(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await household(stores)
            let jobs = stores.jobs
            let queued = try await jobs.enqueueJob(home.id, kind: "valuation", subject: "batch", payload: "{}", maxAttempts: 1, now: now)
            // Progress and item results count only while running (and the answer is then: stop, it is not yours to run).
            #expect(try await jobs.jobProgress(queued.id, holder: holder, done: 1, total: 9, now: now) == true)
            try await jobs.recordJobItemResult(queued.id, holder: holder, key: "a", result: "1", now: now)
            #expect(try await jobs.job(queued.id)?.done == 0)
            #expect(try await jobs.job(queued.id)?.itemResults == nil)

            let job = try #require(try await jobs.claimJob(kind: "valuation", holder: holder, leaseUntil: far, now: now))
            #expect(try await jobs.jobProgress(job.id, holder: holder, done: 3, total: 9, now: now) == false)
            try await jobs.recordJobItemResult(job.id, holder: holder, key: "item-1", result: #"{"value": 12.5, "note": "é"}"#, now: now)
            try await jobs.recordJobItemResult(job.id, holder: holder, key: #"item"2"#, result: "[1, 2]", now: now)
            try await jobs.recordJobItemResult(job.id, holder: holder, key: "item-1", result: #"{"value": 13}"#, now: now)
            try await jobs.succeedJob(job.id, holder: holder, result: #"{"ok":true}"#, now: now.addingTimeInterval(2))
            try await jobs.updateJobItemResult(home.id, job.id, key: "item-3", result: "null", now: now)
            await #expect(throws: DomainError.notFound("The batch")) {
                try await jobs.updateJobItemResult(HouseholdID(), job.id, key: "x", result: "1", now: now)
            }

            let done = try await jobs.job(home.id, job.id)
            #expect(done.state == .succeeded)
            #expect(done.done == 9)
            #expect(done.total == 9)
            #expect(done.result == #"{"ok":true}"#)
            #expect(done.finishedAt == now.addingTimeInterval(2))
            let items = try JSONSerialization.jsonObject(with: Data(try #require(done.itemResults).utf8)) as? NSDictionary
            #expect(items == ["item-1": ["value": 13], "item2": [1, 2], "item-3": NSNull()] as NSDictionary)
            #expect(try await jobs.latestJob(home.id, kind: "valuation", subject: "batch")?.id == job.id)
            #expect(try await jobs.latestJob(home.id, kind: "valuation", subject: "other") == nil)
            #expect(try await jobs.recentJobResults(since: now) == [#"{"ok":true}"#])
            #expect(try await jobs.recentJobResults(since: now.addingTimeInterval(1)).isEmpty)
            #expect(try await jobs.unfinishedJobPayloads().isEmpty)
        }
    }

    @Test(arguments: Engine.available)
    func aFailureIsRetriedWhileAttemptsRemainThenFailsForGood(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await household(stores)
            let jobs = stores.jobs
            let queued = try await jobs.enqueueJob(home.id, kind: "report", subject: nil, payload: #"{"p":1}"#, maxAttempts: 2, now: now)
            #expect(try await jobs.unfinishedJobPayloads() == [#"{"p":1}"#])
            let first = try #require(try await jobs.claimJob(kind: "report", holder: holder, leaseUntil: far, now: now))
            let retry = now.addingTimeInterval(30)
            let waiting = try #require(try await jobs.failJob(first.id, holder: holder, code: "busy", message: "Try later.", retryAt: retry, now: now))
            #expect(waiting.state == .queued)
            #expect(waiting.nextAttemptAt == retry)
            #expect(waiting.errorCode == "busy")
            #expect(try await jobs.claimJob(kind: "report", holder: holder, leaseUntil: far, now: now.addingTimeInterval(10)) == nil)
            let second = try #require(try await jobs.claimJob(kind: "report", holder: holder, leaseUntil: far, now: retry))
            #expect(second.attempts == 2)
            #expect(second.errorCode == nil)
            let failed = try #require(try await jobs.failJob(second.id, holder: holder, code: "broken", message: "It broke.", retryAt: retry, now: retry))
            #expect(failed.state == .failed)
            #expect(failed.message == "It broke.")
            // A finished job is left as it is.
            #expect(try await jobs.failJob(queued.id, holder: holder, code: "again", message: "", retryAt: nil, now: retry)?.state == .failed)
        }
    }

    @Test(arguments: Engine.available)
    func cancellingAQueuedJobEndsItAndARunningOneWhenItsHandlerNotices(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await household(stores)
            let other = try await household(stores, "Other")
            let jobs = stores.jobs
            let waiting = try await jobs.enqueueJob(home.id, kind: "backup", subject: nil, payload: "{}", maxAttempts: 1, now: now)
            await #expect(throws: DomainError.notFound("The job")) { _ = try await jobs.cancelJob(other.id, waiting.id, now: now) }
            await #expect(throws: DomainError.notFound("The job")) { _ = try await jobs.job(other.id, waiting.id) }
            #expect(try await jobs.cancelJob(home.id, waiting.id, now: now).state == .cancelled)

            _ = try await jobs.enqueueJob(home.id, kind: "backup", subject: nil, payload: "{}", maxAttempts: 3, now: now)
            let running = try #require(try await jobs.claimJob(kind: "backup", holder: holder, leaseUntil: far, now: now))
            let asked = try await jobs.cancelJob(home.id, running.id, now: now)
            #expect(asked.state == .running)
            #expect(asked.cancelRequested)
            #expect(try await jobs.jobProgress(running.id, holder: holder, done: 1, total: 2, now: now))
            // Even with attempts left, a failure after a cancellation is a cancellation.
            let ended = try #require(try await jobs.failJob(running.id, holder: holder, code: "x", message: "y", retryAt: now, now: now))
            #expect(ended.state == .cancelled)
            #expect(ended.message == JobMessages.cancelled)
            #expect(try await jobs.jobs(home.id, kind: "backup", since: now).map(\.state).sorted { $0.rawValue < $1.rawValue }
                    == [.cancelled, .cancelled])
            #expect(try await jobs.jobs(other.id, kind: "backup", since: now).isEmpty)
        }
    }

    @Test(arguments: Engine.available)
    func stoppedAndOrphanedJobsAreQueuedAgainOrInterrupted(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await household(stores)
            let jobs = stores.jobs
            _ = try await jobs.enqueueJob(home.id, kind: "import", subject: nil, payload: "{}", maxAttempts: 2, now: now)
            let stopped = try #require(try await jobs.claimJob(kind: "import", holder: holder, leaseUntil: far, now: now))
            try await jobs.stopJob(stopped.id, holder: holder, requeue: true, now: now)
            #expect(try await jobs.job(stopped.id)?.state == .queued)
            let again = try #require(try await jobs.claimJob(kind: "import", holder: holder, leaseUntil: far, now: now))
            try await jobs.stopJob(again.id, holder: holder, requeue: true, now: now)
            let interrupted = try #require(try await jobs.job(again.id))
            #expect(interrupted.state == .interrupted)
            #expect(interrupted.message == JobMessages.interrupted)

            // A process died with these running: the retryable kind with attempts left is queued again.
            _ = try await jobs.enqueueJob(home.id, kind: "receipt", subject: nil, payload: "{}", maxAttempts: 3, now: now)
            _ = try await jobs.enqueueJob(home.id, kind: "report", subject: nil, payload: "{}", maxAttempts: 3, now: now)
            let receipt = try #require(try await jobs.claimJob(kind: "receipt", holder: holder, leaseUntil: far, now: now))
            let report = try #require(try await jobs.claimJob(kind: "report", holder: holder, leaseUntil: far, now: now))
            // (Their leases passed: both are taken back.)
            let recovered = try await jobs.recoverJobs(retryable: ["receipt"], deadHolders: [], now: far.addingTimeInterval(1))
            #expect(recovered.requeued == 1)
            #expect(recovered.interrupted == 1)
            #expect(try await jobs.job(receipt.id)?.state == .queued)
            #expect(try await jobs.job(receipt.id)?.nextAttemptAt == far.addingTimeInterval(1))
            #expect(try await jobs.job(report.id)?.state == .interrupted)
        }
    }
}

/// Two PostgreSQL stores on one schema, as two servers on one database: each due job goes to one of them.
@Suite(.enabled(if: Engine.available.contains(.postgres)))
struct JobsAcrossServersTests {
    @Test func twoServersClaimingTogetherRunEachJobOnce() async throws {
        try await withTwoPostgresStores { first, second in try await Self.claimTogether(first, second) }
    }

    static func claimTogether(_ first: PostgresStore, _ second: PostgresStore) async throws {
        let now = Date(millis: 1_763_800_000_000)
        let home = try await first.createHousehold(name: "Home", currency: .usd, now: now)
        for index in 0..<60 {
            _ = try await first.enqueueJob(home.id, kind: "report", subject: nil, payload: "{\"i\":\(index)}", maxAttempts: 1, now: now)
        }
        let servers: [PostgresStore] = [first, second, first, second]
        let claimed = try await withThrowingTaskGroup(of: [JobID].self) { group in
            for server in servers {
                group.addTask {
                    var mine: [JobID] = []
                    while let job = try await server.claimJob(kind: "report", holder: "h", leaseUntil: now.addingTimeInterval(60), now: now) {
                        mine.append(job.id)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: [[JobID]]()) { $0.append($1) }
        }
        let all = claimed.flatMap { $0 }
        #expect(all.count == 60)
        #expect(Set(all).count == 60)
        // Both servers took a share (with four claimers over 60 jobs, one starving entirely would mean a lock wait).
        #expect(claimed.filter { !$0.isEmpty }.count >= 2)
    }
}
