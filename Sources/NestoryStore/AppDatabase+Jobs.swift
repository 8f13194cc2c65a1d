import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

extension AppDatabase {
    // MARK: - Jobs

    /// Queues a job. `payload` is the handler's JSON; the job may run `maxAttempts` times in all.
    @discardableResult
    public func enqueueJob(_ householdID: HouseholdID, kind: String, subject: String? = nil, payload: String, maxAttempts: Int = 1,
                           now: Date) throws -> Job {
        try write { db in
            try Self.insertJob(db, householdID, kind: kind, subject: subject, payload: payload, maxAttempts: maxAttempts, now: now)
        }
    }

    static func insertJob(_ db: Database, _ householdID: HouseholdID, kind: String, subject: String?, payload: String, maxAttempts: Int,
                          now: Date) throws -> Job {
        _ = try fetchHousehold(db, householdID)
        let id = JobID()
        try db.execute(sql: """
            INSERT INTO job (id, household_id, kind, subject, state, payload, max_attempts, next_attempt_at, created_at, updated_at)
            VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)
            """, arguments: [id.description, householdID.description, kind, subject, payload, max(1, maxAttempts), now.millis, now.millis,
                             now.millis])
        return try fetchJob(db, id)!
    }

    /// The newest job of a kind about a subject (the reading of one receipt), if any.
    public func latestJob(_ householdID: HouseholdID, kind: String, subject: String) throws -> Job? {
        try read { db in
            try Row.fetchOne(db, sql: """
                SELECT * FROM job WHERE subject = ? AND household_id = ? AND kind = ? ORDER BY created_at DESC LIMIT 1
                """, arguments: [subject, householdID.description, kind]).map(Self.jobFrom)
        }
    }

    /// Starts the oldest due job of a kind for `holder`: queued → running, one more attempt, held until `leaseUntil`
    /// unless renewed. Nil when none is due.
    public func claimJob(kind: String, holder: String, leaseUntil: Date, now: Date) throws -> Job? {
        try write { db in
            guard let id = try String.fetchOne(db, sql: """
                SELECT id FROM job WHERE kind = ? AND state = 'queued' AND next_attempt_at <= ?
                ORDER BY next_attempt_at, created_at LIMIT 1
                """, arguments: [kind, now.millis]) else { return nil }
            try db.execute(sql: """
                UPDATE job SET state = 'running', attempts = attempts + 1, started_at = ?, updated_at = ?, error_code = NULL, message = NULL,
                       claimed_by = ?, lease_until = ?
                WHERE id = ?
                """, arguments: [now.millis, now.millis, holder, leaseUntil.millis, id])
            return try Self.fetchJob(db, JobID(string: id)!)
        }
    }

    /// Extends to `until` the lease of every running job `holder` holds; returns those it still holds.
    public func renewJobLeases(holder: String, until: Date, now: Date) throws -> Set<JobID> {
        try write { db in
            try db.execute(sql: "UPDATE job SET lease_until = ? WHERE state = 'running' AND claimed_by = ?", arguments: [until.millis, holder])
            return Set(try String.fetchAll(db, sql: "SELECT id FROM job WHERE state = 'running' AND claimed_by = ?", arguments: [holder])
                .compactMap(JobID.init(string:)))
        }
    }

    /// Who holds the running jobs.
    public func jobHolders() throws -> Set<String> {
        try read { db in
            Set(try String.fetchAll(db, sql: "SELECT DISTINCT claimed_by FROM job WHERE state = 'running' AND claimed_by IS NOT NULL"))
        }
    }

    /// When the next queued job of these kinds is due (to sleep until then), or nil when none waits.
    public func nextJobDue(kinds: [String]) throws -> Date? {
        guard !kinds.isEmpty else { return nil }
        return try read { db in
            try Int64.fetchOne(db, sql: """
                SELECT MIN(next_attempt_at) FROM job WHERE state = 'queued' AND kind IN (\(kinds.map { _ in "?" }.joined(separator: ",")))
                """, arguments: StatementArguments(kinds)).map(Date.init(millis:))
        }
    }

