import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// Records one running job's progress and item results for its handler, which reports them synchronously from deep
/// inside its work. The writes go to the store in the background, one at a time and in order: item results each,
/// progress coalesced (only the newest is written, at most every `spacing` unless it is the last step). Each
/// progress call answers with the last thing the store said (cancelled, or no longer this server's job) or what
/// the runner said (stop: the drain deadline passed, or the lease was lost). The runner drains it before the job is
/// finished, so no item result arrives after the job left `running` (where the store would drop it).
final class JobProgressWriter: @unchecked Sendable {
    let id: JobID
    private let jobs: any JobStore
    private let holder: String
    private let now: @Sendable () -> Date
    private let spacing: TimeInterval

    private let lock = NSLock()
    private var pendingProgress: (done: Int64, total: Int64)?
    private var pendingItems: [(key: String, result: String)] = []
    private var lastProgressWrite = Date.distantPast
    private var flushing = false
    private var storeSaysStop = false
    private var toldToStop = false
    private var leaseLost = false
    /// Until when this server's claim holds, as far as it knows (the claim's lease, then each renewal's).
    private var leaseUntil: Date
    private var failure: (any Error)?
    private var pump: Task<Void, Never>?
    /// The handler's work, cancelled when the lease is lost.
    private var work: Task<String, any Error>?

    init(id: JobID, jobs: any JobStore, holder: String, leaseUntil: Date, spacing: TimeInterval = 0.25, now: @escaping @Sendable () -> Date) {
        self.id = id
        self.leaseUntil = leaseUntil
        self.jobs = jobs
        self.holder = holder
        self.spacing = spacing
        self.now = now
    }

    /// The handler's progress: kept, written when due. Returns whether the handler should stop.
    func progress(done: Int64, total: Int64) throws -> Bool {
        try lock.withLock {
            if let failure { throw failure }
            pendingProgress = (done, total)
            if done >= total || now().timeIntervalSince(lastProgressWrite) >= spacing { startPumpLocked() }
            return storeSaysStop || toldToStop
        }
    }

    /// One item's result: written in order after those before it.
    func itemResult(key: String, result: String) throws {
        try lock.withLock {
            if let failure { throw failure }
            pendingItems.append((key, result))
            startPumpLocked()
        }
    }

    /// The runner's word: the next progress call tells the handler to stop.
    func stop() { lock.withLock { toldToStop = true } }

    /// Another server took the job back (its lease passed): the handler is told to stop and its work cancelled.
    func loseLease() {
        let work = lock.withLock { () -> Task<String, any Error>? in
            leaseLost = true
            toldToStop = true
            return self.work
        }
        work?.cancel()
    }

    var lostLease: Bool { lock.withLock { leaseLost } }

    /// The lease was renewed until then.
    func renewed(until: Date) { lock.withLock { leaseUntil = max(leaseUntil, until) } }

    /// Whether the lease has passed at `time` with no renewal known.
    func leaseHasPassed(at time: Date) -> Bool { lock.withLock { leaseUntil < time } }

    /// Runs the handler's work as a task of its own, so a lost lease can cancel it alone.
    func run(_ body: @escaping @Sendable () async throws -> String) async throws -> String {
        let task = Task { try await body() }
        let lost = lock.withLock { () -> Bool in
            work = task
            return leaseLost
        }
        if lost { task.cancel() }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Writes everything still pending (the newest progress too, however recent) and waits for it. Throws the
    /// first write that failed.
    func drain() async throws {
        lock.withLock { flushing = true }
        while true {
            let running = lock.withLock { () -> Task<Void, Never>? in
                if pump == nil, failure == nil, pendingProgress != nil || !pendingItems.isEmpty { startPumpLocked() }
                return pump
            }
            guard let running else { break }
            await running.value
        }
        if let failure = lock.withLock({ () -> (any Error)? in
            flushing = false
            return failure
        }) { throw failure }
    }

    private func startPumpLocked() {
        guard pump == nil, failure == nil else { return }  // the pump under way takes what is pending
        pump = Task { await self.pumpLoop() }
    }

    private func pumpLoop() async {
        while true {
            let batch = lock.withLock { () -> (items: [(key: String, result: String)], progress: (done: Int64, total: Int64)?)? in
                let at = now()
                var progress: (done: Int64, total: Int64)?
                if let pending = pendingProgress,
                   flushing || pending.done >= pending.total || at.timeIntervalSince(lastProgressWrite) >= spacing {
                    progress = pending
                    pendingProgress = nil
                    lastProgressWrite = at
                }
                if pendingItems.isEmpty && progress == nil {
                    pump = nil
                    return nil
                }
                defer { pendingItems = [] }
                return (pendingItems, progress)
            }
            guard let batch else { return }
            do {
                for item in batch.items {
                    try await jobs.recordJobItemResult(id, holder: holder, key: item.key, result: item.result, now: now())
                }
                if let progress = batch.progress {
                    let stop = try await jobs.jobProgress(id, holder: holder, done: progress.done, total: progress.total, now: now())
                    lock.withLock { storeSaysStop = stop }
                }
            } catch {
                lock.withLock {
                    failure = failure ?? error
                    pendingItems = []
                    pendingProgress = nil
                    pump = nil
                }
                return
            }
        }
    }
}
