import Foundation

/// Long work done in the background (a report, a backup, reading a receipt, an import), kept as a row
/// so that any server process, and any device, can follow it, and a restart neither loses it nor leaves
/// it "running" forever.
public struct Job: Hashable, Sendable, Identifiable {
    public let id: JobID
    public let householdID: HouseholdID
    /// What it does: `report`, `backup`, `receipt`, `import` (the handler that runs it).
    public let kind: String
    public var state: JobState
    /// Progress as the handler reports it (items rendered, bytes written); total 0 while unknown.
    public var done: Int64
    public var total: Int64
    /// What the handler needs, as JSON (ids, options).
    public let payload: String
    /// What it made, as JSON (a report id, an archive's size), once it succeeded.
    public var result: String?
    /// For a batch: what became of each item, as a JSON object by item key.
    public var itemResults: String?
    public var attempts: Int
    public let maxAttempts: Int
    /// When a queued job may next be started (later than now while it waits to be retried).
    public var nextAttemptAt: Date
    /// A stable code and a message that is safe to show, once it failed or was interrupted.
    public var errorCode: String?
    public var message: String?
    public var cancelRequested: Bool
    public let createdAt: Date
    public var startedAt: Date?
    public var finishedAt: Date?
    /// The server process that claimed it last (a ``JobHolder`` of the runner), and until when its claim holds unless
    /// renewed: a running job whose lease has passed is taken back by any server.
    public var claimedBy: String?
    public var leaseUntil: Date?

    public init(id: JobID, householdID: HouseholdID, kind: String, state: JobState, done: Int64, total: Int64, payload: String,
                result: String?, itemResults: String? = nil, attempts: Int, maxAttempts: Int, nextAttemptAt: Date, errorCode: String?, message: String?,
                cancelRequested: Bool, createdAt: Date, startedAt: Date?, finishedAt: Date?, claimedBy: String? = nil, leaseUntil: Date? = nil) {
        self.id = id
        self.householdID = householdID
        self.kind = kind
        self.state = state
        self.done = done
        self.total = total
        self.payload = payload
        self.result = result
        self.itemResults = itemResults
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.nextAttemptAt = nextAttemptAt
        self.errorCode = errorCode
        self.message = message
        self.cancelRequested = cancelRequested
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.claimedBy = claimedBy
        self.leaseUntil = leaseUntil
    }

    /// The payload decoded.
    public func decodedPayload<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(payload.utf8))
    }

    /// The result decoded, if there is one.
    public func decodedResult<T: Decodable>(as type: T.Type) -> T? {
        result.flatMap { try? JSONDecoder().decode(T.self, from: Data($0.utf8)) }
    }
}

public typealias JobID = EntityID<Job>

/// Where a job is in its life. Only `queued` and `running` are unfinished.
public enum JobState: String, Hashable, Codable, Sendable, CaseIterable {
    case queued, running, succeeded, failed, cancelled
    /// It was running when the server stopped or died, and may not be run again by itself.
    case interrupted

    public var isFinished: Bool { self != .queued && self != .running }
}

/// Why a job failed, as its handler says it: a stable code, a message people can read (never a raw
/// error or a server path), and whether trying again later may work.
public struct JobFailure: Error, Hashable, Sendable {
    public let code: String
    public let message: String
    public let retryable: Bool

    public init(code: String, message: String, retryable: Bool = false) {
        self.code = code
        self.message = message
        self.retryable = retryable
    }

    /// A domain rule a job ran into, with its message for people (never retried).
    public init(_ error: DomainError) {
        let code = switch error {
        case .validation: "invalid_request"
        case .notFound: "not_found"
        case .conflict: "conflict"
        case .forbidden: "forbidden"
        case .currencyMismatch: "currency_mismatch"
        case .proRequired: "pro_required"
        }
        self.init(code: code, message: error.message)
    }
}

extension JSONEncoder {
    /// JSON text of a payload or result (sorted keys, so equal values give equal text).
    public static func jobText<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
