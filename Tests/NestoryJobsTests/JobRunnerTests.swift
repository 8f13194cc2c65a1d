import Foundation
import Logging
import NestoryDomain
import NestoryJobs
import NestoryStore
import NestoryStoreInterfaces
import ServiceLifecycle
import Testing

/// A handler whose behaviour each test sets; it fails loudly when it runs a job it was not told about.
final class ScriptedHandler: JobHandler, @unchecked Sendable {
    let kind: String
    let concurrency: Int
    let retry: RetryPolicy
    private let lock = NSLock()
    private var script: [@Sendable (Job, JobContext) async throws -> String]
    private(set) var runs = 0
    var verifyResult: (@Sendable (String) throws -> Void)?

    init(kind: String = "test", concurrency: Int = 1, retry: RetryPolicy = .once, _ script: [@Sendable (Job, JobContext) async throws -> String]) {
        self.kind = kind
        self.concurrency = concurrency
        self.retry = retry
        self.script = script
    }

    func run(_ job: Job, context: JobContext) async throws -> String {
        let step: (@Sendable (Job, JobContext) async throws -> String)? = lock.withLock {
            runs += 1
            return script.isEmpty ? nil : script.removeFirst()
        }
        guard let step else {
            Issue.record("the handler ran a job nobody scripted (run \(runs))")
            throw JobFailure(code: "unscripted", message: "unscripted")
        }
        return try await step(job, context)
    }

    func verify(_ job: Job, result: String) throws { try verifyResult?(result) }
}

@Suite struct JobRunnerTests {
    final class Fixture: @unchecked Sendable {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-jobs-\(UUID())").path)
        let database: AppDatabase
        let household: Household

        init() throws {
            database = try AppDatabase.open(folder)
            household = try database.createHousehold(name: "Smiths", currency: .usd, now: Date())
        }

        deinit {
            try? database.close()
            try? FileManager.default.removeItem(atPath: folder.path)
        }

        func runner(_ handlers: [any JobHandler], drain: Duration = .seconds(5)) -> JobRunner {
            JobRunner(jobs: SQLiteJobStore(database), handlers: handlers, drainTimeout: drain, pollInterval: .milliseconds(20), random: { 0 })
        }

        /// Waits (at most 90 s: the whole suite runs at once on two cores) until the job is in one of the states.
        /// Waits for the job to reach one of `states`, at most 5 minutes: a bound against hanging, not a timing. In a full
        /// run every test's tasks share the two cores' cooperative threads, and a runner started here was once not
        /// scheduled for 90 s (load 11; a test of pure arithmetic beside it "took" 196 s).
        func wait(_ id: JobID, for states: Set<JobState>) async throws -> Job {
            let deadline = Date().addingTimeInterval(300)
            while Date() < deadline {
                let job = try #require(try database.job(id))
                if states.contains(job.state) { return job }
                try await Task.sleep(for: .milliseconds(10))
            }
            return try #require(try database.job(id))
        }
    }

    struct Payload: Codable { var n: Int }

    @Test func aJobRunsReportsProgressAndKeepsItsResult() async throws {
        let fixture = try Fixture()
        let handler = ScriptedHandler([{ job, context in
            #expect(try job.decodedPayload(as: Payload.self).n == 7)
            for done in 1...3 {
                try context.progress(done: Int64(done), total: 3)
                try context.itemResult("item-\(done)", Payload(n: done * 10))
            }
            return #"{"made":1}"#
        }])
        let runner = fixture.runner([handler])
        let job = try await runner.queue().enqueue(fixture.household.id, kind: "test", payload: Payload(n: 7))
        #expect(job.state == .queued && job.attempts == 0)
        let task = Task { try await runner.run() }
        defer { task.cancel() }
        let done = try await fixture.wait(job.id, for: [.succeeded, .failed])
        #expect(done.state == .succeeded && done.result == #"{"made":1}"# && done.done == 3 && done.total == 3 && done.attempts == 1)
        #expect(done.finishedAt != nil && done.message == nil)
        let items = try JSONSerialization.jsonObject(with: Data((done.itemResults ?? "{}").utf8)) as? [String: [String: Int]]
        #expect(items == ["item-1": ["n": 10], "item-2": ["n": 20], "item-3": ["n": 30]])
        // Another household does not see it.
        let other = try fixture.database.createHousehold(name: "Joneses", currency: .usd, now: Date())
        #expect(throws: DomainError.notFound("The job")) { try fixture.database.job(other.id, job.id) }
        #expect(throws: DomainError.notFound("The job")) { try fixture.database.cancelJob(other.id, job.id, now: Date()) }
    }

