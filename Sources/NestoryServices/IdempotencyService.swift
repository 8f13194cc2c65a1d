import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// What the API answered to a request with an `Idempotency-Key`, kept per household and key for `window`
/// (24 h by default), so the offline queue's replay after a lost response gets the same answer and never
/// makes a second item. Kept in the store: a replay after a restart, or landing on another server, is answered
/// too. The response is written before it is sent, so whatever the server acknowledged has its row (a crash after
/// the use case committed but before this row was written is the one gap: the client got no answer then, and a
/// replay runs again).
///
/// Which keys are in progress is kept in the store too (`IdempotencyStore.claimIdempotencyKey`), so two requests
/// with one key on two servers run once. A claim lapses after `claimLifetime`, so a server that died mid-request
/// leaves the key refused (409) for at most that long; a request that runs longer than that may be run again by a
/// replay.
public struct IdempotencyService: Sendable {
    /// How long a stored response answers replays.
    public let window: TimeInterval
    /// How long a request may hold its key before another may claim it.
    public let claimLifetime: TimeInterval
    let store: any IdempotencyStore
    let now: @Sendable () -> Date

    /// A household's key: another household's same key is a different entry.
    public struct Scope: Hashable, Sendable {
        public let household: HouseholdID
        public let key: String

        public init(household: HouseholdID, key: String) {
            self.household = household
            self.key = key
        }
    }

    public init(store: any IdempotencyStore, window: TimeInterval = 86_400, claimLifetime: TimeInterval = 900,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.window = window
        self.claimLifetime = claimLifetime
        self.now = now
    }

    /// Whether a key is well formed: 1 to 255 printable ASCII characters (space to tilde).
    public static func isValid(_ key: String) -> Bool {
        (1...255).contains(key.utf8.count) && key.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// Claims the key for a request: `.claimed` (run it, then `store` or `end`), `.running` (a request with it is
    /// already running) or the answer stored within the window.
    public func begin(_ scope: Scope) async throws -> IdempotencyClaim {
        let at = now()
        return try await store.claimIdempotencyKey(scope.household, key: scope.key, notBefore: at.addingTimeInterval(-window),
                                                   until: at.addingTimeInterval(claimLifetime), now: at)
    }

    /// Gives the key up without an answer (so a retry runs again).
    public func end(_ scope: Scope) async throws {
        try await store.releaseIdempotencyKey(scope.household, key: scope.key)
    }

    /// The response stored for the key within the window, if any.
    public func stored(_ scope: Scope) async throws -> StoredResponse? {
        try await store.storedResponse(scope.household, key: scope.key, notBefore: now().addingTimeInterval(-window))
    }

    /// Keeps a response for the key (committed before this returns), which ends its claim.
    public func store(_ scope: Scope, fingerprint: String, status: Int, headers: [String: String], body: Data) async throws {
        try await store.storeResponse(scope.household, key: scope.key,
                                      StoredResponse(fingerprint: fingerprint, status: status, headers: headers, body: body, createdAt: now()))
    }
}
