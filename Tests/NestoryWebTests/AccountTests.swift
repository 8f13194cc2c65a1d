import Foundation
import HTTPTypes
import HummingbirdTesting
import NestoryAuth
import NestoryDomain
import NestoryStore
import Testing
@testable import NestoryWeb

@Suite struct AccountTests {
    @Test func healthAndUnknownRoutes() async throws {
        let app = try TestApp()
        try await app.run { client in
            var browser = Browser(client)
            let health = try await browser.request(.get, "/health")
            #expect(health.status == .ok)
            #expect((health.json as? [String: String])?["schema"] == AppDatabase.knownMigrations.last)
            let missing = try await browser.request(.get, "/api/v1/nothing-here")
            #expect(missing.status == .notFound || missing.status == .unauthorized)
        }
    }

    @Test func firstRunCreatesTheOwnerAndHousehold() async throws {
        let app = try TestApp()
        try await app.run { client in
            var browser = Browser(client)
            #expect(try await browser.request(.get, "/").location == "/setup")
            let page = try await browser.request(.get, "/setup")
            #expect(page.status == .ok)
            #expect(page.body.contains("Create household"))
            #expect(browser.cookies["nestory_csrf"] != nil)
            // Without the CSRF token the form is refused.
            let forged = try await browser.request(.post, "/setup", form: ["household": "Evil", "email": "e@x.io", "password": "long enough pw",
                                                                              "confirm": "long enough pw", "_csrf": "wrong"])
            #expect(forged.status == .forbidden)
            #expect(try app.database.hasUsers() == false)
            // Field errors come back on the form.
            let invalid = try await browser.request(.post, "/setup", form: ["household": "", "email": "nope", "password": "short", "confirm": "other"])
            #expect(invalid.status == .unprocessableContent)
            #expect(invalid.body.contains("Give the household a name."))
            #expect(invalid.body.contains("at least 10 characters"))
            #expect(invalid.body.contains("not the same"))
            let done = try await browser.request(.post, "/setup", form: ["household": "The Smiths", "currency": "EUR", "name": "Ann",
                                                                            "email": "ann@example.com", "password": "correct horse battery",
                                                                            "confirm": "correct horse battery"])
            #expect(done.status == .seeOther)
            #expect(done.location == "/")
            let cookie = try #require(done.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"))
            let home = try await browser.request(.get, "/")
            #expect(home.status == .ok)
            #expect(home.body.contains("The Smiths"))
            #expect(home.body.contains("Add your first item"))
            // Set-up cannot run twice.
            #expect(try await browser.request(.get, "/setup").location == "/signin")
        }
    }

