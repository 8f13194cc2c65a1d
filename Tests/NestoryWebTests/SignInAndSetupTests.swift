import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NestoryDomain
import Testing
@testable import NestoryWeb

/// Sign-in limits keyed on the account as found, per-client limits that do not lock other people out,
/// first-run set-up as one transaction, and search text with control characters.
@Suite struct SignInAndSetupTests {
    @Test func spellingsOfOneAddressShareOneCount() async throws {
        let app = try TestApp(limit: 3)
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var browser = Browser(client)
            // Each of these finds the same account: they count as guesses against it, not as new accounts.
            for variant in ["ann@example.com", "ann@example.com\n", "ANN@example.com\u{2028}"] {
                #expect(try await browser.signIn(variant, "guess guess guess").status == .unauthorized)
            }
            let limited = try await browser.signIn(" ann@example.com\u{2029}", "correct horse battery")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.body.contains("Wait 15 minutes"))
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 800)
        }
    }

    /// The failures are kept in the database: restarting the server (or reaching another one on the same database)
    /// does not give a guesser a fresh count.
    @Test func failedSignInsStillCountAfterARestart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-web-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let app = try TestApp(limit: 3, path: path, keepsFolder: true)
            _ = try app.household("Smiths", email: "ann@example.com")
            try await app.run { client async throws in
                var browser = Browser(client)
                for _ in 0..<3 { #expect(try await browser.signIn("ann@example.com", "guess guess guess").status == .unauthorized) }
            }
        }
        let app = try TestApp(limit: 3, path: path)
        try await app.run { client async throws in
            var browser = Browser(client)
            #expect(try await browser.signIn("ann@example.com", "correct horse battery").status == .tooManyRequests)
        }
    }

    @Test func mistypingOneAccountDoesNotLockAnotherOnTheSameAddress() async throws {
        let app = try TestApp(limit: 3)
        _ = try app.household("Smiths", email: "ann@example.com")
        _ = try app.household("Joneses", email: "bob@example.com")
        try await app.run { client in
            var ann = Browser(client)
            for _ in 0..<5 { _ = try await ann.signIn("ann@example.com", "guess guess guess") }
            #expect(try await ann.signIn("ann@example.com", "correct horse battery").status == .tooManyRequests)
            var bob = Browser(client)  // same client address (the test client's)
            #expect(try await bob.signIn("bob@example.com", "correct horse battery").status == .seeOther)
        }
    }

    @Test func guessingAcrossManyAccountsIsLimitedPerClient() async throws {
        let app = try TestApp(limit: 100, clientLimit: 3)
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.request(.get, "/signin")
            for name in ["a", "b", "c"] {
                #expect(try await browser.signIn("\(name)@example.com", "guess guess guess").status == .unauthorized)
            }
            #expect(try await browser.signIn("ann@example.com", "correct horse battery").status == .tooManyRequests)
        }
    }

    @Test func twoSimultaneousSetUpsMakeOneOwner() async throws {
        let app = try TestApp()
        try await app.run { client in
            var first = Browser(client)
            var second = Browser(client)
            _ = try await first.request(.get, "/setup")
            _ = try await second.request(.get, "/setup")
            let (a, b) = (first, second)
            func post(_ browser: Browser, _ email: String) async throws -> Browser.Reply {
                var browser = browser
                return try await browser.request(.post, "/setup", form: [
                    "household": "House of \(email)", "currency": "USD", "name": "Someone", "email": email,
                    "password": "correct horse battery", "confirm": "correct horse battery"])
            }
            async let one = post(a, "ann@example.com")
            async let two = post(b, "bob@example.com")
            let replies = try await [one, two]
            // One made the owner; the other is sent to sign in (with a word of why when it raced the first).
            let locations = replies.map { $0.location ?? "" }.sorted()
            #expect(locations.first == "/" && locations.last?.hasPrefix("/signin") == true, "\(locations)")
            var late = Browser(client)
            let page = try await late.request(.get, "/signin?notice=already-set-up")
            #expect(page.body.contains("set up a moment ago"))
        }
        let households = try app.database.allHouseholds()
        #expect(households.count == 1)
        let members = try app.database.members(of: households[0].id)
        #expect(members.count == 1 && members[0].role == .owner)
    }

    @Test func controlCharactersInASearchGiveAList() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        _ = try app.database.createItem(household.id, ItemDraft(name: "Walnut desk", currency: .usd), now: Date(), today: try CalendarDate(year: 2026, month: 1, day: 1))
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            for query in ["%00", "walnut%00", "%00walnut%01%1B", "%E2%80%AEwalnut", "wal%00nut", "%7F"] {
                let api = try await browser.request(.get, "/api/v1/items?q=\(query)")
                #expect(api.status == .ok, "api q=\(query)")
                let page = try await browser.request(.get, "/?q=\(query)")
                #expect(page.status == .ok, "page q=\(query)")
            }
            let found = try await browser.request(.get, "/api/v1/items?q=walnut%00")
            #expect(found.body.contains("Walnut desk"))
        }
    }
}
