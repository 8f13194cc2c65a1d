import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

extension AppDatabase {
    // MARK: - The app lock

    /// The user's lock timeout, in minutes (0: never).
    public func setLockMinutes(_ userID: UserID, _ minutes: Int) throws {
        try write { db in
            try db.execute(sql: "UPDATE user SET lock_minutes = ? WHERE id = ?", arguments: [minutes, userID.description])
            guard db.changesCount == 1 else { throw DomainError.notFound("The account") }
        }
    }

    /// Locks a session (its inactivity passed the timeout, or the page asked).
    public func lockSession(tokenHash: String) throws {
        try write { db in try db.execute(sql: "UPDATE session SET locked = 1 WHERE token_hash = ? AND locked = 0", arguments: [tokenHash]) }
    }

    /// Unlocks a session; unlocking is activity.
    public func unlockSession(tokenHash: String, now: Date) throws {
        try write { db in
            try db.execute(sql: "UPDATE session SET locked = 0, last_active_at = ? WHERE token_hash = ?", arguments: [now.millis, tokenHash])
        }
    }

    /// Records a person's activity on an unlocked session.
    public func recordActivity(tokenHash: String, now: Date) throws {
        try write { db in
            try db.execute(sql: "UPDATE session SET last_active_at = ? WHERE token_hash = ? AND locked = 0 AND last_active_at < ?",
                           arguments: [now.millis, tokenHash, now.millis])
        }
    }

    // MARK: - Sessions

