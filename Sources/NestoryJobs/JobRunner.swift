import Foundation
import Logging
import Metrics
import NestoryDomain
import NestoryStore
import ServiceLifecycle

/// Runs queued jobs with their handlers: a ServiceLifecycle service beside the HTTP server.
///
/// - At start, jobs left running by a process that died are queued again (kinds that resume after a
///   stop, with attempts left) or marked interrupted: none stays "running" forever.
/// - At most `concurrency` jobs of a kind run at once; the runner is woken when a job is queued and
///   looks for due retries every `pollInterval`.
/// - Failures a handler marks retryable are tried again after an exponential, jittered backoff.
/// - On graceful shutdown (SIGTERM) it starts nothing new and waits for running jobs up to
///   `drainTimeout`; jobs still running then are stopped and queued again or marked interrupted.
public final class JobRunner: Service, @unchecked Sendable {
    let database: AppDatabase
    let handlers: [String: any JobHandler]
    let logger: Logger
    let now: @Sendable () -> Date
    let drainTimeout: Duration
    let pollInterval: Duration
    let random: @Sendable () -> Double

    private enum Event: Sendable { case wake, finished(String), shutdown, drainDeadline }
    private let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let lock = NSLock()
    /// Running jobs told to stop (the drain deadline passed): their progress calls throw.
    private var stopping = Set<JobID>()
    private var lastProgressWrite: [JobID: Date] = [:]

