import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// What a household asks about its background jobs, whatever their kind: one job (for its page and the pages' poller),
/// the recent ones of a kind, and cancelling one. Through `JobStore`, so every server on one store answers the same.
public struct JobsService: Sendable {
    let store: any JobStore
    let now: @Sendable () -> Date

    public init(store: any JobStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    /// A job of the household, of one of `kinds` when they are given. Another household's job, or one of another kind,
    /// is not found, and `what` names what was looked for ("The report").
    public func job(_ household: HouseholdID, _ id: JobID, kinds: Set<String>? = nil, notFound what: String = "The job") async throws -> Job {
        let job: Job
        do { job = try await store.job(household, id) } catch DomainError.notFound { throw DomainError.notFound(what) }
        guard kinds?.contains(job.kind) ?? true else { throw DomainError.notFound(what) }
        return job
    }

    /// The household's jobs of a kind, newest first: the unfinished ones, and those finished that were started in the
    /// last `within` seconds.
    public func recent(_ household: HouseholdID, kind: String, within: TimeInterval) async throws -> [Job] {
        try await store.jobs(household, kind: kind, since: now().addingTimeInterval(-within))
    }

    /// Cancels a job of the household (of one of `kinds` when given): a queued one at once, a running one when its
    /// handler notices. Returns the job as it now is.
    public func cancel(_ household: HouseholdID, _ id: JobID, kinds: Set<String>? = nil, notFound what: String = "The job") async throws -> Job {
        if kinds != nil { _ = try await job(household, id, kinds: kinds, notFound: what) }
        do { return try await store.cancelJob(household, id, now: now()) } catch DomainError.notFound { throw DomainError.notFound(what) }
    }
}
