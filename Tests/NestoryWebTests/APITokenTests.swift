import Foundation
import HTTPTypes
import HummingbirdTesting
import NestoryAuth
import NestoryDomain
import NestoryStore
import Testing
@testable import NestoryWeb

/// Personal API tokens (issue 20): scope, expiry, revocation, removal of the member, hashing, and CSRF only for cookies.
@Suite struct APITokenTests {
    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    /// Signs Ann in and makes a token through the API; gives the token and its id.
    static func makeToken(_ browser: inout Browser, scope: String, expires: String? = nil, name: String = "Script") async throws -> (token: String, id: String) {
        let body = #"{"name":"\#(name)","scope":"\#(scope)""# + (expires.map { #","expires":"\#($0)""# } ?? "") + "}"
        let made = try await browser.request(.post, "/api/v1/tokens", json: body)
        #expect(made.status == .created, "\(made.body)")
        let json = try #require(made.json as? [String: Any])
        return (try #require(json["token"] as? String), try #require(json["id"] as? String))
    }

    @Test func aWriteTokenActsAsItsUserWithoutCSRFAndAReadTokenOnlyReads() async throws {
        let clock = TestClock()
        let app = try TestApp(now: { clock.now })
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let write = try await Self.makeToken(&ann, scope: "write")
            let read = try await Self.makeToken(&ann, scope: "read", name: "Reader")
            #expect(write.token.hasPrefix("nst_") && write.token.count > 40)

            // No cookie, no CSRF token, an Origin of another site: the bearer token is enough, and nothing else is asked.
            var script = Browser(client)
            var headers = Self.bearer(write.token)
            headers[.origin] = "https://elsewhere.example"
            let created = try await script.request(.post, "/api/v1/items", json: #"{"name":"Lamp"}"#, headers: headers)
            #expect(created.status == .created, "\(created.body)")
            #expect(try await script.request(.get, "/api/v1/items", headers: Self.bearer(read.token)).body.contains("Lamp"))
            // A read token cannot write, in one answer for every write.
            let refused = try await script.request(.post, "/api/v1/items", json: #"{"name":"Chair"}"#, headers: Self.bearer(read.token))
            #expect(refused.status == .forbidden && refused.errorCode == "insufficient_scope")
            let id = try #require(((created.json as? [String: Any])?["id"]) as? String)
            #expect(try await script.request(.delete, "/api/v1/items/\(id)", headers: Self.bearer(read.token)).errorCode == "insufficient_scope")
            // The photos the answers link to are read with the token (they were 401: an API client could not fetch one).
            let photo = try await script.request(.post, "/api/v1/items/\(id)/photos", body: tinyPNG, contentType: "image/png", headers: Self.bearer(write.token))
            #expect(photo.status == .created, "\(photo.body)")
            let url = try #require((photo.json as? [String: Any])?["url"] as? String)
            let fetched = try await script.request(.get, url, headers: Self.bearer(read.token))
            #expect(fetched.status == .ok && fetched.headers[.contentType]?.hasPrefix("image/") == true)
            let head = try await script.request(.head, url, headers: Self.bearer(read.token))
            #expect(head.status == .ok, "\(head.status) \(head.body)")
            let theirs = try app.household("Joneses", email: "jo@example.com").0
            let theirPicture = try app.database.addPhoto(theirs.id, to: try app.database.createItem(theirs.id, ItemDraft(name: "Vase", currency: .usd), now: Date()).id,
                                                         data: tinyPNG + Data([9]), contentType: "image/png", now: Date())
            #expect(try await script.request(.get, "/files/\(theirPicture.attachment.sha256)", headers: Self.bearer(write.token)).status == .notFound)
            // Tokens do not reach the pages (nor write to files), and cannot make tokens.
            #expect(try await script.request(.get, "/settings", headers: Self.bearer(write.token)).errorCode == "token_not_accepted")
            #expect(try await script.request(.post, url, headers: Self.bearer(write.token)).errorCode == "token_not_accepted")
            #expect(try await script.request(.post, "/api/v1/tokens", json: #"{"name":"x","scope":"write"}"#,
                                              headers: Self.bearer(write.token)).errorCode == "insufficient_scope")
            // A wrong or unknown token is 401, not a session fallback, even with a valid cookie on the request.
            var both = Self.bearer("nst_not-a-token")
            both[.cookie] = ann.cookieHeader
            let unknown = try await client.execute(uri: "/api/v1/items", method: .get, headers: both, body: nil)
            #expect(unknown.status == .unauthorized && String(buffer: unknown.body).contains("invalid_token"))
            #expect(try await script.request(.get, "/api/v1/items", headers: [.authorization: "Basic abc"]).errorCode == "invalid_token")

            // Cookies keep CSRF: the same write from the signed-in browser without its token is refused.
            let noCSRF = try await ann.request(.post, "/api/v1/items", json: #"{"name":"Chair"}"#, csrf: false)
            #expect(noCSRF.status == .forbidden && noCSRF.errorCode == "csrf_failed")

            // Last use is listed.
            let list = try await script.request(.get, "/api/v1/tokens", headers: Self.bearer(read.token))
            let items = try #require((list.json as? [String: Any])?["items"] as? [[String: Any]])
            #expect(items.count == 2 && items.allSatisfy { $0["token"] == nil })
            #expect(items.first { $0["id"] as? String == write.id }?["lastUsedAt"] is String)
        }
    }

    @Test func tokensAreStoredOnlyAsTheirSHA256() async throws {
        let app = try TestApp()
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let made = try await Self.makeToken(&ann, scope: "read")
            // Found by its SHA-256, and not by the token itself.
            #expect(try app.database.apiToken(hash: SessionToken.hash(made.token), now: Date())?.id == made.id)
            #expect(try app.database.apiToken(hash: made.token, now: Date()) == nil)
            // Nowhere in the database's files (the WAL included) is the token in clear; its hash is.
            var sawHash = false
            for name in try FileManager.default.contentsOfDirectory(atPath: app.path) where name.hasPrefix("nestory.sqlite") {
                let raw = try Data(contentsOf: URL(fileURLWithPath: app.path + "/" + name))
                #expect(raw.range(of: Data(made.token.utf8)) == nil)
                if raw.range(of: Data(SessionToken.hash(made.token).utf8)) != nil { sawHash = true }
            }
            #expect(sawHash)
        }
    }

