import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import Testing

/// Personal API tokens behave the same on every engine.
@Suite struct APITokenStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_123)

    func account(_ stores: Stores, _ email: String, household: AccountHousehold) async throws -> (User, Household) {
        let (user, home, _) = try await stores.accounts.createAccount(email: email, displayName: "", passwordHash: "h", household: household,
                                                                      role: .member, onlyIfFirst: false, now: now)
        return (user, home)
    }

    @Test(arguments: Engine.available)
    func aTokenIsFoundByItsHashWithItsUserHouseholdAndRoleAndListedNewestFirst(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let (ana, home) = try await account(stores, "ana@example.com", household: .new(name: "Home", currency: .eur))
            let precise = Date(timeIntervalSince1970: 1_763_800_000.123_756)
            let first = try await stores.tokens.createAPIToken(tokenHash: String(repeating: "a", count: 64), userID: ana.id, householdID: home.id,
                                                               name: "Shortcuts", scope: .read, now: precise, expiresAt: nil)
            #expect(first.createdAt == Date(millis: 1_763_800_000_124) && first.expiresAt == nil && first.lastUsedAt == nil)
            let second = try await stores.tokens.createAPIToken(tokenHash: String(repeating: "b", count: 64), userID: ana.id, householdID: home.id,
                                                                name: "Script", scope: .write, now: now.addingTimeInterval(60),
                                                                expiresAt: now.addingTimeInterval(86_400))
            // Newest first, read back exactly as made.
            #expect(try await stores.tokens.apiTokens(of: ana.id) == [second, first])

            let access = try #require(try await stores.tokens.apiToken(hash: String(repeating: "b", count: 64), now: now.addingTimeInterval(120)))
            #expect(access.id == second.id && access.scope == .write && access.role == .owner && access.lastUsedAt == nil)
            #expect(access.user == ana && access.household == home)
            #expect(try await stores.tokens.apiToken(hash: String(repeating: "c", count: 64), now: now) == nil)

            try await stores.tokens.touchAPIToken(id: second.id, now: now.addingTimeInterval(150))
            #expect(try await stores.tokens.apiToken(hash: String(repeating: "b", count: 64), now: now.addingTimeInterval(160))?.lastUsedAt
                    == now.addingTimeInterval(150))
            #expect(try await stores.tokens.apiTokens(of: ana.id).first?.lastUsedAt == now.addingTimeInterval(150))
        }
    }

    @Test(arguments: Engine.available)
    func aTokenStopsWorkingWhenItExpires(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let (ana, home) = try await account(stores, "ana@example.com", household: .new(name: "Home", currency: .usd))
            let expiry = now.addingTimeInterval(3_600)
            _ = try await stores.tokens.createAPIToken(tokenHash: "hash-1", userID: ana.id, householdID: home.id, name: "Short", scope: .read,
                                                       now: now, expiresAt: expiry)
            #expect(try await stores.tokens.apiToken(hash: "hash-1", now: expiry.addingTimeInterval(-0.001)) != nil)
            #expect(try await stores.tokens.apiToken(hash: "hash-1", now: expiry) == nil)
            // Still listed, so its owner sees that it expired.
            #expect(try await stores.tokens.apiTokens(of: ana.id).map(\.expiresAt) == [expiry])
        }
    }

    @Test(arguments: Engine.available)
    func aTokenEndsWithItsMembershipAndEachUserRevokesOnlyTheirOwn(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let (ana, home) = try await account(stores, "ana@example.com", household: .new(name: "Home", currency: .usd))
            let (bea, _) = try await account(stores, "bea@example.com", household: .existing(home.id))
            let (cal, away) = try await account(stores, "cal@example.com", household: .new(name: "Away", currency: .usd))
            let beas = try await stores.tokens.createAPIToken(tokenHash: "bea-hash", userID: bea.id, householdID: home.id, name: "Bea's",
                                                              scope: .write, now: now, expiresAt: nil)
            let anas = try await stores.tokens.createAPIToken(tokenHash: "ana-hash", userID: ana.id, householdID: home.id, name: "Ana's",
                                                              scope: .write, now: now, expiresAt: nil)
            _ = try await stores.tokens.createAPIToken(tokenHash: "cal-hash", userID: cal.id, householdID: away.id, name: "Cal's",
                                                       scope: .read, now: now, expiresAt: nil)
            #expect(try await stores.tokens.apiToken(hash: "bea-hash", now: now)?.role == .member)
            #expect(try await stores.tokens.apiTokens(of: bea.id).map(\.id) == [beas.id])
            #expect(try await stores.tokens.apiToken(hash: "cal-hash", now: now)?.household.id == away.id)

            // Another user's token, or no such id, is not revoked.
            #expect(try await stores.tokens.deleteAPIToken(of: bea.id, id: anas.id) == false)
            #expect(try await stores.tokens.deleteAPIToken(of: bea.id, id: "not-an-id") == false)
            #expect(try await stores.tokens.apiToken(hash: "ana-hash", now: now) != nil)
            #expect(try await stores.tokens.deleteAPIToken(of: ana.id, id: anas.id))
            #expect(try await stores.tokens.apiToken(hash: "ana-hash", now: now) == nil)
            #expect(try await stores.tokens.deleteAPIToken(of: ana.id, id: anas.id) == false)

            // Bea leaves the household: her token acts nowhere, though its row stays until revoked.
            try await stores.accounts.removeMember(home.id, user: bea.id)
            #expect(try await stores.tokens.apiToken(hash: "bea-hash", now: now) == nil)
            #expect(try await stores.tokens.apiTokens(of: bea.id).map(\.id) == [beas.id])
            #expect(try await stores.tokens.apiToken(hash: "cal-hash", now: now) != nil)
        }
    }
}
