import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// Settings → Security & Privacy on PostgreSQL: the app lock, a person's sessions and passkeys, as SQLite's
/// `AppDatabase+Security`.
extension PostgresStore {
    public func user(_ id: UserID) async throws -> User? {
        try await withStoreErrors {
            for try await row in try await client.query(
                "SELECT id, email, display_name, created_at FROM app_user WHERE id = \(id.rawValue)", logger: logger) {
                return try Self.userFrom(row.makeRandomAccess(), at: 0)
            }
            return nil
        }
    }

    // MARK: - The app lock

    public func setLockMinutes(_ userID: UserID, _ minutes: Int) async throws {
        try await withStoreErrors {
            for try await _ in try await client.query(
                "UPDATE app_user SET lock_minutes = \(Int32(clamping: minutes)) WHERE id = \(userID.rawValue) RETURNING id", logger: logger) {
                return
            }
            throw DomainError.notFound("The account")
        }
    }

    public func lockSession(tokenHash: String) async throws {
        try await withStoreErrors {
            try await client.query("UPDATE session SET locked = true WHERE token_hash = \(tokenHash) AND NOT locked", logger: logger)
        }
    }

    public func unlockSession(tokenHash: String, now: Date) async throws {
        try await withStoreErrors {
            try await client.query("UPDATE session SET locked = false, last_active_at = \(now.millis) WHERE token_hash = \(tokenHash)",
                                   logger: logger)
        }
    }

    public func recordActivity(tokenHash: String, now: Date) async throws {
        try await withStoreErrors {
            try await client.query("""
                UPDATE session SET last_active_at = \(now.millis)
                WHERE token_hash = \(tokenHash) AND NOT locked AND last_active_at < \(now.millis)
                """, logger: logger)
        }
    }

    // MARK: - Sessions

    public func sessions(of userID: UserID, now: Date) async throws -> [SessionSummary] {
        try await withStoreErrors {
            var sessions: [SessionSummary] = []
            for try await (hash, created, seen, agent, locked) in try await client.query("""
                SELECT token_hash, created_at, last_seen_at, user_agent, locked FROM session
                WHERE user_id = \(userID.rawValue) AND expires_at > \(now.millis) ORDER BY last_seen_at DESC, created_at DESC
                """, logger: logger).decode((String, Int64, Int64, String?, Bool).self) {
                sessions.append(SessionSummary(id: String(hash.prefix(16)), tokenHash: hash, createdAt: Date(millis: created),
                                               lastSeenAt: Date(millis: seen), userAgent: agent, locked: locked))
            }
            return sessions
        }
    }

    @discardableResult
    public func deleteSession(of userID: UserID, id: String) async throws -> Bool {
        guard id.count == 16, id.allSatisfy(\.isHexDigit) else { return false }
        return try await withStoreErrors {
            var ended = false
            for try await _ in try await client.query(
                "DELETE FROM session WHERE user_id = \(userID.rawValue) AND left(token_hash, 16) = \(id) RETURNING 1", logger: logger) {
                ended = true
            }
            return ended
        }
    }

    @discardableResult
    public func deleteSessions(of userID: UserID, except tokenHash: String) async throws -> Int {
        try await withStoreErrors {
            var count = 0
            for try await _ in try await client.query(
                "DELETE FROM session WHERE user_id = \(userID.rawValue) AND token_hash <> \(tokenHash) RETURNING 1", logger: logger) {
                count += 1
            }
            return count
        }
    }

    // MARK: - Passkeys

    private static let passkeyColumns = "id, credential_id, user_id, name, public_key, sign_count, backup_eligible, created_at, last_used_at"

    private static func passkey(_ row: PostgresRow) throws -> PasskeyRecord {
        let (id, credential, user, name, key, count, backup, created, used) =
            try row.decode((UUID, Data, UUID, String, Data, Int64, Bool, Int64, Int64?).self)
        return PasskeyRecord(id: id.uuidString.lowercased(), credentialID: Array(credential), userID: UserID(user), name: name,
                             publicKey: Array(key), signCount: UInt32(clamping: count), backupEligible: backup,
                             createdAt: Date(millis: created), lastUsedAt: used.map { Date(millis: $0) })
    }

