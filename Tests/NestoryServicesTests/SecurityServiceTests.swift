import Crypto
import Foundation
import NestoryAuth
import NestoryDomain
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces
import Testing

/// Passkey challenges as SecurityService keeps them: issued by the server, used once, for five minutes, bound to the
/// session (unlocking) or the sign-in attempt; a passkey unlocks only its own person's session; failures count like
/// failed sign-ins. The passkey is stored directly (registration's checks are NestoryAuthTests'); its answers are
/// signed here with its P-256 key.
@Suite struct SecurityServiceTests {
    final class Fixture: @unchecked Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-security-\(UUID())").path
        let database: AppDatabase
        let security: SecurityService
        let rp = RelyingParty(id: "nestory.example", origins: ["https://nestory.example"])
        let key = P256.Signing.PrivateKey()
        let ann: User, bob: User
        let clock = Clock()
        var now: Date { clock.now }
        func advance(_ seconds: TimeInterval) { clock.advance(seconds) }

        /// A clock the test moves by hand.
        final class Clock: @unchecked Sendable {
            private let lock = NSLock()
            private var current = Date()
            var now: Date { lock.withLock { current } }
            func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
        }

        init() throws {
            database = try AppDatabase.open(DataFolder(path: path))
            let hash = try BcryptPasswordHasher(cost: 4).hash("correct horse battery")
            ann = try database.createUser(email: "ann@example.com", displayName: "Ann", passwordHash: hash, now: Date())
            bob = try database.createUser(email: "bob@example.com", displayName: "Bob", passwordHash: hash, now: Date())
            let (blocking, clock) = (BlockingPool(width: 2), clock)
            let accounts = AccountService(stores: .sqlite(database), passwordHasher: BcryptPasswordHasher(cost: 4), blocking: blocking,
                                          limits: SignInLimits(perAccount: 3, perClient: 50, window: 900))
            security = SecurityService(accounts: accounts, now: { clock.now })
            _ = try database.addPasskey(userID: ann.id, credentialID: [1, 2, 3], name: "Ann’s phone", publicKey: Array(key.publicKey.x963Representation),
                                        signCount: 0, backupEligible: true, now: Date())
            for (token, user) in [("ann-session", ann), ("ann-laptop", ann), ("bob-session", bob)] {
                try database.createSession(tokenHash: token, userID: user.id, csrfToken: "csrf", now: Date(), expiresAt: Date().addingTimeInterval(3600))
            }
        }

        deinit {
            try? database.close()
            try? FileManager.default.removeItem(atPath: path)
        }

        /// The passkey's answer to a challenge, as the browser passes it on.
        func answer(_ challenge: String, userHandle: [UInt8]? = nil) throws -> SecurityService.Assertion {
            let authData = Array(SHA256.hash(data: Data(rp.id.utf8))) + [0x05, 0, 0, 0, 0]
            let clientData = Array(#"{"type":"webauthn.get","challenge":"\#(challenge)","origin":"https://nestory.example"}"#.utf8)
            let signature = try key.signature(for: Data(authData + Array(SHA256.hash(data: Data(clientData))))).derRepresentation
            return .init(credentialID: [1, 2, 3], clientDataJSON: clientData, authenticatorData: authData, signature: Array(signature),
                         userHandle: userHandle)
        }
    }

