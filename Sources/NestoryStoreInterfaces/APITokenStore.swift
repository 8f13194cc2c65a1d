import Foundation
import NestoryDomain

/// A live token found by its hash: the user, the household it acts in (the user must still be a member), the role.
public struct APITokenAccess: Hashable, Sendable {
    public let id: String
    public let scope: TokenScope
    public let user: User
    public let household: Household
    public let role: MemberRole
    public let lastUsedAt: Date?

    public init(id: String, scope: TokenScope, user: User, household: Household, role: MemberRole, lastUsedAt: Date?) {
        (self.id, self.scope, self.user, self.household, self.role, self.lastUsedAt) = (id, scope, user, household, role, lastUsedAt)
    }
}

/// Personal API tokens, kept only as the SHA-256 of the token (hex, as the caller gives it), so that a token made on
/// one server works on every server of the same store.
///
/// Every engine keeps the same rules (checked by the conformance suite): a token is found by its hash only while it
/// has not expired and its user is still a member of its household; a user sees and revokes only their own tokens,
/// newest first; times are kept to the millisecond.
public protocol APITokenStore: Sendable {
    /// Records a new token. `tokenHash` is the SHA-256 of the token, never the token itself.
    func createAPIToken(tokenHash: String, userID: UserID, householdID: HouseholdID, name: String, scope: TokenScope,
                        now: Date, expiresAt: Date?) async throws -> APITokenSummary
    /// A user's tokens, newest first (expired ones too, until revoked, so the list says they expired).
    func apiTokens(of userID: UserID) async throws -> [APITokenSummary]
    /// Deletes one of the user's tokens; false when the user has no such token.
    func deleteAPIToken(of userID: UserID, id: String) async throws -> Bool
    /// The live token with this hash: not expired, and its user still a member of its household.
    func apiToken(hash: String, now: Date) async throws -> APITokenAccess?
    /// Records a token's use (callers skip it when the last use is recent, so reads do not all become writes).
    func touchAPIToken(id: String, now: Date) async throws
}
