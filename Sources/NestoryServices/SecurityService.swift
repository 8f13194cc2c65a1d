import Foundation
import NestoryAuth
import NestoryDomain
import NestoryStoreInterfaces

/// Settings → Security & Privacy and what stands behind it: the app lock (each person's timeout, locking and
/// unlocking a session with the password or a passkey), the list of a person's signed-in sessions (signing one out,
/// or every other), and passkeys (WebAuthn, ES256): registering, removing, and using one to unlock or to sign in.
///
/// Passkey challenges are 32 random bytes, kept by the server until used (once) or five minutes old, and bound to
/// what asked for them: the session (registering, unlocking) or the sign-in attempt (the sign-in form's CSRF cookie).
/// Failed unlocks and passkey sign-ins count against the same limits as failed sign-ins.
///
/// Passkeys are not part of a backup: a passkey is tied to this server's address and to the person's device, and a
/// restored household signs in with passwords (each person can register their passkeys again).
public struct SecurityService: Sendable {
    let accounts: AccountService
    /// Sessions, the app lock and passkeys: the accounts' store, on whichever engine the bootstrap chose.
    var store: any AccountStore { accounts.store }
    let now: @Sendable () -> Date
    /// How long a challenge may wait for its answer.
    public static let challengeLifetime: TimeInterval = 300

    public init(accounts: AccountService, now: @escaping @Sendable () -> Date = Date.init) {
        self.accounts = accounts
        self.now = now
    }

    // MARK: - The app lock

    /// Settings: lock after this many minutes without use (0: never).
    public func setLockMinutes(_ user: UserID, _ raw: String) async throws -> Int {
        let minutes = try AppLock.validated(minutes: raw)
        try await store.setLockMinutes(user, minutes)
        return minutes
    }

    public func lock(session tokenHash: String) async throws {
        try await store.lockSession(tokenHash: tokenHash)
    }

    /// A person used the app (see AppLockMiddleware for what counts).
    public func recordActivity(session tokenHash: String) async throws {
        try await store.recordActivity(tokenHash: tokenHash, now: now())
    }

    /// Unlocks with the account's password (a wrong one leaves the session locked and counts as a failed sign-in).
    public func unlock(session tokenHash: String, user: User, password: String, client: String) async throws -> AccountService.SignInOutcome {
        let outcome = await accounts.verifyPassword(of: user, password: password, client: client)
        if case .signedIn = outcome { try await unlocked(tokenHash) }
        return outcome
    }

    private func unlocked(_ tokenHash: String) async throws {
        try await store.unlockSession(tokenHash: tokenHash, now: now())
    }

    // MARK: - Sessions

    public func sessions(of user: UserID) async throws -> [SessionSummary] {
        try await store.sessions(of: user, now: now())
    }

    /// Signs one of the person's sessions out (another device); not found when it is not theirs.
    public func signOut(_ user: UserID, session id: String) async throws {
        guard try await store.deleteSession(of: user, id: id) else { throw DomainError.notFound("That session") }
    }

    /// "Sign out everywhere else": every session of the person but this one ends; returns how many.
    public func signOutOthers(_ user: UserID, keeping tokenHash: String) async throws -> Int {
        try await store.deleteSessions(of: user, except: tokenHash)
    }

    /// `nestory user signout`: a lost or stolen device. Every session of the account ends, and with `passkeys` its
    /// passkeys go too; returns how many of each.
    public func signOutEverywhere(email: String, passkeys: Bool) async throws -> (user: User, sessions: Int, passkeys: Int) {
        guard let user = try await store.userCredentials(email: try User.normalizedEmail(email))?.user else {
            throw DomainError.notFound("The account \(email)")
        }
        let sessions = try await store.deleteSessions(of: user.id, except: "")
        return (user, sessions, passkeys ? try await store.removePasskeys(of: user.id) : 0)
    }

    // MARK: - Passkeys

