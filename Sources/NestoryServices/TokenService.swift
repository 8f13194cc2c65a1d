import Foundation
import NestoryAuth
import NestoryDomain
import NestoryStore

/// Personal API tokens: made in Settings or with `nestory token create`, shown once, sent as `Authorization: Bearer`.
///
/// A token is `nst_` and 32 random bytes (base64url). The database keeps only its SHA-256: with 256 bits of randomness
/// there is nothing to guess or look up, so a salt or a slow hash (bcrypt, as for passwords, which people choose and
/// which are short) would add only cost to every API request; a stolen copy of the database still holds no usable token.
///
/// A token acts as its user in the household it was made for and nothing more: every lookup joins the membership, so
/// removing the member (or revoking the token, or its expiry) ends it at the next request. Its scope (read: GET and
/// HEAD only; write: everything the user may do) is enforced by the web layer in one place (`TokenScopePolicy`).
/// Each token has its own request budget (a sliding window, the same limiter as failed sign-ins).
public struct TokenService: Sendable {
    let database: AppDatabase
    let blocking: BlockingPool
    let now: @Sendable () -> Date
    /// Requests per token per window (`api.tokenRequestsPerMinute`).
    public let limiter: RateLimiter
    public static let prefix = "nst_"
    /// How stale `last used` may be before a use writes it again.
    static let touchInterval: TimeInterval = 60

    public init(database: AppDatabase, blocking: BlockingPool, requestsPerMinute: Int = 600, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.blocking = blocking
        self.now = now
        self.limiter = RateLimiter(limit: max(1, requestsPerMinute), window: 60)
    }

    /// A new token (returned once, in clear) and what the list will show of it.
    public func create(user: UserID, household: HouseholdID, name: String, scope: String, expires: CalendarDate?) async throws
        -> (token: String, summary: APITokenSummary) {
        let at = now()
        let valid = try APITokenRules.validated(name: name, scope: scope, expires: expires, today: CalendarDate(at, in: TimeZone(identifier: "UTC")!))
        let token = Self.prefix + SessionToken.generate()
        let hash = SessionToken.hash(token)
        // A token dated to expire works through that day (UTC).
        let expiresAt = expires.map { Date(timeIntervalSince1970: TimeInterval($0.daysSinceEpoch + 1) * 86_400) }
        let database = database
        let summary = try await blocking.run {
            try database.createAPIToken(tokenHash: hash, userID: user, householdID: household, name: valid.name, scope: valid.scope,
                                        now: at, expiresAt: expiresAt)
        }
        return (token, summary)
    }

    /// `nestory token create EMAIL`: the token acts in the account's first household.
    public func create(email: String, name: String, scope: String, expires: CalendarDate?) async throws -> (token: String, summary: APITokenSummary, household: Household) {
        let user = try account(email)
        guard let membership = try database.memberships(of: user.id).first else {
            throw DomainError.conflict("\(user.email) is not a member of any household.")
        }
        let made = try await create(user: user.id, household: membership.household.id, name: name, scope: scope, expires: expires)
        return (made.token, made.summary, membership.household)
    }

    public func tokens(of user: UserID) async throws -> [APITokenSummary] {
        let database = database
        return try await blocking.run { try database.apiTokens(of: user) }
    }

    public func tokens(email: String) async throws -> [APITokenSummary] {
        try await tokens(of: try account(email).id)
    }

    /// Revokes one of the user's tokens at once; not found when the user has no such token.
    public func revoke(_ user: UserID, id: String) async throws {
        let database = database
        guard try await blocking.run({ try database.deleteAPIToken(of: user, id: id) }) else { throw DomainError.notFound("That token") }
    }

    public func revoke(email: String, id: String) async throws {
        try await revoke(try account(email).id, id: id)
    }

    /// What a bearer token may act as, or nil when it is unknown, revoked, expired, or its user left the household.
    public func authenticate(_ token: String) async throws -> APITokenAccess? {
        guard token.hasPrefix(Self.prefix), token.count < 200 else { return nil }
        let (database, at, hash) = (database, now(), SessionToken.hash(token))
        guard let access = try await blocking.run({ try database.apiToken(hash: hash, now: at) }) else { return nil }
        if access.lastUsedAt.map({ at.timeIntervalSince($0) >= Self.touchInterval }) ?? true {
            try await blocking.run { try database.touchAPIToken(id: access.id, now: at) }
        }
        return access
    }

    /// Counts a request against the token's budget: nil when it may go ahead, else the seconds to wait.
    public func admit(_ access: APITokenAccess) async -> Int? {
        let at = now()
        if let wait = await limiter.retryAfter(access.id, now: at) { return wait }
        await limiter.recordFailure(access.id, now: at)
        return nil
    }

    private func account(_ email: String) throws -> User {
        guard let (user, _) = try database.userCredentials(email: email) else { throw DomainError.notFound("The account \(email)") }
        return user
    }
}
