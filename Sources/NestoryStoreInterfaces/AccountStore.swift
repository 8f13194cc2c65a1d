import Foundation
import NestoryDomain

/// A signed-in session as the web layer sees it.
public struct SessionRecord: Hashable, Sendable {
    public let user: User
    public let csrfToken: String
    public let createdAt: Date
    public let lastSeenAt: Date
    public let expiresAt: Date
    /// The user's theme, for the page's first paint.
    public var theme: Theme = .system
    /// The app lock: the last activity of a person (not of the page's polling), whether the session is locked,
    /// the user's timeout in minutes (0: never) and how many passkeys they have (to offer unlocking with one).
    public var lastActiveAt = Date.distantPast
    public var locked = false
    public var lockMinutes = 0
    public var passkeys = 0

    public init(user: User, csrfToken: String, createdAt: Date, lastSeenAt: Date, expiresAt: Date, theme: Theme = .system,
                lastActiveAt: Date = .distantPast, locked: Bool = false, lockMinutes: Int = 0, passkeys: Int = 0) {
        self.user = user
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
        self.theme = theme
        self.lastActiveAt = lastActiveAt
        self.locked = locked
        self.lockMinutes = lockMinutes
        self.passkeys = passkeys
    }
}

/// Where a new account goes: a household created with it, or one that exists.
public enum AccountHousehold: Sendable {
    /// A new household; `timeZone` its IANA name (nil: the server's clock).
    case new(name: String, currency: CurrencyCode, timeZone: String? = nil)
    case existing(HouseholdID)
}

/// Households, the people in them and their sign-in sessions: one aggregate, because signing in, removing a member
/// and changing a password each touch all three in one transaction.
///
/// Every engine keeps the same rules, which the conformance suite (`Tests/NestoryStoreInterfacesTests`) checks
/// against each: e-mail addresses are unique once normalised; a household keeps at least one owner; removing a
/// member or changing a password ends that person's sessions in the same transaction; an expired session is never
/// returned; times are kept to the millisecond.
public protocol AccountStore: Sendable {
    /// Creates a household with the default rooms and categories.
    func createHousehold(name: String, currency: CurrencyCode, now: Date) async throws -> Household
    func household(_ id: HouseholdID) async throws -> Household
    /// Every household, oldest first.
    func allHouseholds() async throws -> [Household]
    /// The households with this name (`Household.nameMatches`), oldest first: several may share one.
    func households(named name: String) async throws -> [Household]
    /// Renames, changes currency, threshold or time zone (an IANA name already checked, nil: the server's clock).
    func updateHousehold(_ id: HouseholdID, name: String, currency: CurrencyCode, highValueThreshold: Money,
                         timeZone: String?) async throws -> Household

    /// Creates a user and their membership, and the household too when it is new, in one transaction. The first
    /// person in a new household is its owner. With `onlyIfFirst`, the account is made only while there is no
    /// account at all: of two simultaneous set-ups one makes the owner and the other gets a conflict.
    func createAccount(email: String, displayName: String, passwordHash: String, household: AccountHousehold,
                       role: MemberRole, onlyIfFirst: Bool, now: Date) async throws -> (User, Household, MemberRole)
    /// A user and their stored password hash, by e-mail (for sign-in).
    func userCredentials(email: String) async throws -> (user: User, passwordHash: String)?
    /// Adds a member, or changes the role of one who is already in.
    func addMember(_ householdID: HouseholdID, user userID: UserID, role: MemberRole, now: Date) async throws
    /// The households a user belongs to, oldest first, with the role.
    func memberships(of userID: UserID) async throws -> [(household: Household, role: MemberRole)]
    /// The members of a household, owners first, then by e-mail.
    func members(of householdID: HouseholdID) async throws -> [(user: User, role: MemberRole)]
    /// Removes a member and ends their sessions. The last owner cannot be removed.
    func removeMember(_ householdID: HouseholdID, user userID: UserID) async throws
    /// Deletes a household and everything in it (items, rooms, categories, photos, receipts, reports, valuations, jobs,
    /// settings, tokens, memberships) in one transaction, with the account of every member who is in no other household
    /// (their sessions and passkeys end with it). The stored files no other household uses are removed once it has
    /// committed. Returns the accounts deleted. Not found when there is no such household.
    func deleteHousehold(_ householdID: HouseholdID) async throws -> [UserID]
    /// Replaces a user's password hash and ends all their sessions.
    func changePasswordHash(_ userID: UserID, to passwordHash: String) async throws
    /// Whether any account exists yet.
    func hasUsers() async throws -> Bool
    /// Remembers how the user wants the app to look.
    func setTheme(_ userID: UserID, _ theme: Theme) async throws

    /// Records a new session. `tokenHash` is a hash of the cookie's token, never the token itself.
    func createSession(tokenHash: String, userID: UserID, csrfToken: String, now: Date, expiresAt: Date,
                       userAgent: String?) async throws
    /// The live session, its user's first household and role.
    func sessionWithMembership(tokenHash: String, now: Date) async throws -> (session: SessionRecord, household: Household, role: MemberRole)?
    /// Moves a session's expiry forward, unless it was moved in the last minute.
    func touchSession(tokenHash: String, now: Date, expiresAt: Date) async throws
    func deleteSession(tokenHash: String) async throws
    /// Ends every session of a user.
    func deleteSessions(of userID: UserID) async throws
    /// Removes expired sessions.
    func deleteExpiredSessions(now: Date) async throws
    /// A number that grows with every committed change to what `sessionWithMembership` is read from (sessions, users,
    /// passkeys, memberships, households), by any server or process on the store, and with nothing else: a session read
    /// while it held is still true while it holds, so servers keep sessions in memory and see a sign-out, a removal or a
    /// password change made on another server with their next request.
    func accountVersion() async throws -> Int64

