import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import Testing

/// What a server keeps beside its households' archives (`ServerRecordStore`, for `nestory copy`) reads and writes the
/// same on every engine.
@Suite struct ServerRecordStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_123)

    @Test(arguments: Engine.available)
    func everyKindIsReadOutAsTheOtherStoresWroteIt(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let server = try #require(stores.serverRecords)
            let (ana, home, _) = try await stores.accounts.createAccount(email: "ana@example.com", displayName: "Ana", passwordHash: "hash-a",
                                                                         household: .new(name: "Home", currency: .eur), role: .owner,
                                                                         onlyIfFirst: false, now: now)
            // Bea leaves her household: an account in none.
            let (bea, _, _) = try await stores.accounts.createAccount(email: "bea@example.com", displayName: "Bea", passwordHash: "hash-b",
                                                                      household: .existing(home.id), role: .member, onlyIfFirst: false,
                                                                      now: now.addingTimeInterval(1))
            try await stores.accounts.removeMember(home.id, user: bea.id)
            try await stores.accounts.setTheme(bea.id, .dark)
            try await stores.accounts.setLockMinutes(bea.id, 15)
            try await stores.reminders.setReminderPreferences(bea.id, ReminderPreferences(warranties: false, weeklyNudge: true))
            try await stores.reminders.dismissTip(bea.id, .reports)
            let passkey = try await stores.accounts.addPasskey(userID: ana.id, credentialID: [1, 2, 3], name: "Phone", publicKey: [4, 5, 6, 7],
                                                               signCount: 9, backupEligible: true, now: now.addingTimeInterval(2))
            try await stores.accounts.passkeyUsed(id: passkey.id, signCount: 10, now: now.addingTimeInterval(3))
            let token = try await stores.tokens.createAPIToken(tokenHash: String(repeating: "a", count: 64), userID: ana.id, householdID: home.id,
                                                               name: "Shortcuts", scope: .write, now: now.addingTimeInterval(4),
                                                               expiresAt: now.addingTimeInterval(86_400))
            try await stores.reminders.setCalendarFeed(ana.id, token: "feed-token", tokenHash: "feed-hash", now: now.addingTimeInterval(5))
            try await stores.reminders.setWebhook(home.id, url: "https://hooks.example.com/in", newSecret: "whsec_1", replaceSecret: false,
                                                  now: now.addingTimeInterval(6))
            try await stores.reminders.recordWebhookAttempt(home.id, status: 502, error: "Bad gateway", at: now.addingTimeInterval(7))
            try await stores.reminders.markEventSent(home.id, eventID: "warranty-30-x", now: now.addingTimeInterval(8))
            try await stores.licences.installLicence(key: "licence-text", keyID: "k1", household: home.id, now: now.addingTimeInterval(9))
            try await stores.products.importCatalog([ProductRecord(source: "catalog", code: "4006381333931", name: "Pen", brand: "Stabilo")],
                                                    now: now.addingTimeInterval(10))
            try await stores.products.storeAnswer(provider: "upcitemdb", key: "0000000000017", .notFound, now: now.addingTimeInterval(11))

            let records = try await server.serverRecords()
            #expect(records.instanceID == (try await stores.licences.instanceID()))
            let (a, b, h) = (ana.id.description, bea.id.description, home.id.description)
            let expectedAccounts = [
                ServerRecords.Account(id: a, email: "ana@example.com", displayName: "Ana", passwordHash: "hash-a", createdAt: now.millis,
                                      theme: "system", lockMinutes: 0, tipsDismissed: 0, warrantyReminders: true, weeklyNudge: true),
                ServerRecords.Account(id: b, email: "bea@example.com", displayName: "Bea", passwordHash: "hash-b", createdAt: now.millis + 1000,
                                      theme: "dark", lockMinutes: 15, tipsDismissed: 4, warrantyReminders: false, weeklyNudge: true),
            ].sorted { $0.id < $1.id }
            #expect(records.accounts == expectedAccounts)
            #expect(records.passkeys == [.init(id: passkey.id, credentialID: Data([1, 2, 3]), userID: a, name: "Phone", publicKey: Data([4, 5, 6, 7]),
                                               signCount: 10, backupEligible: true, createdAt: now.millis + 2000, lastUsedAt: now.millis + 3000)])
            #expect(records.apiTokens == [.init(id: token.id, tokenHash: String(repeating: "a", count: 64), userID: a, householdID: h,
                                                name: "Shortcuts", scope: "write", createdAt: now.millis + 4000, expiresAt: now.millis + 86_400_000,
                                                lastUsedAt: nil)])
            #expect(records.calendarFeeds == [.init(userID: a, token: "feed-token", tokenHash: "feed-hash", createdAt: now.millis + 5000)])
            #expect(records.webhooks == [.init(householdID: h, url: "https://hooks.example.com/in", secret: "whsec_1", createdAt: now.millis + 6000,
                                               lastAttemptAt: now.millis + 7000, lastStatus: 502, lastError: "Bad gateway")])
            #expect(records.sentEvents == [.init(householdID: h, eventID: "warranty-30-x", sentAt: now.millis + 8000)])
            #expect(records.licences == [.init(key: "licence-text", householdID: h, keyID: "k1", installedAt: now.millis + 9000)])
            #expect(records.products == [
                .init(code: "0000000000017", source: "upcitemdb", found: false, name: nil, brand: nil, category: nil, imageURL: nil,
                      fetchedAt: now.millis + 11_000),
                .init(code: "4006381333931", source: "catalog", found: true, name: "Pen", brand: "Stabilo", category: nil, imageURL: nil,
                      fetchedAt: now.millis + 10_000),
            ])
        }
    }

    @Test(arguments: Engine.available)
    func rowsAreWrittenWithTheirIdsAndTimesReplacedAndDeletedByKey(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let server = try #require(stores.serverRecords)
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: now)
            let (u, h) = ("0b7e6a52-3f4c-4e0a-9a51-2d6f1c9e8a01", home.id.description)
            let user = UserID(UUID(uuidString: u)!)
            let account = ServerRecords.Account(id: u, email: "cy@example.com", displayName: "Cy", passwordHash: "old-hash", createdAt: 1_600_000_000_001,
                                                theme: "light", lockMinutes: 5, tipsDismissed: 3, warrantyReminders: false, weeklyNudge: false)
            let passkey = ServerRecords.Passkey(id: "5d1c2a3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d", credentialID: Data([9, 9]), userID: u, name: "Key",
                                                publicKey: Data([8]), signCount: 3, backupEligible: false, createdAt: 1_600_000_000_002, lastUsedAt: nil)
            let token = ServerRecords.APIToken(id: "6e2d3b4c-5f60-4b7c-9d8e-0f1a2b3c4d5e", tokenHash: String(repeating: "f", count: 64), userID: u,
                                               householdID: h, name: "Script", scope: "read", createdAt: 1_600_000_000_003, expiresAt: nil,
                                               lastUsedAt: 1_600_000_000_004)
            let feed = ServerRecords.CalendarFeed(userID: u, token: "t", tokenHash: "th", createdAt: 1_600_000_000_005)
            let webhook = ServerRecords.Webhook(householdID: h, url: "https://example.com/h", secret: "whsec_2", createdAt: 1_600_000_000_006,
                                                lastAttemptAt: nil, lastStatus: nil, lastError: nil)
            let event = ServerRecords.SentEvent(householdID: h, eventID: "e1", sentAt: 1_600_000_000_007)
            let licence = ServerRecords.Licence(key: "server-licence", householdID: nil, keyID: "k2", installedAt: 1_600_000_000_008)
            let product = ServerRecords.Product(code: "123", source: "catalog", found: true, name: "Cup", brand: nil, category: "Kitchen",
                                                imageURL: "https://example.com/c.jpg", fetchedAt: 1_600_000_000_009)
            // Accounts first (the membership names one), then the rest.
            try await server.applyServerRecords(put: ServerRecords(instanceID: "moved-server-id", accounts: [account]), delete: ServerRecords())
            try await stores.accounts.addMember(home.id, user: user, role: .owner, now: now)
            let rest = ServerRecords(passkeys: [passkey], apiTokens: [token], calendarFeeds: [feed], webhooks: [webhook], sentEvents: [event],
                                     licences: [licence], products: [product])
            try await server.applyServerRecords(put: rest, delete: ServerRecords())

            var expected = rest
            (expected.instanceID, expected.accounts) = ("moved-server-id", [account])
            #expect(try await server.serverRecords() == expected)
            // The other stores see them: the server's id, the token by its hash, the passkey by its credential.
            #expect(try await stores.licences.instanceID() == "moved-server-id")
            #expect(try await stores.tokens.apiToken(hash: String(repeating: "f", count: 64), now: now)?.user.email == "cy@example.com")
            #expect(try await stores.accounts.passkey(credentialID: [9, 9])?.userID == user)
            #expect(try await stores.reminders.calendarFeed(tokenHash: "th")?.userID == user)

            // Writing again replaces by key; a deleted row goes whatever else it holds; a changed password hash ends sessions.
            try await stores.accounts.createSession(tokenHash: "session-1", userID: user, csrfToken: "c", now: now, expiresAt: now.addingTimeInterval(3_600),
                                                    userAgent: nil)
            var renamed = token
            renamed.name = "Script (renamed)"
            try await server.applyServerRecords(put: ServerRecords(accounts: [account], apiTokens: [renamed]), delete: ServerRecords())
            #expect(try await stores.accounts.sessionWithMembership(tokenHash: "session-1", now: now) != nil)
            var changed = account
            changed.passwordHash = "new-hash"
            var stale = passkey
            stale.name = "anything"
            try await server.applyServerRecords(put: ServerRecords(accounts: [changed]), delete: ServerRecords(passkeys: [stale], webhooks: [webhook]))
            #expect(try await stores.accounts.sessionWithMembership(tokenHash: "session-1", now: now) == nil)
            let after = try await server.serverRecords()
            #expect(after.accounts == [changed])
            #expect(after.apiTokens == [renamed])
            #expect(after.passkeys.isEmpty && after.webhooks.isEmpty)
            #expect(after.calendarFeeds == [feed] && after.sentEvents == [event] && after.licences == [licence] && after.products == [product])
        }
    }

    @Test(arguments: Engine.available)
    func aLargeCatalogueIsWrittenWholeWithEmptyTextAndNullsKeptApart(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let server = try #require(stores.serverRecords)
            var products: [ServerRecords.Product] = []
            for n in 0..<12_001 {
                let name: String? = n % 2 == 0 ? "Item \(n)" : nil
                let brand: String? = n % 3 == 0 ? "" : nil
                let fetched: Int64 = 1_600_000_000_000 + Int64(n)
                products.append(ServerRecords.Product(code: String(format: "%013d", n), source: "catalog", found: true, name: name, brand: brand,
                                                      category: "Ünïcode “quoted” \\ \n", imageURL: nil, fetchedAt: fetched))
            }
            try await server.applyServerRecords(put: ServerRecords(products: products), delete: ServerRecords())
            #expect(try await server.serverRecords().products == products)
            #expect(try await stores.products.catalogCount() == 12_001)
        }
    }
}
