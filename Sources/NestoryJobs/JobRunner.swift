import Foundation
import Logging
import Metrics
import NestoryDomain
import NestoryStoreInterfaces
import ServiceLifecycle

/// Runs queued jobs with their handlers: a ServiceLifecycle service beside the HTTP server. It works through
/// ``JobStore`` only, so several servers can share one queue.
///
/// - Each job it claims is held under a lease (`lease`) that it renews every `heartbeat` while the job runs. A
///   server that dies stops renewing; once the lease has passed, any server takes the job back: queued again (kinds
///   that resume after a stop, with attempts left) or marked interrupted. None stays "running" forever, and a live
///   server's job is never taken. Every runner looks for such jobs every heartbeat.
/// - At start, jobs of its own earlier life (this host, a process that is gone) are taken back at once.
/// - If it learns that its lease on a job was lost (another server took the job back), it cancels that job's work;
///   what the job still writes is refused by the store.
/// - At most `concurrency` jobs of a kind run at once; the runner is woken when a job is queued and
///   looks for due retries every `pollInterval`.
/// - Failures a handler marks retryable are tried again after an exponential, jittered backoff.
/// - On graceful shutdown (SIGTERM) it starts nothing new and waits for running jobs up to
///   `drainTimeout`; jobs still running then are stopped and queued again or marked interrupted.
public final class JobRunner: Service, @unchecked Sendable {
    let jobs: any JobStore
    let handlers: [String: any JobHandler]
    let holder: JobHolder
    let lease: Duration
    let heartbeat: Duration
    let logger: Logger
    let now: @Sendable () -> Date
    let drainTimeout: Duration
    let pollInterval: Duration
    let random: @Sendable () -> Double

    private enum Event: Sendable { case wake, finished(String), shutdown, drainDeadline }
    private let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let lock = NSLock()
    /// The running jobs' writers, by job.
    private var writers: [JobID: JobProgressWriter] = [:]
    /// A wake is waiting in the events: more wakes until it is handled add nothing (a loop slowed by a busy store
    /// would otherwise fall ever further behind its ticker's wakes).
    private var wakePending = false