    /// A user's live sessions, the most recently seen first.
    public func sessions(of userID: UserID, now: Date) throws -> [SessionSummary] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT token_hash, created_at, last_seen_at, user_agent, locked FROM session
                WHERE user_id = ? AND expires_at > ? ORDER BY last_seen_at DESC, created_at DESC
                """, arguments: [userID.description, now.millis]).map { row in
                let hash: String = row["token_hash"]
                return SessionSummary(id: String(hash.prefix(16)), tokenHash: hash, createdAt: row.date("created_at"),
                                      lastSeenAt: row.date("last_seen_at"), userAgent: row["user_agent"], locked: row["locked"])
            }
        }
    }

    /// Ends one of a user's sessions by its id (a prefix of its hash); false when there is none.
    @discardableResult
    public func deleteSession(of userID: UserID, id: String) throws -> Bool {
        guard id.count == 16, id.allSatisfy(\.isHexDigit) else { return false }
        return try write { db in
            try db.execute(sql: "DELETE FROM session WHERE user_id = ? AND substr(token_hash, 1, 16) = ?", arguments: [userID.description, id])
            return db.changesCount > 0
        }
    }

    /// Ends every session of a user but one (signing out everywhere else); returns how many ended.
    @discardableResult
    public func deleteSessions(of userID: UserID, except tokenHash: String) throws -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM session WHERE user_id = ? AND token_hash <> ?", arguments: [userID.description, tokenHash])
            return db.changesCount
        }
    }

    // MARK: - Passkeys

    public func passkeys(of userID: UserID) throws -> [PasskeyRecord] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM passkey WHERE user_id = ? ORDER BY created_at, id", arguments: [userID.description])
                .map(Self.passkey)
        }
    }

    public func passkey(credentialID: [UInt8]) throws -> PasskeyRecord? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM passkey WHERE credential_id = ?", arguments: [Data(credentialID)]).map(Self.passkey)
        }
    }

    /// Stores a new passkey; a credential id already registered (by anyone) is a conflict.
    public func addPasskey(userID: UserID, credentialID: [UInt8], name: String, publicKey: [UInt8], signCount: UInt32,
                           backupEligible: Bool, now: Date) throws -> PasskeyRecord {
        let id = UUID().uuidString.lowercased()
        try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM passkey WHERE credential_id = ?", arguments: [Data(credentialID)]) != true else {
                throw DomainError.conflict("This passkey is already registered.")
            }
            try db.execute(sql: """
                INSERT INTO passkey (id, credential_id, user_id, name, public_key, sign_count, backup_eligible, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [id, Data(credentialID), userID.description, name, Data(publicKey), Int64(signCount), backupEligible, now.millis])
        }
        return PasskeyRecord(id: id, credentialID: credentialID, userID: userID, name: name, publicKey: publicKey, signCount: signCount,
                             backupEligible: backupEligible, createdAt: Date(millis: now.millis), lastUsedAt: nil)
    }

    /// Removes one of a user's passkeys; false when they have none by that id.
    @discardableResult
    public func removePasskey(of userID: UserID, id: String) throws -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM passkey WHERE user_id = ? AND id = ?", arguments: [userID.description, id])
            return db.changesCount > 0
        }
    }

    /// Removes every passkey of a user; returns how many.
    @discardableResult
    public func removePasskeys(of userID: UserID) throws -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM passkey WHERE user_id = ?", arguments: [userID.description])
            return db.changesCount
        }
    }

    /// After a successful use: the new counter and when.
    public func passkeyUsed(id: String, signCount: UInt32, now: Date) throws {
        try write { db in
            try db.execute(sql: "UPDATE passkey SET sign_count = ?, last_used_at = ? WHERE id = ?", arguments: [Int64(signCount), now.millis, id])
        }
    }

    private static func passkey(_ row: Row) -> PasskeyRecord {
        PasskeyRecord(id: row["id"], credentialID: Array(row["credential_id"] as Data), userID: row.id("user_id"), name: row["name"],
                      publicKey: Array(row["public_key"] as Data), signCount: UInt32(clamping: row["sign_count"] as Int64),
                      backupEligible: row["backup_eligible"], createdAt: row.date("created_at"),
                      lastUsedAt: (row["last_used_at"] as Int64?).map { Date(millis: $0) })
    }

    // MARK: - Challenges

    /// Keeps an issued challenge (base64url) until it is used or expires; expired ones are dropped here, and so are all
    /// but the newest few for the same binding and purpose (asking again and again cannot fill the table).
    public func addPasskeyChallenge(_ challenge: String, purpose: PasskeyPurpose, binding: String, userID: UserID?, now: Date,
                                    expiresAt: Date) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM passkey_challenge WHERE expires_at <= ?", arguments: [now.millis])
            try db.execute(sql: """
                DELETE FROM passkey_challenge WHERE binding = ? AND purpose = ? AND challenge NOT IN (
                    SELECT challenge FROM passkey_challenge WHERE binding = ? AND purpose = ? ORDER BY expires_at DESC LIMIT 4)
                """, arguments: [binding, purpose.rawValue, binding, purpose.rawValue])
            try db.execute(sql: "INSERT INTO passkey_challenge (challenge, purpose, binding, user_id, expires_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [challenge, purpose.rawValue, binding, userID?.description, expiresAt.millis])
        }
    }

    /// Uses up a challenge: true when it was issued for this purpose and binding and has not expired. Used or not,
    /// it is gone afterwards (single use).
    public func consumePasskeyChallenge(_ challenge: String, purpose: PasskeyPurpose, binding: String, now: Date) throws -> Bool {
        try write { db in
            let valid = try Bool.fetchOne(db, sql: """
                SELECT 1 FROM passkey_challenge WHERE challenge = ? AND purpose = ? AND binding = ? AND expires_at > ?
                """, arguments: [challenge, purpose.rawValue, binding, now.millis]) ?? false
            try db.execute(sql: "DELETE FROM passkey_challenge WHERE challenge = ?", arguments: [challenge])
            return valid
        }
    }
}

extension AppDatabase {
    /// An account by id (a passkey names its user).
    public func user(_ id: UserID) throws -> User? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT id, email, display_name, created_at FROM user WHERE id = ?", arguments: [id.description]).map {
                User(id: $0.id("id"), email: $0["email"], displayName: $0["display_name"], createdAt: $0.date("created_at"))
            }
        }
    }
}
