import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

/// Households, members and sessions on SQLite, as the async interface the services call: each call runs the store's
/// own method off the caller's thread (`AppDatabase.offload`). Code that still holds the concrete `AppDatabase` calls
/// the same methods synchronously.
public struct SQLiteAccountStore: AccountStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    private func run<T: Sendable>(_ body: @escaping @Sendable (AppDatabase) throws -> T) async throws -> T {
        try await database.offload(body)
    }

    public func createHousehold(name: String, currency: CurrencyCode, now: Date) async throws -> Household {
        try await run { try $0.createHousehold(name: name, currency: currency, now: now) }
    }
    public func household(_ id: HouseholdID) async throws -> Household { try await run { try $0.household(id) } }
    public func allHouseholds() async throws -> [Household] { try await run { try $0.allHouseholds() } }
    public func households(named name: String) async throws -> [Household] { try await run { try $0.households(named: name) } }
    public func updateHousehold(_ id: HouseholdID, name: String, currency: CurrencyCode, highValueThreshold: Money,
                                timeZone: String?) async throws -> Household {
        try await run { try $0.updateHousehold(id, name: name, currency: currency, highValueThreshold: highValueThreshold, timeZone: timeZone) }
    }
    public func createAccount(email: String, displayName: String, passwordHash: String, household: AccountHousehold,
                              role: MemberRole, onlyIfFirst: Bool, now: Date) async throws -> (User, Household, MemberRole) {
        try await run {
            try $0.createAccount(email: email, displayName: displayName, passwordHash: passwordHash, household: household, role: role,
                                 onlyIfFirst: onlyIfFirst, now: now)
        }
    }
    public func userCredentials(email: String) async throws -> (user: User, passwordHash: String)? {
        try await run { try $0.userCredentials(email: email) }
    }
    public func addMember(_ householdID: HouseholdID, user userID: UserID, role: MemberRole, now: Date) async throws {
        try await run { try $0.addMember(householdID, user: userID, role: role, now: now) }
    }
    public func memberships(of userID: UserID) async throws -> [(household: Household, role: MemberRole)] {
        try await run { try $0.memberships(of: userID) }
    }
    public func members(of householdID: HouseholdID) async throws -> [(user: User, role: MemberRole)] {
        try await run { try $0.members(of: householdID) }
    }
    public func removeMember(_ householdID: HouseholdID, user userID: UserID) async throws {
        try await run { try $0.removeMember(householdID, user: userID) }
    }
    public func deleteHousehold(_ householdID: HouseholdID) async throws -> [UserID] {
        try await run { try $0.deleteHousehold(householdID) }
    }
    public func changePasswordHash(_ userID: UserID, to passwordHash: String) async throws {
        try await run { try $0.changePasswordHash(userID, to: passwordHash) }
    }
    public func hasUsers() async throws -> Bool { try await run { try $0.hasUsers() } }
    public func setTheme(_ userID: UserID, _ theme: Theme) async throws { try await run { try $0.setTheme(userID, theme) } }
    public func createSession(tokenHash: String, userID: UserID, csrfToken: String, now: Date, expiresAt: Date,
                              userAgent: String?) async throws {
        try await run {
            try $0.createSession(tokenHash: tokenHash, userID: userID, csrfToken: csrfToken, now: now, expiresAt: expiresAt, userAgent: userAgent)
        }
    }
    public func sessionWithMembership(tokenHash: String, now: Date) async throws -> (session: SessionRecord, household: Household, role: MemberRole)? {
        try await run { try $0.sessionWithMembership(tokenHash: tokenHash, now: now) }
    }
    public func touchSession(tokenHash: String, now: Date, expiresAt: Date) async throws {
        try await run { try $0.touchSession(tokenHash: tokenHash, now: now, expiresAt: expiresAt) }
    }
    public func deleteSession(tokenHash: String) async throws { try await run { try $0.deleteSession(tokenHash: tokenHash) } }
    public func deleteSessions(of userID: UserID) async throws { try await run { try $0.deleteSessions(of: userID) } }
    public func deleteExpiredSessions(now: Date) async throws { try await run { try $0.deleteExpiredSessions(now: now) } }
    public func accountVersion() async throws -> Int64 { try await run { try $0.accountVersion() } }
    public func signInFailures(_ key: String, since: Date) async throws -> (count: Int, oldest: Date?) {
        try await run { try $0.signInFailures(key, since: since) }
    }
    public func recordSignInFailure(_ key: String, at: Date, forgetBefore: Date) async throws {
        try await run { try $0.recordSignInFailure(key, at: at, forgetBefore: forgetBefore) }
    }
    public func clearSignInFailures(_ key: String) async throws { try await run { try $0.clearSignInFailures(key) } }

    public func user(_ id: UserID) async throws -> User? { try await run { try $0.user(id) } }
    public func setLockMinutes(_ userID: UserID, _ minutes: Int) async throws { try await run { try $0.setLockMinutes(userID, minutes) } }
    public func lockSession(tokenHash: String) async throws { try await run { try $0.lockSession(tokenHash: tokenHash) } }
    public func unlockSession(tokenHash: String, now: Date) async throws { try await run { try $0.unlockSession(tokenHash: tokenHash, now: now) } }
    public func recordActivity(tokenHash: String, now: Date) async throws { try await run { try $0.recordActivity(tokenHash: tokenHash, now: now) } }
    public func sessions(of userID: UserID, now: Date) async throws -> [SessionSummary] { try await run { try $0.sessions(of: userID, now: now) } }
    @discardableResult
    public func deleteSession(of userID: UserID, id: String) async throws -> Bool { try await run { try $0.deleteSession(of: userID, id: id) } }
    @discardableResult
    public func deleteSessions(of userID: UserID, except tokenHash: String) async throws -> Int {
        try await run { try $0.deleteSessions(of: userID, except: tokenHash) }
    }
    public func passkeys(of userID: UserID) async throws -> [PasskeyRecord] { try await run { try $0.passkeys(of: userID) } }
    public func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord? { try await run { try $0.passkey(credentialID: credentialID) } }
    public func addPasskey(userID: UserID, credentialID: [UInt8], name: String, publicKey: [UInt8], signCount: UInt32,
                           backupEligible: Bool, now: Date) async throws -> PasskeyRecord {
        try await run {
            try $0.addPasskey(userID: userID, credentialID: credentialID, name: name, publicKey: publicKey, signCount: signCount,
                              backupEligible: backupEligible, now: now)
        }
    }
    @discardableResult
    public func removePasskey(of userID: UserID, id: String) async throws -> Bool { try await run { try $0.removePasskey(of: userID, id: id) } }
    @discardableResult
    public func removePasskeys(of userID: UserID) async throws -> Int { try await run { try $0.removePasskeys(of: userID) } }
    public func passkeyUsed(id: String, signCount: UInt32, now: Date) async throws {
        try await run { try $0.passkeyUsed(id: id, signCount: signCount, now: now) }
    }
    public func addPasskeyChallenge(_ challenge: String, purpose: PasskeyPurpose, binding: String, userID: UserID?, now: Date,
                                    expiresAt: Date) async throws {
        try await run {
            try $0.addPasskeyChallenge(challenge, purpose: purpose, binding: binding, userID: userID, now: now, expiresAt: expiresAt)
        }
    }
    public func consumePasskeyChallenge(_ challenge: String, purpose: PasskeyPurpose, binding: String, now: Date) async throws -> Bool {
        try await run { try $0.consumePasskeyChallenge(challenge, purpose: purpose, binding: binding, now: now) }
    }
}

