import Foundation
import NestoryAuth
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces

/// Personal API tokens: made in Settings or with `nestory token create`, shown once, sent as `Authorization: Bearer`.
///
/// A token is `nst_` and 32 random bytes (base64url). The database keeps only its SHA-256: with 256 bits of randomness
/// there is nothing to guess or look up, so a salt or a slow hash (bcrypt, as for passwords, which people choose and
/// which are short) would add only cost to every API request; a stolen copy of the database still holds no usable token.
///
/// A token acts as its user in the household it was made for and nothing more: every lookup joins the membership, so
/// removing the member (or revoking the token, or its expiry) ends it at the next request. Its scope (read: GET and
/// HEAD only; write: everything the user may do) is enforced by the web layer in one place (`TokenScopePolicy`).
/// Each token has its own request budget per minute (`RequestBudget`), counted in the store so that every server on it
/// counts the same requests.
public struct TokenService: Sendable {
    let store: any APITokenStore
    let accounts: any AccountStore
    let now: @Sendable () -> Date
    let budget: any RequestBudget
    /// Requests per token per minute (`api.tokenRequestsPerMinute`).
    public let requestsPerMinute: Int
    public static let prefix = "nst_"
    /// How stale `last used` may be before a use writes it again.
    static let touchInterval: TimeInterval = 60

    /// The tokens and accounts in the store the bootstrap chose (any engine).
    public init(store: any APITokenStore, accounts: any AccountStore, budget: any RequestBudget, requestsPerMinute: Int = 600,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.accounts = accounts
        self.budget = budget
        self.requestsPerMinute = max(1, requestsPerMinute)
        self.now = now
    }

    /// On one engine's stores (the command line's).
    public init(stores: Stores, requestsPerMinute: Int = 600, now: @escaping @Sendable () -> Date = Date.init) {
        self.init(store: stores.tokens, accounts: stores.accounts, budget: stores.requestBudget, requestsPerMinute: requestsPerMinute, now: now)
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
        let summary = try await store.createAPIToken(tokenHash: hash, userID: user, householdID: household, name: valid.name, scope: valid.scope,
                                                     now: at, expiresAt: expiresAt)
        return (token, summary)
    }

    /// `nestory token create EMAIL`: the token acts in the account's first household.
    public func create(email: String, name: String, scope: String, expires: CalendarDate?) async throws -> (token: String, summary: APITokenSummary, household: Household) {
        let user = try await account(email)
        guard let membership = try await accounts.memberships(of: user.id).first else {
            throw DomainError.conflict("\(user.email) is not a member of any household.")
        }
        let made = try await create(user: user.id, household: membership.household.id, name: name, scope: scope, expires: expires)
        return (made.token, made.summary, membership.household)
    }

    public func tokens(of user: UserID) async throws -> [APITokenSummary] {
        try await store.apiTokens(of: user)
    }

    public func tokens(email: String) async throws -> [APITokenSummary] {
        try await tokens(of: try await account(email).id)
    }

    /// Revokes one of the user's tokens at once; not found when the user has no such token.
    public func revoke(_ user: UserID, id: String) async throws {
        guard try await store.deleteAPIToken(of: user, id: id) else { throw DomainError.notFound("That token") }
    }

    public func revoke(email: String, id: String) async throws {
        try await revoke(try await account(email).id, id: id)
    }

    /// What a bearer token may act as, or nil when it is unknown, revoked, expired, or its user left the household.
    public func authenticate(_ token: String) async throws -> APITokenAccess? {
        guard token.hasPrefix(Self.prefix), token.count < 200 else { return nil }
        let (at, hash) = (now(), SessionToken.hash(token))
        guard let access = try await store.apiToken(hash: hash, now: at) else { return nil }
        if access.lastUsedAt.map({ at.timeIntervalSince($0) >= Self.touchInterval }) ?? true {
            try await store.touchAPIToken(id: access.id, now: at)
        }
        return access
    }

    /// Counts a request against the token's budget: nil when it may go ahead, else the seconds to wait.
    public func admit(_ access: APITokenAccess) async throws -> Int? {
        try await budget.admit("token:\(access.id)", limit: requestsPerMinute, at: now())
    }

    private func account(_ email: String) async throws -> User {
        guard let (user, _) = try await accounts.userCredentials(email: email) else { throw DomainError.notFound("The account \(email)") }
        return user
    }
}
