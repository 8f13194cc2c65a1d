import Foundation
import NestoryAuth
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces

/// Accounts: first-run set-up, adding people (the web app's Settings and `nestory user add`), signing in
/// with its limits, sessions, and password changes. The web app and the command line both call this, so
/// each rule (who becomes owner, what a valid account is, how guesses are limited) lives here once.
public struct AccountService: Sendable {
    /// Households, members and sessions, on whichever engine the bootstrap chose.
    let accounts: any AccountStore
    /// The same store, for the web's session lookup (SessionMiddleware and its cache).
    public var store: any AccountStore { accounts }
    /// The tips each person dismissed (kept with their reminder choices).
    let reminders: any ReminderStore
    let jobs: any JobStore
    let tmp: URL?
    let passwordHasher: any PasswordHasher
    let blocking: BlockingPool
    let limits: SignInLimits
    let now: @Sendable () -> Date
    /// Checked for unknown emails so they cost as much as wrong passwords; made on first use, not at start.
    private let dummyHash: DummyHash

    /// `tmp` is the data folder's tmp/, where a household's backups wait for download (deleted with the household).
    public init(stores: Stores, passwordHasher: any PasswordHasher, blocking: BlockingPool,
                limits: SignInLimits = SignInLimits(), now: @escaping @Sendable () -> Date = Date.init, tmp: URL? = nil) {
        accounts = stores.accounts
        reminders = stores.reminders
        jobs = stores.jobs
        self.tmp = tmp
        self.passwordHasher = passwordHasher
        self.blocking = blocking
        self.limits = limits
        self.now = now
        dummyHash = DummyHash(passwordHasher)
    }

    /// The members of a household, owners first, then by e-mail.
    public func members(of household: HouseholdID) async throws -> [(user: User, role: MemberRole)] {
        try await accounts.members(of: household)
    }

    // MARK: - Set-up and adding people

    /// What the first-run form asks for.
    public struct SetupInput: Sendable {
        public var household: String
        public var currency: String
        public var name: String
        public var email: String
        public var password: String
        public var confirmation: String
        /// The time zone the set-up page's browser is in (an IANA name): the household's, when this system knows it.
        public var timeZone: String?

        public init(household: String, currency: String, name: String, email: String, password: String, confirmation: String,
                    timeZone: String? = nil) {
            self.household = household
            self.currency = currency
            self.name = name
            self.email = email
            self.password = password
            self.confirmation = confirmation
            self.timeZone = timeZone
        }
    }

    /// Whether the server still needs its first-run set-up.
    public func needsSetup() async throws -> Bool {
        try await !accounts.hasUsers()
    }

    /// First run: the household, its owner's account and the membership, in one transaction. Every field
    /// is checked and all problems are reported together. If another set-up got there first, this one is
    /// refused with a conflict and changes nothing.
    public func setUp(_ input: SetupInput) async throws -> User {
        var errors = FieldErrors()
        let currency = errors.collect { try CurrencyCode.iso(input.currency) }
        do { _ = try Household.validatedName(input.household) } catch {
            // The household's name is the form's "household" field ("name" is the person's).
            errors.append(FieldError(field: "household", message: error.message))
        }
        errors.collect { _ = try User.normalizedEmail(input.email) }
        errors.collect { try PasswordPolicy.validate(input.password) }
        if input.password != input.confirmation {
            errors.append(FieldError(field: "confirm", message: "The two passwords are not the same."))
        }
        try errors.throwIfAny()
        guard try await needsSetup() else { throw DomainError.conflict("Nestory is already set up on this server: sign in instead.") }
        let hash = try await hashPassword(input.password)
        let (user, _, _) = try await accounts.createAccount(
            email: input.email, displayName: input.name, passwordHash: hash,
            household: .new(name: input.household, currency: currency!, timeZone: input.timeZone.flatMap { try? Household.validatedTimeZone($0) }),
            role: .owner, onlyIfFirst: true, now: now())
        return user
    }

    /// Where `addUser` puts the account: a household by id or name (created when none has the name).
    public enum HouseholdChoice: Sendable {
        case id(HouseholdID)
        /// A household by name; a new one gets the currency and time zone (nil: the server's clock).
        case name(String, currency: CurrencyCode, timeZone: String? = nil)
    }

