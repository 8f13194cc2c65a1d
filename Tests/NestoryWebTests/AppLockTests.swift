import Foundation
import HTTPTypes
import HummingbirdTesting
import NestoryAuth
import NestoryDomain
import NestoryStore
import Testing
@testable import NestoryWeb

/// The app lock as the server enforces it, and the signed-in sessions list (issue 18).
@Suite struct AppLockTests {
    static let page: HTTPFields = [.accept: "text/html", HTTPField.Name("Sec-Fetch-Mode")!: "navigate"]
    static let script: HTTPFields = [.accept: "application/json", HTTPField.Name("Sec-Fetch-Mode")!: "cors"]

    @Test func aSessionIdleLongerThanTheTimeoutIsLockedUntilThePasswordUnlocksIt() async throws {
        try await Self.signedIn { signedIn, clock, app in
            var browser = signedIn
            let chosen = try await browser.request(.post, "/settings/lock", form: ["lock": "5"])
            #expect(chosen.status == .seeOther && chosen.location?.hasPrefix("/settings?notice=") == true)
            let settings = try await browser.request(.get, "/settings", headers: Self.page)
            #expect(settings.body.contains("value=\"5\" checked") && settings.body.contains("id=\"lock-screen\" data-timeout=\"300\""))

            // Four minutes on, the page's polling (a script's GET) still gets its answer, and does not count as use.
            clock.advance(240)
            #expect(try await browser.request(.get, "/api/v1/items", headers: Self.script).status == .ok)
            clock.advance(120)
            let refused = try await browser.request(.get, "/api/v1/items", headers: Self.script)
            #expect(refused.status == .locked && refused.errorCode == "locked")
            // A page load gets the lock page (it returns to the same address), a form post and the API are refused.
            let lockPage = try await browser.request(.get, "/items/new?room=x", headers: Self.page)
            #expect(lockPage.status == .locked)
            #expect(lockPage.body.contains("Nestory is locked") && lockPage.body.contains("name=\"next\" value=\"/items/new?room=x\""))
            #expect(!lockPage.body.contains("class=\"tabs\""))
            // A form posted without script (a navigation): the lock page, returning to the page it came from.
            var formPost = Self.page
            formPost[.referer] = "/items/new"
            let posted = try await browser.request(.post, "/items", form: ["name": "Lamp"], headers: formPost)
            #expect(posted.status == .locked && posted.body.contains("name=\"next\" value=\"/items/new\""))
            let post = try await browser.request(.post, "/api/v1/items", json: #"{"name":"Lamp"}"#)
            #expect(post.status == .locked && post.errorCode == "locked")
            #expect(try app.database.sessions(of: app.database.userCredentials(email: "ann@example.com")!.user.id, now: clock.now)[0].locked)
            // Its state can be asked while locked.
            let state = try await browser.request(.get, "/api/v1/session")
            #expect(state.status == .ok && (state.json as? [String: Any])?["locked"] as? Bool == true)

            // A wrong password keeps it locked.
            let wrong = try await browser.request(.post, "/unlock", form: ["password": "not my password"], headers: [.accept: "application/json"])
            #expect(wrong.status == .unauthorized && wrong.errorCode == "authentication_failed")
            #expect(try await browser.request(.get, "/api/v1/items", headers: Self.script).status == .locked)
            // Without script, a wrong password shows the lock page again with the reason.
            let wrongForm = try await browser.request(.post, "/unlock", form: ["password": "nope", "next": "/reports"], headers: Self.page)
            #expect(wrongForm.status == .unauthorized && wrongForm.body.contains("That is not your password."))
            // The right one unlocks it, and the page goes back where it was.
            let unlocked = try await browser.request(.post, "/unlock", form: ["password": "correct horse battery", "next": "/items/new?room=x"],
                                                     headers: Self.page)
            #expect(unlocked.status == .seeOther && unlocked.location == "/items/new?room=x")
            #expect(try await browser.request(.get, "/api/v1/items", headers: Self.script).status == .ok)
            #expect(try await browser.request(.post, "/api/v1/items", json: #"{"name":"Lamp"}"#).status == .created)

            // The page can lock at once (its timer ran out): then even a page load gets the lock page.
            #expect(try await browser.request(.post, "/lock", form: [:], headers: [.accept: "application/json"]).status == .noContent)
            #expect(try await browser.request(.get, "/", headers: Self.page).status == .locked)
            // Signing out stays reachable.
            #expect(try await browser.request(.post, "/signout", form: [:]).location == "/signin")
        }
    }

    @Test func onlyThePersonsActivityKeepsTheSessionUnlocked() async throws {
        try await Self.signedIn { signedIn, clock, app in
            var browser = signedIn
            #expect(try await browser.request(.post, "/settings/lock", form: ["lock": "1"]).status == .seeOther)
            // The page reports typing (a heartbeat) and page loads count: each moves the lock on.
            for _ in 0..<4 {
                clock.advance(50)
                #expect(try await browser.request(.post, "/session/activity", form: [:]).status == .noContent)
            }
            clock.advance(50)
            #expect(try await browser.request(.get, "/", headers: Self.page).status == .ok)
            // Background requests (the offline queue's replays, error reports) and polls do not: a minute and the
            // server's slack (12 s for a minute) after the page load, it is locked.
            for _ in 0..<2 {
                clock.advance(30)
                let background = try await browser.request(.post, "/api/v1/events", json: #"{"event":"scan_open"}"#,
                                                           headers: [HTTPField.Name("X-Nestory-Background")!: "1"])
                #expect(background.status == .noContent)
                #expect(try await browser.request(.get, "/api/v1/summary", headers: Self.script).status == .ok)
            }
            clock.advance(13)
            #expect(try await browser.request(.get, "/api/v1/summary", headers: Self.script).status == .locked)
            #expect(try await browser.request(.post, "/session/activity", form: [:]).status == .locked)
        }
    }

    @Test func theLockIsEachPersonsChoiceAndNeverLocksWhenOff() async throws {
        let clock = TestClock()
        let app = try TestApp(now: { clock.now })
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        try await app.run { client in
            var ann = Browser(client), bob = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            _ = try await bob.signIn("bob@example.com")
            #expect(try await ann.request(.post, "/settings/lock", form: ["lock": "15"]).status == .seeOther)
            #expect(try await ann.request(.post, "/settings/lock", form: ["lock": "7"]).status == .unprocessableContent)
            clock.advance(3600)
            #expect(try await bob.request(.get, "/api/v1/summary", headers: Self.script).status == .ok)
            #expect(try await ann.request(.get, "/api/v1/summary", headers: Self.script).status == .locked)
        }
    }

    @Test func theSessionsListAndSigningOutEverywhereElse() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        try await app.run { client in
            var phone = Browser(client), laptop = Browser(client), tablet = Browser(client), bob = Browser(client)
            let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
            let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
            _ = try await phone.request(.get, "/signin")
            _ = try await phone.request(.post, "/signin", form: ["email": "ann@example.com", "password": "correct horse battery"],
                                        headers: [.userAgent: iPhone])
            _ = try await laptop.request(.get, "/signin")
            _ = try await laptop.request(.post, "/signin", form: ["email": "ann@example.com", "password": "correct horse battery"],
                                         headers: [.userAgent: firefox])
            _ = try await tablet.signIn("ann@example.com")
            _ = try await bob.signIn("bob@example.com")

            let settings = try await laptop.request(.get, "/settings")
            #expect(settings.body.contains("Safari on iPhone") && settings.body.contains("Firefox on Linux"))
            #expect(settings.body.components(separatedBy: "This device").count == 2)
            #expect(settings.body.contains("Sign out everywhere else"))
            // One session signed out by its id: the tablet's (the one with no User-Agent).
            let ids = Self.sessionIDs(settings.body)
            #expect(ids.count == 2)  // the other two; never this device's
            let tabletID = try #require(try app.database.sessions(of: app.database.userCredentials(email: "ann@example.com")!.user.id, now: Date())
                .first { $0.userAgent == nil }?.id)
            // Bob cannot sign Ann's sessions out.
            #expect(try await bob.request(.post, "/settings/sessions/\(tabletID)/signout", form: [:]).status == .notFound)
            #expect(try await laptop.request(.post, "/settings/sessions/\(tabletID)/signout", form: [:]).status == .seeOther)
            #expect(try await tablet.request(.get, "/").location == "/signin")
            #expect(try await phone.request(.get, "/").status == .ok)

            // Everywhere else: the phone is signed out, the laptop (this device) and Bob are not.
            let done = try await laptop.request(.post, "/settings/sessions/others/signout", form: [:])
            #expect(done.status == .seeOther && done.location?.contains("Signed%20out%20on%201%20other%20device") == true)
            #expect(try await phone.request(.get, "/").location == "/signin")
            #expect(try await phone.request(.get, "/api/v1/summary").status == .unauthorized)
            #expect(try await laptop.request(.get, "/").status == .ok)
            #expect(try await bob.request(.get, "/").status == .ok)
            let after = try await laptop.request(.get, "/settings")
            #expect(Self.sessionIDs(after.body).isEmpty && !after.body.contains("Sign out everywhere else"))
        }
    }

    /// Ann signed in, on a server whose clock the test moves.
    static func signedIn(_ body: @escaping @Sendable (Browser, TestClock, TestApp) async throws -> Void) async throws {
        let clock = TestClock()
        let app = try TestApp(now: { clock.now })
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            try await body(browser, clock, app)
        }
    }

    /// The ids in the sessions list's sign-out forms.
    static func sessionIDs(_ body: String) -> [String] {
        body.components(separatedBy: "action=\"/settings/sessions/").dropFirst().map { String($0.prefix { $0 != "/" }) }
            .filter { $0 != "others" }
    }
}
