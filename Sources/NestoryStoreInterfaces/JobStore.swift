import Foundation
import NestoryDomain

/// The durable job queue: jobs are rows, so any server process can claim, follow and finish them.
///
/// Every engine keeps the same rules (checked by the conformance suite): a due job is claimed by one caller only,
/// however many processes claim at once; a job moves queued → running → succeeded / failed / cancelled /
/// interrupted, and a retry goes back to queued with one attempt used; what a household asks about (a job, its
/// jobs, cancelling) is found only in that household.
///
/// Leases: a claim names its holder (one server process) and holds until `leaseUntil` unless renewed; a running job
/// is taken back only once its lease has passed (or its holder is named dead), and its writes count only from its
/// holder. Times are the callers' (`now`), so servers sharing a queue need clocks that agree to well within a lease.
public protocol JobStore: Sendable {
    /// Queues a job. `payload` is the handler's JSON; the job may run `maxAttempts` times in all.
    func enqueueJob(_ householdID: HouseholdID, kind: String, subject: String?, payload: String, maxAttempts: Int, now: Date) async throws -> Job
    /// Starts the oldest due job of a kind for `holder` (a server process, see the runner's `JobHolder`): queued →
    /// running, one more attempt, held until `leaseUntil` unless renewed. Nil when none is due.
    func claimJob(kind: String, holder: String, leaseUntil: Date, now: Date) async throws -> Job?
    /// Extends to `until` the lease of every running job `holder` holds. Returns those it still holds: a job missing
    /// from the answer was finished, cancelled or taken back by another server after its lease passed.
    func renewJobLeases(holder: String, until: Date, now: Date) async throws -> Set<JobID>
    /// Who holds the running jobs (so a starting server can tell which were its own earlier life's).
    func jobHolders() async throws -> Set<String>
    /// When the next queued job of these kinds is due, or nil when none waits.
    func nextJobDue(kinds: [String]) async throws -> Date?
    /// How many jobs of each kind wait in the queue.
    func queuedJobCounts() async throws -> [String: Int]

    // A running job's writes below count only from the holder of its claim: a server that lost its lease (another
    // took the job back) changes nothing.

    /// Records progress of a job `holder` is running. Returns whether it should stop: a cancellation was asked for,
    /// or the job is no longer its to run.
    func jobProgress(_ id: JobID, holder: String, done: Int64, total: Int64, now: Date) async throws -> Bool
    /// Records what became of one item of a running batch (`result` is JSON) under `key`.
    func recordJobItemResult(_ id: JobID, holder: String, key: String, result: String, now: Date) async throws
    /// Changes what a batch of the household says of one item, after the batch.
    func updateJobItemResult(_ householdID: HouseholdID, _ id: JobID, key: String, result: String, now: Date) async throws
    /// A running job succeeded with this result.
    func succeedJob(_ id: JobID, holder: String, result: String, now: Date) async throws
    /// A running job failed: queued again at `retryAt` while attempts remain (and no cancellation was asked), else
    /// failed (or cancelled) for good. Returns the job as it now is.
    func failJob(_ id: JobID, holder: String, code: String, message: String, retryAt: Date?, now: Date) async throws -> Job?
    /// A running job stopped: cancelled when asked, else queued again (`requeue`, attempts left) or interrupted.
    func stopJob(_ id: JobID, holder: String, requeue: Bool, now: Date) async throws
    /// Cancels a job of the household: a queued one at once, a running one when its handler notices.
    func cancelJob(_ householdID: HouseholdID, _ id: JobID, now: Date) async throws -> Job
    /// Running jobs nobody runs any more: those whose lease passed before `now`, and those of `deadHolders` (a starting
    /// server's earlier life). Queued again when their kind may be retried and attempts remain, else interrupted.
    /// A job whose holder keeps renewing its lease is never taken.
    func recoverJobs(retryable: Set<String>, deadHolders: Set<String>, now: Date) async throws -> (requeued: Int, interrupted: Int)
    /// A job of this household (another household's is not found).
    func job(_ householdID: HouseholdID, _ id: JobID) async throws -> Job
    /// A job by id whatever its household (for the runner).
    func job(_ id: JobID) async throws -> Job?
    /// The household's jobs of a kind, newest first: unfinished ones, and finished ones created since `since`.
    func jobs(_ householdID: HouseholdID, kind: String, since: Date) async throws -> [Job]
    /// The newest job of a kind about a subject.
    func latestJob(_ householdID: HouseholdID, kind: String, subject: String) async throws -> Job?
    /// Payloads of the jobs not yet finished.
    func unfinishedJobPayloads() async throws -> [String]
    /// Results of jobs created since `since`.
    func recentJobResults(since: Date) async throws -> [String]
}

/// What a stopped or recovered job says when it may not run again.
public enum JobMessages {
    public static let interrupted = "The server stopped while this was being done. Nothing was changed; start it again."
    public static let cancelled = "Cancelled."
}
