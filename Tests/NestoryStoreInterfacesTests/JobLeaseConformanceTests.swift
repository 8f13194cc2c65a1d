import Foundation
import NestoryDomain
import NestoryJobs
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// Two servers' job stores on one database: on SQLite the one file's store twice (one process stands for both), on
/// PostgreSQL two stores, each with its own pool, on one schema.
func withTwoServers<T>(_ engine: Engine, _ body: (Stores, any JobStore) async throws -> T) async throws -> T {
    switch engine {
    case .sqlite:
        return try await withStores(.sqlite) { stores in try await body(stores, stores.jobs) }
    case .postgres:
        return try await withTwoPostgresStores { first, second in
            try await body(Stores(accounts: first, jobs: first, items: first, attachments: first, blobs: nil, tokens: first,
                                  idempotency: first, reminders: first, valuations: first, captureCounters: first, licences: first,
                                  products: first, requestBudget: first), second)
        }
    }
}

/// Leases on every engine: a running job belongs to the server that claimed it while that server renews its lease;
/// once the lease passes, another takes it back, and the first server's late writes count for nothing.
@Suite struct JobLeaseConformanceTests {
    let now = Date(millis: 1_763_800_000_000)

    func at(_ seconds: TimeInterval) -> Date { now.addingTimeInterval(seconds) }