    @Test func retryableFailuresAreTriedAgainAndOthersFailOnce() async throws {
        let fixture = try Fixture()
        let busy: @Sendable (Job, JobContext) async throws -> String = { _, _ in
            throw JobFailure(code: "busy", message: "The reader is busy.", retryable: true)
        }
        let flaky = ScriptedHandler(kind: "flaky", retry: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, resumesAfterStop: true),
                                    [busy, busy, { _, _ in "{}" }])
        let broken = ScriptedHandler(kind: "broken", retry: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, resumesAfterStop: true), [
            { _, _ in throw JobFailure(code: "bad_input", message: "The file is not a CSV.") },
        ])
        let exhausted = ScriptedHandler(kind: "exhausted", retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01, resumesAfterStop: true),
                                        [busy, busy])
        let runner = fixture.runner([flaky, broken, exhausted])
        let a = try await runner.queue().enqueue(fixture.household.id, kind: "flaky", payload: Payload(n: 1))
        let b = try await runner.queue().enqueue(fixture.household.id, kind: "broken", payload: Payload(n: 1))
        let c = try await runner.queue().enqueue(fixture.household.id, kind: "exhausted", payload: Payload(n: 1))
        let task = Task { try await runner.run() }
        defer { task.cancel() }
        let flakyDone = try await fixture.wait(a.id, for: [.succeeded, .failed])
        #expect(flakyDone.state == .succeeded && flakyDone.attempts == 3)
        let brokenDone = try await fixture.wait(b.id, for: [.failed])
        #expect(brokenDone.attempts == 1 && brokenDone.errorCode == "bad_input" && brokenDone.message == "The file is not a CSV.")
        let exhaustedDone = try await fixture.wait(c.id, for: [.failed])
        #expect(exhaustedDone.attempts == 2 && exhaustedDone.errorCode == "busy")
        #expect(broken.runs == 1 && exhausted.runs == 2)
    }

    @Test func backoffGrowsExponentiallyWithJitterUnderACeiling() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: 2, maxDelay: 60, resumesAfterStop: true)
        #expect(policy.delay(afterAttempt: 1, random: 1) == 2)
        #expect(policy.delay(afterAttempt: 3, random: 1) == 8)
        #expect(policy.delay(afterAttempt: 3, random: 0.5) == 4)
        #expect(policy.delay(afterAttempt: 9, random: 1) == 60)
        #expect(policy.delay(afterAttempt: 2, random: 0) == 0)
    }

    @Test func aFailedCheckOfTheResultFailsTheJob() async throws {
        let fixture = try Fixture()
        let handler = ScriptedHandler([{ _, _ in #"{"bytes":0}"# }])
        handler.verifyResult = { _ in throw JobFailure(code: "empty_output", message: "The report came out empty.") }
        let runner = fixture.runner([handler])
        let job = try await runner.queue().enqueue(fixture.household.id, kind: "test", payload: Payload(n: 1))
        let task = Task { try await runner.run() }
        defer { task.cancel() }
        let done = try await fixture.wait(job.id, for: [.succeeded, .failed])
        #expect(done.state == .failed && done.errorCode == "empty_output" && done.result == nil)
    }

    @Test func queuedAndRunningJobsCanBeCancelled() async throws {
        let fixture = try Fixture()
        let started = AsyncStream.makeStream(of: Void.self)
        let handler = ScriptedHandler([{ _, context in
            started.continuation.yield()
            for step in 0..<10_000 {
                try context.progress(done: Int64(step), total: 10_000)
                try await Task.sleep(for: .milliseconds(5))
            }
            return "{}"
        }])
        let runner = fixture.runner([handler])
        let running = try await runner.queue().enqueue(fixture.household.id, kind: "test", payload: Payload(n: 1))
        let waiting = try await runner.queue().enqueue(fixture.household.id, kind: "test", payload: Payload(n: 2))  // concurrency 1: waits
        let task = Task { try await runner.run() }
        defer { task.cancel() }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        #expect(try fixture.database.cancelJob(fixture.household.id, waiting.id, now: Date()).state == .cancelled)
        #expect(try fixture.database.cancelJob(fixture.household.id, running.id, now: Date()).cancelRequested)
        let stopped = try await fixture.wait(running.id, for: [.cancelled, .succeeded, .failed])
        #expect(stopped.state == .cancelled && stopped.message == "Cancelled.")
        #expect(handler.runs == 1)  // the cancelled queued job never ran
    }

    @Test func jobsLeftRunningByADeadProcessAreRetriedOrMarkedInterrupted() async throws {
        let fixture = try Fixture()
        let resumes = ScriptedHandler(kind: "resumes", retry: RetryPolicy(maxAttempts: 3, resumesAfterStop: true), [{ _, _ in "{}" }])
        let once = ScriptedHandler(kind: "once", [])
        let live = ScriptedHandler(kind: "live", [])
        // What a killed process leaves: rows claimed (running) that nobody finishes. The first two were this server's
        // in an earlier life (same host and process number, another instance) and still have an hour of lease; the
        // third is held by a server on another host whose lease has not passed: it is left alone.
        let earlier = JobHolder(host: JobHolder.thisProcess.host, pid: JobHolder.thisProcess.pid, instance: "earlier").description
        let elsewhere = JobHolder(host: "another-host", pid: 7, instance: "alive").description
        let hour = Date().addingTimeInterval(3600)
        let a = try fixture.database.enqueueJob(fixture.household.id, kind: "resumes", payload: "{}", maxAttempts: 3, now: Date())
        let b = try fixture.database.enqueueJob(fixture.household.id, kind: "once", payload: "{}", maxAttempts: 1, now: Date())
        let c = try fixture.database.enqueueJob(fixture.household.id, kind: "live", payload: "{}", maxAttempts: 3, now: Date())
        _ = try fixture.database.claimJob(kind: "resumes", holder: earlier, leaseUntil: hour, now: Date())
        _ = try fixture.database.claimJob(kind: "once", holder: earlier, leaseUntil: hour, now: Date())
        _ = try fixture.database.claimJob(kind: "live", holder: elsewhere, leaseUntil: hour, now: Date())
        let runner = fixture.runner([resumes, once, live])
        let task = Task { try await runner.run() }
        defer { task.cancel() }
        let retried = try await fixture.wait(a.id, for: [.succeeded, .failed, .interrupted])
        #expect(retried.state == .succeeded && retried.attempts == 2)
        #expect(retried.claimedBy == JobHolder.thisProcess.description)
        let interrupted = try await fixture.wait(b.id, for: [.interrupted])
        #expect(interrupted.state == .interrupted && interrupted.errorCode == "interrupted")
        #expect(interrupted.message?.contains("The server stopped") == true)
        let held = try #require(try fixture.database.job(c.id))
        #expect(held.state == .running && held.claimedBy == elsewhere && held.attempts == 1)
        #expect(live.runs == 0)
    }

    @Test func aHolderKnowsOnlyItsOwnEarlierLivesDead() {
        let me = JobHolder(host: "box", pid: 40, instance: "now")
        #expect(JobHolder(me.description) == me)
        #expect(JobHolder("box/40") == nil && JobHolder("box/x/y") == nil && JobHolder("") == nil)
        let alive: (Int32) -> Bool = { $0 == 41 }
        #expect(me.knowsDead(JobHolder(host: "box", pid: 40, instance: "before"), processExists: alive))  // a restart that got the same number
        #expect(me.knowsDead(JobHolder(host: "box", pid: 99, instance: "before"), processExists: alive))  // its process is gone
        #expect(!me.knowsDead(JobHolder(host: "box", pid: 41, instance: "other"), processExists: alive))  // another live server here
        #expect(!me.knowsDead(JobHolder(host: "elsewhere", pid: 99, instance: "x"), processExists: alive))  // only its lease tells
        #expect(!me.knowsDead(me, processExists: alive))
        #expect(JobHolder.processExists(getpid()))
        #expect(JobHolder(JobHolder.thisProcess.description) == JobHolder.thisProcess)
        #if os(Linux)
        // Containers sharing a host name but not a process-number space are different places.
        #expect(JobHolder.thisProcess.host.split(separator: "+").last?.allSatisfy(\.isNumber) == true)
        #endif
    }

    @Test func gracefulShutdownLetsARunningJobFinish() async throws {
        let fixture = try Fixture()
        let started = AsyncStream.makeStream(of: Void.self)
        let handler = ScriptedHandler([{ _, _ in
            started.continuation.yield()
            try? await Task.sleep(for: .milliseconds(300))
            return #"{"finished":true}"#
        }])
        let runner = fixture.runner([handler], drain: .seconds(10))
        let job = try await runner.queue().enqueue(fixture.household.id, kind: "test", payload: Payload(n: 1))
        let group = ServiceGroup(services: [runner], logger: Logger(label: "test"))
        let task = Task { try await group.run() }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        await group.triggerGracefulShutdown()
        try await task.value  // returns once the job is done
        #expect(try #require(try fixture.database.job(job.id)).state == .succeeded)
    }

    @Test func aJobStillRunningAtTheDrainDeadlineIsPutBackOrInterrupted() async throws {
        let fixture = try Fixture()
        let started = AsyncStream.makeStream(of: Void.self)
        let endless: @Sendable (Job, JobContext) async throws -> String = { _, context in
            started.continuation.yield()
            while true {
                try context.progress(done: 1, total: 2)
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        let resumes = ScriptedHandler(kind: "resumes", retry: RetryPolicy(maxAttempts: 3, resumesAfterStop: true), [endless])
        let once = ScriptedHandler(kind: "once", [endless])
        let runner = fixture.runner([resumes, once], drain: .milliseconds(200))
        let a = try await runner.queue().enqueue(fixture.household.id, kind: "resumes", payload: Payload(n: 1))
        let b = try await runner.queue().enqueue(fixture.household.id, kind: "once", payload: Payload(n: 1))
        let group = ServiceGroup(services: [runner], logger: Logger(label: "test"))
        let task = Task { try await group.run() }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        await iterator.next()
        await group.triggerGracefulShutdown()
        try await task.value
        #expect(try #require(try fixture.database.job(a.id)).state == .queued)
        #expect(try #require(try fixture.database.job(b.id)).state == .interrupted)
    }
}
