import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

/// Idempotency keys on SQLite, as the async interface the services call: each call runs the store's own method off
/// the caller's thread (`AppDatabase.offload`).
public struct SQLiteIdempotencyStore: IdempotencyStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    public func storedResponse(_ householdID: HouseholdID, key: String, notBefore: Date) async throws -> StoredResponse? {
        try await database.offload { try $0.storedResponse(householdID, key: key, notBefore: notBefore) }
    }
    public func claimIdempotencyKey(_ householdID: HouseholdID, key: String, notBefore: Date, until: Date, now: Date) async throws -> IdempotencyClaim {
        try await database.offload { try $0.claimIdempotencyKey(householdID, key: key, notBefore: notBefore, until: until, now: now) }
    }
    public func releaseIdempotencyKey(_ householdID: HouseholdID, key: String) async throws {
        try await database.offload { try $0.releaseIdempotencyKey(householdID, key: key) }
    }
    public func storeResponse(_ householdID: HouseholdID, key: String, _ response: StoredResponse) async throws {
        try await database.offload { try $0.storeResponse(householdID, key: key, response) }
    }
    @discardableResult
    public func deleteStoredResponses(before cutoff: Date) async throws -> Int {
        try await database.offload { try $0.deleteStoredResponses(before: cutoff) }
    }
}

extension AppDatabase {
    /// The response stored for this household's key, if it was stored at or after `notBefore`.
    public func storedResponse(_ householdID: HouseholdID, key: String, notBefore: Date) throws -> StoredResponse? {
        try read { db in try Self.storedResponse(db, householdID, key: key, notBefore: notBefore) }
    }

    private static func storedResponse(_ db: Database, _ householdID: HouseholdID, key: String, notBefore: Date) throws -> StoredResponse? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT fingerprint, status, headers, body, created_at FROM idempotency_key
            WHERE household_id = ? AND key = ? AND created_at >= ?
            """), arguments: [householdID.description, key, notBefore.millis]) else { return nil }
        let headers = (try? JSONDecoder().decode([String: String].self, from: Data((row["headers"] as String).utf8))) ?? [:]
        return StoredResponse(fingerprint: row["fingerprint"], status: row["status"], headers: headers, body: row["body"],
                              createdAt: row.date("created_at"))
    }

    /// Claims the household's key until `until`, unless it was answered at or after `notBefore` (the answer then) or
    /// another live claim holds it. One write transaction: of two claims at once, one wins.
    public func claimIdempotencyKey(_ householdID: HouseholdID, key: String, notBefore: Date, until: Date, now: Date) throws -> IdempotencyClaim {
        try write { db in
            if let stored = try Self.storedResponse(db, householdID, key: key, notBefore: notBefore) { return .answered(stored) }
            try db.execute(sql: """
                INSERT INTO idempotency_claim (household_id, key, claimed_until) VALUES (?, ?, ?)
                ON CONFLICT (household_id, key) DO UPDATE SET claimed_until = excluded.claimed_until WHERE claimed_until <= ?
                """, arguments: [householdID.description, key, until.millis, now.millis])
            return db.changesCount == 1 ? .claimed : .running
        }
    }

    /// Gives up a claim without an answer (the request failed, so a retry runs again).
    public func releaseIdempotencyKey(_ householdID: HouseholdID, key: String) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM idempotency_claim WHERE household_id = ? AND key = ?", arguments: [householdID.description, key])
        }
    }

    /// Keeps a response for this household's key (replacing an expired one under the same key), and ends its claim.
    public func storeResponse(_ householdID: HouseholdID, key: String, _ response: StoredResponse) throws {
        let headers = String(decoding: try JSONEncoder().encode(response.headers), as: UTF8.self)
        try write { db in
            try db.execute(sql: """
                INSERT INTO idempotency_key (household_id, key, fingerprint, status, headers, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (household_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
                    headers = excluded.headers, body = excluded.body, created_at = excluded.created_at
                """, arguments: [householdID.description, key, response.fingerprint, response.status, headers, response.body,
                                 response.createdAt.millis])
            try db.execute(sql: "DELETE FROM idempotency_claim WHERE household_id = ? AND key = ?", arguments: [householdID.description, key])
        }
    }

    /// Removes responses stored before `cutoff`, and claims that lapsed before it; returns how many responses.
    @discardableResult
    public func deleteStoredResponses(before cutoff: Date) throws -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM idempotency_key WHERE created_at < ?", arguments: [cutoff.millis])
            let removed = db.changesCount
            try db.execute(sql: "DELETE FROM idempotency_claim WHERE claimed_until < ?", arguments: [cutoff.millis])
            return removed
        }
    }
}
