import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import Testing

/// Households, members and sessions behave the same on every engine.
@Suite struct AccountStoreConformanceTests {
    /// A time in whole milliseconds, as every engine keeps them (`timesAreKeptToTheNearestMillisecond`).
    let now = Date(millis: 1_763_800_000_123)

    func owner(_ store: any AccountStore, email: String = "ana@example.com", household: String = "Home") async throws -> (User, Household) {
        let (user, home, role) = try await store.createAccount(email: email, displayName: "Ana", passwordHash: "hash-1",
                                                               household: .new(name: household, currency: .usd), role: .member,
                                                               onlyIfFirst: false, now: now)
        #expect(role == .owner)
        return (user, home)
    }

    @Test(arguments: Engine.available)
    func anAccountMadeWithItsHouseholdIsItsOwnerAndReadsBackExactly(engine: Engine) async throws {
        try await withStore(engine) { store in
            #expect(try await store.hasUsers() == false)
            let (user, home, _) = try await store.createAccount(email: "  Ana@Example.COM ", displayName: "  ", passwordHash: "hash-1",
                                                             household: .new(name: " Smith – Straße 5 ", currency: try CurrencyCode("EUR")),
                                                             role: .member, onlyIfFirst: true, now: now)
            #expect(user.email == "ana@example.com")
            #expect(user.displayName == "ana")
            #expect(home.name == "Smith – Straße 5")
            #expect(try await store.hasUsers())

            let read = try await store.household(home.id)
            #expect(read == home)
            #expect(read.createdAt == Date(millis: now.millis))
            #expect(read.highValueThreshold.currency.code == "EUR")
            #expect(try await store.allHouseholds() == [home])
            #expect(try await store.households(named: "Smith").isEmpty)
            #expect(try await store.households(named: "  smith – straße 5 ").map(\.id) == [home.id])

            let memberships = try await store.memberships(of: user.id)
            #expect(memberships.map(\.household) == [home])
            #expect(memberships.map(\.role) == [.owner])
            let credentials = try #require(try await store.userCredentials(email: "ANA@example.com"))
            #expect(credentials.user == user)
            #expect(credentials.user.createdAt == Date(millis: now.millis))
            #expect(credentials.passwordHash == "hash-1")
            #expect(try await store.userCredentials(email: "nobody@example.com") == nil)
            #expect(try await store.userCredentials(email: "not an address") == nil)
        }
    }

