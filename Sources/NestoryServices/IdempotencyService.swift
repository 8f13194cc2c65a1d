import Foundation
import NestoryDomain
import NestoryStore

/// What the API answered to a request with an `Idempotency-Key`, kept per household and key for `window`
/// (24 h by default), so the offline queue's replay after a lost response gets the same answer and never
/// makes a second item. Stored in the database: a replay after a restart is answered too. The response is
/// written before it is sent, so whatever the server acknowledged has its row (a crash after the use case
/// committed but before this row was written is the one gap: the client got no answer then, and a replay
/// runs again).
///
/// Which keys are in progress is kept in memory: one server process owns the embedded database, and a
/// crash mid-request must not leave a key stuck.
public struct IdempotencyService: Sendable {
    /// How long a stored response answers replays.
    public let window: TimeInterval
    let database: AppDatabase
    let blocking: BlockingPool
    let now: @Sendable () -> Date
    private let running = Running()

    /// A household's key: another household's same key is a different entry.
    public struct Scope: Hashable, Sendable {
        public let household: HouseholdID
        public let key: String

        public init(household: HouseholdID, key: String) {
            self.household = household
            self.key = key
        }
    }

    public init(database: AppDatabase, blocking: BlockingPool, window: TimeInterval = 86_400,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.blocking = blocking
        self.window = window
        self.now = now
    }

    /// Whether a key is well formed: 1 to 255 printable ASCII characters (space to tilde).
    public static func isValid(_ key: String) -> Bool {
        (1...255).contains(key.utf8.count) && key.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// Marks the key as in progress; false when a request with it is already running.
    public func begin(_ scope: Scope) -> Bool {
        running.insert(scope)
    }

    /// The key is no longer in progress.
    public func end(_ scope: Scope) {
        running.remove(scope)
    }

    /// The response stored for the key within the window, if any.
    public func stored(_ scope: Scope) throws -> StoredResponse? {
        try database.storedResponse(scope.household, key: scope.key, notBefore: now().addingTimeInterval(-window))
    }

    /// Keeps a response for the key (committed before this returns).
    public func store(_ scope: Scope, fingerprint: String, status: Int, headers: [String: String], body: Data) async throws {
        let (database, response) = (database, StoredResponse(fingerprint: fingerprint, status: status, headers: headers, body: body,
                                                             createdAt: now()))
        try await blocking.run { try database.storeResponse(scope.household, key: scope.key, response) }
    }

    /// The keys in progress, behind a lock (requests run on many threads).
    private final class Running: @unchecked Sendable {
        private let lock = NSLock()
        private var scopes: Set<Scope> = []

        func insert(_ scope: Scope) -> Bool { lock.withLock { scopes.insert(scope).inserted } }
        func remove(_ scope: Scope) { _ = lock.withLock { scopes.remove(scope) } }
    }
}