    public func passkeys(of userID: UserID) async throws -> [PasskeyRecord] {
        try await withStoreErrors {
            var passkeys: [PasskeyRecord] = []
            for try await row in try await client.query(
                "SELECT \(unescaped: Self.passkeyColumns) FROM passkey WHERE user_id = \(userID.rawValue) ORDER BY created_at, id", logger: logger) {
                passkeys.append(try Self.passkey(row))
            }
            return passkeys
        }
    }

    public func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord? {
        try await withStoreErrors {
            for try await row in try await client.query(
                "SELECT \(unescaped: Self.passkeyColumns) FROM passkey WHERE credential_id = \(Data(credentialID))", logger: logger) {
                return try Self.passkey(row)
            }
            return nil
        }
    }

    public func addPasskey(userID: UserID, credentialID: [UInt8], name: String, publicKey: [UInt8], signCount: UInt32,
                           backupEligible: Bool, now: Date) async throws -> PasskeyRecord {
        let id = UUID()
        let added = try await withStoreErrors {
            var added = false
            for try await _ in try await client.query("""
                INSERT INTO passkey (id, credential_id, user_id, name, public_key, sign_count, backup_eligible, created_at)
                VALUES (\(id), \(Data(credentialID)), \(userID.rawValue), \(name), \(Data(publicKey)), \(Int64(signCount)), \(backupEligible),
                        \(now.millis))
                ON CONFLICT (credential_id) DO NOTHING RETURNING id
                """, logger: logger) {
                added = true
            }
            return added
        }
        guard added else { throw DomainError.conflict("This passkey is already registered.") }
        return PasskeyRecord(id: id.uuidString.lowercased(), credentialID: credentialID, userID: userID, name: name, publicKey: publicKey,
                             signCount: signCount, backupEligible: backupEligible, createdAt: Date(millis: now.millis), lastUsedAt: nil)
    }

    @discardableResult
    public func removePasskey(of userID: UserID, id: String) async throws -> Bool {
        guard let id = UUID(uuidString: id) else { return false }
        return try await withStoreErrors {
            var removed = false
            for try await _ in try await client.query(
                "DELETE FROM passkey WHERE user_id = \(userID.rawValue) AND id = \(id) RETURNING 1", logger: logger) {
                removed = true
            }
            return removed
        }
    }

    @discardableResult
    public func removePasskeys(of userID: UserID) async throws -> Int {
        try await withStoreErrors {
            var count = 0
            for try await _ in try await client.query("DELETE FROM passkey WHERE user_id = \(userID.rawValue) RETURNING 1", logger: logger) {
                count += 1
            }
            return count
        }
    }

    public func passkeyUsed(id: String, signCount: UInt32, now: Date) async throws {
        guard let id = UUID(uuidString: id) else { return }
        try await withStoreErrors {
            try await client.query("UPDATE passkey SET sign_count = \(Int64(signCount)), last_used_at = \(now.millis) WHERE id = \(id)",
                                   logger: logger)
        }
    }

    // MARK: - Challenges

    public func addPasskeyChallenge(_ challenge: String, purpose: PasskeyPurpose, binding: String, userID: UserID?, now: Date,
                                    expiresAt: Date) async throws {
        try await withStoreErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("DELETE FROM passkey_challenge WHERE expires_at <= \(now.millis)", logger: logger)
                try await connection.query("""
                    DELETE FROM passkey_challenge WHERE binding = \(binding) AND purpose = \(purpose.rawValue) AND challenge NOT IN (
                        SELECT challenge FROM passkey_challenge WHERE binding = \(binding) AND purpose = \(purpose.rawValue)
                        ORDER BY expires_at DESC LIMIT 4)
                    """, logger: logger)
                try await connection.query("""
                    INSERT INTO passkey_challenge (challenge, purpose, binding, user_id, expires_at)
                    VALUES (\(challenge), \(purpose.rawValue), \(binding), \(userID?.rawValue), \(expiresAt.millis))
                    """, logger: logger)
            }
        }
    }

    public func consumePasskeyChallenge(_ challenge: String, purpose: PasskeyPurpose, binding: String, now: Date) async throws -> Bool {
        // One statement takes the row away and says what it was: of two servers consuming it at once, one gets it.
        try await withStoreErrors {
            for try await (issuedFor, boundTo, expires) in try await client.query(
                "DELETE FROM passkey_challenge WHERE challenge = \(challenge) RETURNING purpose, binding, expires_at", logger: logger)
                .decode((String, String, Int64).self) {
                return issuedFor == purpose.rawValue && boundTo == binding && expires > now.millis
            }
            return false
        }
    }
}
