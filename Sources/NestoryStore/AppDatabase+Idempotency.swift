import Foundation
internal import GRDB
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

extension AppDatabase {
    /// The response stored for this household's key, if it was stored at or after `notBefore`.
    public func storedResponse(_ householdID: HouseholdID, key: String, notBefore: Date) throws -> StoredResponse? {
        try read { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT fingerprint, status, headers, body, created_at FROM idempotency_key
                WHERE household_id = ? AND key = ? AND created_at >= ?
                """), arguments: [householdID.description, key, notBefore.millis]) else { return nil }
            let headers = (try? JSONDecoder().decode([String: String].self, from: Data((row["headers"] as String).utf8))) ?? [:]
            return StoredResponse(fingerprint: row["fingerprint"], status: row["status"], headers: headers, body: row["body"],
                                  createdAt: row.date("created_at"))
        }
    }

    /// Keeps a response for this household's key (replacing an expired one under the same key).
    public func storeResponse(_ householdID: HouseholdID, key: String, _ response: StoredResponse) throws {
        let headers = String(decoding: try JSONEncoder().encode(response.headers), as: UTF8.self)
        try write { db in
            try db.execute(sql: """
                INSERT INTO idempotency_key (household_id, key, fingerprint, status, headers, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (household_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
                    headers = excluded.headers, body = excluded.body, created_at = excluded.created_at
                """, arguments: [householdID.description, key, response.fingerprint, response.status, headers, response.body,
                                 response.createdAt.millis])
        }
    }

    /// Removes responses stored before `cutoff`; returns how many.
    @discardableResult
    public func deleteStoredResponses(before cutoff: Date) throws -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM idempotency_key WHERE created_at < ?", arguments: [cutoff.millis])
            return db.changesCount
        }
    }
}