    @Test func signInSignOutAndFreshSessionIDs() async throws {
        let app = try TestApp()
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var browser = Browser(client)
            #expect(try await browser.request(.get, "/").location == "/signin")
            let first = try await browser.signIn("ANN@example.com ")
            #expect(first.status == .seeOther)
            let firstSession = try #require(browser.cookies["nestory_session"])
            #expect(try await browser.request(.get, "/").status == .ok)
            // Signing in again issues a new session id.
            _ = try await browser.signIn("ann@example.com")
            #expect(browser.cookies["nestory_session"] != firstSession)
            // Sign out ends the session on the server, not only in the browser.
            let current = try #require(browser.cookies["nestory_session"])
            #expect(try await browser.request(.post, "/signout", form: [:]).location == "/signin")
            #expect(browser.cookies["nestory_session"] == nil)
            #expect(try app.database.sessionWithMembership(tokenHash: SessionToken.hash(current), now: Date()) == nil)
            browser.cookies["nestory_session"] = current  // a stolen copy of the cookie is useless now
            #expect(try await browser.request(.get, "/").location == "/signin")
        }
    }

    @Test func unknownEmailAndWrongPasswordLookAlike() async throws {
        let hasher = CountingHasher()
        let app = try TestApp(hasher: hasher)
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var browser = Browser(client)
            let before = hasher.verifications
            let wrong = try await browser.signIn("ann@example.com", "wrong password here")
            let afterWrong = hasher.verifications
            let unknown = try await browser.signIn("bob@example.com", "wrong password here")
            let afterUnknown = hasher.verifications
            #expect(wrong.status == .unauthorized && unknown.status == .unauthorized)
            #expect(wrong.body.replacingOccurrences(of: "ann@example.com", with: "EMAIL")
                    == unknown.body.replacingOccurrences(of: "bob@example.com", with: "EMAIL"))
            // Both cost exactly one slow hash check, so timing does not tell them apart.
            #expect(afterWrong - before == 1)
            #expect(afterUnknown - afterWrong == 1)
        }
    }

    @Test func signInIsRateLimitedPerAccountAndPerClient() async throws {
        let app = try TestApp(limit: 3)
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var browser = Browser(client)
            for _ in 0..<3 { #expect(try await browser.signIn("ann@example.com", "guess guess guess").status == .unauthorized) }
            let limited = try await browser.signIn("ann@example.com", "correct horse battery")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] != nil)
            // A spoofed forwarding header does not give a fresh client identity.
            let spoofed = try await browser.request(.post, "/signin", form: ["email": "ann@example.com", "password": "correct horse battery"],
                                                    headers: [HTTPField.Name("X-Forwarded-For")!: "203.0.113.9"])
            #expect(spoofed.status == .tooManyRequests)
        }
    }

    @Test func changingThePasswordEndsOtherSessions() async throws {
        let app = try TestApp()
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var phone = Browser(client)
            var laptop = Browser(client)
            _ = try await phone.signIn("ann@example.com")
            _ = try await laptop.signIn("ann@example.com")
            let changed = try await laptop.request(.post, "/settings/password", form: ["current": "correct horse battery",
                                                                                       "password": "an even better passphrase"])
            #expect(changed.status == .seeOther)
            #expect(try await laptop.request(.get, "/settings").status == .ok)  // this device got a new session
            #expect(try await phone.request(.get, "/").location == "/signin")  // the other did not
            var fresh = Browser(client)
            #expect(try await fresh.signIn("ann@example.com", "an even better passphrase").status == .seeOther)
        }
    }

    @Test func theOwnerAddsAndRemovesMembers() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var owner = Browser(client)
            _ = try await owner.signIn("ann@example.com")
            let added = try await owner.request(.post, "/settings/members", form: ["name": "Bob", "email": "bob@example.com",
                                                                                   "password": "bobs long password"])
            #expect(added.status == .seeOther)
            var bob = Browser(client)
            #expect(try await bob.signIn("bob@example.com", "bobs long password").status == .seeOther)
            #expect(try await bob.request(.get, "/").body.contains("Smiths"))
            // A member cannot manage members.
            let bobID = try #require(try app.database.members(of: household.id).first { $0.user.email == "bob@example.com" }?.user.id)
            #expect(try await bob.request(.post, "/settings/members", form: ["email": "eve@example.com", "password": "eves long password"]).status == .forbidden)
            // Removal signs Bob out everywhere.
            #expect(try await owner.request(.post, "/settings/members/\(bobID)/remove", form: [:]).status == .seeOther)
            #expect(try await bob.request(.get, "/").location == "/signin")
        }
    }

    @Test func nextIsOnlyFollowedWithinTheSite() {
        #expect(AccountController.safeNext("/items/1") == "/items/1")
        for bad in ["https://evil.example", "//evil.example", "/\\evil.example", "javascript:alert(1)", nil] {
            #expect(AccountController.safeNext(bad) == nil)
        }
    }

    @Test func crossOriginPostsAreRefused() async throws {
        let app = try TestApp()
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            let reply = try await browser.request(.post, "/items", form: ["name": "Planted"], headers: [.origin: "https://evil.example"])
            #expect(reply.status == .forbidden)
            let noToken = try await browser.request(.post, "/items", form: ["name": "Planted", "_csrf": "nope"])
            #expect(noToken.status == .forbidden)
            #expect(try app.database.allHouseholds().allSatisfy { try app.database.summary($0.id).itemCount == 0 })
        }
    }
}