/// SQLite can say for free whether anything was committed since an earlier look (`PRAGMA data_version`).
extension SQLiteAccountStore: CommitCounter {
    public func commitCount() throws -> Int64 { try database.dataVersion() }
}

extension AppDatabase {
    /// Records a new session. `tokenHash` is a hash of the cookie's token, never the token itself.
    /// `userAgent` is the browser's, kept (at most 300 characters) for the sessions list.
    public func createSession(tokenHash: String, userID: UserID, csrfToken: String, now: Date, expiresAt: Date,
                              userAgent: String? = nil) throws {
        try write { db in
            try db.execute(sql: """
                INSERT INTO session (token_hash, user_id, csrf_token, created_at, last_seen_at, last_active_at, expires_at, user_agent)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [tokenHash, userID.description, csrfToken, now.millis, now.millis, now.millis, expiresAt.millis,
                                 userAgent.map { String($0.prefix(300)) }])
        }
    }

    /// The live session, its user's first household and role, in one query (every request asks).
    public func sessionWithMembership(tokenHash: String, now: Date) throws -> (session: SessionRecord, household: Household, role: MemberRole)? {
        try read { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT s.csrf_token, s.created_at, s.last_seen_at, s.expires_at, s.last_active_at, s.locked,
                       u.id AS user_id, u.email, u.display_name, u.created_at AS user_created_at, u.theme, u.lock_minutes,
                       (SELECT COUNT(*) FROM passkey p WHERE p.user_id = u.id) AS passkeys,
                       m.role, h.*
                FROM session s JOIN user u ON u.id = s.user_id
                JOIN membership m ON m.user_id = u.id JOIN household h ON h.id = m.household_id
                WHERE s.token_hash = ? AND s.expires_at > ?
                ORDER BY h.created_at LIMIT 1
                """), arguments: [tokenHash, now.millis]) else { return nil }
            let user = User(id: row.id("user_id"), email: row["email"], displayName: row["display_name"], createdAt: row.date("user_created_at"))
            let session = SessionRecord(user: user, csrfToken: row["csrf_token"], createdAt: row.date("created_at"),
                                        lastSeenAt: row.date("last_seen_at"), expiresAt: row.date("expires_at"),
                                        theme: Theme(rawValue: row["theme"] ?? "") ?? .system, lastActiveAt: row.date("last_active_at"),
                                        locked: row["locked"], lockMinutes: row["lock_minutes"], passkeys: row["passkeys"])
            return (session, Self.householdFrom(row), MemberRole(rawValue: row["role"]) ?? .member)
        }
    }

    /// Remembers how the user wants the app to look.
    public func setTheme(_ userID: UserID, _ theme: Theme) throws {
        try write { db in
            try db.execute(sql: "UPDATE user SET theme = ? WHERE id = ?", arguments: [theme.rawValue, userID.description])
            guard db.changesCount == 1 else { throw DomainError.notFound("The account") }
        }
    }

    /// Moves a session's expiry forward (sliding expiry). Callers skip it when `lastSeenAt` is recent,
    /// so a busy client does not turn every read into a write.
    public func touchSession(tokenHash: String, now: Date, expiresAt: Date) throws {
        try write { db in
            try db.execute(sql: "UPDATE session SET last_seen_at = ?, expires_at = ? WHERE token_hash = ? AND last_seen_at < ?",
                           arguments: [now.millis, expiresAt.millis, tokenHash, now.millis - 60_000])
        }
    }

    public func deleteSession(tokenHash: String) throws {
        try write { db in try db.execute(sql: "DELETE FROM session WHERE token_hash = ?", arguments: [tokenHash]) }
    }

    /// Ends every session of a user (password changed, removed from a household).
    public func deleteSessions(of userID: UserID) throws {
        try write { db in try db.execute(sql: "DELETE FROM session WHERE user_id = ?", arguments: [userID.description]) }
    }

    /// Replaces a user's password hash and ends all their sessions, in one transaction.
    public func changePasswordHash(_ userID: UserID, to passwordHash: String) throws {
        try write { db in
            try db.execute(sql: "UPDATE user SET password_hash = ? WHERE id = ?", arguments: [passwordHash, userID.description])
            guard db.changesCount == 1 else { throw DomainError.notFound("The account") }
            try db.execute(sql: "DELETE FROM session WHERE user_id = ?", arguments: [userID.description])
        }
    }

    /// Removes a member from a household and ends their sessions. The last owner cannot be removed.
    public func removeMember(_ householdID: HouseholdID, user userID: UserID) throws {
        try write { db in
            guard let role = try String.fetchOne(db, sql: "SELECT role FROM membership WHERE household_id = ? AND user_id = ?",
                                                 arguments: [householdID.description, userID.description]) else {
                throw DomainError.notFound("The member")
            }
            if role == MemberRole.owner.rawValue {
                let owners = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM membership WHERE household_id = ? AND role = 'owner'",
                                              arguments: [householdID.description]) ?? 0
                if owners <= 1 { throw DomainError.conflict("A household needs at least one owner.") }
            }
            try db.execute(sql: "DELETE FROM membership WHERE household_id = ? AND user_id = ?",
                           arguments: [householdID.description, userID.description])
            try db.execute(sql: "DELETE FROM session WHERE user_id = ?", arguments: [userID.description])
        }
    }

    /// See `AccountStore.deleteHousehold`.
    public func deleteHousehold(_ householdID: HouseholdID) throws -> [UserID] {
        let id = householdID.description
        var (files, reportFiles, removed): ([String], [String], [UserID]) = ([], [], [])
        try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM household WHERE id = ?)", arguments: [id]) == true else {
                throw DomainError.notFound("The household")
            }
            let members = try String.fetchAll(db, sql: "SELECT user_id FROM membership WHERE household_id = ?", arguments: [id])
            files = try String.fetchAll(db, sql: """
                SELECT sha256 FROM item_photo WHERE household_id = ?1 UNION SELECT sha256 FROM receipt WHERE household_id = ?1
                UNION SELECT sha256 FROM valuation_intake WHERE household_id = ?1
                """, arguments: [id])
            reportFiles = try String.fetchAll(db, sql: "SELECT file_name FROM report WHERE household_id = ?", arguments: [id])
            // The rows whose triggers keep counters first, as a restore's replace removes them; the rest go with the household.
            for table in ["report", "receipt", "item", "room", "category"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE household_id = ?", arguments: [id])
            }
            try db.execute(sql: "DELETE FROM household WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM item_list_version WHERE household_id = ?", arguments: [id])
            for member in members where try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM membership WHERE user_id = ?)",
                                                          arguments: [member]) != true {
                try db.execute(sql: "DELETE FROM user WHERE id = ?", arguments: [member])
                if let user = UserID(string: member) { removed.append(user) }
            }
        }
        // After the commit: a failed removal leaves an unused file for the next sweep, never a record without its file.
        try removeUnreferencedBlobs(files)
        removeReportFiles(reportFiles)
        return removed
    }

    /// Whether any account exists yet (first run shows the set-up page).
    public func hasUsers() throws -> Bool {
        try read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM user)") ?? false }
    }

    /// Removes expired sessions.
    public func deleteExpiredSessions(now: Date) throws {
        try write { db in try db.execute(sql: "DELETE FROM session WHERE expires_at <= ?", arguments: [now.millis]) }
    }

    /// See `AccountStore.signInFailures`.
    public func signInFailures(_ key: String, since: Date) throws -> (count: Int, oldest: Date?) {
        try read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*), min(at) FROM sign_in_failure WHERE key = ? AND at > ?",
                                       arguments: [key, since.millis])
            return (row?[0] ?? 0, (row?[1] as Int64?).map(Date.init(millis:)))
        }
    }

    public func recordSignInFailure(_ key: String, at: Date, forgetBefore: Date) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM sign_in_failure WHERE at <= ?", arguments: [forgetBefore.millis])
            try db.execute(sql: "INSERT INTO sign_in_failure (key, at) VALUES (?, ?)", arguments: [key, at.millis])
        }
    }

    public func clearSignInFailures(_ key: String) throws {
        try write { db in try db.execute(sql: "DELETE FROM sign_in_failure WHERE key = ?", arguments: [key]) }
    }
}

