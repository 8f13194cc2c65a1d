import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import Testing

/// Settings → Security & Privacy's store calls (the app lock, a person's sessions, passkeys and their challenges)
/// behave the same on every engine.
@Suite struct SecurityStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_123)

    func person(_ store: any AccountStore, _ email: String, household: AccountHousehold = .new(name: "Home", currency: .usd))
        async throws -> (User, Household) {
        let (user, home, _) = try await store.createAccount(email: email, displayName: email, passwordHash: "h", household: household,
                                                            role: .member, onlyIfFirst: false, now: now)
        return (user, home)
    }

    /// A token hash as the web makes them: 64 hex digits.
    func hash(_ pair: String) -> String { String(repeating: pair, count: 32) }

    @Test(arguments: Engine.available)
    func theLockTimeoutLockingAndActivityReadBackThroughTheSession(engine: Engine) async throws {
        try await withStore(engine) { store in
            let (ana, _) = try await person(store, "ana@example.com")
            let token = hash("a1")
            try await store.createSession(tokenHash: token, userID: ana.id, csrfToken: "c", now: now, expiresAt: now.addingTimeInterval(3600),
                                          userAgent: nil)
            func session() async throws -> SessionRecord { try #require(try await store.sessionWithMembership(tokenHash: token, now: now)).session }
            #expect(try await session().lockMinutes == 0)
            #expect(try await session().lastActiveAt == now)

            try await store.setLockMinutes(ana.id, 15)
            #expect(try await session().lockMinutes == 15)
            await #expect(throws: DomainError.notFound("The account")) { try await store.setLockMinutes(UserID(), 5) }

            try await store.recordActivity(tokenHash: token, now: now.addingTimeInterval(10))
            #expect(try await session().lastActiveAt == now.addingTimeInterval(10))
            try await store.recordActivity(tokenHash: token, now: now.addingTimeInterval(5))  // an earlier time does not go back
            #expect(try await session().lastActiveAt == now.addingTimeInterval(10))

            try await store.lockSession(tokenHash: token)
            #expect(try await session().locked)
            try await store.recordActivity(tokenHash: token, now: now.addingTimeInterval(20))  // no activity while locked
            #expect(try await session().lastActiveAt == now.addingTimeInterval(10))
            #expect(try await session().locked)

            try await store.unlockSession(tokenHash: token, now: now.addingTimeInterval(30))
            #expect(try await session().locked == false)
            #expect(try await session().lastActiveAt == now.addingTimeInterval(30))
        }
    }

    @Test(arguments: Engine.available)
    func aPersonsSessionsAreListedNewestSeenFirstAndEndedOnlyByThem(engine: Engine) async throws {
        try await withStore(engine) { store in
            let (ana, home) = try await person(store, "ana@example.com")
            let (bea, _) = try await person(store, "bea@example.com", household: .existing(home.id))
            let later = now.addingTimeInterval(3600)
            try await store.createSession(tokenHash: hash("a1"), userID: ana.id, csrfToken: "c", now: now, expiresAt: later, userAgent: "Phone")
            try await store.createSession(tokenHash: hash("a2"), userID: ana.id, csrfToken: "c", now: now.addingTimeInterval(-120),
                                          expiresAt: later, userAgent: nil)
            try await store.createSession(tokenHash: hash("a3"), userID: ana.id, csrfToken: "c", now: now.addingTimeInterval(-7200),
                                          expiresAt: now.addingTimeInterval(-1), userAgent: "Expired")
            try await store.createSession(tokenHash: hash("b1"), userID: bea.id, csrfToken: "c", now: now, expiresAt: later, userAgent: nil)
            try await store.lockSession(tokenHash: hash("a2"))
            // a2 is seen again after a1 was made: it comes first.
            try await store.touchSession(tokenHash: hash("a2"), now: now.addingTimeInterval(60), expiresAt: later)

            let listed = try await store.sessions(of: ana.id, now: now.addingTimeInterval(60))
            #expect(listed == [
                SessionSummary(id: String(repeating: "a2", count: 8), tokenHash: hash("a2"), createdAt: now.addingTimeInterval(-120),
                               lastSeenAt: now.addingTimeInterval(60), userAgent: nil, locked: true),
                SessionSummary(id: String(repeating: "a1", count: 8), tokenHash: hash("a1"), createdAt: now, lastSeenAt: now,
                               userAgent: "Phone", locked: false),
            ])

            // Another person's session, a malformed id, a prefix too short: nothing ends.
            #expect(try await store.deleteSession(of: ana.id, id: String(repeating: "b1", count: 8)) == false)
            #expect(try await store.deleteSession(of: ana.id, id: "a1a1a1a1") == false)
            #expect(try await store.deleteSession(of: ana.id, id: "a1a1a1a1a1a1a1a'") == false)
            #expect(try await store.deleteSession(of: ana.id, id: String(repeating: "a1", count: 8)))
            #expect(try await store.sessions(of: ana.id, now: now).map(\.tokenHash) == [hash("a2")])
            #expect(try await store.sessionWithMembership(tokenHash: hash("a1"), now: now) == nil)

            // Everywhere else: the expired a3 goes too; a2 (kept) and Bea's stay.
            #expect(try await store.deleteSessions(of: ana.id, except: hash("a2")) == 1)
            #expect(try await store.deleteSessions(of: ana.id, except: hash("a2")) == 0)
            #expect(try await store.sessions(of: ana.id, now: now).map(\.tokenHash) == [hash("a2")])
            #expect(try await store.sessions(of: bea.id, now: now).map(\.tokenHash) == [hash("b1")])
            #expect(try await store.deleteSessions(of: ana.id, except: "") == 1)
            #expect(try await store.sessions(of: ana.id, now: now).isEmpty)
        }
    }

    @Test(arguments: Engine.available)
    func passkeysAreOnePersonsAndACredentialIsRegisteredOnce(engine: Engine) async throws {
        try await withStore(engine) { store in
            let (ana, home) = try await person(store, "ana@example.com")
            let (bea, _) = try await person(store, "bea@example.com", household: .existing(home.id))
            #expect(try await store.user(ana.id) == ana)
            #expect(try await store.user(UserID()) == nil)

            let phone = try await store.addPasskey(userID: ana.id, credentialID: [1, 2, 3], name: "Ana’s phone", publicKey: [4, 5, 6, 0, 255],
                                                   signCount: 3, backupEligible: true, now: now)
            #expect(phone.lastUsedAt == nil)
            #expect(UUID(uuidString: phone.id) != nil && phone.id == phone.id.lowercased())
            await #expect(throws: DomainError.conflict("This passkey is already registered.")) {
                try await store.addPasskey(userID: bea.id, credentialID: [1, 2, 3], name: "Bea’s", publicKey: [9], signCount: 0,
                                           backupEligible: false, now: now)
            }
            let older = try await store.addPasskey(userID: ana.id, credentialID: [7], name: "Key", publicKey: [8], signCount: 0,
                                                   backupEligible: false, now: now.addingTimeInterval(-60))
            #expect(try await store.passkeys(of: ana.id) == [older, phone])
            #expect(try await store.passkeys(of: bea.id).isEmpty)
            #expect(try await store.passkey(credentialID: [1, 2, 3]) == phone)
            #expect(try await store.passkey(credentialID: [1, 2]) == nil)

            try await store.passkeyUsed(id: phone.id, signCount: 9, now: now.addingTimeInterval(5))
            let used = try #require(try await store.passkey(credentialID: [1, 2, 3]))
            #expect(used.signCount == 9)
            #expect(used.lastUsedAt == now.addingTimeInterval(5))
            try await store.passkeyUsed(id: "not an id", signCount: 1, now: now)  // nothing to change, no error

            try await store.createSession(tokenHash: hash("a1"), userID: ana.id, csrfToken: "c", now: now, expiresAt: now.addingTimeInterval(60),
                                          userAgent: nil)
            #expect(try await store.sessionWithMembership(tokenHash: hash("a1"), now: now)?.session.passkeys == 2)

            #expect(try await store.removePasskey(of: bea.id, id: phone.id) == false)
            #expect(try await store.removePasskey(of: ana.id, id: "not an id") == false)
            #expect(try await store.removePasskey(of: ana.id, id: older.id))
            #expect(try await store.removePasskey(of: ana.id, id: older.id) == false)
            #expect(try await store.passkeys(of: ana.id) == [used])
            _ = try await store.addPasskey(userID: ana.id, credentialID: [10], name: "Third", publicKey: [1], signCount: 0,
                                           backupEligible: false, now: now)
            #expect(try await store.removePasskeys(of: bea.id) == 0)
            #expect(try await store.removePasskeys(of: ana.id) == 2)
            #expect(try await store.passkeys(of: ana.id).isEmpty)
            #expect(try await store.sessionWithMembership(tokenHash: hash("a1"), now: now)?.session.passkeys == 0)
        }
    }

    @Test(arguments: Engine.available)
    func aChallengeIsUsedOnceForWhatItWasIssuedForBeforeItExpires(engine: Engine) async throws {
        try await withStore(engine) { store in
            let (ana, _) = try await person(store, "ana@example.com")
            let expires = now.addingTimeInterval(300)
            try await store.addPasskeyChallenge("c1", purpose: .register, binding: "s1", userID: ana.id, now: now, expiresAt: expires)
            // Asked for another purpose or binding: refused, and used up all the same.
            #expect(try await store.consumePasskeyChallenge("c1", purpose: .unlock, binding: "s1", now: now) == false)
            #expect(try await store.consumePasskeyChallenge("c1", purpose: .register, binding: "s1", now: now) == false)
            try await store.addPasskeyChallenge("c2", purpose: .signin, binding: "attempt", userID: nil, now: now, expiresAt: expires)
            #expect(try await store.consumePasskeyChallenge("c2", purpose: .signin, binding: "other", now: now) == false)
            try await store.addPasskeyChallenge("c3", purpose: .signin, binding: "attempt", userID: nil, now: now, expiresAt: expires)
            #expect(try await store.consumePasskeyChallenge("c3", purpose: .signin, binding: "attempt", now: now))
            #expect(try await store.consumePasskeyChallenge("c3", purpose: .signin, binding: "attempt", now: now) == false)
            // Expired.
            try await store.addPasskeyChallenge("c4", purpose: .unlock, binding: "s1", userID: ana.id, now: now, expiresAt: expires)
            #expect(try await store.consumePasskeyChallenge("c4", purpose: .unlock, binding: "s1", now: expires) == false)
            #expect(try await store.consumePasskeyChallenge("never issued", purpose: .unlock, binding: "s1", now: now) == false)

            // One binding and purpose keeps its newest five: the oldest of six goes.
            for index in 0..<6 {
                try await store.addPasskeyChallenge("e\(index)", purpose: .unlock, binding: "s2", userID: ana.id, now: now,
                                                    expiresAt: expires.addingTimeInterval(Double(index)))
            }
            try await store.addPasskeyChallenge("other", purpose: .register, binding: "s2", userID: ana.id, now: now, expiresAt: expires)
            #expect(try await store.consumePasskeyChallenge("e0", purpose: .unlock, binding: "s2", now: now) == false)
            for index in 1..<6 {
                #expect(try await store.consumePasskeyChallenge("e\(index)", purpose: .unlock, binding: "s2", now: now), "e\(index)")
            }
            #expect(try await store.consumePasskeyChallenge("other", purpose: .register, binding: "s2", now: now))

            // Adding drops expired ones: c5 is gone by the time c6 is added after it expired.
            try await store.addPasskeyChallenge("c5", purpose: .unlock, binding: "s3", userID: nil, now: now, expiresAt: now.addingTimeInterval(1))
            try await store.addPasskeyChallenge("c6", purpose: .register, binding: "s4", userID: nil, now: now.addingTimeInterval(2),
                                                expiresAt: expires)
            #expect(try await store.consumePasskeyChallenge("c5", purpose: .unlock, binding: "s3", now: now) == false)
        }
    }

    @Test(arguments: Engine.available)
    func ofEightSimultaneousUsesOfOneChallengeOneSucceeds(engine: Engine) async throws {
        try await withStore(engine) { store in
            for round in 0..<5 {
                try await store.addPasskeyChallenge("r\(round)", purpose: .signin, binding: "b", userID: nil, now: now,
                                                    expiresAt: now.addingTimeInterval(300))
                let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<8 {
                        group.addTask { try await store.consumePasskeyChallenge("r\(round)", purpose: .signin, binding: "b", now: now) }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(accepted == 1, "round \(round)")
            }
        }
    }
}