    /// `nestory user add`: the account, its membership and (when new) the household, in one transaction.
    /// The first person in a new household is its owner; others get `role` (a member unless said).
    public func addUser(email: String, displayName: String, password: String, household: HouseholdChoice,
                        role: MemberRole?) async throws -> (user: User, household: Household, role: MemberRole) {
        try PasswordPolicy.validate(password)
        _ = try User.normalizedEmail(email)
        let target: AccountHousehold
        switch household {
        case .id(let id):
            target = .existing(try await accounts.household(id).id)
        case .name(let name, let currency, let timeZone):
            let named = try await accounts.households(named: name)
            guard named.count <= 1 else {
                throw DomainError.conflict("Several households are called \(name); pass one's id instead: "
                                           + named.map { "\($0.name) (\($0.id))" }.joined(separator: ", ") + ".")
            }
            target = named.first.map { .existing($0.id) } ?? .new(name: name, currency: currency, timeZone: timeZone)
        }
        let hash = try await hashPassword(password)
        let made = try await accounts.createAccount(email: email, displayName: displayName, passwordHash: hash, household: target,
                                                    role: role ?? .member, onlyIfFirst: false, now: now())
        return (made.0, made.1, made.2)
    }

    /// Settings → Members: the owner adds a member to their household.
    public func addMember(to household: HouseholdID, by role: MemberRole, email: String, displayName: String,
                          password: String) async throws -> User {
        guard role == .owner else { throw DomainError.forbidden("Only the household’s owner can add members.") }
        var errors = FieldErrors()
        errors.collect { _ = try User.normalizedEmail(email) }
        errors.collect { try PasswordPolicy.validate(password) }
        try errors.throwIfAny()
        let hash = try await hashPassword(password)
        return try await accounts.createAccount(email: email, displayName: displayName, passwordHash: hash, household: .existing(household),
                                                role: .member, onlyIfFirst: false, now: now()).0
    }

    /// Settings → Household: the owner renames it, changes its currency (amounts are never converted: items
    /// keep theirs), its high-value threshold, an amount in the new currency, or its time zone (empty: the server's
    /// clock). Returns the household as saved.
    public func updateHousehold(_ household: HouseholdID, by role: MemberRole, name: String, currency: String,
                                threshold: String, timeZone: String) async throws -> Household {
        guard role == .owner else { throw DomainError.forbidden("Only the household’s owner can change the household.") }
        var errors = FieldErrors()
        errors.collect { _ = try Household.validatedName(name) }
        let zone = errors.collect { try Household.validatedTimeZone(timeZone) }
        let code = errors.collect { try CurrencyCode.iso(currency) }
        var amount: Money?
        if let code {
            do {
                let typed = try Money.parse(typed: threshold, currency: code)
                if typed.minorUnits >= 0 { amount = typed } else {
                    errors.append(FieldError(field: "threshold", message: "Give an amount of 0 or more, such as 1000 or 1,000.00."))
                }
            } catch {
                // Why it is not an amount in this currency ("JPY amounts have no decimal places." after a change from USD).
                errors.append(FieldError(field: "threshold", message: error.message))
            }
        }
        try errors.throwIfAny()
        return try await accounts.updateHousehold(household, name: name, currency: code!, highValueThreshold: amount!, timeZone: zone!)
    }

    /// Settings → Your data → "Delete this household": its owner deletes it and everything in it (AccountStore.deleteHousehold),
    /// having typed its name and their password (checked within the sign-in limits: a stolen session alone cannot).
    /// The members in no other household lose their accounts. Returns the accounts deleted.
    public func deleteHousehold(_ household: Household, by user: User, role: MemberRole, typedName: String, password: String,
                                client: String) async throws -> [UserID] {
        guard role == .owner else { throw DomainError.forbidden("Only the household’s owner can delete the household.") }
        var errors = FieldErrors()
        if !household.nameMatches(typedName) {
            errors.append(FieldError(field: "confirmName", message: "Type the household’s name, “\(household.name)”, to delete it."))
        }
        switch await verifyPassword(of: user, password: password, client: client) {
        case .signedIn: break
        case .rejected: errors.append(FieldError(field: "password", message: "That is not your password."))
        case .wait(let seconds):
            let minutes = SignInOutcome.minutes(seconds)
            errors.append(FieldError(field: "password", message: "Too many attempts. Wait \(minutes) minute\(minutes == 1 ? "" : "s") and try again."))
        }
        try errors.throwIfAny()
        return try await deleteHousehold(household.id)
    }

