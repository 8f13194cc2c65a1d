import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore: JobStore {
    static let jobColumns = """
        id, household_id, kind, state, done, total, payload, result, item_results::text, attempts, max_attempts, next_attempt_at,
        error_code, message, cancel_requested, created_at, started_at, finished_at, claimed_by, lease_until
        """

    static func jobFrom(_ row: PostgresRow) throws -> Job {
        let c = row.makeRandomAccess()
        return Job(id: JobID(try c[0].decode(UUID.self)), householdID: HouseholdID(try c[1].decode(UUID.self)), kind: try c[2].decode(String.self),
                   state: JobState(rawValue: try c[3].decode(String.self)) ?? .failed, done: try c[4].decode(Int64.self),
                   total: try c[5].decode(Int64.self), payload: try c[6].decode(String.self), result: try c[7].decode(String?.self),
                   itemResults: try c[8].decode(String?.self), attempts: Int(try c[9].decode(Int32.self)),
                   maxAttempts: Int(try c[10].decode(Int32.self)), nextAttemptAt: Date(millis: try c[11].decode(Int64.self)),
                   errorCode: try c[12].decode(String?.self), message: try c[13].decode(String?.self),
                   cancelRequested: try c[14].decode(Bool.self), createdAt: Date(millis: try c[15].decode(Int64.self)),
                   startedAt: try c[16].decode(Int64?.self).map(Date.init(millis:)),
                   finishedAt: try c[17].decode(Int64?.self).map(Date.init(millis:)), claimedBy: try c[18].decode(String?.self),
                   leaseUntil: try c[19].decode(Int64?.self).map(Date.init(millis:)))
    }

    /// The jobs a query returns, in order.
    static func jobs(_ rows: PostgresRowSequence) async throws -> [Job] {
        var jobs: [Job] = []
        for try await row in rows { jobs.append(try jobFrom(row)) }
        return jobs
    }

    static func fetchJob(_ connection: PostgresConnection, _ id: JobID, lock: Bool = false, logger: Logger) async throws -> Job? {
        let query = PostgresQuery(unsafeSQL: "SELECT \(jobColumns) FROM job WHERE id = $1" + (lock ? " FOR UPDATE" : ""),
                                  binds: try binds(id.rawValue))
        return try await jobs(try await connection.query(query, logger: logger)).first
    }

    static func binds(_ values: any PostgresEncodable...) throws -> PostgresBindings {
        var bindings = PostgresBindings()
        for value in values { try bindings.append(value, context: .default) }
        return bindings
    }

    public func enqueueJob(_ householdID: HouseholdID, kind: String, subject: String?, payload: String, maxAttempts: Int,
                           now: Date) async throws -> Job {
        try await transaction { connection in
            _ = try await Self.fetchHousehold(connection, householdID, logger: logger)
            let id = JobID()
            try await connection.query("""
                INSERT INTO job (id, household_id, kind, subject, state, payload, max_attempts, next_attempt_at, created_at, updated_at)
                VALUES (\(id.rawValue), \(householdID.rawValue), \(kind), \(subject), 'queued', \(payload), \(Int32(max(1, min(maxAttempts, 1000)))),
                        \(now.millis), \(now.millis), \(now.millis))
                """, logger: logger)
            return try await Self.fetchJob(connection, id, logger: logger)!
        }
    }

    public func claimJob(kind: String, holder: String, leaseUntil: Date, now: Date) async throws -> Job? {
        // SKIP LOCKED: a job another server is claiming at this moment is passed over, not waited for, so each
        // due job goes to exactly one claimer however many servers poll.
        try await withStoreErrors {
            let rows = try await client.query(PostgresQuery(unsafeSQL: """
                UPDATE job SET state = 'running', attempts = attempts + 1, started_at = $2, updated_at = $2, error_code = NULL, message = NULL,
                       claimed_by = $3, lease_until = $4
                WHERE id = (
                    SELECT id FROM job WHERE kind = $1 AND state = 'queued' AND next_attempt_at <= $2
                    ORDER BY next_attempt_at, created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
                RETURNING \(Self.jobColumns)
                """, binds: try Self.binds(kind, now.millis, holder, leaseUntil.millis)), logger: logger)
            return try await Self.jobs(rows).first
        }
    }

    public func renewJobLeases(holder: String, until: Date, now: Date) async throws -> Set<JobID> {
        // A recovery that locked one of these rows first is waited for; the row is then checked again, so a job it
        // took back is not renewed (and so is missing from the answer).
        try await withStoreErrors {
            var held: Set<JobID> = []
            for try await id in try await client.query("""
                UPDATE job SET lease_until = \(until.millis) WHERE state = 'running' AND claimed_by = \(holder) RETURNING id
                """, logger: logger).decode(UUID.self) {
                held.insert(JobID(id))
            }
            return held
        }
    }

    public func jobHolders() async throws -> Set<String> {
        try await withStoreErrors {
            var holders: Set<String> = []
            for try await holder in try await client.query("""
                SELECT DISTINCT claimed_by FROM job WHERE state = 'running' AND claimed_by IS NOT NULL
                """, logger: logger).decode(String.self) {
                holders.insert(holder)
            }
            return holders
        }
    }

    public func nextJobDue(kinds: [String]) async throws -> Date? {
        guard !kinds.isEmpty else { return nil }
        return try await withStoreErrors {
            for try await due in try await client.query("SELECT MIN(next_attempt_at) FROM job WHERE state = 'queued' AND kind = ANY(\(kinds))",
                                                        logger: logger).decode(Int64?.self) {
                return due.map(Date.init(millis:))
            }
            return nil
        }
    }

    public func queuedJobCounts() async throws -> [String: Int] {
        try await withStoreErrors {
            var counts: [String: Int] = [:]
            for try await (kind, count) in try await client.query("SELECT kind, COUNT(*) FROM job WHERE state = 'queued' GROUP BY kind",
                                                                  logger: logger).decode((String, Int64).self) {
                counts[kind] = Int(count)
            }
            return counts
        }
    }

    public func jobProgress(_ id: JobID, holder: String, done: Int64, total: Int64, now: Date) async throws -> Bool {
        try await withStoreErrors {
            for try await cancel in try await client.query("""
                UPDATE job SET done = \(done), total = \(total), updated_at = \(now.millis)
                WHERE id = \(id.rawValue) AND state = 'running' AND claimed_by = \(holder) RETURNING cancel_requested
                """, logger: logger).decode(Bool.self) {
                return cancel
            }
            return true  // not running, or not this holder's any more
        }
    }

    /// The same key SQLite's JSON path keeps: double quotes dropped.
    static func itemKey(_ key: String) -> String { key.replacingOccurrences(of: "\"", with: "") }

    public func recordJobItemResult(_ id: JobID, holder: String, key: String, result: String, now: Date) async throws {
        try await withStoreErrors {
            try await client.query("""
                UPDATE job SET item_results = COALESCE(item_results, '{}'::jsonb) || jsonb_build_object(\(Self.itemKey(key))::text, \(result)::jsonb),
                       updated_at = \(now.millis)
                WHERE id = \(id.rawValue) AND state = 'running' AND claimed_by = \(holder)
                """, logger: logger)
        }
    }

    public func updateJobItemResult(_ householdID: HouseholdID, _ id: JobID, key: String, result: String, now: Date) async throws {
        try await withStoreErrors {
            for try await _ in try await client.query("""
                UPDATE job SET item_results = COALESCE(item_results, '{}'::jsonb) || jsonb_build_object(\(Self.itemKey(key))::text, \(result)::jsonb),
                       updated_at = \(now.millis)
                WHERE id = \(id.rawValue) AND household_id = \(householdID.rawValue) RETURNING id
                """, logger: logger) {
                return
            }
            throw DomainError.notFound("The batch")
        }
    }

    public func succeedJob(_ id: JobID, holder: String, result: String, now: Date) async throws {
        try await withStoreErrors {
            try await client.query("""
                UPDATE job SET state = 'succeeded', result = \(result), done = GREATEST(done, total), finished_at = \(now.millis),
                       updated_at = \(now.millis), error_code = NULL, message = NULL
                WHERE id = \(id.rawValue) AND state = 'running' AND claimed_by = \(holder)
                """, logger: logger)
        }
    }

    public func failJob(_ id: JobID, holder: String, code: String, message: String, retryAt: Date?, now: Date) async throws -> Job? {
        try await transaction { connection in
            guard let job = try await Self.fetchJob(connection, id, lock: true, logger: logger), job.state == .running, job.claimedBy == holder else {
                return try await Self.fetchJob(connection, id, logger: logger)
            }
            if let retryAt, job.attempts < job.maxAttempts, !job.cancelRequested {
                try await connection.query("""
                    UPDATE job SET state = 'queued', next_attempt_at = \(retryAt.millis), error_code = \(code), message = \(message),
                           updated_at = \(now.millis) WHERE id = \(id.rawValue)
                    """, logger: logger)
            } else {
                let cancelled = job.cancelRequested
                try await connection.query("""
                    UPDATE job SET state = \(cancelled ? "cancelled" : "failed"), error_code = \(cancelled ? "cancelled" : code),
                           message = \(cancelled ? JobMessages.cancelled : message), finished_at = \(now.millis), updated_at = \(now.millis)
                    WHERE id = \(id.rawValue)
                    """, logger: logger)
            }
            return try await Self.fetchJob(connection, id, logger: logger)
        }
    }

    public func stopJob(_ id: JobID, holder: String, requeue: Bool, now: Date) async throws {
        try await transaction { connection in
            guard let job = try await Self.fetchJob(connection, id, lock: true, logger: logger), job.state == .running, job.claimedBy == holder else {
                return
            }
            if job.cancelRequested {
                try await connection.query("""
                    UPDATE job SET state = 'cancelled', error_code = 'cancelled', message = \(JobMessages.cancelled), finished_at = \(now.millis),
                           updated_at = \(now.millis) WHERE id = \(id.rawValue)
                    """, logger: logger)
            } else if requeue && job.attempts < job.maxAttempts {
                try await connection.query("UPDATE job SET state = 'queued', next_attempt_at = \(now.millis), updated_at = \(now.millis) WHERE id = \(id.rawValue)",
                                           logger: logger)
            } else {
                try await Self.interrupt(connection, id, now: now, logger: logger)
            }
        }
    }

    static func interrupt(_ connection: PostgresConnection, _ id: JobID, now: Date, logger: Logger) async throws {
        try await connection.query("""
            UPDATE job SET state = 'interrupted', error_code = 'interrupted', message = \(JobMessages.interrupted), finished_at = \(now.millis),
                   updated_at = \(now.millis) WHERE id = \(id.rawValue)
            """, logger: logger)
    }

    public func cancelJob(_ householdID: HouseholdID, _ id: JobID, now: Date) async throws -> Job {
        try await transaction { connection in
            guard let job = try await Self.fetchJob(connection, id, lock: true, logger: logger), job.householdID == householdID else {
                throw DomainError.notFound("The job")
            }
            switch job.state {
            case .queued:
                try await connection.query("""
                    UPDATE job SET state = 'cancelled', error_code = 'cancelled', message = \(JobMessages.cancelled), finished_at = \(now.millis),
                           updated_at = \(now.millis) WHERE id = \(id.rawValue)
                    """, logger: logger)
            case .running:
                try await connection.query("UPDATE job SET cancel_requested = true, updated_at = \(now.millis) WHERE id = \(id.rawValue)", logger: logger)
            default:
                break
            }
            return try await Self.fetchJob(connection, id, logger: logger)!
        }
    }

    public func recoverJobs(retryable: Set<String>, deadHolders: Set<String>, now: Date) async throws -> (requeued: Int, interrupted: Int) {
        try await transaction { connection in
            var requeued = 0, interrupted = 0
            // A row being renewed or finished at this moment is passed over (SKIP LOCKED); FOR UPDATE checks the
            // lease again on the row as it is once locked, so a lease renewed meanwhile keeps its job.
            let running = try await Self.jobs(try await connection.query(PostgresQuery(unsafeSQL: """
                SELECT \(Self.jobColumns) FROM job
                WHERE state = 'running' AND (lease_until IS NULL OR lease_until < $1 OR claimed_by = ANY($2))
                FOR UPDATE SKIP LOCKED
                """, binds: try Self.binds(now.millis, deadHolders.sorted())), logger: logger))
            for job in running {
                if retryable.contains(job.kind) && job.attempts < job.maxAttempts {
                    try await connection.query("UPDATE job SET state = 'queued', next_attempt_at = \(now.millis), updated_at = \(now.millis) WHERE id = \(job.id.rawValue)",
                                               logger: logger)
                    requeued += 1
                } else {
                    try await Self.interrupt(connection, job.id, now: now, logger: logger)
                    interrupted += 1
                }
            }
            return (requeued, interrupted)
        }
    }

    public func job(_ householdID: HouseholdID, _ id: JobID) async throws -> Job {
        guard let job = try await job(id), job.householdID == householdID else { throw DomainError.notFound("The job") }
        return job
    }

    public func job(_ id: JobID) async throws -> Job? {
        try await withStoreErrors {
            try await client.withConnection { connection in try await Self.fetchJob(connection, id, logger: logger) }
        }
    }

    public func jobs(_ householdID: HouseholdID, kind: String, since: Date) async throws -> [Job] {
        try await withStoreErrors {
            try await Self.jobs(try await client.query(PostgresQuery(unsafeSQL: """
                SELECT \(Self.jobColumns) FROM job WHERE household_id = $1 AND kind = $2 AND (state IN ('queued', 'running') OR created_at >= $3)
                ORDER BY created_at DESC, id LIMIT 100
                """, binds: try Self.binds(householdID.rawValue, kind, since.millis)), logger: logger))
        }
    }

    public func latestJob(_ householdID: HouseholdID, kind: String, subject: String) async throws -> Job? {
        try await withStoreErrors {
            try await Self.jobs(try await client.query(PostgresQuery(unsafeSQL: """
                SELECT \(Self.jobColumns) FROM job WHERE subject = $1 AND household_id = $2 AND kind = $3 ORDER BY created_at DESC LIMIT 1
                """, binds: try Self.binds(subject, householdID.rawValue, kind)), logger: logger)).first
        }
    }

    public func unfinishedJobPayloads() async throws -> [String] {
        try await withStoreErrors {
            var payloads: [String] = []
            for try await payload in try await client.query("SELECT payload FROM job WHERE state IN ('queued', 'running')", logger: logger)
                .decode(String.self) {
                payloads.append(payload)
            }
            return payloads
        }
    }

    public func recentJobResults(since: Date) async throws -> [String] {
        try await withStoreErrors {
            var results: [String] = []
            for try await result in try await client.query("SELECT result FROM job WHERE result IS NOT NULL AND created_at >= \(since.millis)",
                                                           logger: logger).decode(String.self) {
                results.append(result)
            }
            return results
        }
    }
}