    @Test func revokingExpiryAndLeavingTheHouseholdEndATokenAtOnce() async throws {
        let clock = TestClock()
        let app = try TestApp(now: { clock.now })
        let (smiths, _) = try app.household("Smiths", email: "ann@example.com")
        try app.member(of: smiths.id, email: "bob@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            var bob = Browser(client)
            _ = try await bob.signIn("bob@example.com")
            var script = Browser(client)
            let revoked = try await Self.makeToken(&ann, scope: "read")
            let tomorrow = try CalendarDate(clock.now, in: TimeZone(identifier: "UTC")!).adding(days: 1)
            let expiring = try await Self.makeToken(&ann, scope: "read", expires: tomorrow.iso)
            let bobs = try await Self.makeToken(&bob, scope: "write")
            for token in [revoked.token, expiring.token, bobs.token] {
                #expect(try await ann.client.execute(uri: "/api/v1/summary", method: .get, headers: Self.bearer(token), body: nil).status == .ok)
            }

            // Revoked in Settings: refused at the next request.
            let revoke = try await ann.request(.post, "/settings/tokens/\(revoked.id)/revoke", form: [:])
            #expect(revoke.status == .seeOther)
            #expect(try await script.request(.get, "/api/v1/summary", headers: Self.bearer(revoked.token)).errorCode == "invalid_token")
            // Another person's token cannot be revoked by Ann.
            #expect(try await ann.request(.delete, "/api/v1/tokens/\(bobs.id)").status == .notFound)

            // Bob removed from the household: his token ends with his membership.
            let members = try app.database.members(of: smiths.id)
            let bobID = try #require(members.first { $0.user.email == "bob@example.com" }).user.id
            #expect(try await ann.request(.post, "/settings/members/\(bobID)/remove", form: [:]).status == .seeOther)
            #expect(try await script.request(.get, "/api/v1/summary", headers: Self.bearer(bobs.token)).errorCode == "invalid_token")

            // An expiring token works through its last day (UTC), and not after.
            clock.advance(86_400)
            #expect(try await script.request(.get, "/api/v1/summary", headers: Self.bearer(expiring.token)).status == .ok)
            clock.advance(2 * 86_400)
            #expect(try await script.request(.get, "/api/v1/summary", headers: Self.bearer(expiring.token)).errorCode == "invalid_token")
            // An expiry today or before is refused when making it.
            let past = try await ann.request(.post, "/api/v1/tokens", json: #"{"name":"Old","scope":"read","expires":"2020-01-01"}"#)
            #expect(past.status == .unprocessableContent && past.body.contains("after today"))
            // A misspelt expiry is refused, not dropped (dropped, the token would never expire).
            let misspelt = try await ann.request(.post, "/api/v1/tokens", json: #"{"name":"Short","scope":"read","expiresOn":"2030-01-01"}"#)
            #expect(misspelt.status == .unprocessableContent && misspelt.body.contains("“expiresOn” is not a field of a token (did you mean “expires”?)"))
            let listed = try await ann.request(.get, "/api/v1/tokens").body
            #expect(listed.contains("Old") == false && listed.contains("Short") == false)
        }
    }

    @Test func eachTokenHasItsOwnRequestBudget() async throws {
        // A clock moved by hand: on a real one, a slow run's requests could straddle a minute's end, and the sliding
        // estimate would let the fourth through.
        let clock = TestClock()
        let app = try TestApp(tokenRequestsPerMinute: 3, now: { clock.now })
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let first = try await Self.makeToken(&ann, scope: "read")
            let second = try await Self.makeToken(&ann, scope: "read", name: "Other")
            var script = Browser(client)
            for _ in 0..<3 { #expect(try await script.request(.get, "/api/v1/summary", headers: Self.bearer(first.token)).status == .ok) }
            let limited = try await script.request(.get, "/api/v1/summary", headers: Self.bearer(first.token))
            #expect(limited.status == .tooManyRequests && limited.errorCode == "rate_limited")
            #expect(try await script.request(.get, "/api/v1/summary", headers: Self.bearer(second.token)).status == .ok)
            // The signed-in person is not limited by their tokens.
            #expect(try await ann.request(.get, "/api/v1/summary").status == .ok)
        }
    }

    @Test func settingsMakesATokenShownOnceAndListsIt() async throws {
        let app = try TestApp()
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let bad = try await ann.request(.post, "/settings/tokens", form: ["name": "", "scope": "read"])
            #expect(bad.status == .unprocessableContent && bad.body.contains("Give the token a name"))
            let made = try await ann.request(.post, "/settings/tokens", form: ["name": "Home Assistant", "scope": "write", "expires": ""])
            #expect(made.status == .ok)
            let token = try #require(made.body.components(separatedBy: "data-token>").dropFirst().first?.prefix { $0 != "<" })
            #expect(token.hasPrefix("nst_"))
            var script = Browser(client)
            #expect(try await script.request(.get, "/api/v1/summary", headers: Self.bearer(String(token))).status == .ok)
            let settings = try await ann.request(.get, "/settings")
            #expect(settings.body.contains("Home Assistant") && settings.body.contains("Read and write") && !settings.body.contains(String(token)))
        }
    }
}