    @Test(arguments: Engine.available)
    func aRunningJobIsTakenBackOnlyOnceItsLeaseHasPassed(engine: Engine) async throws {
        try await withTwoServers(engine) { stores, b in
            let a = stores.jobs
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: now)
            let queued = try await a.enqueueJob(home.id, kind: "import", subject: nil, payload: "{}", maxAttempts: 3, now: now)
            let claimed = try #require(try await a.claimJob(kind: "import", holder: "a", leaseUntil: at(30), now: now))
            #expect(claimed.id == queued.id && claimed.claimedBy == "a" && claimed.leaseUntil == at(30))
            #expect(try await b.claimJob(kind: "import", holder: "b", leaseUntil: at(40), now: at(10)) == nil)
            #expect(try await b.jobHolders() == ["a"])

            // While A's lease holds (and once renewed), B finds nothing to take back.
            #expect(try await b.recoverJobs(retryable: ["import"], deadHolders: [], now: at(29)) == (0, 0))
            #expect(try await a.renewJobLeases(holder: "a", until: at(60), now: at(20)) == [claimed.id])
            #expect(try await b.renewJobLeases(holder: "b", until: at(60), now: at(20)).isEmpty)
            #expect(try await b.recoverJobs(retryable: ["import"], deadHolders: [], now: at(45)) == (0, 0))
            #expect(try await a.jobProgress(claimed.id, holder: "a", done: 2, total: 4, now: at(46)) == false)
            try await a.recordJobItemResult(claimed.id, holder: "a", key: "first", result: "1", now: at(46))
            // B's writes to A's job count for nothing.
            #expect(try await b.jobProgress(claimed.id, holder: "b", done: 4, total: 4, now: at(47)) == true)
            try await b.succeedJob(claimed.id, holder: "b", result: "{}", now: at(47))
            #expect(try await b.job(claimed.id)?.state == .running)

            // A dies: no more renewals. Once its lease has passed, B takes the job back.
            #expect(try await b.recoverJobs(retryable: ["import"], deadHolders: [], now: at(61)) == (1, 0))
            let requeued = try #require(try await b.job(claimed.id))
            #expect(requeued.state == .queued && requeued.attempts == 1 && requeued.done == 2)

            // What A still writes (it was only slow, say) changes nothing.
            #expect(try await a.jobProgress(claimed.id, holder: "a", done: 3, total: 4, now: at(62)) == true)
            try await a.recordJobItemResult(claimed.id, holder: "a", key: "late", result: "2", now: at(62))
            try await a.succeedJob(claimed.id, holder: "a", result: #"{"by":"a"}"#, now: at(62))
            try await a.stopJob(claimed.id, holder: "a", requeue: false, now: at(62))
            #expect(try await a.failJob(claimed.id, holder: "a", code: "x", message: "y", retryAt: nil, now: at(62))?.state == .queued)

            let again = try #require(try await b.claimJob(kind: "import", holder: "b", leaseUntil: at(100), now: at(63)))
            #expect(again.id == claimed.id && again.attempts == 2 && again.claimedBy == "b" && again.done == 2)
            #expect(try await a.renewJobLeases(holder: "a", until: at(120), now: at(64)).isEmpty)  // A learns it lost the job
            try await a.succeedJob(claimed.id, holder: "a", result: #"{"by":"a"}"#, now: at(64))
            try await b.recordJobItemResult(claimed.id, holder: "b", key: "second", result: "2", now: at(65))
            try await b.succeedJob(claimed.id, holder: "b", result: #"{"by":"b"}"#, now: at(66))
            let done = try #require(try await a.job(claimed.id))
            #expect(done.state == .succeeded && done.result == #"{"by":"b"}"# && done.claimedBy == "b")
            let items = try JSONSerialization.jsonObject(with: Data(try #require(done.itemResults).utf8)) as? NSDictionary
            #expect(items == ["first": 1, "second": 2] as NSDictionary)

            // A holder known to be dead (a starting server's earlier life) loses its jobs at once, lease or not; a kind
            // that may not run again is marked interrupted.
            _ = try await a.enqueueJob(home.id, kind: "report", subject: nil, payload: "{}", maxAttempts: 3, now: at(70))
            let report = try #require(try await a.claimJob(kind: "report", holder: "c", leaseUntil: at(1000), now: at(70)))
            #expect(try await b.recoverJobs(retryable: ["import"], deadHolders: ["x"], now: at(71)) == (0, 0))
            #expect(try await b.recoverJobs(retryable: ["import"], deadHolders: ["c"], now: at(71)) == (0, 1))
            #expect(try await b.job(report.id)?.state == .interrupted)
            #expect(try await b.jobHolders().isEmpty)
        }
    }
}

/// What the handlers of two runners did, by job.
final class Ledger: @unchecked Sendable {
    private let lock = NSLock()
    private var runs: [JobID: [String]] = [:]
    private var events: [String] = []

    func ran(_ job: JobID, on server: String) { lock.withLock { runs[job, default: []].append(server) } }
    func note(_ event: String) { lock.withLock { events.append(event) } }
    func servers(_ job: JobID) -> [String] { lock.withLock { runs[job] ?? [] } }
    var all: [JobID: [String]] { lock.withLock { runs } }
    func saw(_ event: String) -> Bool { lock.withLock { events.contains(event) } }
}

/// A handler whose work each test gives as a closure, told which server runs it.
struct LedgerHandler: JobHandler {
    let kind: String
    let concurrency: Int
    let retry: RetryPolicy
    let server: String
    let ledger: Ledger
    let work: @Sendable (Job, JobContext, String) async throws -> String

    init(kind: String, concurrency: Int = 1, retry: RetryPolicy = RetryPolicy(maxAttempts: 3, resumesAfterStop: true), server: String,
         ledger: Ledger, work: @escaping @Sendable (Job, JobContext, String) async throws -> String) {
        self.kind = kind
        self.concurrency = concurrency
        self.retry = retry
        self.server = server
        self.ledger = ledger
        self.work = work
    }

    func run(_ job: Job, context: JobContext) async throws -> String {
        ledger.ran(job.id, on: server)
        return try await work(job, context, server)
    }
}

/// A clock the test moves: leases pass when the test says, not when a loaded machine is slow.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(millis: 1_763_800_000_000)

    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current = current.addingTimeInterval(seconds) } }
}

/// Two job runners, standing for two servers, on one queue of each engine. Both read one test clock, so whether a
/// lease has passed depends on the steps the test takes, never on how fast the machine is.
@Suite struct JobRunnersAcrossServersTests {
    static func holder(_ name: String) -> JobHolder { JobHolder(host: "server-\(name)", pid: 1, instance: name) }

    static func runner(_ name: String, _ jobs: any JobStore, _ handlers: [any JobHandler], clock: TestClock, lease: Duration = .seconds(1),
                       heartbeat: Duration = .milliseconds(50)) -> JobRunner {
        JobRunner(jobs: jobs, handlers: handlers, holder: holder(name), lease: lease, heartbeat: heartbeat,
                  drainTimeout: .seconds(5), pollInterval: .milliseconds(20), random: { 0 }, now: { clock.now })
    }

    /// Waits (at most 90 s: the whole suite runs at once on two cores) until the job is in one of the states.
    static func wait(_ jobs: any JobStore, _ id: JobID, for states: Set<JobState>, where extra: (Job) -> Bool = { _ in true }) async throws -> Job {
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            let job = try #require(try await jobs.job(id))
            if states.contains(job.state) && extra(job) { return job }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try #require(try await jobs.job(id))
    }