    /// How many jobs of each kind wait in the queue (for the queue-depth metric).
    public func queuedJobCounts() throws -> [String: Int] {
        try read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT kind, COUNT(*) AS n FROM job WHERE state = 'queued' GROUP BY kind")
                .map { ($0["kind"] as String, $0["n"] as Int) })
        }
    }

    /// Records progress of a job `holder` is running. Returns whether it should stop: a cancellation was asked for
    /// meanwhile, or the job is no longer its to run.
    @discardableResult
    public func jobProgress(_ id: JobID, holder: String, done: Int64, total: Int64, now: Date) throws -> Bool {
        try write { db in
            try db.execute(sql: "UPDATE job SET done = ?, total = ?, updated_at = ? WHERE id = ? AND state = 'running' AND claimed_by = ?",
                           arguments: [done, total, now.millis, id.description, holder])
            guard db.changesCount == 1 else { return true }
            return try Bool.fetchOne(db, sql: "SELECT cancel_requested FROM job WHERE id = ?", arguments: [id.description]) ?? false
        }
    }

    /// Records what became of one item of a running batch (an item valued, say): `result` is JSON, kept
    /// under `key` in the job's per-item results.
    public func recordJobItemResult(_ id: JobID, holder: String, key: String, result: String, now: Date) throws {
        try write { db in
            try db.execute(sql: """
                UPDATE job SET item_results = json_set(COALESCE(item_results, '{}'), '$."' || replace(?, '"', '') || '"', json(?)), updated_at = ?
                WHERE id = ? AND state = 'running' AND claimed_by = ?
                """, arguments: [key, result, now.millis, id.description, holder])
        }
    }

    /// Changes what a batch says of one item after the batch (a proposal reviewed and saved, or recalculated), in
    /// the household's job of that kind only.
    public func updateJobItemResult(_ householdID: HouseholdID, _ id: JobID, key: String, result: String, now: Date) throws {
        try write { db in
            try db.execute(sql: """
                UPDATE job SET item_results = json_set(COALESCE(item_results, '{}'), '$."' || replace(?, '"', '') || '"', json(?)), updated_at = ?
                WHERE id = ? AND household_id = ?
                """, arguments: [key, result, now.millis, id.description, householdID.description])
            guard db.changesCount == 1 else { throw DomainError.notFound("The batch") }
        }
    }

    /// A running job succeeded with this result.
    public func succeedJob(_ id: JobID, holder: String, result: String, now: Date) throws {
        try write { db in
            try db.execute(sql: """
                UPDATE job SET state = 'succeeded', result = ?, done = MAX(done, total), finished_at = ?, updated_at = ?,
                error_code = NULL, message = NULL WHERE id = ? AND state = 'running' AND claimed_by = ?
                """, arguments: [result, now.millis, now.millis, id.description, holder])
        }
    }

    /// A running job failed. With `retryAt` (and attempts left) it waits to be run again; otherwise it
    /// is failed for good. Returns the job as it now is.
    @discardableResult
    public func failJob(_ id: JobID, holder: String, code: String, message: String, retryAt: Date?, now: Date) throws -> Job? {
        try write { db in
            guard let job = try Self.fetchJob(db, id), job.state == .running, job.claimedBy == holder else { return try Self.fetchJob(db, id) }
            if let retryAt, job.attempts < job.maxAttempts, !job.cancelRequested {
                try db.execute(sql: """
                    UPDATE job SET state = 'queued', next_attempt_at = ?, error_code = ?, message = ?, updated_at = ? WHERE id = ?
                    """, arguments: [retryAt.millis, code, message, now.millis, id.description])
            } else {
                try db.execute(sql: """
                    UPDATE job SET state = ?, error_code = ?, message = ?, finished_at = ?, updated_at = ? WHERE id = ?
                    """, arguments: [job.cancelRequested ? "cancelled" : "failed", job.cancelRequested ? "cancelled" : code,
                                     job.cancelRequested ? "Cancelled." : message, now.millis, now.millis, id.description])
            }
            return try Self.fetchJob(db, id)
        }
    }

    /// A running job stopped because it was cancelled (or the server is stopping: then `requeue` puts it
    /// back in the queue, or marks it interrupted when it may not run again).
    public func stopJob(_ id: JobID, holder: String, requeue: Bool, now: Date) throws {
        try write { db in
            guard let job = try Self.fetchJob(db, id), job.state == .running, job.claimedBy == holder else { return }
            if job.cancelRequested {
                try db.execute(sql: """
                    UPDATE job SET state = 'cancelled', error_code = 'cancelled', message = 'Cancelled.', finished_at = ?, updated_at = ?
                    WHERE id = ?
                    """, arguments: [now.millis, now.millis, id.description])
            } else if requeue && job.attempts < job.maxAttempts {
                try db.execute(sql: "UPDATE job SET state = 'queued', next_attempt_at = ?, updated_at = ? WHERE id = ?",
                               arguments: [now.millis, now.millis, id.description])
            } else {
                try db.execute(sql: """
                    UPDATE job SET state = 'interrupted', error_code = 'interrupted', message = ?, finished_at = ?, updated_at = ? WHERE id = ?
                    """, arguments: [Self.interruptedMessage, now.millis, now.millis, id.description])
            }
        }
    }

    static let interruptedMessage = JobMessages.interrupted

    /// Cancels a job of the household: a queued one at once, a running one as soon as its handler notices.
    /// Returns the job as it now is.
    public func cancelJob(_ householdID: HouseholdID, _ id: JobID, now: Date) throws -> Job {
        try write { db in
            guard let job = try Self.fetchJob(db, id), job.householdID == householdID else { throw DomainError.notFound("The job") }
            switch job.state {
            case .queued:
                try db.execute(sql: """
                    UPDATE job SET state = 'cancelled', error_code = 'cancelled', message = 'Cancelled.', finished_at = ?, updated_at = ?
                    WHERE id = ?
                    """, arguments: [now.millis, now.millis, id.description])
            case .running:
                try db.execute(sql: "UPDATE job SET cancel_requested = 1, updated_at = ? WHERE id = ?", arguments: [now.millis, id.description])
            default:
                break
            }
            return try Self.fetchJob(db, id)!
        }
    }

    /// Running jobs nobody runs any more (their lease passed before `now`, or their holder is one of `deadHolders`)
    /// are queued again when their kind may be retried and attempts remain, else marked interrupted. Returns how
    /// many of each. A job whose holder renews its lease is left alone.
    public func recoverJobs(retryable: Set<String>, deadHolders: Set<String>, now: Date) throws -> (requeued: Int, interrupted: Int) {
        try write { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, kind, attempts, max_attempts FROM job
                WHERE state = 'running' AND (lease_until IS NULL OR lease_until < ? OR claimed_by IN (SELECT value FROM json_each(?)))
                """, arguments: [now.millis, String(decoding: try JSONEncoder().encode(deadHolders.sorted()), as: UTF8.self)])
            var requeued = 0, interrupted = 0
            for row in rows {
                let kind: String = row["kind"], attempts: Int = row["attempts"], maxAttempts: Int = row["max_attempts"]
                if retryable.contains(kind) && attempts < maxAttempts {
                    try db.execute(sql: "UPDATE job SET state = 'queued', next_attempt_at = ?, updated_at = ? WHERE id = ?",
                                   arguments: [now.millis, now.millis, row["id"] as String])
                    requeued += 1
                } else {
                    try db.execute(sql: """
                        UPDATE job SET state = 'interrupted', error_code = 'interrupted', message = ?, finished_at = ?, updated_at = ?
                        WHERE id = ?
                        """, arguments: [Self.interruptedMessage, now.millis, now.millis, row["id"] as String])
                    interrupted += 1
                }
            }
            return (requeued, interrupted)
        }
    }

    /// A job of this household (another household's job is not found).
    public func job(_ householdID: HouseholdID, _ id: JobID) throws -> Job {
        try read { db in
            guard let job = try Self.fetchJob(db, id), job.householdID == householdID else { throw DomainError.notFound("The job") }
            return job
        }
    }

    /// A job by id whatever its household (for the runner and its handlers).
    public func job(_ id: JobID) throws -> Job? {
        try read { db in try Self.fetchJob(db, id) }
    }

    /// The household's jobs of a kind, newest first: the unfinished ones, and finished ones of the last `days`.
    public func jobs(_ householdID: HouseholdID, kind: String, since: Date) throws -> [Job] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM job WHERE household_id = ? AND kind = ? AND (state IN ('queued', 'running') OR created_at >= ?)
                ORDER BY created_at DESC, id LIMIT 100
                """, arguments: [householdID.description, kind, since.millis]).map(Self.jobFrom)
        }
    }

    /// Payloads of the jobs not yet finished (the temporary-file sweep keeps what they still need).
    public func unfinishedJobPayloads() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT payload FROM job WHERE state IN ('queued', 'running')") }
    }

    /// Results of finished jobs newer than `since` (a backup's archive is kept for download until it expires).
    public func recentJobResults(since: Date) throws -> [String] {
        try read { db in
            try String.fetchAll(db, sql: "SELECT result FROM job WHERE result IS NOT NULL AND created_at >= ?", arguments: [since.millis])
        }
    }

    static func fetchJob(_ db: Database, _ id: JobID) throws -> Job? {
        try Row.fetchOne(db, sql: "SELECT * FROM job WHERE id = ?", arguments: [id.description]).map(jobFrom)
    }

    static func jobFrom(_ row: Row) -> Job {
        Job(id: row.id("id"), householdID: row.id("household_id"), kind: row["kind"],
            state: JobState(rawValue: row["state"]) ?? .failed, done: row["done"], total: row["total"], payload: row["payload"],
            result: row["result"], itemResults: row["item_results"], attempts: row["attempts"], maxAttempts: row["max_attempts"], nextAttemptAt: row.date("next_attempt_at"),
            errorCode: row["error_code"], message: row["message"], cancelRequested: row["cancel_requested"],
            createdAt: row.date("created_at"), startedAt: (row["started_at"] as Int64?).map(Date.init(millis:)),
            finishedAt: (row["finished_at"] as Int64?).map(Date.init(millis:)), claimedBy: row["claimed_by"],
            leaseUntil: (row["lease_until"] as Int64?).map(Date.init(millis:)))
    }
}