/// Tells whether anything was committed to the database since an earlier look, by any connection of
/// this process or by another process (the command line changing a password, say): SQLite's
/// `PRAGMA data_version` on a connection of its own that never writes. Opened on first use.
final class ChangeMonitor: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var queue: DatabaseQueue?
    private var closed = false

    init(path: String) {
        self.path = path
    }

    func version() throws -> Int64 {
        try lock.withLock {
            if queue == nil {
                guard !closed else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database is closed") }
                var configuration = Configuration()
                configuration.readonly = true
                configuration.busyMode = .timeout(1)
                queue = try DatabaseQueue(path: path, configuration: configuration)
            }
            return try queue!.inDatabase { db in try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0 }
        }
    }

    func close() throws {
        try lock.withLock {
            closed = true
            try queue?.close()
            queue = nil
        }
    }
}

extension AppDatabase {
    /// The number that grows with every change to sessions, users, passkeys, memberships and households, by any writer
    /// (Migrations.accountVersion): a session looked up while it held is still what the database says while it holds.
    public func accountVersion() throws -> Int64 {
        try read { db in try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM account_version WHERE id = 1")) ?? 0 }
    }

    /// A number that changes whenever anything is committed to the database, by this process or any
    /// other; the same number twice means nothing was committed in between. For caches of what the
    /// database says (such as signed-in sessions) that must not outlive a change.
    public func dataVersion() throws -> Int64 {
        do { return try changes.version() } catch { throw StoreError.translate(error, path: folder.path) }
    }
}