    public init(database: AppDatabase, handlers: [any JobHandler], logger: Logger = Logger(label: "nestory.jobs"),
                drainTimeout: Duration = .seconds(25), pollInterval: Duration = .milliseconds(500),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.handlers = Dictionary(handlers.map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })
        self.logger = logger
        self.now = now
        self.drainTimeout = drainTimeout
        self.pollInterval = pollInterval
        self.random = random
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
    }

    /// The queue services put jobs in (it wakes this runner).
    public var queue: JobQueue {
        JobQueue(database: database, policies: handlers.mapValues(\.retry), now: now) { [weak self] in self?.wake() }
    }

    /// Looks for due jobs now (called when one is queued).
    public func wake() { continuation.yield(.wake) }

    public func run() async throws {
        let resumable = Set(handlers.values.filter(\.retry.resumesAfterStop).map(\.kind))
        let recovered = try database.recoverJobs(retryable: resumable, now: now())
        if recovered.requeued + recovered.interrupted > 0 {
            logger.notice("jobs left running by the last process", metadata: [
                "requeued": .stringConvertible(recovered.requeued), "interrupted": .stringConvertible(recovered.interrupted)])
        }
        await withGracefulShutdownHandler {
            await loop()
        } onGracefulShutdown: {
            self.continuation.yield(.shutdown)
        }
    }

    private func loop() async {
        let ticker = Task { [pollInterval, continuation] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                continuation.yield(.wake)
            }
        }
        defer { ticker.cancel() }
        await withTaskGroup(of: Void.self) { group in
            var running: [String: Int] = [:]
            var draining = false
            startDue(&running, &group)
            for await event in events {
                switch event {
                case .wake: break
                case .finished(let kind): running[kind, default: 1] -= 1
                case .shutdown:
                    guard !draining else { break }
                    draining = true
                    logger.info("stopping: waiting for running jobs", metadata: ["running": .stringConvertible(running.values.reduce(0, +))])
                    Task { [drainTimeout, continuation] in
                        try? await Task.sleep(for: drainTimeout)
                        continuation.yield(.drainDeadline)
                    }
                case .drainDeadline:
                    lock.withLock { stopping = Set(lastProgressWrite.keys) }
                    group.cancelAll()
                }
                if draining {
                    if running.values.allSatisfy({ $0 <= 0 }) { break }
                    continue
                }
                startDue(&running, &group)
            }
        }
    }

    /// Claims due jobs of every kind up to its concurrency and starts them.
    private func startDue(_ running: inout [String: Int], _ group: inout TaskGroup<Void>) {
        for (kind, handler) in handlers.sorted(by: { $0.key < $1.key }) {
            while running[kind, default: 0] < handler.concurrency {
                let job: Job?
                do { job = try database.claimJob(kind: kind, now: now()) } catch {
                    logger.error("could not claim a job", metadata: ["kind": .string(kind), "error": .string(String(describing: error))])
                    break
                }
                guard let job else { break }
                running[kind, default: 0] += 1
                lock.withLock { lastProgressWrite[job.id] = .distantPast }
                group.addTask { await self.execute(job, handler) }
            }
            Gauge(label: "nestory_jobs_running", dimensions: [("kind", kind)]).record(running[kind, default: 0])
        }
        let queued = (try? database.queuedJobCounts()) ?? [:]
        for kind in handlers.keys {
            Gauge(label: "nestory_jobs_queued", dimensions: [("kind", kind)]).record(queued[kind, default: 0])
        }
    }

    private func execute(_ job: Job, _ handler: any JobHandler) async {
        let started = now()
        var metadata: Logger.Metadata = ["job_id": .string(job.id.description), "household_id": .string(job.householdID.description),
                                         "kind": .string(job.kind), "attempt": .stringConvertible(job.attempts)]
        let context = JobContext(jobID: job.id) { [self] done, total in
            let at = now()
            let (due, stop) = lock.withLock { () -> (Bool, Bool) in
                let last = lastProgressWrite[job.id] ?? .distantPast
                let due = done >= total || at.timeIntervalSince(last) >= 0.25
                if due { lastProgressWrite[job.id] = at }
                return (due, stopping.contains(job.id))
            }
            if stop { return true }
            return due ? try database.jobProgress(job.id, done: done, total: total, now: at) : false
        } itemResult: { [self] key, result in
            try database.recordJobItemResult(job.id, key: key, result: result, now: now())
        }
        let outcome: String
        do {
            let result: String
            do {
                result = try await handler.run(job, context: context)
                try handler.verify(job, result: result)
            } catch let error as DomainError {
                // A rule the work ran into (a Free limit, a conflict): the person's to act on, said as it is, not retried.
                throw JobFailure(error)
            }
            try database.succeedJob(job.id, result: result, now: now())
            outcome = "succeeded"
        } catch is CancellationError {
            try? database.stopJob(job.id, requeue: handler.retry.resumesAfterStop, now: now())
            outcome = "stopped"
        } catch let failure as JobFailure {
            let retryAt = failure.retryable
                ? now().addingTimeInterval(handler.retry.delay(afterAttempt: job.attempts, random: random())) : nil
            metadata["error_code"] = .string(failure.code)
            let after = try? database.failJob(job.id, code: failure.code, message: failure.message, retryAt: retryAt, now: now())
            outcome = after?.state == .queued ? "retrying" : "failed"
            logger.warning("job failed", metadata: metadata.merging(["will_retry": .stringConvertible(outcome == "retrying")]) { $1 })
        } catch {
            metadata["error"] = .string(String(reflecting: error))
            logger.error("job failed", metadata: metadata)
            _ = try? database.failJob(job.id, code: "internal_error",
                                      message: "This could not be done because of a problem on the server. Nothing was changed; try again.",
                                      retryAt: nil, now: now())
            outcome = "failed"
        }
        lock.withLock {
            lastProgressWrite[job.id] = nil
            stopping.remove(job.id)
        }
        Counter(label: "nestory_jobs_total", dimensions: [("kind", job.kind), ("outcome", outcome)]).increment()
        Metrics.Timer(label: "nestory_jobs_duration_seconds", dimensions: [("kind", job.kind)])
            .recordInterval(since: started, now: now())
        continuation.yield(.finished(job.kind))
    }
}

/// Puts jobs in the queue, in their own transaction or inside a service's, and wakes the runner.
public struct JobQueue: Sendable {
    let database: AppDatabase
    let policies: [String: RetryPolicy]
    let now: @Sendable () -> Date
    let wake: @Sendable () -> Void

    public init(database: AppDatabase, policies: [String: RetryPolicy], now: @escaping @Sendable () -> Date = Date.init,
                wake: @escaping @Sendable () -> Void) {
        self.database = database
        self.policies = policies
        self.now = now
        self.wake = wake
    }

    /// Queues a job of a kind some handler runs (else a programming error, reported loudly).
    @discardableResult
    public func enqueue<Payload: Encodable>(_ household: HouseholdID, kind: String, subject: String? = nil, payload: Payload) throws -> Job {
        guard let policy = policies[kind] else { preconditionFailure("no handler runs jobs of kind \(kind)") }
        let job = try database.enqueueJob(household, kind: kind, subject: subject, payload: try JSONEncoder.jobText(payload),
                                          maxAttempts: policy.maxAttempts, now: now())
        wake()
        return job
    }
}

extension Metrics.Timer {
    func recordInterval(since start: Date, now: Date) {
        recordNanoseconds(Int64(max(0, now.timeIntervalSince(start)) * 1_000_000_000))
    }
}
