import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import Testing
@testable import NestoryWeb

/// Signed-in sessions kept in memory while the account version holds (`AccountStore.accountVersion`).
@Suite struct SessionCacheTests {
    let now = Date(millis: 1_763_800_000_000)

    func found(expiresIn seconds: TimeInterval = 3600) -> SessionCache.Found {
        let user = User(email: "ana@example.com", displayName: "Ana", createdAt: now)
        let session = SessionRecord(user: user, csrfToken: "c", createdAt: now, lastSeenAt: now, expiresAt: now.addingTimeInterval(seconds))
        return (session, Household(name: "Home", currency: .usd, createdAt: now), .owner)
    }

    /// Looks `token` up through the cache, counting the store's reads.
    final class Store: @unchecked Sendable {
        var version: Int64 = 1
        var versionReads = 0
        var lookups = 0
        var answer: SessionCache.Found?
    }

    func session(_ cache: SessionCache, _ store: Store, committed: Int64?, token: String = "t1", at: Date? = nil) async throws -> SessionCache.Found? {
        try await cache.session(tokenHash: token, now: at ?? now, committed: committed,
                                accountVersion: { store.versionReads += 1; return store.version },
                                lookup: { store.lookups += 1; return store.answer })
    }

    @Test func aSessionIsLookedUpAgainOnlyWhenTheAccountsChange() async throws {
        let cache = SessionCache()
        let store = Store()
        store.answer = found()
        #expect(try await session(cache, store, committed: 10) != nil)
        #expect(store.lookups == 1)
        // Nothing committed since: neither the version nor the session is read.
        #expect(try await session(cache, store, committed: 10) != nil)
        #expect(store.lookups == 1 && store.versionReads == 1)
        // Something else committed (an item, a photo): the version is read once, the session is not.
        #expect(try await session(cache, store, committed: 11) != nil)
        #expect(try await session(cache, store, committed: 11) != nil)
        #expect(store.lookups == 1 && store.versionReads == 2)
        // The accounts changed (a sign-out, a removal, a password): looked up again, and now it is gone.
        store.version = 2
        store.answer = nil
        #expect(try await session(cache, store, committed: 12) == nil)
        #expect(store.lookups == 2)
    }

    @Test func withoutACommitCounterTheVersionIsReadEveryTime() async throws {
        // PostgreSQL: no store-wide counter, so every request reads the version (one row) instead of the session.
        let cache = SessionCache()
        let store = Store()
        store.answer = found()
        for _ in 0..<3 { #expect(try await session(cache, store, committed: nil) != nil) }
        #expect(store.lookups == 1 && store.versionReads == 3)
        // Another server ended it.
        store.version = 5
        store.answer = nil
        #expect(try await session(cache, store, committed: nil) == nil)
    }

    @Test func anExpiredSessionIsNeverServedFromTheCache() async throws {
        let cache = SessionCache()
        let store = Store()
        store.answer = found(expiresIn: 60)
        #expect(try await session(cache, store, committed: 1) != nil)
        store.answer = nil
        #expect(try await session(cache, store, committed: 1, at: now.addingTimeInterval(61)) == nil)
        #expect(store.lookups == 2)
    }

    @Test func whatWasLookedUpWhileTheAccountsChangedIsNotKept() async throws {
        let cache = SessionCache()
        let store = Store()
        store.answer = found()
        // The version moves between reading it and the lookup (another server signs the person out meanwhile).
        _ = try await cache.session(tokenHash: "t1", now: now, committed: nil, accountVersion: { store.version },
                                    lookup: { store.version = 2; return store.answer })
        store.answer = nil
        #expect(try await session(cache, store, committed: nil) == nil)
    }
}
