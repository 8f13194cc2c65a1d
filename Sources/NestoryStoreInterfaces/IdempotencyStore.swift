import Foundation
import NestoryDomain

/// What the API answered to a request that carried an `Idempotency-Key`: enough to answer a replay the
/// same way. Only the headers that matter are kept (Content-Type, Location).
public struct StoredResponse: Hashable, Sendable {
    /// Hex SHA-256 of the request's method, path and body: a replay must have the same one.
    public let fingerprint: String
    public let status: Int
    public let headers: [String: String]
    public let body: Data
    public let createdAt: Date

    public init(fingerprint: String, status: Int, headers: [String: String], body: Data, createdAt: Date) {
        self.fingerprint = fingerprint
        self.status = status
        self.headers = headers
        self.body = body
        self.createdAt = createdAt
    }
}

/// What claiming an idempotency key found.
public enum IdempotencyClaim: Hashable, Sendable {
    /// The key is the caller's: it runs the request, then stores the answer or releases the key.
    case claimed
    /// Another request with the key is running (on this server or another).
    case running
    /// The key was answered within the window: the stored answer.
    case answered(StoredResponse)
}

/// The API's idempotency keys, per household: the answers kept for replays, and the keys whose first request is still
/// running. In the store, so that a retry landing on another server gets the first answer, and two requests with one
/// key on two servers at once run once.
///
/// Every engine keeps the same rules (checked by the conformance suite): of simultaneous claims of one key exactly one
/// wins; a claim lapses at its `until` (a server that died mid-request does not hold the key for ever); storing the
/// answer ends the claim; an answer older than the window is not returned; keys belong to their household.
public protocol IdempotencyStore: Sendable {
    /// The response stored for this household's key, if it was stored at or after `notBefore`.
    func storedResponse(_ householdID: HouseholdID, key: String, notBefore: Date) async throws -> StoredResponse?
    /// Claims the household's key until `until`, unless it was answered at or after `notBefore` (the answer then) or
    /// another live claim holds it.
    func claimIdempotencyKey(_ householdID: HouseholdID, key: String, notBefore: Date, until: Date, now: Date) async throws -> IdempotencyClaim
    /// Gives up a claim without an answer (the request failed, so a retry runs again).
    func releaseIdempotencyKey(_ householdID: HouseholdID, key: String) async throws
    /// Keeps a response for this household's key (replacing an expired one under the same key), and ends its claim.
    func storeResponse(_ householdID: HouseholdID, key: String, _ response: StoredResponse) async throws
    /// Removes responses stored before `cutoff`, and claims that lapsed before it; returns how many responses.
    @discardableResult
    func deleteStoredResponses(before cutoff: Date) async throws -> Int
}