    /// - Parameters:
    ///   - holder: this server process, recorded on the jobs it claims.
    ///   - lease: how long a claim holds without renewal: how long a dead server's job waits before another takes it.
    ///   - heartbeat: how often leases are renewed (and others' expired jobs looked for); a third of the lease unless given.
    public init(jobs: any JobStore, handlers: [any JobHandler], holder: JobHolder = .thisProcess, lease: Duration = .seconds(30),
                heartbeat: Duration? = nil, logger: Logger = Logger(label: "nestory.jobs"),
                drainTimeout: Duration = .seconds(25), pollInterval: Duration = .milliseconds(500),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, now: @escaping @Sendable () -> Date = Date.init) {
        self.jobs = jobs
        self.handlers = Dictionary(handlers.map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })
        self.holder = holder
        self.lease = lease
        self.heartbeat = heartbeat ?? lease / 3
        self.logger = logger
        self.now = now
        self.drainTimeout = drainTimeout
        self.pollInterval = pollInterval
        self.random = random
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
    }

    /// The queue services put jobs in (it wakes this runner), on the runner's own store.
    public func queue() -> JobQueue {
        JobQueue(store: jobs, policies: handlers.mapValues(\.retry), now: now) { [weak self] in self?.wake() }
    }

    /// Looks for due jobs now (called when one is queued).
    public func wake() {
        let first = lock.withLock { () -> Bool in
            defer { wakePending = true }
            return !wakePending
        }
        if first { continuation.yield(.wake) }
    }

    private var resumable: Set<String> { Set(handlers.values.filter(\.retry.resumesAfterStop).map(\.kind)) }

    private var leaseSeconds: TimeInterval {
        let (seconds, attoseconds) = lease.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    public func run() async throws {
        let mine = holder
        let dead = Set(try await jobs.jobHolders().filter { JobHolder($0).map { mine.knowsDead($0) } ?? false })
        let recovered = try await jobs.recoverJobs(retryable: resumable, deadHolders: dead, now: now())
        if recovered.requeued + recovered.interrupted > 0 {
            logger.notice("jobs left running by a server that stopped", metadata: [
                "requeued": .stringConvertible(recovered.requeued), "interrupted": .stringConvertible(recovered.interrupted)])
        }
        await withGracefulShutdownHandler {
            await loop()
        } onGracefulShutdown: {
            self.continuation.yield(.shutdown)
        }
    }

    /// Renews the leases of the running jobs; those another server took back are told to stop.
    private func renewLeases() async {
        let running = lock.withLock { writers }
        guard !running.isEmpty else { return }
        do {
            let at = now()
            let until = at.addingTimeInterval(leaseSeconds)
            let held = try await jobs.renewJobLeases(holder: holder.description, until: until, now: at)
            for (id, writer) in running {
                if held.contains(id) {
                    writer.renewed(until: until)
                } else if !writer.lostLease, lock.withLock({ writers[id] != nil }) {
                    // (Still in `writers`, so its job's last write had not begun when the renewal missed it.)
                    logger.warning("lost the lease on a running job: another server took it back", metadata: ["job_id": .string(id.description)])
                    writer.loseLease()
                }
            }
        } catch {
            logger.error("could not renew the leases of running jobs", metadata: ["error": .string(String(describing: error))])
            // Past its lease another server may take the job at any moment: stop rather than run it twice.
            let at = now()
            for (id, writer) in running where writer.leaseHasPassed(at: at) && !writer.lostLease && lock.withLock({ writers[id] != nil }) {
                logger.warning("a running job's lease passed without renewal: stopping it", metadata: ["job_id": .string(id.description)])
                writer.loseLease()
            }
        }
    }

    /// Takes back the jobs of servers whose leases passed.
    private func recoverExpired() async {
        do {
            let recovered = try await jobs.recoverJobs(retryable: resumable, deadHolders: [], now: now())
            if recovered.requeued + recovered.interrupted > 0 {
                logger.notice("took back jobs whose server stopped renewing their leases", metadata: [
                    "requeued": .stringConvertible(recovered.requeued), "interrupted": .stringConvertible(recovered.interrupted)])
            }
        } catch {
            logger.error("could not look for jobs whose leases passed", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func loop() async {
        let ticker = Task { [pollInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                self.wake()
            }
        }
        defer { ticker.cancel() }
        let heartbeats = Task { [heartbeat] in
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                guard !Task.isCancelled else { break }
                await self.renewLeases()
                await self.recoverExpired()
                await self.recordQueueDepth()
                self.wake()
            }
        }
        defer { heartbeats.cancel() }
        await withTaskGroup(of: Void.self) { group in
            var running: [String: Int] = [:]
            var draining = false
            await startDue(&running, &group)
            for await event in events {
                switch event {
                case .wake: lock.withLock { wakePending = false }
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
                    lock.withLock { writers.values.forEach { $0.stop() } }
                    group.cancelAll()
                }
                if draining {
                    if running.values.allSatisfy({ $0 <= 0 }) { break }
                    continue
                }
                await startDue(&running, &group)
            }
        }
    }

    /// Claims due jobs of every kind up to its concurrency and starts them.
    private func startDue(_ running: inout [String: Int], _ group: inout TaskGroup<Void>) async {
        defer {
            for kind in handlers.keys { Gauge(label: "nestory_jobs_running", dimensions: [("kind", kind)]).record(running[kind, default: 0]) }
        }
        // One read first: most wakes find nothing due, and claiming is a write per kind.
        let open = handlers.filter { running[$0.key, default: 0] < $0.value.concurrency }.map(\.key)
        guard !open.isEmpty else { return }
        do {
            guard let due = try await jobs.nextJobDue(kinds: open), due.millis <= now().millis else { return }  // as the claim compares
        } catch {
            logger.error("could not look for due jobs", metadata: ["error": .string(String(describing: error))])
            return
        }
        for (kind, handler) in handlers.sorted(by: { $0.key < $1.key }) {
            while running[kind, default: 0] < handler.concurrency {
                let job: Job?
                do {
                    let at = now()
                    job = try await jobs.claimJob(kind: kind, holder: holder.description, leaseUntil: at.addingTimeInterval(leaseSeconds), now: at)
                } catch {
                    logger.error("could not claim a job", metadata: ["kind": .string(kind), "error": .string(String(describing: error))])
                    break
                }
                guard let job else { break }
                running[kind, default: 0] += 1
                let writer = JobProgressWriter(id: job.id, jobs: jobs, holder: holder.description,
                                               leaseUntil: job.leaseUntil ?? now().addingTimeInterval(leaseSeconds), now: now)
                lock.withLock { writers[job.id] = writer }
                group.addTask { await self.execute(job, handler, writer) }
            }
        }
    }

    /// The queue-depth metric, every heartbeat.
    private func recordQueueDepth() async {
        let queued = (try? await jobs.queuedJobCounts()) ?? [:]
        for kind in handlers.keys {
            Gauge(label: "nestory_jobs_queued", dimensions: [("kind", kind)]).record(queued[kind, default: 0])
        }
    }

    /// The job's handler is done and its writes drained: from here on only its last write (succeed, fail, stop) is
    /// left, so a renewal that misses the job no longer means another server took it.
    private func retire(_ id: JobID) { lock.withLock { writers[id] = nil } }

    private func execute(_ job: Job, _ handler: any JobHandler, _ writer: JobProgressWriter) async {
        let started = now()
        let holder = holder.description
        var metadata: Logger.Metadata = ["job_id": .string(job.id.description), "household_id": .string(job.householdID.description),
                                         "kind": .string(job.kind), "attempt": .stringConvertible(job.attempts)]
        let context = JobContext(jobID: job.id) { done, total in
            try writer.progress(done: done, total: total)
        } itemResult: { key, result in
            try writer.itemResult(key: key, result: result)
        }
        let outcome: String
        do {
            let result: String
            do {
                result = try await writer.run { try await handler.run(job, context: context) }
                try await handler.verify(job, result: result)
            } catch let error as DomainError {
                // A rule the work ran into (a Free limit, a conflict): the person's to act on, said as it is, not retried.
                throw JobFailure(error)
            }
            try await writer.drain()
            retire(job.id)
            if writer.lostLease {
                outcome = "lost"  // another server took the job back meanwhile: the store would refuse the result
            } else {
                try await jobs.succeedJob(job.id, holder: holder, result: result, now: now())
                outcome = "succeeded"
            }
        } catch is CancellationError {
            try? await writer.drain()
            retire(job.id)
            try? await jobs.stopJob(job.id, holder: holder, requeue: handler.retry.resumesAfterStop, now: now())
            outcome = writer.lostLease ? "lost" : "stopped"
        } catch let failure as JobFailure {
            try? await writer.drain()
            retire(job.id)
            let retryAt = failure.retryable
                ? now().addingTimeInterval(handler.retry.delay(afterAttempt: job.attempts, random: random())) : nil
            metadata["error_code"] = .string(failure.code)
            let after = try? await jobs.failJob(job.id, holder: holder, code: failure.code, message: failure.message, retryAt: retryAt, now: now())
            outcome = after?.state == .queued ? "retrying" : "failed"
            logger.warning("job failed", metadata: metadata.merging(["will_retry": .stringConvertible(outcome == "retrying")]) { $1 })
        } catch {
            try? await writer.drain()
            retire(job.id)
            metadata["error"] = .string(String(reflecting: error))
            logger.error("job failed", metadata: metadata)
            _ = try? await jobs.failJob(job.id, holder: holder, code: "internal_error",
                                        message: "This could not be done because of a problem on the server. Nothing was changed; try again.",
                                        retryAt: nil, now: now())
            outcome = "failed"
        }
        Counter(label: "nestory_jobs_total", dimensions: [("kind", job.kind), ("outcome", outcome)]).increment()
        Metrics.Timer(label: "nestory_jobs_duration_seconds", dimensions: [("kind", job.kind)])
            .recordInterval(since: started, now: now())
        continuation.yield(.finished(job.kind))
    }
}

/// Puts jobs in the queue (each in a transaction of its own) and wakes this server's runner; another server's runner
/// finds them when it next looks.
public struct JobQueue: Sendable {
    let store: any JobStore
    let policies: [String: RetryPolicy]
    let now: @Sendable () -> Date
    let wake: @Sendable () -> Void

    public init(store: any JobStore, policies: [String: RetryPolicy], now: @escaping @Sendable () -> Date = Date.init,
                wake: @escaping @Sendable () -> Void) {
        self.store = store
        self.policies = policies
        self.now = now
        self.wake = wake
    }

    /// The household's newest job of a kind that is still queued or running, if any.
    public func unfinished(_ household: HouseholdID, kind: String) async throws -> Job? {
        try await store.jobs(household, kind: kind, since: now()).first { !$0.state.isFinished }
    }

    /// Queues a job of a kind some handler runs (else a programming error, reported loudly).
    @discardableResult
    public func enqueue<Payload: Encodable>(_ household: HouseholdID, kind: String, subject: String? = nil, payload: Payload) async throws -> Job {
        guard let policy = policies[kind] else { preconditionFailure("no handler runs jobs of kind \(kind)") }
        let job = try await store.enqueueJob(household, kind: kind, subject: subject, payload: try JSONEncoder.jobText(payload),
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