    static func itemKeys(_ job: Job) throws -> Set<String> {
        guard let text = job.itemResults else { return [] }
        return Set((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]).keys)
    }

    /// Moves the clock on by half a second nine times; after each, waits for the holder's heartbeat to renew the job's
    /// lease from the new time, lets the other runner look for expired jobs, then lets the handler do one step.
    /// Returns how many steps the job stayed the holder's.
    static func stepsKeptByTheirHolder(_ jobs: any JobStore, _ id: JobID, clock: TestClock, holder: JobHolder,
                                       steps: AsyncStream<Int>.Continuation) async throws -> Int {
        for done in 1...9 {
            clock.advance(0.5)
            let renewed = clock.now.addingTimeInterval(1)
            let seen = try await wait(jobs, id, for: [.running, .queued]) { $0.state != .running || $0.leaseUntil == renewed }
            guard seen.state == .running, seen.claimedBy == holder.description, seen.leaseUntil == renewed else { return done - 1 }
            try await Task.sleep(for: .milliseconds(100))  // the other runner's recovery has a turn or two at this time
            steps.yield(done)
        }
        return 9
    }

    @Test(arguments: Engine.available)
    func aJobHeldByALiveRunnerIsNotTakenByTheOther(engine: Engine) async throws {
        try await withTwoServers(engine) { stores, second in
            let clock = TestClock()
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: clock.now)
            let ledger = Ledger()
            let step = AsyncStream.makeStream(of: Int.self)
            // A's handler does one step of work each time the test says, reporting it.
            let a = Self.runner("a", stores.jobs, [LedgerHandler(kind: "long", server: "a", ledger: ledger) { _, context, server in
                var steps = step.stream.makeAsyncIterator()
                while let done = await steps.next() {
                    try context.progress(done: Int64(done), total: 10)
                    try context.itemResult("\(server)-\(done)", done)
                    if done == 10 { break }
                }
                return #"{"by":"\#(server)"}"#
            }], clock: clock)
            let b = Self.runner("b", second, [LedgerHandler(kind: "long", server: "b", ledger: ledger) { _, _, _ in #"{"by":"b"}"# }], clock: clock)
            let job = try await stores.jobs.enqueueJob(home.id, kind: "long", subject: nil, payload: "{}", maxAttempts: 3, now: clock.now)
            let runA = Task { try await a.run() }
            defer { runA.cancel() }
            let held = try await Self.wait(stores.jobs, job.id, for: [.running])
            #expect(held.claimedBy == Self.holder("a").description && held.leaseUntil == clock.now.addingTimeInterval(1))
            let runB = Task { try await b.run() }
            defer { runB.cancel() }
            // Ten half-seconds: five times the 1 s lease. After each, A's heartbeat renews the lease from the new time
            // before the next step, and B (looking every 50 ms) must not take the job meanwhile.
            let kept = try await Self.stepsKeptByTheirHolder(stores.jobs, job.id, clock: clock, holder: Self.holder("a"), steps: step.continuation)
            #expect(kept == 9)
            step.continuation.yield(10)
            let done = try await Self.wait(second, job.id, for: [.succeeded, .failed, .interrupted, .cancelled])
            #expect(done.state == .succeeded && done.result == #"{"by":"a"}"#)
            #expect(done.attempts == 1 && done.claimedBy == Self.holder("a").description)
            #expect(ledger.servers(job.id) == ["a"])
            #expect(done.done == 10 && done.total == 10)
            #expect(try Self.itemKeys(done) == Set((1...10).map { "a-\($0)" }))
        }
    }

    @Test(arguments: Engine.available)
    func aRunnerThatStopsHeartbeatingHasItsJobTakenBackAfterItsLease(engine: Engine) async throws {
        try await withTwoServers(engine) { stores, second in
            let clock = TestClock()
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: clock.now)
            let ledger = Ledger()
            let started = AsyncStream.makeStream(of: Void.self)
            let release = AsyncStream.makeStream(of: Void.self)
            // A claims with a 1 s lease and never renews it (its heartbeat is an hour away): as a server that died.
            // Its handler reports some progress, then hangs until the test releases it, then tries to finish.
            let a = Self.runner("a", stores.jobs, [LedgerHandler(kind: "valuation", server: "a", ledger: ledger) { _, context, _ in
                try context.progress(done: 1, total: 4)
                try context.itemResult("a-1", 1)
                started.continuation.yield()
                var waiting = release.stream.makeAsyncIterator()
                await waiting.next()
                try? context.itemResult("a-late", 2)
                ledger.note("a finished its work")
                return #"{"by":"a"}"#
            }], clock: clock, heartbeat: .seconds(3600))
            let b = Self.runner("b", second, [LedgerHandler(kind: "valuation", server: "b", ledger: ledger) { _, context, server in
                for step in 2...4 {
                    try context.progress(done: Int64(step), total: 4)
                    try context.itemResult("\(server)-\(step)", step)
                }
                return #"{"by":"b"}"#
            }], clock: clock)
            let job = try await stores.jobs.enqueueJob(home.id, kind: "valuation", subject: nil, payload: "{}", maxAttempts: 3, now: clock.now)
            let runA = Task { try await a.run() }
            var startedA = started.stream.makeAsyncIterator()
            await startedA.next()
            // A's progress and first item reach the store though its handler hangs.
            let heldByA = try await Self.wait(stores.jobs, job.id, for: [.running]) { $0.done == 1 && $0.itemResults != nil }
            #expect(heldByA.claimedBy == Self.holder("a").description && heldByA.attempts == 1)
            let runB = Task { try await b.run() }
            defer { runB.cancel() }
            // Before A's lease has passed, B leaves the job alone.
            clock.advance(0.9)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await second.job(job.id)?.claimedBy == Self.holder("a").description)
            // Then it takes it back and runs it.
            clock.advance(0.2)
            let done = try await Self.wait(second, job.id, for: [.succeeded, .failed, .interrupted, .cancelled])
            #expect(done.state == .succeeded && done.result == #"{"by":"b"}"#)
            #expect(done.attempts == 2 && done.claimedBy == Self.holder("b").description)
            #expect(done.done == 4 && done.total == 4)
            #expect(try Self.itemKeys(done) == ["a-1", "b-2", "b-3", "b-4"])
            #expect(ledger.servers(job.id) == ["a", "b"])

            // A wakes up and finishes: its result and its late item are refused.
            release.continuation.yield()
            let deadline = Date().addingTimeInterval(30)
            while !ledger.saw("a finished its work") && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(ledger.saw("a finished its work"))
            runA.cancel()
            _ = try? await runA.value
            let after = try #require(try await second.job(job.id))
            #expect(after.state == .succeeded && after.result == #"{"by":"b"}"# && after.claimedBy == Self.holder("b").description)
            #expect(try Self.itemKeys(after) == ["a-1", "b-2", "b-3", "b-4"])
        }
    }

