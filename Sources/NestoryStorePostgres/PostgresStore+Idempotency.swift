import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore: IdempotencyStore {
    public func storedResponse(_ householdID: HouseholdID, key: String, notBefore: Date) async throws -> StoredResponse? {
        try await withStoreErrors {
            try await client.withConnection { connection in try await Self.storedResponse(connection, householdID, key: key, notBefore: notBefore, logger: logger) }
        }
    }

    static func storedResponse(_ connection: PostgresConnection, _ householdID: HouseholdID, key: String, notBefore: Date,
                               logger: Logger) async throws -> StoredResponse? {
        for try await row in try await connection.query("""
            SELECT fingerprint, status, headers, body, created_at FROM idempotency_key
            WHERE household_id = \(householdID.rawValue) AND key = \(key) AND created_at >= \(notBefore.millis)
            """, logger: logger) {
            let (fingerprint, status, headers, body, created) = try row.decode((String, Int32, String, Data, Int64).self)
            return StoredResponse(fingerprint: fingerprint, status: Int(status),
                                  headers: (try? JSONDecoder().decode([String: String].self, from: Data(headers.utf8))) ?? [:],
                                  body: body, createdAt: Date(millis: created))
        }
        return nil
    }

    public func claimIdempotencyKey(_ householdID: HouseholdID, key: String, notBefore: Date, until: Date, now: Date) async throws -> IdempotencyClaim {
        // The claim first, then the answer: a claim that meets another server's claim row waits for that server's
        // transaction, so when that one stored its answer (and ended its claim), this statement's successor sees the
        // answer (read committed takes a new snapshot per statement) and the request is not run twice.
        try await transaction { connection in
            var claimed = false
            for try await _ in try await connection.query("""
                INSERT INTO idempotency_claim (household_id, key, claimed_until) VALUES (\(householdID.rawValue), \(key), \(until.millis))
                ON CONFLICT (household_id, key) DO UPDATE SET claimed_until = EXCLUDED.claimed_until
                WHERE idempotency_claim.claimed_until <= \(now.millis)
                RETURNING 1
                """, logger: logger) {
                claimed = true
            }
            if let stored = try await Self.storedResponse(connection, householdID, key: key, notBefore: notBefore, logger: logger) {
                if claimed {
                    try await connection.query("""
                        DELETE FROM idempotency_claim WHERE household_id = \(householdID.rawValue) AND key = \(key)
                        """, logger: logger)
                }
                return .answered(stored)
            }
            return claimed ? .claimed : .running
        }
    }

    public func releaseIdempotencyKey(_ householdID: HouseholdID, key: String) async throws {
        try await withStoreErrors {
            try await client.query("DELETE FROM idempotency_claim WHERE household_id = \(householdID.rawValue) AND key = \(key)", logger: logger)
        }
    }

    public func storeResponse(_ householdID: HouseholdID, key: String, _ response: StoredResponse) async throws {
        let headers = String(decoding: try JSONEncoder().encode(response.headers), as: UTF8.self)
        try await transaction { connection in
            try await connection.query("""
                INSERT INTO idempotency_key (household_id, key, fingerprint, status, headers, body, created_at)
                VALUES (\(householdID.rawValue), \(key), \(response.fingerprint), \(Int32(response.status)), \(headers), \(response.body),
                        \(response.createdAt.millis))
                ON CONFLICT (household_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status,
                    headers = EXCLUDED.headers, body = EXCLUDED.body, created_at = EXCLUDED.created_at
                """, logger: logger)
            try await connection.query("DELETE FROM idempotency_claim WHERE household_id = \(householdID.rawValue) AND key = \(key)", logger: logger)
        }
    }

    @discardableResult
    public func deleteStoredResponses(before cutoff: Date) async throws -> Int {
        try await transaction { connection in
            var removed = 0
            for try await _ in try await connection.query("DELETE FROM idempotency_key WHERE created_at < \(cutoff.millis) RETURNING 1",
                                                          logger: logger) {
                removed += 1
            }
            try await connection.query("DELETE FROM idempotency_claim WHERE claimed_until < \(cutoff.millis)", logger: logger)
            return removed
        }
    }
}