    /// Deleting a household takes everything in it and nothing else: its rows, its own stored files, and the accounts of
    /// the members who are in no other household (their sessions with them). A member who is also in another household
    /// keeps their account and is signed in to that one; a file the other household also uses stays.
    @Test(arguments: Engine.available)
    func deletingAHouseholdTakesEverythingInItAndNothingElse(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let store = stores.accounts
            let blobs = try #require(stores.blobs)
            let (ana, home) = try await owner(store)
            let (bob, _, _) = try await store.createAccount(email: "bob@example.com", displayName: "Bob", passwordHash: "h",
                                                           household: .existing(home.id), role: .member, onlyIfFirst: false, now: now)
            let (carl, other) = try await owner(store, email: "carl@example.com", household: "Other")
            try await store.addMember(home.id, user: carl.id, role: .member, now: now)
            let later = now.addingTimeInterval(3600)
            try await store.createSession(tokenHash: "bob", userID: bob.id, csrfToken: "c", now: now, expiresAt: later, userAgent: nil)
            try await store.createSession(tokenHash: "carl", userID: carl.id, csrfToken: "c", now: now, expiresAt: later, userAgent: nil)
            let desk = try await stores.items.createItem(home.id, ItemDraft(name: "Desk", currency: .usd), now: now, today: nil, plan: nil)
            let chair = try await stores.items.createItem(other.id, ItemDraft(name: "Chair", currency: .usd), now: now, today: nil, plan: nil)
            let photo = try await stores.attachments.addPhoto(home.id, to: desk.id, staged: try blobs.stage(Data(repeating: 1, count: 100)),
                                                              contentType: "image/jpeg", now: now)
            let receipt = try await stores.attachments.addReceipt(home.id, itemID: desk.id, staged: try blobs.stage(Data(repeating: 2, count: 100)),
                                                                  contentType: "image/jpeg", fields: ReceiptFields(), now: now)
            let shared = Data(repeating: 3, count: 100)
            let copy = try await stores.attachments.addPhoto(home.id, to: desk.id, staged: try blobs.stage(shared), contentType: "image/jpeg", now: now)
            _ = try await stores.attachments.addPhoto(other.id, to: chair.id, staged: try blobs.stage(shared), contentType: "image/jpeg", now: now)
            let version = try await store.accountVersion()

            #expect(Set(try await store.deleteHousehold(home.id)) == [ana.id, bob.id])
            await #expect(throws: DomainError.self) { try await store.household(home.id) }
            #expect(try await store.allHouseholds().map(\.id) == [other.id])
            #expect(try await store.userCredentials(email: "ana@example.com") == nil)
            #expect(try await store.user(bob.id) == nil)
            #expect(try await store.sessionWithMembership(tokenHash: "bob", now: now) == nil)
            #expect(try await store.accountVersion() > version)
            #expect(try await store.memberships(of: carl.id).map(\.household.id) == [other.id])
            #expect(try await store.sessionWithMembership(tokenHash: "carl", now: now)?.household.id == other.id)
            await #expect(throws: DomainError.self) { try await stores.items.item(home.id, desk.id) }
            #expect(try await stores.items.summary(other.id).itemCount == 1)
            #expect(try !blobs.exists(photo.attachment.sha256) && !blobs.exists(receipt.attachment.sha256))
            #expect(try blobs.exists(copy.attachment.sha256))
            await #expect(throws: DomainError.self) { try await store.deleteHousehold(home.id) }
        }
    }

    @Test(arguments: Engine.available)
    func timesAreKeptToTheNearestMillisecond(engine: Engine) async throws {
        try await withStore(engine) { store in
            let precise = Date(timeIntervalSince1970: 1_763_800_000.123_756)
            let (user, home, _) = try await store.createAccount(email: "ana@example.com", displayName: "", passwordHash: "h",
                                                                household: .new(name: "Home", currency: .usd), role: .member,
                                                                onlyIfFirst: false, now: precise)
            let read = try await store.household(home.id)
            #expect(read.createdAt == Date(millis: 1_763_800_000_124))
            #expect(try await store.userCredentials(email: user.email)?.user.createdAt == Date(millis: 1_763_800_000_124))
        }
    }

    @Test(arguments: Engine.available)
    func anEmailIsTakenOnceWhateverItsCaseAndAFailedAccountLeavesNothing(engine: Engine) async throws {
        try await withStore(engine) { store in
            _ = try await owner(store)
            await #expect(throws: DomainError.conflict("An account with ana@example.com already exists.")) {
                _ = try await store.createAccount(email: "ANA@example.com", displayName: "Other", passwordHash: "x",
                                                  household: .new(name: "Second", currency: .usd), role: .member, onlyIfFirst: false, now: now)
            }
            // The household of the refused account was not made either.
            #expect(try await store.allHouseholds().map(\.name) == ["Home"])
            await #expect(throws: DomainError.self) {
                _ = try await store.createAccount(email: "nope", displayName: "", passwordHash: "x",
                                                  household: .new(name: "Third", currency: .usd), role: .member, onlyIfFirst: false, now: now)
            }
            await #expect(throws: DomainError.self) {
                _ = try await store.createAccount(email: "b@example.com", displayName: "", passwordHash: "x",
                                                  household: .new(name: "   ", currency: .usd), role: .member, onlyIfFirst: false, now: now)
            }
            #expect(try await store.allHouseholds().count == 1)
        }
    }

    @Test(arguments: Engine.available)
    func ofSimultaneousFirstRunSetUpsExactlyOneMakesTheOwner(engine: Engine) async throws {
        try await withStore(engine) { store in
            let now = self.now
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        do {
                            _ = try await store.createAccount(email: "first\(index)@example.com", displayName: "", passwordHash: "x",
                                                              household: .new(name: "Home \(index)", currency: .usd), role: .member,
                                                              onlyIfFirst: true, now: now)
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            let households = try await store.allHouseholds()
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(households.count == 1)
        }
    }

    @Test(arguments: Engine.available)
    func membersJoinChangeRoleAndAreListedOwnersFirst(engine: Engine) async throws {
        try await withStore(engine) { store in
            let (ana, home) = try await owner(store, email: "zed@example.com")
            let (bea, _, role) = try await store.createAccount(email: "bea@example.com", displayName: "Bea", passwordHash: "h",
                                                              household: .existing(home.id), role: .member, onlyIfFirst: false, now: now)
            #expect(role == .member)
            var members = try await store.members(of: home.id)
            #expect(members.map(\.user.id) == [ana.id, bea.id])
            #expect(members.map(\.role) == [.owner, .member])

            try await store.addMember(home.id, user: bea.id, role: .owner, now: now)
            members = try await store.members(of: home.id)
            #expect(members.map(\.user.email) == ["bea@example.com", "zed@example.com"])
            #expect(members.allSatisfy { $0.role == .owner })

            await #expect(throws: DomainError.notFound("The household")) {
                try await store.addMember(HouseholdID(), user: bea.id, role: .member, now: now)
            }
            await #expect(throws: DomainError.self) {
                _ = try await store.createAccount(email: "cy@example.com", displayName: "", passwordHash: "h",
                                                  household: .existing(HouseholdID()), role: .member, onlyIfFirst: false, now: now)
            }
            #expect(try await store.userCredentials(email: "cy@example.com") == nil)
        }
    }

    /// A household's time zone (its days' clock) is read back by every read of a household: by id, the list, a person's
    /// memberships, a session and an API token, and changed or cleared with the rest of the household.
    @Test(arguments: Engine.available)
    func aHouseholdKeepsItsTimeZoneInEveryRead(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let store = stores.accounts
            let (ana, home, _) = try await store.createAccount(email: "ana@example.com", displayName: "Ana", passwordHash: "h",
                                                               household: .new(name: "Home", currency: .usd, timeZone: "Asia/Kolkata"),
                                                               role: .owner, onlyIfFirst: false, now: now)
            #expect(home.timeZone == "Asia/Kolkata")
            #expect(try await store.household(home.id).timeZone == "Asia/Kolkata")
            #expect(try await store.allHouseholds().map(\.timeZone) == ["Asia/Kolkata"])
            #expect(try await store.memberships(of: ana.id).map(\.household.timeZone) == ["Asia/Kolkata"])
            try await store.createSession(tokenHash: "token-1", userID: ana.id, csrfToken: "csrf-1", now: now,
                                          expiresAt: now.addingTimeInterval(3600), userAgent: "test")
            let session = try #require(try await store.sessionWithMembership(tokenHash: "token-1", now: now))
            #expect(session.household == home && session.role == .owner && session.session.user == ana)
            _ = try await stores.tokens.createAPIToken(tokenHash: String(repeating: "a", count: 64), userID: ana.id, householdID: home.id,
                                                       name: "Script", scope: .read, now: now, expiresAt: nil)
            #expect(try await stores.tokens.apiToken(hash: String(repeating: "a", count: 64), now: now)?.household == home)

            let moved = try await store.updateHousehold(home.id, name: "Home", currency: .usd, highValueThreshold: home.highValueThreshold,
                                                        timeZone: "America/New_York")
            #expect(moved.timeZone == "America/New_York")
            #expect(try await store.sessionWithMembership(tokenHash: "token-1", now: now)?.household.timeZone == "America/New_York")
            let cleared = try await store.updateHousehold(home.id, name: "Home", currency: .usd, highValueThreshold: home.highValueThreshold,
                                                          timeZone: nil)
            #expect(cleared.timeZone == nil)
            #expect(try await store.household(home.id).timeZone == nil)
        }
    }

    @Test(arguments: Engine.available)
    func aSessionIsFoundWithItsHouseholdUntilItExpires(engine: Engine) async throws {
        try await withStore(engine) { store in
            let (ana, home) = try await owner(store)
            let expires = now.addingTimeInterval(3600)
            try await store.createSession(tokenHash: "token-1", userID: ana.id, csrfToken: "csrf-1", now: now, expiresAt: expires,
                                          userAgent: String(repeating: "é", count: 500))
            let found = try #require(try await store.sessionWithMembership(tokenHash: "token-1", now: now))
            #expect(found.session.user == ana)
            #expect(found.session.csrfToken == "csrf-1")
            #expect(found.session.createdAt == Date(millis: now.millis))
            #expect(found.session.expiresAt == Date(millis: expires.millis))
            #expect(found.session.lastActiveAt == Date(millis: now.millis))
            #expect(found.session.theme == .system)
            #expect(found.session.locked == false)
            #expect(found.session.passkeys == 0)
            #expect(found.household == home)
            #expect(found.role == .owner)

            #expect(try await store.sessionWithMembership(tokenHash: "token-2", now: now) == nil)
            #expect(try await store.sessionWithMembership(tokenHash: "token-1", now: expires) == nil)

            try await store.setTheme(ana.id, .dark)
            #expect(try await store.sessionWithMembership(tokenHash: "token-1", now: now)?.session.theme == .dark)
            await #expect(throws: DomainError.notFound("The account")) { try await store.setTheme(UserID(), .light) }
        }
    }

    @Test(arguments: Engine.available)
    func aSessionSlidesAtMostOnceAMinuteAndExpiredOnesAreSwept(engine: Engine) async throws {
        try await withStore(engine) { store in
            let (ana, _) = try await owner(store)
            try await store.createSession(tokenHash: "a", userID: ana.id, csrfToken: "c", now: now, expiresAt: now.addingTimeInterval(100), userAgent: nil)
            try await store.createSession(tokenHash: "b", userID: ana.id, csrfToken: "c", now: now, expiresAt: now.addingTimeInterval(10), userAgent: nil)

            // Within a minute of the last look: not moved.
            try await store.touchSession(tokenHash: "a", now: now.addingTimeInterval(30), expiresAt: now.addingTimeInterval(500))
            #expect(try await store.sessionWithMembership(tokenHash: "a", now: now)?.session.expiresAt == Date(millis: now.addingTimeInterval(100).millis))
            // Later: moved.
            try await store.touchSession(tokenHash: "a", now: now.addingTimeInterval(61), expiresAt: now.addingTimeInterval(500))
            let moved = try #require(try await store.sessionWithMembership(tokenHash: "a", now: now.addingTimeInterval(200)))
            #expect(moved.session.expiresAt == Date(millis: now.addingTimeInterval(500).millis))
            #expect(moved.session.lastSeenAt == Date(millis: now.addingTimeInterval(61).millis))

            try await store.deleteExpiredSessions(now: now.addingTimeInterval(50))
            #expect(try await store.sessionWithMembership(tokenHash: "b", now: now) == nil)
            #expect(try await store.sessionWithMembership(tokenHash: "a", now: now) != nil)
            try await store.deleteSession(tokenHash: "a")
            #expect(try await store.sessionWithMembership(tokenHash: "a", now: now) == nil)
        }
    }

    @Test(arguments: Engine.available)
    func aNewPasswordOrRemovalEndsThatPersonsSessionsOnly(engine: Engine) async throws {
        try await withStore(engine) { store in
            let (ana, home) = try await owner(store)
            let (bea, _, _) = try await store.createAccount(email: "bea@example.com", displayName: "Bea", passwordHash: "h",
                                                            household: .existing(home.id), role: .member, onlyIfFirst: false, now: now)
            let later = now.addingTimeInterval(3600)
            for (token, user) in [("ana-1", ana.id), ("ana-2", ana.id), ("bea-1", bea.id)] {
                try await store.createSession(tokenHash: token, userID: user, csrfToken: "c", now: now, expiresAt: later, userAgent: nil)
            }
            try await store.changePasswordHash(ana.id, to: "hash-2")
            #expect(try await store.userCredentials(email: "ana@example.com")?.passwordHash == "hash-2")
            #expect(try await store.sessionWithMembership(tokenHash: "ana-1", now: now) == nil)
            #expect(try await store.sessionWithMembership(tokenHash: "ana-2", now: now) == nil)
            #expect(try await store.sessionWithMembership(tokenHash: "bea-1", now: now) != nil)
            await #expect(throws: DomainError.notFound("The account")) { try await store.changePasswordHash(UserID(), to: "x") }

            try await store.removeMember(home.id, user: bea.id)
            #expect(try await store.sessionWithMembership(tokenHash: "bea-1", now: now) == nil)
            #expect(try await store.members(of: home.id).map(\.user.id) == [ana.id])
            await #expect(throws: DomainError.notFound("The member")) { try await store.removeMember(home.id, user: bea.id) }

            try await store.createSession(tokenHash: "bea-2", userID: bea.id, csrfToken: "c", now: now, expiresAt: later, userAgent: nil)
            try await store.deleteSessions(of: bea.id)
            #expect(try await store.sessionWithMembership(tokenHash: "bea-2", now: now) == nil)
        }
    }

    @Test(arguments: Engine.available)
    func aHouseholdKeepsAnOwnerEvenWhenTwoAreRemovedAtOnce(engine: Engine) async throws {
        try await withStore(engine) { store in
            let (ana, home) = try await owner(store)
            await #expect(throws: DomainError.conflict("A household needs at least one owner.")) { try await store.removeMember(home.id, user: ana.id) }
            // A race shows only now and then: twelve households, each with two owners removed at the same moment.
            for round in 0..<12 {
                let (first, household) = try await owner(store, email: "first\(round)@example.com", household: "Home \(round)")
                let (second, _, _) = try await store.createAccount(email: "second\(round)@example.com", displayName: "", passwordHash: "h",
                                                                   household: .existing(household.id), role: .owner, onlyIfFirst: false, now: now)
                let removed = await withTaskGroup(of: Bool.self) { group in
                    for user in [first.id, second.id] {
                        group.addTask { (try? await store.removeMember(household.id, user: user)) != nil }
                    }
                    return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
                }
                let left = try await store.members(of: household.id)
                #expect(removed == 1, "round \(round)")
                #expect(left.map(\.role) == [.owner], "round \(round)")
            }
        }
    }

    @Test(arguments: Engine.available)
    func aHouseholdIsRenamedAndItsThresholdMustBeInItsCurrency(engine: Engine) async throws {
        try await withStore(engine) { store in
            let (_, home) = try await owner(store)
            let gbp = try CurrencyCode("GBP")
            let updated = try await store.updateHousehold(home.id, name: "  Flat 2\u{0301} ", currency: gbp,
                                                          highValueThreshold: try Money(minorUnits: 50_000, currency: gbp), timeZone: nil)
            #expect(updated.name == "Flat 2\u{0301}")
            #expect(try await store.household(home.id) == updated)
            #expect(updated.timeZone == nil)
            await #expect(throws: DomainError.self) {
                _ = try await store.updateHousehold(home.id, name: "X", currency: gbp, highValueThreshold: try Money(minorUnits: 5, currency: .usd), timeZone: nil)
            }
            await #expect(throws: DomainError.notFound("The household")) {
                _ = try await store.updateHousehold(HouseholdID(), name: "X", currency: gbp, highValueThreshold: try Money(minorUnits: 5, currency: gbp), timeZone: nil)
            }
            await #expect(throws: DomainError.notFound("The household")) { _ = try await store.household(HouseholdID()) }
        }
    }

    @Test(arguments: Engine.available)
    func signInFailuresAreCountedPerKeyInTheirWindowAndForgotten(engine: Engine) async throws {
        try await withStore(engine) { store in
            let window: TimeInterval = 900
            func record(_ key: String, at: Date) async throws {
                try await store.recordSignInFailure(key, at: at, forgetBefore: at.addingTimeInterval(-window))
            }
            #expect(try await store.signInFailures("user:a", since: now.addingTimeInterval(-window)) == (0, nil))
            try await record("user:a", at: now)
            try await record("user:a", at: now.addingTimeInterval(10))
            try await record("client:10.0.0.1", at: now.addingTimeInterval(20))
            let a = try await store.signInFailures("user:a", since: now.addingTimeInterval(-window))
            #expect(a.count == 2 && a.oldest == now)
            // Only those after `since` count, and the oldest of those.
            let later = try await store.signInFailures("user:a", since: now)
            #expect(later.count == 1 && later.oldest == now.addingTimeInterval(10))
            #expect(try await store.signInFailures("user:b", since: now.addingTimeInterval(-window)).count == 0)
            // A success clears the key's failures only.
            try await store.clearSignInFailures("user:a")
            #expect(try await store.signInFailures("user:a", since: now.addingTimeInterval(-window)).count == 0)
            #expect(try await store.signInFailures("client:10.0.0.1", since: now.addingTimeInterval(-window)).count == 1)
            // A failure past the window forgets every key's failures older than the window.
            try await record("user:b", at: now.addingTimeInterval(window + 30))
            #expect(try await store.signInFailures("client:10.0.0.1", since: .distantPast).count == 0)
            #expect(try await store.signInFailures("user:b", since: .distantPast).count == 1)
        }
    }

    @Test(arguments: Engine.available)
    func theAccountVersionMovesWithEveryChangeASessionIsReadFromAndWithNothingElse(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let store = stores.accounts
            var last = try await store.accountVersion()
            /// Whether `change` moved the version on (and remembers where it is).
            func moves(_ change: () async throws -> Void) async throws -> Bool {
                try await change()
                let now = try await store.accountVersion()
                defer { last = now }
                return now > last
            }
            var ana: User!
            var home: Household!
            #expect(try await moves { (ana, home) = try await owner(store) })
            let (ben, _, _) = try await store.createAccount(email: "ben@example.com", displayName: "Ben", passwordHash: "h",
                                                            household: .existing(home.id), role: .member, onlyIfFirst: false, now: now)
            #expect(try await moves { try await store.createSession(tokenHash: "t1", userID: ana.id, csrfToken: "c", now: now,
                                                                    expiresAt: now.addingTimeInterval(3600), userAgent: nil) })
            #expect(try await moves { try await store.touchSession(tokenHash: "t1", now: now.addingTimeInterval(120),
                                                                   expiresAt: now.addingTimeInterval(7200)) })
            #expect(try await moves { try await store.setTheme(ana.id, .dark) })
            #expect(try await moves { _ = try await store.updateHousehold(home.id, name: "Home 2", currency: .usd,
                                                                         highValueThreshold: Money(minorUnits: 100_000, currency: .usd), timeZone: nil) })
            #expect(try await moves { try await store.addMember(home.id, user: ben.id, role: .owner, now: now) })
            #expect(try await moves { try await store.removeMember(home.id, user: ben.id) })
            #expect(try await moves { try await store.changePasswordHash(ana.id, to: "hash-2") })
            try await store.createSession(tokenHash: "t2", userID: ana.id, csrfToken: "c", now: now, expiresAt: now.addingTimeInterval(3600), userAgent: nil)
            #expect(try await moves { try await store.deleteSession(tokenHash: "t2") })

            // Not moved: a touch too soon to write anything, a failed sign-in, an item.
            try await store.createSession(tokenHash: "t3", userID: ana.id, csrfToken: "c", now: now, expiresAt: now.addingTimeInterval(3600), userAgent: nil)
            last = try await store.accountVersion()
            #expect(try await !moves { try await store.touchSession(tokenHash: "t3", now: now.addingTimeInterval(1),
                                                                    expiresAt: now.addingTimeInterval(3601)) })
            #expect(try await !moves { try await store.recordSignInFailure("user:x", at: now, forgetBefore: now.addingTimeInterval(-900)) })
            #expect(try await !moves { _ = try await stores.items.createItem(home.id, ItemDraft(name: "Lamp", currency: .usd), now: now,
                                                                             today: nil, plan: nil) })
        }
    }
}

