import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

/// API tokens on SQLite, as the async interface the services call: each call runs the store's own method off the
/// caller's thread (`AppDatabase.offload`).
public struct SQLiteAPITokenStore: APITokenStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    public func createAPIToken(tokenHash: String, userID: UserID, householdID: HouseholdID, name: String, scope: TokenScope,
                               now: Date, expiresAt: Date?) async throws -> APITokenSummary {
        try await database.offload {
            try $0.createAPIToken(tokenHash: tokenHash, userID: userID, householdID: householdID, name: name, scope: scope, now: now,
                                  expiresAt: expiresAt)
        }
    }
    public func apiTokens(of userID: UserID) async throws -> [APITokenSummary] { try await database.offload { try $0.apiTokens(of: userID) } }
    public func deleteAPIToken(of userID: UserID, id: String) async throws -> Bool {
        try await database.offload { try $0.deleteAPIToken(of: userID, id: id) }
    }
    public func apiToken(hash: String, now: Date) async throws -> APITokenAccess? { try await database.offload { try $0.apiToken(hash: hash, now: now) } }
    public func touchAPIToken(id: String, now: Date) async throws { try await database.offload { try $0.touchAPIToken(id: id, now: now) } }
}

extension AppDatabase {
    /// Records a new token. `tokenHash` is the SHA-256 of the token, never the token itself.
    public func createAPIToken(tokenHash: String, userID: UserID, householdID: HouseholdID, name: String, scope: TokenScope,
                               now: Date, expiresAt: Date?) throws -> APITokenSummary {
        let id = UUID().uuidString.lowercased()
        try write { db in
            try db.execute(sql: """
                INSERT INTO api_token (id, token_hash, user_id, household_id, name, scope, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [id, tokenHash, userID.description, householdID.description, name, scope.rawValue, now.millis,
                                 expiresAt?.millis])
        }
        return APITokenSummary(id: id, name: name, scope: scope, createdAt: Date(millis: now.millis), expiresAt: expiresAt.map { Date(millis: $0.millis) },
                               lastUsedAt: nil)
    }

    /// A user's tokens, newest first (expired ones too, until revoked, so the list says they expired).
    public func apiTokens(of userID: UserID) throws -> [APITokenSummary] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, name, scope, created_at, expires_at, last_used_at FROM api_token WHERE user_id = ?
                ORDER BY created_at DESC, id
                """, arguments: [userID.description]).map { row in
                APITokenSummary(id: row["id"], name: row["name"], scope: TokenScope(rawValue: row["scope"]) ?? .read,
                                createdAt: row.date("created_at"), expiresAt: (row["expires_at"] as Int64?).map(Date.init(millis:)),
                                lastUsedAt: (row["last_used_at"] as Int64?).map(Date.init(millis:)))
            }
        }
    }

    /// Deletes one of the user's tokens; false when the user has no such token.
    public func deleteAPIToken(of userID: UserID, id: String) throws -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM api_token WHERE id = ? AND user_id = ?", arguments: [id, userID.description])
            return db.changesCount == 1
        }
    }

    /// The live token with this hash: not expired, and its user still a member of its household (one query).
    public func apiToken(hash: String, now: Date) throws -> APITokenAccess? {
        try read { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT t.id AS token_id, t.scope, t.last_used_at,
                       u.id AS user_id, u.email, u.display_name, u.created_at AS user_created_at,
                       m.role, h.*
                FROM api_token t JOIN user u ON u.id = t.user_id
                JOIN membership m ON m.user_id = t.user_id AND m.household_id = t.household_id
                JOIN household h ON h.id = t.household_id
                WHERE t.token_hash = ? AND (t.expires_at IS NULL OR t.expires_at > ?)
                """), arguments: [hash, now.millis]) else { return nil }
            let user = User(id: row.id("user_id"), email: row["email"], displayName: row["display_name"], createdAt: row.date("user_created_at"))
            return APITokenAccess(id: row["token_id"], scope: TokenScope(rawValue: row["scope"]) ?? .read, user: user,
                                  household: Self.householdFrom(row), role: MemberRole(rawValue: row["role"]) ?? .member,
                                  lastUsedAt: (row["last_used_at"] as Int64?).map(Date.init(millis:)))
        }
    }

    /// Records a token's use (callers skip it when the last use is recent, so reads do not all become writes).
    public func touchAPIToken(id: String, now: Date) throws {
        try write { db in
            try db.execute(sql: "UPDATE api_token SET last_used_at = ? WHERE id = ?", arguments: [now.millis, id])
        }
    }
}