    @Test func aChallengeUnlocksItsOwnSessionOnceAndOnlyWhileFresh() async throws {
        let f = try Fixture()
        try f.database.lockSession(tokenHash: "ann-session")
        // Asked for again and again, only the newest five stay.
        var many: [String] = []
        for _ in 0..<6 {
            many.append(try await f.security.unlockChallenge(f.ann.id, session: "ann-session").challenge)
            f.advance(1)
        }
        #expect(try await f.security.unlock(session: "ann-session", user: f.ann, relyingParty: f.rp, assertion: try f.answer(many[0]), client: "c")
                == .rejected(WebAuthnError.challengeMismatch.message))
        #expect(Self.who(try await f.security.unlock(session: "ann-session", user: f.ann, relyingParty: f.rp, assertion: try f.answer(many[1]),
                                                     client: "c")) == f.ann.id)
        try f.database.lockSession(tokenHash: "ann-session")
        let issued = try await f.security.unlockChallenge(f.ann.id, session: "ann-session")
        #expect(issued.credentialIDs == [Base64URL.encode([1, 2, 3])])
        // Another session of the same person cannot use it.
        let elsewhere = try await f.security.unlock(session: "ann-laptop", user: f.ann, relyingParty: f.rp,
                                                    assertion: try f.answer(issued.challenge), client: "c")
        #expect(elsewhere == .rejected(WebAuthnError.challengeMismatch.message))
        // Tried once from the wrong session, it is used up.
        let again = try await f.security.unlockChallenge(f.ann.id, session: "ann-session")
        let answer = try f.answer(again.challenge)
        #expect(Self.who(try await f.security.unlock(session: "ann-session", user: f.ann, relyingParty: f.rp, assertion: answer, client: "c")) == f.ann.id)
        #expect(try f.database.sessions(of: f.ann.id, now: Date()).first { $0.tokenHash == "ann-session" }?.locked == false)
        // Replayed: refused.
        #expect(try await f.security.unlock(session: "ann-session", user: f.ann, relyingParty: f.rp, assertion: answer, client: "c")
                == .rejected(WebAuthnError.challengeMismatch.message))
        // Five minutes later, a challenge has expired.
        let stale = try await f.security.unlockChallenge(f.ann.id, session: "ann-session")
        f.advance(SecurityService.challengeLifetime + 1)
        #expect(try await f.security.unlock(session: "ann-session", user: f.ann, relyingParty: f.rp, assertion: try f.answer(stale.challenge),
                                            client: "c") == .rejected(WebAuthnError.challengeMismatch.message))
    }

    @Test func aPasskeyUnlocksOnlyItsPersonAndSignsInAsThem() async throws {
        let f = try Fixture()
        // Bob has no passkey to be asked for; Ann's passkey does not unlock Bob's session.
        await #expect(throws: DomainError.self) { try await f.security.unlockChallenge(f.bob.id, session: "bob-session") }
        let bobs = Base64URL.encode([UInt8](repeating: 7, count: 32))
        try f.database.addPasskeyChallenge(bobs, purpose: .unlock, binding: "bob-session", userID: f.bob.id, now: f.now,
                                           expiresAt: f.now.addingTimeInterval(60))
        let forBob = try await f.security.unlock(session: "bob-session", user: f.bob, relyingParty: f.rp, assertion: try f.answer(bobs), client: "c")
        #expect(Self.who(forBob) == nil)

        // Signing in: the challenge belongs to the attempt, and the user handle, when sent, must be the passkey's person.
        let handle = SecurityService.userHandle(f.ann.id)
        let attempt = try await f.security.signInChallenge(attempt: "attempt-1")
        #expect(attempt.credentialIDs.isEmpty)
        #expect(try await f.security.signIn(attempt: "attempt-2", relyingParty: f.rp, assertion: try f.answer(attempt.challenge, userHandle: handle),
                                            client: "c") == .rejected(WebAuthnError.challengeMismatch.message))
        let second = try await f.security.signInChallenge(attempt: "attempt-1")
        let wrongHandle = try await f.security.signIn(attempt: "attempt-1", relyingParty: f.rp,
                                                      assertion: try f.answer(second.challenge, userHandle: SecurityService.userHandle(f.bob.id)), client: "c")
        #expect(Self.who(wrongHandle) == nil)
        let third = try await f.security.signInChallenge(attempt: "attempt-1")
        #expect(Self.who(try await f.security.signIn(attempt: "attempt-1", relyingParty: f.rp, assertion: try f.answer(third.challenge, userHandle: handle),
                                                     client: "c")) == f.ann.id)
        #expect(try f.database.passkeys(of: f.ann.id)[0].lastUsedAt != nil)
    }

    /// Whom a passkey proved, if anyone.
    static func who(_ outcome: SecurityService.PasskeyOutcome) -> UserID? {
        if case .proven(let user) = outcome { user.id } else { nil }
    }

    @Test func failedPasskeysCountLikeFailedSignIns() async throws {
        let f = try Fixture()
        for _ in 0..<3 {
            #expect(try await f.security.signIn(attempt: "a", relyingParty: f.rp, assertion: try f.answer(Base64URL.encode([UInt8](repeating: 9, count: 32))), client: "c")
                    == .rejected(WebAuthnError.challengeMismatch.message))
        }
        // Ann's account has had three failures (the limit here): even a good passkey waits now, and so does her password.
        let fresh = try await f.security.signInChallenge(attempt: "a")
        guard case .wait = try await f.security.signIn(attempt: "a", relyingParty: f.rp, assertion: try f.answer(fresh.challenge), client: "c") else {
            Issue.record("a passkey was tried past the limit")
            return
        }
        guard case .wait = try await f.security.unlock(session: "ann-session", user: f.ann, password: "correct horse battery", client: "d") else {
            Issue.record("the password was tried past the limit")
            return
        }
    }
}