    /// What the browser needs to ask for a passkey (`navigator.credentials.create` or `.get`).
    public struct Challenge: Sendable {
        public let challenge: String
        /// Registering: the credentials the person already has (not to register twice). Unlocking: the ones that
        /// may answer. Signing in: none (the browser offers its discoverable passkeys for this site).
        public let credentialIDs: [String]
    }

    public func passkeys(of user: UserID) async throws -> [PasskeyRecord] {
        try await store.passkeys(of: user)
    }

    /// A challenge to register a passkey from this session.
    public func registrationChallenge(_ user: UserID, session tokenHash: String) async throws -> Challenge {
        let existing = try await passkeys(of: user).map { Base64URL.encode($0.credentialID) }
        return Challenge(challenge: try await issue(.register, binding: tokenHash, user: user), credentialIDs: existing)
    }

    /// A challenge to unlock this session with one of the person's passkeys.
    public func unlockChallenge(_ user: UserID, session tokenHash: String) async throws -> Challenge {
        let existing = try await passkeys(of: user).map { Base64URL.encode($0.credentialID) }
        guard !existing.isEmpty else { throw DomainError.notFound("A passkey for this account") }
        return Challenge(challenge: try await issue(.unlock, binding: tokenHash, user: user), credentialIDs: existing)
    }

    /// A challenge for signing in with a passkey, bound to the sign-in attempt (a secret of the signed-out browser).
    public func signInChallenge(attempt: String) async throws -> Challenge {
        Challenge(challenge: try await issue(.signin, binding: SessionToken.hash(attempt), user: nil), credentialIDs: [])
    }

    /// Checks and stores a new passkey for the person. `name` is theirs ("Ann’s iPhone"); empty, it is named by date.
    public func register(_ user: UserID, session tokenHash: String, name: String, relyingParty: RelyingParty, clientDataJSON: [UInt8],
                         attestationObject: [UInt8]) async throws -> PasskeyRecord {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= 60 else { throw DomainError.invalid(field: "name", message: "Give the passkey a name of at most 60 characters.") }
        let name = trimmed.isEmpty ? "Passkey" : trimmed
        let challenge = try await consume(clientDataJSON, .register, binding: tokenHash)
        let credential: RegisteredCredential
        do {
            credential = try relyingParty.verifyRegistration(clientDataJSON: clientDataJSON, attestationObject: attestationObject,
                                                             expectedChallenge: challenge)
        } catch { throw DomainError.invalid(field: "passkey", message: error.message) }
        return try await store.addPasskey(userID: user, credentialID: credential.id, name: name, publicKey: credential.publicKey,
                                          signCount: credential.signCount, backupEligible: credential.backupEligible, now: now())
    }

    public func removePasskey(_ user: UserID, id: String) async throws {
        guard try await store.removePasskey(of: user, id: id) else { throw DomainError.notFound("That passkey") }
    }

    /// A passkey's answer (`navigator.credentials.get`), as the browser sends it.
    public struct Assertion: Sendable {
        public var credentialID: [UInt8]
        public var clientDataJSON: [UInt8]
        public var authenticatorData: [UInt8]
        public var signature: [UInt8]
        public var userHandle: [UInt8]?

        public init(credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?) {
            (self.credentialID, self.clientDataJSON, self.authenticatorData, self.signature, self.userHandle) =
                (credentialID, clientDataJSON, authenticatorData, signature, userHandle)
        }
    }

    /// What a passkey attempt came to: the user proven, or why not (safe to show), or a wait.
    public enum PasskeyOutcome: Sendable, Equatable {
        case proven(User)
        case rejected(String)
        case wait(seconds: Int)
    }

    /// Unlocks this session with one of the person's own passkeys.
    public func unlock(session tokenHash: String, user: User, relyingParty: RelyingParty, assertion: Assertion,
                       client: String) async throws -> PasskeyOutcome {
        let outcome = try await prove(assertion, purpose: .unlock, binding: tokenHash, expectedUser: user.id, relyingParty: relyingParty,
                                      client: client)
        if case .proven = outcome { try await unlocked(tokenHash) }
        return outcome
    }