    /// Deletes a household and everything in it, with no question asked (an administrator's act: `nestory household
    /// delete`; an owner's goes through the checks above). Returns the accounts deleted with it.
    public func deleteHousehold(_ id: HouseholdID) async throws -> [UserID] {
        // Its backups still waiting for download go too (their jobs go with the household; the sweep would take an hour).
        let archives = try await jobs.jobs(id, kind: JobKind.backup, since: now().addingTimeInterval(-BackupService.lifetime))
        let removed = try await accounts.deleteHousehold(id)
        if let tmp, let folder = try? BackupService.folder(tmp: tmp) {
            for job in archives { try? FileManager.default.removeItem(at: folder.appendingPathComponent(BackupJobHandler.archiveName(job))) }
        }
        return removed
    }

    /// Settings → Appearance: how this person wants the app to look (system, light or dark).
    public func setTheme(_ user: UserID, _ raw: String) async throws -> Theme {
        guard let theme = Theme(rawValue: raw) else {
            throw DomainError.invalid(field: "theme", message: "Choose System, Light or Dark.")
        }
        try await accounts.setTheme(user, theme)
        return theme
    }

    /// A tip the person closed stays closed, on every device.
    public func dismissTip(_ user: UserID, _ raw: String) async throws {
        guard let tip = Tip(rawValue: raw) else { throw DomainError.notFound("That tip") }
        try await reminders.dismissTip(user, tip)
    }

    /// Settings → Appearance: "Show tips again".
    public func resetTips(_ user: UserID) async throws {
        try await reminders.resetTips(user)
    }

    /// Settings → Members: the owner removes a member; their sessions end at once.
    public func removeMember(_ user: UserID, from household: HouseholdID, by role: MemberRole) async throws {
        guard role == .owner else { throw DomainError.forbidden("Only the household’s owner can remove members.") }
        try await accounts.removeMember(household, user: user)
    }

    // MARK: - Signing in

    /// What a sign-in attempt came to.
    public enum SignInOutcome: Sendable, Equatable {
        case signedIn(User)
        /// The email and password match no account (the same answer for an unknown email).
        case rejected
        /// Too many failures recently: try again after this many seconds.
        case wait(seconds: Int)

        /// The wait in whole minutes, rounded up, as people are told it.
        public static func minutes(_ seconds: Int) -> Int { max(1, (seconds + 59) / 60) }
    }

