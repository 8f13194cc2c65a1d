import Foundation
import NestoryDomain

/// Runs the jobs of one kind. Handlers are given to the ``JobRunner`` by the bootstrap; the services
/// that enqueue a kind provide its handler.
public protocol JobHandler: Sendable {
    /// The kind of job this handler runs (`report`, `backup`, ...).
    var kind: String { get }
    /// At most this many jobs of the kind run at once.
    var concurrency: Int { get }
    /// How often and when a failed job is tried again (and whether a job interrupted by a stop may be).
    var retry: RetryPolicy { get }

    /// Does the work and returns the result as JSON. Throw a ``JobFailure`` with a safe message; anything
    /// else is logged and shown as a generic failure. Long work reports progress through `context`, which
    /// throws `CancellationError` once the job is cancelled.
    func run(_ job: Job, context: JobContext) async throws -> String

    /// Checks what `run` made before the job is called done (a report's PDF is a real PDF, say); throws a
    /// ``JobFailure`` if not.
    func verify(_ job: Job, result: String) async throws
}

extension JobHandler {
    public func verify(_ job: Job, result: String) async throws {}
}

/// Retries with exponential backoff and full jitter: attempt n waits a random time up to
/// min(maxDelay, baseDelay × 2^(n−1)).
public struct RetryPolicy: Sendable, Hashable {
    public var maxAttempts: Int
    public var baseDelay: TimeInterval
    public var maxDelay: TimeInterval
    /// Whether a job running when the server stopped or died is run again (else it is marked interrupted).
    public var resumesAfterStop: Bool

    public init(maxAttempts: Int, baseDelay: TimeInterval = 2, maxDelay: TimeInterval = 300, resumesAfterStop: Bool) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.resumesAfterStop = resumesAfterStop
    }

    /// Run once; a stop interrupts it for good.
    public static let once = RetryPolicy(maxAttempts: 1, resumesAfterStop: false)

    /// The wait before attempt `attempt + 1`, given a random number in 0..<1.
    public func delay(afterAttempt attempt: Int, random: Double) -> TimeInterval {
        let ceiling = min(maxDelay, baseDelay * pow(2, Double(max(0, attempt - 1))))
        return ceiling * min(max(random, 0), 1)
    }
}

/// What a running job's handler may do besides its work: report progress, notice cancellation.
public struct JobContext: Sendable {
    public let jobID: JobID
    let progressSink: @Sendable (Int64, Int64) throws -> Bool
    let itemSink: @Sendable (String, String) throws -> Void

    public init(jobID: JobID, progress: @escaping @Sendable (Int64, Int64) throws -> Bool,
                itemResult: @escaping @Sendable (String, String) throws -> Void = { _, _ in }) {
        self.jobID = jobID
        self.progressSink = progress
        self.itemSink = itemResult
    }

    /// Records what became of one item of a batch (kept in the job's row, so a page can list it).
    public func itemResult<Result: Encodable>(_ key: String, _ result: Result) throws {
        try itemSink(key, try JSONEncoder.jobText(result))
    }

    /// Records progress; throws `CancellationError` when the job was cancelled meanwhile. Cheap enough to
    /// call often: writes are spaced by the runner.
    public func progress(done: Int64, total: Int64) throws {
        if try progressSink(done, total) { throw CancellationError() }
    }
}