/// Settings → Household (issue 18): the owner renames the household, changes its currency (nothing is converted,
/// and the page says so) and the high-value threshold, which the inventory's count and filter follow. Currencies
/// anywhere a person types or picks one must be ISO codes ("XYZ" was saved as a currency).
@Suite struct HouseholdSettingsTests {
    @Test func theOwnerChangesNameCurrencyAndThresholdWithoutConvertingAmounts() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        let lamp = try app.database.createItem(household.id, ItemDraft(name: "Lamp", purchasePrice: try Money.parse("700", currency: .usd),
                                                                       currency: .usd), now: Date())
        _ = try app.database.createItem(household.id, ItemDraft(name: "Clock", purchasePrice: try Money.parse("700", currency: .eur),
                                                                        currency: .eur), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let page = try await ann.request(.get, "/settings").body
            #expect(page.contains("<option value=\"USD\" selected>USD — US Dollar</option>") && page.contains("Changing it never converts amounts"))
            let saved = try await ann.request(.post, "/settings/household", form: ["name": "The Smiths", "currency": "eur", "threshold": "500"])
            #expect(saved.status == .seeOther)
            #expect(try await ann.request(.get, try #require(saved.location)).body.contains("no amount was converted"))
            let now = try app.database.household(household.id)
            let (fiveHundred, seventyDollars) = (try Money.parse("500", currency: .eur), try Money.parse("700", currency: .usd))
            #expect(now.name == "The Smiths" && now.currency == .eur && now.highValueThreshold == fiveHundred)
            #expect(try app.database.item(household.id, lamp.id).item.purchasePrice == seventyDollars)  // not converted
            // The high-value count and filter follow the new threshold (in euros: the clock, not the lamp).
            #expect(try app.database.summary(household.id).highValueCount == 1)
            let high = try await ann.request(.get, "/?filter=high").body
            #expect(high.contains(">Clock<") && !high.contains(">Lamp<"))

            // Refused, with the form as typed and nothing changed.
            for (form, message) in [(["name": "X", "currency": "XYZ", "threshold": "5"], "XYZ is not an ISO currency"),
                                    (["name": "X", "currency": "EUR", "threshold": "lots"], "Enter an amount such as 1234.56."),
                                    (["name": "X", "currency": "JPY", "threshold": "1000.00"], "JPY amounts have no decimal places."),
                                    (["name": "X", "currency": "EUR", "threshold": "-5"], "Give an amount of 0 or more"),
                                    (["name": " ", "currency": "EUR", "threshold": "5"], "Give the household a name")] {
                let reply = try await ann.request(.post, "/settings/household", form: form)
                #expect(reply.status == .unprocessableContent && reply.body.contains(message), "\(form)")
                #expect(reply.body.contains("value=\"\(form["threshold"]!)\""))
            }
            #expect(try app.database.household(household.id).name == "The Smiths")

            var bob = Browser(client)
            _ = try await bob.signIn("bob@example.com")
            #expect(try await bob.request(.post, "/settings/household", form: ["name": "Bob's", "currency": "GBP", "threshold": "1"]).status == .forbidden)
            #expect(!(try await bob.request(.get, "/settings").body.contains("action=\"/settings/household")))
        }
    }

    /// The household's days are on its clock: set up from a browser in Kolkata, the household is in Kolkata, and at 20:00
    /// UTC (01:30 the next day there) a loss that happened "today" there is dated the 29th (the form's first value, and
    /// accepted), and the date pickers end on the 29th. The owner moves it to New York in Settings, where it is still the
    /// 28th: the 29th is then in the future.
    @Test func theHouseholdsTimeZoneIsSetUpFromTheBrowserAndItsDaysFollowIt() async throws {
        let evening = Date(timeIntervalSince1970: 1_795_896_000)  // 2026-11-28 20:00 UTC
        let app = try TestApp(now: { evening })
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.request(.get, "/setup")
            browser.cookies["tz"] = "Asia%2FKolkata"  // as the app's script sets it
            let done = try await browser.request(.post, "/setup", form: ["household": "The Smiths", "currency": "INR", "name": "Ann",
                                                                            "email": "ann@example.com", "password": "correct horse battery",
                                                                            "confirm": "correct horse battery"])
            #expect(done.status == .seeOther)
            let household = try #require(try app.database.allHouseholds().first)
            #expect(household.timeZone == "Asia/Kolkata")
            let kettle = try app.database.createItem(household.id, ItemDraft(name: "Kettle", currency: try CurrencyCode("INR")), now: evening)

            let settings = try await browser.request(.get, "/settings").body
            #expect(settings.contains("<option value=\"Asia/Kolkata\" selected>Asia/Kolkata (UTC+5:30)</option>"))
            #expect(settings.contains("The server’s clock ("))
            #expect(try await browser.request(.get, "/items/new").body.contains("max=\"2026-11-29\""))
            #expect(try await browser.request(.get, "/items/quick").body.contains("max=\"2026-11-29\""))
            let loss = ["item": kettle.id.description, "incidentDate": "2026-11-29", "type": "fire", "description": "Kitchen fire"]
            #expect(try await browser.request(.get, "/reports/loss/confirm?item=\(kettle.id)").body.contains("value=\"2026-11-29\""))
            let filed = try await browser.request(.post, "/reports/loss", form: loss)
            #expect(filed.status == .seeOther && filed.location?.hasPrefix("/reports/jobs/") == true, "a loss today there is not in the future")

            // Moved to New York (15:00 on the 28th there): the 29th is tomorrow.
            let base = ["name": "The Smiths", "currency": "INR", "threshold": "1000"]
            var moved = base
            moved["timeZone"] = "America/New_York"
            #expect(try await browser.request(.post, "/settings/household", form: moved).status == .seeOther)
            #expect(try app.database.household(household.id).timeZone == "America/New_York")
            let page = try await browser.request(.get, "/settings").body
            #expect(page.contains("<option value=\"America/New_York\" selected>America/New York (UTC−5)</option>"))
            #expect(page.contains("This browser is in Asia/Kolkata."))
            #expect(try await browser.request(.get, "/items/new").body.contains("max=\"2026-11-28\""))
            let tomorrow = try await browser.request(.post, "/reports/loss", form: loss)
            #expect(tomorrow.status == .unprocessableContent && tomorrow.body.contains("The incident date cannot be in the future."))

            // A zone that is not one is refused by name, with the rest of the form kept; a form without the field keeps the zone.
            var bad = base
            bad["timeZone"] = "Mars/Olympus_Mons"
            let refused = try await browser.request(.post, "/settings/household", form: bad)
            #expect(refused.status == .unprocessableContent && refused.body.contains("Choose a time zone from the list"))
            #expect(try await browser.request(.post, "/settings/household", form: base).status == .seeOther)
            #expect(try app.database.household(household.id).timeZone == "America/New_York")
            // Empty: the server's clock again.
            var server = base
            server["timeZone"] = ""
            #expect(try await browser.request(.post, "/settings/household", form: server).status == .seeOther)
            #expect(try app.database.household(household.id).timeZone == nil)
        }
    }

    /// A script reads the household (its currency, threshold, time zone and day) and its owner changes the fields given,
    /// by the form's rules: a read sent back changed is taken, a misspelt field or a threshold in another currency is
    /// refused by name, a member and a read token cannot change it.
    @Test func theHouseholdIsReadAndChangedThroughTheAPI() async throws {
        let evening = Date(timeIntervalSince1970: 1_795_896_000)  // 2026-11-28 20:00 UTC: already the 29th in Kolkata
        let app = try TestApp(now: { evening })
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            func object(_ reply: Browser.Reply) throws -> [String: Any] { try #require(reply.json as? [String: Any], "\(reply.body)") }
            let read = try await ann.request(.get, "/api/v1/household")
            #expect(read.status == .ok)
            var json = try object(read)
            #expect(json["id"] as? String == household.id.description && json["name"] as? String == "Smiths" && json["role"] as? String == "owner")
            #expect(json["currency"] as? String == "USD" && (json["highValueThreshold"] as? [String: Any])?["amount"] as? String == "1000.00")
            #expect(json["timeZone"] is NSNull && json["today"] as? String == CalendarDate(evening, in: .current).iso)

            let moved = try await ann.request(.patch, "/api/v1/household", json: #"{"timeZone": "Asia/Kolkata"}"#)
            #expect(moved.status == .ok, "\(moved.body)")
            json = try object(moved)
            #expect(json["timeZone"] as? String == "Asia/Kolkata" && json["today"] as? String == "2026-11-29" && json["name"] as? String == "Smiths")
            #expect(try app.database.household(household.id).timeZone == "Asia/Kolkata")
            // Written the same way every time: keys in order, slashes as they are.
            #expect(moved.body.hasPrefix(#"{"currency":"USD","highValueThreshold":{"amount":"1000.00","currency":"USD","minorUnits":100000},"id":"#))
            #expect(moved.body.contains(#""timeZone":"Asia/Kolkata","today":"2026-11-29"}"#))

            // What GET answered, sent back changed: its id, today and role are ignored.
            json["name"] = "The Smiths"
            let sentBack = try await ann.request(.patch, "/api/v1/household",
                                                 json: String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self))
            #expect(sentBack.status == .ok, "\(sentBack.body)")
            #expect(try app.database.household(household.id).name == "The Smiths")

            // A new currency converts nothing: the threshold's 1,000 is read in yen (1000.00 would not be an amount in yen).
            let yen = try object(try await ann.request(.patch, "/api/v1/household", json: #"{"currency": "jpy"}"#))
            #expect(yen["currency"] as? String == "JPY" && (yen["highValueThreshold"] as? [String: Any])?["amount"] as? String == "1000")
            let number = try object(try await ann.request(.patch, "/api/v1/household", json: #"{"highValueThreshold": 250000}"#))
            #expect((number["highValueThreshold"] as? [String: Any])?["minorUnits"] as? Int == 250_000)
            let cleared = try object(try await ann.request(.patch, "/api/v1/household", json: #"{"timeZone": null}"#))
            #expect(cleared["timeZone"] is NSNull && cleared["currency"] as? String == "JPY")

            // Refused by name, and nothing changed.
            for (body, field, message) in [(#"{"timezone": "Europe/Paris"}"#, "timezone", "did you mean “timeZone”"),
                                           (#"{"timeZone": "Mars/Olympus_Mons"}"#, "timeZone", "Choose a time zone from the list"),
                                           (#"{"highValueThreshold": {"amount": "5", "currency": "GBP"}}"#, "highValueThreshold", "give one currency"),
                                           (#"{"highValueThreshold": "12.5"}"#, "highValueThreshold", "JPY amounts have no decimal places"),
                                           (#"{"highValueThreshold": -1}"#, "highValueThreshold", "Give an amount of 0 or more"),
                                           (#"{"currency": "XYZ"}"#, "currency", "XYZ is not an ISO currency"),
                                           (#"{"name": null}"#, "name", "Give the household a name"),
                                           (#"{"name": 7}"#, "name", "Give name as text")] {
                let refused = try await ann.request(.patch, "/api/v1/household", json: body)
                #expect(refused.status == .unprocessableContent && refused.body.contains(message), "\(body): \(refused.body)")
                let fields = ((refused.json as? [String: Any])?["error"] as? [String: Any])?["fields"] as? [[String: Any]]
                #expect(fields?.contains { $0["field"] as? String == field } == true, "\(body): \(refused.body)")
            }
            let notAnObject = try await ann.request(.patch, "/api/v1/household", json: "[1]")
            #expect(notAnObject.status == .badRequest && notAnObject.body.hasPrefix(#"{"error":{"code":"bad_request","message":"#))
            let now = try app.database.household(household.id)
            #expect(now.name == "The Smiths" && now.currency.code == "JPY" && now.timeZone == nil && now.highValueThreshold.minorUnits == 250_000)

            // A member reads it; only the owner changes it, and never with a read token.
            var bob = Browser(client)
            _ = try await bob.signIn("bob@example.com")
            #expect(try object(try await bob.request(.get, "/api/v1/household"))["role"] as? String == "member")
            let member = try await bob.request(.patch, "/api/v1/household", json: #"{"name": "Bob's"}"#)
            #expect(member.status == .forbidden && member.errorCode == "forbidden")
            let token = try await APITokenTests.makeToken(&ann, scope: "read")
            var script = Browser(client)
            #expect(try await script.request(.get, "/api/v1/household", headers: APITokenTests.bearer(token.token)).status == .ok)
            let readOnly = try await script.request(.patch, "/api/v1/household", json: #"{"name": "X"}"#, headers: APITokenTests.bearer(token.token))
            #expect(readOnly.errorCode == "insufficient_scope")
            #expect(try app.database.household(household.id).name == "The Smiths")
        }
    }

    @Test func theThemeIsRememberedPerUserAndOnThePageFromItsFirstByte() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            var bob = Browser(client)
            _ = try await bob.signIn("bob@example.com")
            #expect(try await ann.request(.get, "/").body.contains("<html lang=\"en\">"))  // the device's setting
            let saved = try await ann.request(.post, "/settings/theme", form: ["theme": "dark"])
            #expect(try await ann.request(.get, try #require(saved.location)).body.contains("Theme: Dark."))
            let page = try await ann.request(.get, "/").body
            #expect(page.contains("<html lang=\"en\" data-theme=\"dark\">") && page.contains("<meta name=\"color-scheme\" content=\"dark\">"))
            #expect(try await ann.request(.get, "/settings").body.contains("value=\"dark\" checked"))
            #expect(try await bob.request(.get, "/").body.contains("<html lang=\"en\">"))  // Bob's own choice: still the device's
            #expect(try await ann.request(.post, "/settings/theme", form: ["theme": "purple"]).status == .unprocessableContent)
        }
    }

    /// Settings opens with an index of its sections (on a phone the page is many screens long), each row linking to its
    /// section with what is set in it now; the sections follow in the index's order. A save comes back to its section
    /// (the redirect's fragment; a refused form's action carries it too), where the page shows its notice.
    @Test func settingsOpensWithAnIndexOfItsSectionsSayingWhatIsSet() async throws {
        let app = try TestApp()
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            func index(_ page: String) throws -> [(id: String, text: String)] {
                let nav = try #require(page.components(separatedBy: "<nav class=\"card settings-index\"").dropFirst().first?.components(separatedBy: "</nav>").first)
                return nav.components(separatedBy: "<a href=\"#").dropFirst().map { row in
                    (id: String(row.prefix { $0 != "\"" }), text: row.components(separatedBy: "</a>")[0].replacingOccurrences(of: "<[^>]+>", with: " ", options: .regularExpression))
                }
            }
            var page = try await ann.request(.get, "/settings").body
            var rows = try index(page)
            #expect(rows.map(\.id) == ["pro", "household", "members", "data", "appearance", "security", "notifications", "lookups", "valuation", "tokens", "about"])
            // Every row's section is on the page, in the index's order.
            let positions = rows.map { page.range(of: "id=\"\($0.id)\"")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil } && positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
            func row(_ id: String) -> String { rows.first { $0.id == id }?.text ?? "" }
            #expect(row("pro").contains("Nestory Pro, for every household on this server"))  // the tests' server: Pro for all
            #expect(row("household").contains("Smiths · USD"))
            #expect(row("members").contains("Only you"))
            #expect(row("appearance").contains("Theme: as this device is set"))
            #expect(row("security").contains("No app lock · no passkeys · signed in on 1 device"))
            #expect(row("notifications").contains("Warranty and weekly reminders"))
            #expect(row("lookups").contains("Scanning on · no online lookups"))
            #expect(row("valuation").contains("Offline estimates only"))
            #expect(row("tokens").contains("None"))

            // Saves come back to their section.
            for (path, form, fragment) in [("/settings/theme", ["theme": "dark"], "#appearance"),
                                           ("/settings/lock", ["lock": "5"], "#security"),
                                           ("/settings/members", ["name": "Bob", "email": "bob@example.com", "password": "bobs long password"], "#members"),
                                           ("/settings/notifications", ["warranties": "on"], "#notifications")] {
                let saved = try await ann.request(.post, path, form: form)
                #expect(saved.status == .seeOther && saved.location?.hasSuffix(fragment) == true, "\(path): \(saved.location ?? "none")")
            }
            page = try await ann.request(.get, "/settings").body
            rows = try index(page)
            #expect(row("appearance").contains("Theme: dark"))
            #expect(row("security").contains("Locks after 5 minutes"))
            #expect(row("members").contains("2 people"))
            #expect(row("notifications").contains("Warranty reminders") && !row("notifications").contains("weekly"))
            // A refused form's page opens at its section: its action carries the fragment the browser keeps.
            #expect(page.contains("action=\"/settings/members#members\"") && page.contains("action=\"/settings/household#household\""))

            // A member's index leaves out what only the owner sees.
            var bob = Browser(client)
            _ = try await bob.signIn("bob@example.com", "bobs long password")
            rows = try index(try await bob.request(.get, "/settings").body)
            #expect(rows.map(\.id) == ["pro", "household", "members", "appearance", "security", "notifications", "valuation", "tokens", "about"])
        }
    }

    @Test func aCurrencyMustBeAnISOCodeOnTheFormTheAPIAndSetUp() async throws {
        let app = try TestApp()
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let form = try await ann.request(.post, "/items", form: ["name": "Vase", "currency": "XYZ"])
            #expect(form.status == .unprocessableContent && form.body.contains("XYZ is not an ISO currency"))
            let api = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Vase", "currency": "xyz"}"#)
            #expect(api.status == .unprocessableContent && api.body.contains("currency"))
            let ok = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Vase", "currency": "chf"}"#)
            #expect(ok.status == .created && ok.body.contains("\"CHF\""))
        }
        #expect(throws: DomainError.self) { try CurrencyCode.iso("XYZ") }
        #expect(try CurrencyCode.iso(" eur ") == .eur)
        #expect(CurrencyCode.common.count > 100 && CurrencyCode.common.contains(.jpy))
    }
}
