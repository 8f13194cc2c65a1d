import Foundation
import NestoryDomain
@testable import NestoryJobs
import NestoryStore
import NestoryStoreInterfaces
import Testing

/// The SQLite job store, counting the running job's writes (and failing item results when told to).
final class CountingJobStore: JobStore, @unchecked Sendable {
    let inner: SQLiteJobStore
    private let lock = NSLock()
    private(set) var progressWrites = 0
    private(set) var itemWrites = 0
    var failItems = false
    var failRenewals = false

    init(_ database: AppDatabase) { inner = SQLiteJobStore(database) }

    struct Refused: Error {}

    func jobProgress(_ id: JobID, holder: String, done: Int64, total: Int64, now: Date) async throws -> Bool {
        lock.withLock { progressWrites += 1 }
        return try await inner.jobProgress(id, holder: holder, done: done, total: total, now: now)
    }
    func recordJobItemResult(_ id: JobID, holder: String, key: String, result: String, now: Date) async throws {
        if lock.withLock({ itemWrites += 1; return failItems }) { throw Refused() }
        try await inner.recordJobItemResult(id, holder: holder, key: key, result: result, now: now)
    }

    func enqueueJob(_ householdID: HouseholdID, kind: String, subject: String?, payload: String, maxAttempts: Int, now: Date) async throws -> Job {
        try await inner.enqueueJob(householdID, kind: kind, subject: subject, payload: payload, maxAttempts: maxAttempts, now: now)
    }
    func claimJob(kind: String, holder: String, leaseUntil: Date, now: Date) async throws -> Job? {
        try await inner.claimJob(kind: kind, holder: holder, leaseUntil: leaseUntil, now: now)
    }
    func renewJobLeases(holder: String, until: Date, now: Date) async throws -> Set<JobID> {
        if lock.withLock({ failRenewals }) { throw Refused() }
        return try await inner.renewJobLeases(holder: holder, until: until, now: now)
    }
    func jobHolders() async throws -> Set<String> { try await inner.jobHolders() }
    func nextJobDue(kinds: [String]) async throws -> Date? { try await inner.nextJobDue(kinds: kinds) }
    func queuedJobCounts() async throws -> [String: Int] { try await inner.queuedJobCounts() }
    func updateJobItemResult(_ householdID: HouseholdID, _ id: JobID, key: String, result: String, now: Date) async throws {
        try await inner.updateJobItemResult(householdID, id, key: key, result: result, now: now)
    }
    func succeedJob(_ id: JobID, holder: String, result: String, now: Date) async throws {
        try await inner.succeedJob(id, holder: holder, result: result, now: now)
    }
    func failJob(_ id: JobID, holder: String, code: String, message: String, retryAt: Date?, now: Date) async throws -> Job? {
        try await inner.failJob(id, holder: holder, code: code, message: message, retryAt: retryAt, now: now)
    }
    func stopJob(_ id: JobID, holder: String, requeue: Bool, now: Date) async throws {
        try await inner.stopJob(id, holder: holder, requeue: requeue, now: now)
    }
    func cancelJob(_ householdID: HouseholdID, _ id: JobID, now: Date) async throws -> Job { try await inner.cancelJob(householdID, id, now: now) }
    func recoverJobs(retryable: Set<String>, deadHolders: Set<String>, now: Date) async throws -> (requeued: Int, interrupted: Int) {
        try await inner.recoverJobs(retryable: retryable, deadHolders: deadHolders, now: now)
    }
    func job(_ householdID: HouseholdID, _ id: JobID) async throws -> Job { try await inner.job(householdID, id) }
    func job(_ id: JobID) async throws -> Job? { try await inner.job(id) }
    func jobs(_ householdID: HouseholdID, kind: String, since: Date) async throws -> [Job] { try await inner.jobs(householdID, kind: kind, since: since) }
    func latestJob(_ householdID: HouseholdID, kind: String, subject: String) async throws -> Job? {
        try await inner.latestJob(householdID, kind: kind, subject: subject)
    }
    func unfinishedJobPayloads() async throws -> [String] { try await inner.unfinishedJobPayloads() }
    func recentJobResults(since: Date) async throws -> [String] { try await inner.recentJobResults(since: since) }
}