    /// Failed attempts to sign in (or to prove who someone is otherwise) under `key` (an account, an e-mail address,
    /// a client address), kept in the store so that every server on it counts the same ones: how many since `since`,
    /// and the oldest of those.
    func signInFailures(_ key: String, since: Date) async throws -> (count: Int, oldest: Date?)
    /// Records one failure under `key` at `at`, and forgets every failure (of any key) before `forgetBefore`.
    func recordSignInFailure(_ key: String, at: Date, forgetBefore: Date) async throws
    /// Forgets the failures under `key` (after a success).
    func clearSignInFailures(_ key: String) async throws

    // MARK: Settings → Security & Privacy: the app lock, a person's sessions, passkeys

    /// An account by id (a passkey names its user).
    func user(_ id: UserID) async throws -> User?
    /// A user's lock timeout in minutes (0: never). Not found when there is no such account.
    func setLockMinutes(_ userID: UserID, _ minutes: Int) async throws
    /// Locks a session (its inactivity passed the timeout, or the page asked).
    func lockSession(tokenHash: String) async throws
    /// Unlocks a session; unlocking counts as activity.
    func unlockSession(tokenHash: String, now: Date) async throws
    /// Records a person's activity on an unlocked session; a locked session, or an earlier time, changes nothing.
    func recordActivity(tokenHash: String, now: Date) async throws
    /// A user's live sessions, the most recently seen first.
    func sessions(of userID: UserID, now: Date) async throws -> [SessionSummary]
    /// Ends one of a user's sessions by its id (`SessionSummary.id`); false when they have none by that id.
    @discardableResult
    func deleteSession(of userID: UserID, id: String) async throws -> Bool
    /// Ends every session of a user but the one with `tokenHash` (signing out everywhere else); returns how many ended.
    @discardableResult
    func deleteSessions(of userID: UserID, except tokenHash: String) async throws -> Int

    /// A user's passkeys, oldest first.
    func passkeys(of userID: UserID) async throws -> [PasskeyRecord]
    /// The passkey with this credential id, whoever's it is.
    func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord?
    /// Stores a new passkey; a credential id already registered (by anyone) is a conflict.
    func addPasskey(userID: UserID, credentialID: [UInt8], name: String, publicKey: [UInt8], signCount: UInt32,
                    backupEligible: Bool, now: Date) async throws -> PasskeyRecord
    /// Removes one of a user's passkeys; false when they have none by that id.
    @discardableResult
    func removePasskey(of userID: UserID, id: String) async throws -> Bool
    /// Removes every passkey of a user; returns how many.
    @discardableResult
    func removePasskeys(of userID: UserID) async throws -> Int
    /// After a successful use: the new counter and when.
    func passkeyUsed(id: String, signCount: UInt32, now: Date) async throws
    /// Keeps an issued challenge (base64url) until it is used or expires. Expired challenges are dropped here, and so
    /// are all but the newest few of the same binding and purpose, so asking again and again cannot fill the store.
    func addPasskeyChallenge(_ challenge: String, purpose: PasskeyPurpose, binding: String, userID: UserID?, now: Date,
                             expiresAt: Date) async throws
    /// Uses a challenge up: true when it was issued for this purpose and binding and has not expired. Used or not, it
    /// is gone afterwards: of two servers consuming one challenge at once, one at most gets true.
    func consumePasskeyChallenge(_ challenge: String, purpose: PasskeyPurpose, binding: String, now: Date) async throws -> Bool
}

/// A signed-in session as the sessions list shows it. `id` is the first 16 hex digits of the token's hash: enough
/// to name it, of no use to sign in with.
public struct SessionSummary: Hashable, Sendable {
    public let id: String
    public let tokenHash: String
    public let createdAt: Date
    public let lastSeenAt: Date
    public let userAgent: String?
    public let locked: Bool

    public init(id: String, tokenHash: String, createdAt: Date, lastSeenAt: Date, userAgent: String?, locked: Bool) {
        (self.id, self.tokenHash, self.createdAt, self.lastSeenAt, self.userAgent, self.locked) =
            (id, tokenHash, createdAt, lastSeenAt, userAgent, locked)
    }
}

/// A passkey (a WebAuthn credential) of a user.
public struct PasskeyRecord: Hashable, Sendable {
    public let id: String
    public let credentialID: [UInt8]
    public let userID: UserID
    public let name: String
    /// The P-256 public key, uncompressed (X9.63).
    public let publicKey: [UInt8]
    public let signCount: UInt32
    public let backupEligible: Bool
    public let createdAt: Date
    public let lastUsedAt: Date?

    public init(id: String, credentialID: [UInt8], userID: UserID, name: String, publicKey: [UInt8], signCount: UInt32,
                backupEligible: Bool, createdAt: Date, lastUsedAt: Date?) {
        (self.id, self.credentialID, self.userID, self.name, self.publicKey, self.signCount, self.backupEligible, self.createdAt,
         self.lastUsedAt) = (id, credentialID, userID, name, publicKey, signCount, backupEligible, createdAt, lastUsedAt)
    }
}

/// What a passkey challenge is for.
public enum PasskeyPurpose: String, Sendable {
    case register, unlock, signin
}