/// The job queue on SQLite as the async interface: each call runs the store's own method off the caller's thread.
public struct SQLiteJobStore: JobStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    public func enqueueJob(_ householdID: HouseholdID, kind: String, subject: String?, payload: String, maxAttempts: Int, now: Date) async throws -> Job {
        try await database.offload { try $0.enqueueJob(householdID, kind: kind, subject: subject, payload: payload, maxAttempts: maxAttempts, now: now) }
    }
    public func claimJob(kind: String, holder: String, leaseUntil: Date, now: Date) async throws -> Job? {
        try await database.offload { try $0.claimJob(kind: kind, holder: holder, leaseUntil: leaseUntil, now: now) }
    }
    public func renewJobLeases(holder: String, until: Date, now: Date) async throws -> Set<JobID> {
        try await database.offload { try $0.renewJobLeases(holder: holder, until: until, now: now) }
    }
    public func jobHolders() async throws -> Set<String> { try await database.offload { try $0.jobHolders() } }
    public func nextJobDue(kinds: [String]) async throws -> Date? { try await database.offload { try $0.nextJobDue(kinds: kinds) } }
    public func queuedJobCounts() async throws -> [String: Int] { try await database.offload { try $0.queuedJobCounts() } }
    public func jobProgress(_ id: JobID, holder: String, done: Int64, total: Int64, now: Date) async throws -> Bool {
        try await database.offload { try $0.jobProgress(id, holder: holder, done: done, total: total, now: now) }
    }
    public func recordJobItemResult(_ id: JobID, holder: String, key: String, result: String, now: Date) async throws {
        try await database.offload { try $0.recordJobItemResult(id, holder: holder, key: key, result: result, now: now) }
    }
    public func updateJobItemResult(_ householdID: HouseholdID, _ id: JobID, key: String, result: String, now: Date) async throws {
        try await database.offload { try $0.updateJobItemResult(householdID, id, key: key, result: result, now: now) }
    }
    public func succeedJob(_ id: JobID, holder: String, result: String, now: Date) async throws {
        try await database.offload { try $0.succeedJob(id, holder: holder, result: result, now: now) }
    }
    public func failJob(_ id: JobID, holder: String, code: String, message: String, retryAt: Date?, now: Date) async throws -> Job? {
        try await database.offload { try $0.failJob(id, holder: holder, code: code, message: message, retryAt: retryAt, now: now) }
    }
    public func stopJob(_ id: JobID, holder: String, requeue: Bool, now: Date) async throws {
        try await database.offload { try $0.stopJob(id, holder: holder, requeue: requeue, now: now) }
    }
    public func cancelJob(_ householdID: HouseholdID, _ id: JobID, now: Date) async throws -> Job {
        try await database.offload { try $0.cancelJob(householdID, id, now: now) }
    }
    public func recoverJobs(retryable: Set<String>, deadHolders: Set<String>, now: Date) async throws -> (requeued: Int, interrupted: Int) {
        try await database.offload { try $0.recoverJobs(retryable: retryable, deadHolders: deadHolders, now: now) }
    }
    public func job(_ householdID: HouseholdID, _ id: JobID) async throws -> Job { try await database.offload { try $0.job(householdID, id) } }
    public func job(_ id: JobID) async throws -> Job? { try await database.offload { try $0.job(id) } }
    public func jobs(_ householdID: HouseholdID, kind: String, since: Date) async throws -> [Job] {
        try await database.offload { try $0.jobs(householdID, kind: kind, since: since) }
    }
    public func latestJob(_ householdID: HouseholdID, kind: String, subject: String) async throws -> Job? {
        try await database.offload { try $0.latestJob(householdID, kind: kind, subject: subject) }
    }
    public func unfinishedJobPayloads() async throws -> [String] { try await database.offload { try $0.unfinishedJobPayloads() } }
    public func recentJobResults(since: Date) async throws -> [String] { try await database.offload { try $0.recentJobResults(since: since) } }
}