    /// Signs in with a discoverable passkey: the user is the passkey's. The caller starts the session.
    public func signIn(attempt: String, relyingParty: RelyingParty, assertion: Assertion, client: String) async throws -> PasskeyOutcome {
        try await prove(assertion, purpose: .signin, binding: SessionToken.hash(attempt), expectedUser: nil, relyingParty: relyingParty,
                        client: client)
    }

    /// The checks shared by unlocking and signing in, within the sign-in limits: the challenge (issued for this
    /// purpose and binding, unexpired, used up now), the credential (known; the expected user's, when there is one;
    /// its user handle, when sent, is its user's id), then the relying party's checks and the counter.
    private func prove(_ assertion: Assertion, purpose: PasskeyPurpose, binding: String, expectedUser: UserID?,
                       relyingParty: RelyingParty, client: String) async throws -> PasskeyOutcome {
        let store = store
        let passkey = try await store.passkey(credentialID: assertion.credentialID)
        let owner = expectedUser ?? passkey?.userID
        var reason = "That passkey is not registered here. Sign in with your password, then add it in Settings."
        let outcome = await accounts.withinSignInLimits(accountKey: owner.map { "user:\($0)" }, client: client) { () async -> User? in
            guard let challenge = try? await consume(assertion.clientDataJSON, purpose, binding: binding) else {
                reason = WebAuthnError.challengeMismatch.message
                return nil
            }
            guard let passkey, expectedUser == nil || passkey.userID == expectedUser,
                  assertion.userHandle.map({ $0 == Self.userHandle(passkey.userID) }) ?? true else { return nil }
            do {
                let count = try relyingParty.verifyAssertion(
                    clientDataJSON: assertion.clientDataJSON, authenticatorData: assertion.authenticatorData, signature: assertion.signature,
                    expectedChallenge: challenge, publicKey: passkey.publicKey, storedSignCount: passkey.signCount)
                try await store.passkeyUsed(id: passkey.id, signCount: count, now: now())
                return try await store.user(passkey.userID)
            } catch let error as WebAuthnError {
                reason = error.message
                return nil
            } catch {
                return nil
            }
        }
        switch outcome {
        case .signedIn(let user): return .proven(user)
        case .rejected: return .rejected(reason)
        case .wait(let seconds): return .wait(seconds: seconds)
        }
    }

    /// The WebAuthn user handle of an account: its id's 16 bytes.
    public static func userHandle(_ user: UserID) -> [UInt8] {
        withUnsafeBytes(of: user.rawValue.uuid) { Array($0) }
    }

    private func issue(_ purpose: PasskeyPurpose, binding: String, user: UserID?) async throws -> String {
        var generator = SystemRandomNumberGenerator()
        let challenge = Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        let at = now()
        try await store.addPasskeyChallenge(challenge, purpose: purpose, binding: binding, userID: user, now: at,
                                            expiresAt: at.addingTimeInterval(Self.challengeLifetime))
        return challenge
    }

    /// The challenge a client data answers, if it was issued for this purpose and binding and is still fresh; used up
    /// either way.
    private func consume(_ clientDataJSON: [UInt8], _ purpose: PasskeyPurpose, binding: String) async throws -> [UInt8] {
        guard let challenge = RelyingParty.challenge(in: clientDataJSON) else {
            throw DomainError.invalid(field: "passkey", message: WebAuthnError.malformed("client data").message)
        }
        guard try await store.consumePasskeyChallenge(Base64URL.encode(challenge), purpose: purpose, binding: binding, now: now()) else {
            throw DomainError.invalid(field: "passkey", message: WebAuthnError.challengeMismatch.message)
        }
        return challenge
    }
}