/// Two PostgreSQL stores on one schema, as two servers on one database, count one person's failed sign-ins together.
@Suite(.enabled(if: Engine.available.contains(.postgres)))
struct SignInFailuresAcrossServersTests {
    @Test func failuresRecordedOnOneServerCountOnTheOther() async throws {
        try await withTwoPostgresStores { first, second in
            let now = Date(millis: 1_763_800_000_000)
            for index in 0..<3 {
                let server = index % 2 == 0 ? first : second
                try await server.recordSignInFailure("user:a", at: now.addingTimeInterval(Double(index)), forgetBefore: now.addingTimeInterval(-900))
            }
            #expect(try await first.signInFailures("user:a", since: now.addingTimeInterval(-900)).count == 3)
            try await second.clearSignInFailures("user:a")
            #expect(try await first.signInFailures("user:a", since: now.addingTimeInterval(-900)).count == 0)
        }
    }
}

/// Two PostgreSQL stores on one schema, as two servers on one database, read one account version.
@Suite(.enabled(if: Engine.available.contains(.postgres)))
struct AccountVersionAcrossServersTests {
    let now = Date(millis: 1_763_800_000_123)

    @Test func theAccountVersionIsOneNumberForEveryServer() async throws {
        try await withTwoPostgresStores { first, second in
            let before = try await first.accountVersion()
            #expect(try await second.accountVersion() == before)
            let (user, _, _) = try await second.createAccount(email: "ana@example.com", displayName: "Ana", passwordHash: "h",
                                                              household: .new(name: "Home", currency: .usd), role: .member,
                                                              onlyIfFirst: false, now: now)
            let made = try await first.accountVersion()
            #expect(made > before)
            try await second.changePasswordHash(user.id, to: "h2")
            #expect(try await first.accountVersion() > made)
        }
    }
}