    @Test(arguments: Engine.available)
    func twoRunnersOnOneQueueRunEachJobOnce(engine: Engine) async throws {
        try await withTwoServers(engine) { stores, second in
            let clock = TestClock()
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: clock.now)
            let ledger = Ledger()
            let work: @Sendable (Job, JobContext, String) async throws -> String = { job, context, server in
                try context.progress(done: 1, total: 2)
                try await Task.sleep(for: .milliseconds(20))
                try context.itemResult("by", server)
                try context.progress(done: 2, total: 2)
                return "{}"
            }
            let a = Self.runner("a", stores.jobs, [LedgerHandler(kind: "batch", concurrency: 3, server: "a", ledger: ledger, work: work)], clock: clock)
            let b = Self.runner("b", second, [LedgerHandler(kind: "batch", concurrency: 3, server: "b", ledger: ledger, work: work)], clock: clock)
            var ids: [JobID] = []
            for index in 0..<30 {
                ids.append(try await stores.jobs.enqueueJob(home.id, kind: "batch", subject: nil, payload: "{\"i\":\(index)}", maxAttempts: 3,
                                                            now: clock.now).id)
            }
            let runA = Task { try await a.run() }
            let runB = Task { try await b.run() }
            defer { runA.cancel(); runB.cancel() }
            for id in ids {
                let done = try await Self.wait(stores.jobs, id, for: [.succeeded, .failed, .interrupted, .cancelled])
                #expect(done.state == .succeeded && done.attempts == 1 && done.done == 2)
                let ran = ledger.servers(id)
                #expect(ran.count == 1)
                let items = try JSONSerialization.jsonObject(with: Data((done.itemResults ?? "{}").utf8)) as? [String: String]
                #expect(items == ["by": ran.first ?? "?"])
                #expect(done.claimedBy == ran.first.map { Self.holder($0).description })
            }
            #expect(ledger.all.count == 30)
        }
    }
}