/// The running job's writer: handlers report synchronously, the store is written in the background.
@Suite struct JobProgressWriterTests {
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var current = Date(millis: 1_763_800_000_000)
        var now: Date { lock.withLock { current } }
        func advance(_ seconds: TimeInterval) { lock.withLock { current = current.addingTimeInterval(seconds) } }
    }

    /// A running job held by "h", and a writer for it on a clock that moves only when told.
    func running(_ body: (CountingJobStore, Job, JobProgressWriter, Clock) async throws -> Void) async throws {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-writer-\(UUID())").path)
        let database = try AppDatabase.open(folder)
        defer {
            try? database.close()
            try? FileManager.default.removeItem(atPath: folder.path)
        }
        let clock = Clock()
        let home = try database.createHousehold(name: "Home", currency: .usd, now: clock.now)
        let store = CountingJobStore(database)
        _ = try await store.enqueueJob(home.id, kind: "batch", subject: nil, payload: "{}", maxAttempts: 1, now: clock.now)
        let job = try #require(try await store.claimJob(kind: "batch", holder: "h", leaseUntil: clock.now.addingTimeInterval(60), now: clock.now))
        try await body(store, job, JobProgressWriter(id: job.id, jobs: store, holder: "h", leaseUntil: job.leaseUntil!, now: { clock.now }), clock)
    }

    @Test func progressIsCoalescedAndTheLastStepAlwaysWritten() async throws {
        try await running { store, job, writer, clock in
            // Steps reported faster than writes go: one write in flight, the newest step taken after it.
            for done in 1...999 { #expect(try writer.progress(done: Int64(done), total: 1000) == false) }
            try await writer.drain()
            #expect(store.progressWrites <= 3)
            // Steps reported slower than writes go, but the clock stands still: after the first, none is due
            // (0.25 s apart) until the last.
            let slow = store.progressWrites
            for done in 1...20 {
                _ = try writer.progress(done: Int64(done), total: 1000)
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(store.progressWrites == slow)
            #expect(try writer.progress(done: 1000, total: 1000) == false)
            try await writer.drain()
            #expect(store.progressWrites == slow + 1)
            #expect(try await store.job(job.id)?.done == 1000)

            // A step after the spacing is written; one before it waits, and a drain writes the newest.
            clock.advance(1)
            _ = try writer.progress(done: 10, total: 20)
            try await writer.drain()
            let before = store.progressWrites
            _ = try writer.progress(done: 11, total: 20)
            _ = try writer.progress(done: 12, total: 20)
            #expect(store.progressWrites == before)
            try await writer.drain()
            #expect(store.progressWrites == before + 1)
            #expect(try await store.job(job.id)?.done == 12)
        }
    }

    @Test func theStoresLastAnswerIsKeptBetweenWrites() async throws {
        try await running { store, job, writer, clock in
            _ = try await store.cancelJob(job.householdID, job.id, now: clock.now)
            clock.advance(1)
            _ = try writer.progress(done: 1, total: 9)  // written in the background; the answer comes after
            try await writer.drain()
            let writes = store.progressWrites
            // Not due (the clock stands still), so not written, and still told to stop.
            #expect(try writer.progress(done: 2, total: 9) == true)
            #expect(try writer.progress(done: 3, total: 9) == true)
            #expect(store.progressWrites == writes)
        }
    }

    @Test func itemResultsAreWrittenInOrderAndAllBeforeTheDrainEnds() async throws {
        try await running { store, job, writer, _ in
            for index in 0..<200 { try writer.itemResult(key: "item-\(index % 50)", result: "\(index)") }
            try await writer.drain()
            #expect(store.itemWrites == 200)
            let items = try JSONSerialization.jsonObject(with: Data(try #require(try await store.job(job.id)?.itemResults).utf8)) as? [String: Int]
            // Each key's last write wins: 150...199.
            #expect(items == Dictionary(uniqueKeysWithValues: (150..<200).map { ("item-\($0 % 50)", $0) }))
        }
    }

    @Test func aFailedWriteReachesTheHandlerAndTheDrain() async throws {
        try await running { store, _, writer, _ in
            store.failItems = true
            try writer.itemResult(key: "a", result: "1")
            await #expect(throws: CountingJobStore.Refused.self) { try await writer.drain() }
            #expect(throws: CountingJobStore.Refused.self) { _ = try writer.progress(done: 1, total: 2) }
            #expect(throws: CountingJobStore.Refused.self) { try writer.itemResult(key: "b", result: "2") }
        }
    }

    @Test func theRunnersWordToStopIsAnswered() async throws {
        try await running { _, _, writer, _ in
            #expect(try writer.progress(done: 1, total: 3) == false)
            writer.stop()
            #expect(try writer.progress(done: 2, total: 3) == true)
            #expect(!writer.lostLease)
            writer.loseLease()
            #expect(writer.lostLease)
            try await writer.drain()
        }
    }
}

/// A runner that cannot renew its lease stops the job once the lease has passed, before another server runs it too.
@Suite struct JobLeaseRenewalTests {
    @Test func aJobWhoseLeaseCannotBeRenewedIsStoppedOnceItPasses() async throws {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-renewal-\(UUID())").path)
        let database = try AppDatabase.open(folder)
        defer {
            try? database.close()
            try? FileManager.default.removeItem(atPath: folder.path)
        }
        let clock = JobProgressWriterTests.Clock()
        let home = try database.createHousehold(name: "Home", currency: .usd, now: clock.now)
        let store = CountingJobStore(database)
        let started = AsyncStream.makeStream(of: Void.self)
        let stopped = AsyncStream.makeStream(of: Void.self)
        let handler = ScriptedHandler([{ _, _ in
            started.continuation.yield()
            do {
                try await Task.sleep(for: .seconds(120))  // until cancelled
            } catch {
                stopped.continuation.yield()
                throw error
            }
            return "{}"
        }])
        let runner = JobRunner(jobs: store, handlers: [handler], holder: JobHolder(host: "here", pid: 1, instance: "a"), lease: .seconds(1),
                               heartbeat: .milliseconds(50), pollInterval: .milliseconds(20), now: { clock.now })
        let job = try await store.enqueueJob(home.id, kind: "test", subject: nil, payload: "{}", maxAttempts: 1, now: clock.now)
        store.failRenewals = true
        let task = Task { try await runner.run() }
        defer { task.cancel() }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        // Renewals fail, but the lease has not passed: the job runs on.
        clock.advance(0.9)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await store.job(job.id)?.state == .running)
        // Past the lease with no renewal: stopped (interrupted, as this kind does not resume), not left to run.
        clock.advance(0.2)
        let deadline = Date().addingTimeInterval(300)  // a bound against hanging (see JobRunnerTests.Fixture.wait)
        var now = try #require(try await store.job(job.id))
        while now.state == .running && Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
            now = try #require(try await store.job(job.id))
        }
        #expect(now.state == .interrupted && now.errorCode == "interrupted")
        // Its work was cancelled (the row alone could have been taken back by the runner's own look for expired jobs).
        let cancelled = Task {
            var waiting = stopped.stream.makeAsyncIterator()
            return await waiting.next() != nil
        }
        let timeout = Task {
            try? await Task.sleep(for: .seconds(60))
            stopped.continuation.finish()
        }
        #expect(await cancelled.value)
        timeout.cancel()
        #expect(handler.runs == 1)
    }
}