    /// Checks an email and password, within the limits: failures count against the account as the lookup
    /// finds it (so spellings of one address share one count) and, more loosely, against the client
    /// address, so one person mistyping one account's password does not lock other accounts there.
    public func signIn(email: String, password: String, client: String) async -> SignInOutcome {
        let credentials = try? await accounts.userCredentials(email: email)
        let accountKey = credentials.map { "user:\($0.user.id)" }
            ?? "email:" + ((try? User.normalizedEmail(email)) ?? email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
        return await withinSignInLimits(accountKey: accountKey, client: client) {
            let hasher = passwordHasher
            let stored: String
            if let credentials { stored = credentials.passwordHash } else { stored = await dummyHash.value(on: blocking) }
            // An unknown email costs the same hash check as a wrong password, and gets the same answer.
            let valid = await blocking.run { hasher.verify(password, against: stored) }
            return valid ? credentials?.user : nil
        }
    }

    /// Checks a signed-in person's password again (unlocking the app lock), within the same limits as signing in.
    public func verifyPassword(of user: User, password: String, client: String) async -> SignInOutcome {
        await withinSignInLimits(accountKey: "user:\(user.id)", client: client) {
            guard let credentials = try? await accounts.userCredentials(email: user.email), credentials.user.id == user.id else { return nil }
            let hasher = passwordHasher
            return await blocking.run { hasher.verify(password, against: credentials.passwordHash) } ? credentials.user : nil
        }
    }

    /// One attempt to prove who someone is (a password, a passkey), counted like sign-ins: refused while the account
    /// (`nil`: not known) or the client address has had too many failures; a failure counts against both, a success
    /// clears the account's count. `attempt` returns the user proven, or nil. The failures are kept in the store
    /// (`AccountStore.signInFailures`), so a restart does not clear them and every server on one database counts them
    /// together. Should the store not answer, the attempt is let through: it needs the store itself to succeed.
    public func withinSignInLimits(accountKey: String?, client: String, _ attempt: () async -> User?) async -> SignInOutcome {
        let at = now()
        var counted = [(key: "client:" + client, limit: limits.perClient)]
        if let accountKey { counted.append((accountKey, limits.perAccount)) }
        var wait: Int?
        for (key, limit) in counted {
            if let seconds = await retryAfter(key, limit: limit, now: at) { wait = max(wait ?? 0, seconds) }
        }
        if let wait { return .wait(seconds: wait) }
        guard let user = await attempt() else {
            for (key, _) in counted {
                try? await accounts.recordSignInFailure(key, at: at, forgetBefore: at.addingTimeInterval(-limits.window))
            }
            return .rejected
        }
        if let accountKey { try? await accounts.clearSignInFailures(accountKey) }
        return .signedIn(user)
    }

    /// Seconds until `key` may try again (its oldest failure in the window leaves it), or nil when it may now.
    private func retryAfter(_ key: String, limit: Int, now: Date) async -> Int? {
        guard let (count, oldest) = try? await accounts.signInFailures(key, since: now.addingTimeInterval(-limits.window)),
              count >= limit, let oldest else { return nil }
        return max(1, Int(oldest.addingTimeInterval(limits.window).timeIntervalSince(now).rounded(.up)))
    }

    /// A new session (a fresh token at every sign-in: no fixation); returns the token for the cookie.
    public func startSession(for user: UserID, lifetime: TimeInterval, userAgent: String? = nil) async throws -> String {
        let (token, at) = (SessionToken.generate(), now())
        try await accounts.createSession(tokenHash: SessionToken.hash(token), userID: user, csrfToken: SessionToken.generate(), now: at,
                                         expiresAt: at.addingTimeInterval(lifetime), userAgent: userAgent)
        return token
    }

    /// Ends one session (signing out).
    public func endSession(tokenHash: String) async throws {
        try await accounts.deleteSession(tokenHash: tokenHash)
    }

    /// Changes a password after checking the current one; every session of the account ends.
    public func changePassword(_ user: User, current: String, new password: String) async throws {
        let hasher = passwordHasher
        guard let credentials = try await accounts.userCredentials(email: user.email),
              await blocking.run({ hasher.verify(current, against: credentials.passwordHash) }) else {
            throw DomainError.invalid(field: "current", message: "That is not your current password.")
        }
        do { try PasswordPolicy.validate(password) } catch {
            throw DomainError.invalid(field: "password", message: error.message)
        }
        try await accounts.changePasswordHash(user.id, to: try await hashPassword(password))
    }

    /// Sets a password without the old one (`nestory user password`, an administrator's act).
    public func setPassword(email: String, to password: String) async throws -> User {
        try PasswordPolicy.validate(password)
        guard let (user, _) = try await accounts.userCredentials(email: try User.normalizedEmail(email)) else {
            throw DomainError.notFound("The account \(email)")
        }
        try await accounts.changePasswordHash(user.id, to: try await hashPassword(password))
        return user
    }

    private func hashPassword(_ password: String) async throws -> String {
        let hasher = passwordHasher
        return try await blocking.run { try hasher.hash(password) }
    }
}

/// How many failed sign-ins are allowed in a window: per account (tight) and per client address (looser,
/// against guessing across many accounts).
public struct SignInLimits: Sendable {
    public let perAccount: Int
    public let perClient: Int
    public let window: TimeInterval

    public init(perAccount: Int = 10, perClient: Int = 50, window: TimeInterval = 15 * 60) {
        self.perAccount = perAccount
        self.perClient = perClient
        self.window = window
    }
}

/// A bcrypt hash of nothing in particular, made the first time an unknown email signs in.
private final class DummyHash: @unchecked Sendable {
    private let hasher: any PasswordHasher
    private let lock = NSLock()
    private var hash: String?

    init(_ hasher: any PasswordHasher) { self.hasher = hasher }

    func value(on pool: BlockingPool) async -> String {
        if let hash = lock.withLock({ hash }) { return hash }
        let hasher = self.hasher
        let made = (try? await pool.run { try hasher.hash("not a password: \(UUID())") }) ?? "$2b$12$invalidinvalidinvalidinvalidinvalidinvalidinvalidinva"
        return lock.withLock {
            if hash == nil { hash = made }
            return hash!
        }
    }
}
