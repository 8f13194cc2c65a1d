import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NestoryDemo
import NestoryDomain
import Testing
@testable import NestoryWeb

/// Input that is not what a field expects is refused with a message on that field, never dropped silently.
@Suite struct BadInputTests {
    static func fields(_ reply: Browser.Reply) -> [String] {
        let error = (reply.json as? [String: Any])?["error"] as? [String: Any]
        return (error?["fields"] as? [[String: Any]])?.compactMap { $0["field"] as? String } ?? []
    }

    @Test func anIdThatIsNotAnIdIsA422NamingTheField() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let item = try app.database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date(),
                                               today: try CalendarDate(year: 2026, month: 1, day: 1))
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            // The item form: a room or category that is not an id.
            let form = try await browser.request(.post, "/items", form: ["name": "Desk", "roomID": "kitchen", "categoryID": "'; DROP"])
            #expect(form.status == .unprocessableContent)
            #expect(form.body.contains("The room is not one of yours"))
            #expect(form.body.contains("The category is not one of yours"))
            // The API: the same fields, and the list's filters.
            let created = try await browser.request(.post, "/api/v1/items", json: #"{"name": "Desk", "roomID": "kitchen"}"#)
            #expect(created.status == .unprocessableContent)
            #expect(Self.fields(created) == ["roomID"])
            let listed = try await browser.request(.get, "/api/v1/items?room=kitchen&category=x&sort=cheapest&limit=5000&filter=odd")
            #expect(listed.status == .unprocessableContent)
            #expect(Set(Self.fields(listed)) == ["room", "category", "sort", "limit", "filter"])
            #expect(try await browser.request(.get, "/api/v1/items?room=&sort=value&limit=2").status == .ok)
            // A receipt's item.
            let capture = try await browser.request(.get, "/capture/receipt?item=not-an-id")
            #expect(capture.status == .unprocessableContent)
            let upload = try await browser.request(.post, "/api/v1/receipts?item=nope", body: Data([0xFF, 0xD8, 0xFF]), contentType: "image/jpeg")
            #expect(upload.status == .unprocessableContent && Self.fields(upload) == ["item"])
            #expect(try app.database.receipts(household.id).elements.isEmpty)
            _ = item
        }
    }
}

/// Browsers get error pages in the app's layout; the API and scripts keep JSON.
@Suite struct ErrorPageTests {
    static let html: HTTPFields = [.accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"]

    @Test func browsersGetPagesAndScriptsGetJSON() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        try await app.run { client in
            var bob = Browser(client)
            _ = try await bob.signIn("bob@example.com")
            let missing = try await bob.request(.get, "/no/such/page", headers: Self.html)
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(missing.body.contains("<title>Not found · Nestory</title>") && missing.body.contains("Back to your inventory"))
            let item = try await bob.request(.get, "/items/\(UUID())", headers: Self.html)
            #expect(item.status == .notFound && item.body.contains("The item was not found."))
            let ownersOnly = try await bob.request(.get, "/settings/data", headers: Self.html)
            #expect(ownersOnly.status == .forbidden && ownersOnly.body.contains("Only the household’s owner"))
            // The same addresses asked by a script, and the API even from a browser: JSON.
            let script = try await bob.request(.get, "/no/such/page")
            #expect(script.status == .notFound && script.errorCode == "not_found")
            let api = try await bob.request(.get, "/api/v1/items/\(UUID())", headers: Self.html)
            #expect(api.status == .notFound && api.errorCode == "not_found")
        }
    }

    @Test func aServerErrorPageGivesTheReferenceAndNoDetail() async throws {
        let app = try TestApp()
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            try FileManager.default.removeItem(atPath: app.database.folder.tmpURL.path)
            try Data("not a folder".utf8).write(to: app.database.folder.tmpURL)  // exports write to tmp/: now they cannot
            let failed = try await ann.request(.get, "/reports/export.csv", headers: Self.html)
            #expect(failed.status == .internalServerError)
            #expect(failed.body.contains("Something went wrong") && failed.body.contains("quote this reference"))
            #expect(!failed.body.contains(app.path))
        }
    }
}

/// Every successful action says what it did, in words, where the person lands.
@Suite struct NoticeTests {
    @Test func deletingAnItemSaysWhichOneOnTheInventory() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let item = try app.database.createItem(household.id, ItemDraft(name: "Walnut <desk>", currency: .usd), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let deleted = try await ann.request(.post, "/items/\(item.id)/delete", form: [:])
            let page = try await ann.request(.get, try #require(deleted.location))
            #expect(page.body.contains("<div class=\"notice\" role=\"status\">“Walnut &lt;desk&gt;” deleted.</div>"))
            let added = try await ann.request(.post, "/items", form: ["name": "Lamp"])
            #expect(try await ann.request(.get, try #require(added.location)).body.contains(">Item added.</div>"))
        }
    }

    /// A link from elsewhere cannot make the app say something: a notice shows only on a page reached from the app
    /// itself, by what the browser says of where the navigation came from.
    @Test func aNoticeInALinkFromElsewhereIsNotShown() async throws {
        let app = try TestApp()
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let planted = "/?notice=Your%20policy%20lapsed.%20Call%20555-0100"
            for (site, shown) in [("cross-site", false), ("same-site", false), ("none", false), ("same-origin", true)] {
                let page = try await ann.request(.get, planted, headers: [HTTPField.Name("Sec-Fetch-Site")!: site])
                #expect(page.status == .ok)
                #expect(page.body.contains("Call 555-0100") == shown, "Sec-Fetch-Site: \(site)")
            }
            #expect(try await ann.request(.get, planted).body.contains("Call 555-0100"))  // no Sec-Fetch headers: believed
        }
    }
}

/// An item's photos can be made the main one or removed, on the item page and through the API.
@Suite struct PhotoManagementTests {
    @Test func photosAreMadeMainAndRemovedDownToNone() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let (other, _) = try app.household("Joneses", email: "eve@example.com")
        let item = try app.database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        let first = try app.database.addPhoto(household.id, to: item.id, data: DemoImages.photo(variant: 1), contentType: "image/png", now: Date())
        let second = try app.database.addPhoto(household.id, to: item.id, data: DemoImages.photo(variant: 2), contentType: "image/png", now: Date())
        let theirs = try app.database.createItem(other.id, ItemDraft(name: "Vase", currency: .usd), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let page = try await ann.request(.get, "/items/\(item.id)")
            #expect(page.body.contains("Manage photos (2)") && page.body.contains("Add receipt"))
            let main = try await ann.request(.post, "/items/\(item.id)/photos/\(second.id)/main", form: [:])
            #expect(main.status == .seeOther)
            #expect(try app.database.item(household.id, item.id).photos.first { $0.isPrimary }?.id == second.id)
            let shown = try await ann.request(.get, try #require(main.location))
            #expect(shown.body.contains("Main photo changed."))
            // Another item's path with this photo, or someone else's item: not found, nothing changed.
            #expect(try await ann.request(.post, "/items/\(theirs.id)/photos/\(first.id)/remove", form: [:]).status == .notFound)
            #expect(try await ann.request(.delete, "/api/v1/items/\(item.id)/photos/\(UUID())").status == .notFound)
            #expect(try app.database.item(household.id, item.id).photos.count == 2)
            #expect(try await ann.request(.post, "/items/\(item.id)/photos/\(first.id)/remove", form: [:]).status == .seeOther)
            #expect(try await ann.request(.delete, "/api/v1/items/\(item.id)/photos/\(second.id)").status == .noContent)
            let details = try app.database.item(household.id, item.id)
            #expect(details.photos.isEmpty && !details.documentation.hasPhoto)
            #expect(try await ann.request(.get, "/items/\(item.id)").body.contains("No photo yet"))
        }
    }
}

/// An item's photos are put in order on the item page (a place earlier or later) and through the API (the
/// whole order); the first is the main photo; an order that is not each photo once is refused, changing nothing.
@Suite struct PhotoOrderTests {
    @Test func photosAreReorderedAndTheFirstIsTheMainPhoto() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let (other, _) = try app.household("Joneses", email: "eve@example.com")
        let item = try app.database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        let photos = try (1...3).map { variant in
            try app.database.addPhoto(household.id, to: item.id, data: DemoImages.photo(variant: variant), contentType: "image/png", now: Date())
        }
        let (p1, p2, p3) = (photos[0].id, photos[1].id, photos[2].id)
        let theirs = try app.database.createItem(other.id, ItemDraft(name: "Vase", currency: .usd), now: Date())
        @Sendable func order() throws -> [PhotoID] { try app.database.item(household.id, item.id).photos.map(\.id) }
        @Sendable func main() throws -> PhotoID? { try app.database.item(household.id, item.id).photos.first { $0.isPrimary }?.id }
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let page = try await ann.request(.get, "/items/\(item.id)")
            // The carousel's controls: arrows, a dot per photo, the count; each photo opens full size.
            #expect(page.body.contains("aria-label=\"Previous photo\"") && page.body.contains("aria-label=\"Next photo\""))
            #expect(page.body.components(separatedBy: "data-carousel-to=").count == 4)
            #expect(page.body.contains(">1 of 3</span>"))
            #expect(page.body.contains("aria-label=\"Open photo 2 of 3 full size\""))
            #expect(page.body.contains("aria-label=\"Move photo 3 earlier\"") && page.body.contains("aria-label=\"Move photo 1 later\""))

            let moved = try await ann.request(.post, "/items/\(item.id)/photos/\(p3)/move", form: ["direction": "earlier"])
            #expect(moved.status == .seeOther)
            #expect(try await ann.request(.get, try #require(moved.location)).body.contains("Photo moved earlier."))
            #expect(try order() == [p1, p3, p2] && main() == p1)
            _ = try await ann.request(.post, "/items/\(item.id)/photos/\(p3)/move", form: ["direction": "earlier"])
            #expect(try order() == [p3, p1, p2] && main() == p3)  // at the front: the main photo
            _ = try await ann.request(.post, "/items/\(item.id)/photos/\(p3)/move", form: ["direction": "earlier"])
            #expect(try order() == [p3, p1, p2])  // already first: stays
            let listing = try app.database.itemsAndCount(household.id, ItemQuery(search: "", filter: ItemFilter(), sort: .name, limit: 10, after: nil))
            #expect(listing.page.elements.first?.primaryPhoto?.sha256 == photos[2].attachment.sha256)

            let put = try await ann.request(.put, "/api/v1/items/\(item.id)/photos/order", json: #"{"photoIDs": ["\#(p2)", "\#(p1)", "\#(p3)"]}"#)
            #expect(put.status == .ok && put.body.contains(#""primaryPhoto""#))
            #expect(try order() == [p2, p1, p3] && main() == p2)
            for bad in [#"{"photoIDs": ["\#(p1)", "\#(p3)"]}"#, #"{"photoIDs": ["\#(p1)", "\#(p1)", "\#(p3)"]}"#,
                        #"{"photoIDs": ["\#(p1)", "\#(p2)", "\#(p3)", "\#(UUID())"]}"#, #"{"photoIDs": ["\#(p1)", "\#(p2)", "nope"]}"#] {
                let reply = try await ann.request(.put, "/api/v1/items/\(item.id)/photos/order", json: bad)
                #expect(reply.status == .unprocessableContent, "\(bad) → \(reply.status)")
                #expect(reply.body.contains("photoIDs"))
            }
            #expect(try await ann.request(.put, "/api/v1/items/\(item.id)/photos/order", json: #"{"ids": []}"#).status == .badRequest)
            #expect(try await ann.request(.put, "/api/v1/items/\(theirs.id)/photos/order", json: #"{"photoIDs": []}"#).status == .notFound)
            #expect(try order() == [p2, p1, p3])  // nothing refused changed anything
        }
    }
}

/// Dates on pages read as people write them in their language; inputs and the API keep ISO.
@Suite struct DateDisplayTests {
    @Test func anItemsDatesFollowTheBrowsersLanguage() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let item = try app.database.createItem(household.id, ItemDraft(name: "Lamp", purchaseDate: try CalendarDate(iso: "2024-03-05"),
                                                                        currency: .usd), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let american = try await ann.request(.get, "/items/\(item.id)", headers: [.acceptLanguage: "en-US,en;q=0.9"])
            #expect(american.body.contains("<dd>Mar 5, 2024</dd>"))
            let british = try await ann.request(.get, "/items/\(item.id)", headers: [.acceptLanguage: "en-GB"])
            #expect(british.body.contains("<dd>5 Mar 2024</dd>"))
            let german = try await ann.request(.get, "/items/\(item.id)", headers: [.acceptLanguage: "de-DE,de;q=0.8"])
            #expect(german.body.contains("<dd>05.03.2024</dd>"))
            #expect(try await ann.request(.get, "/items/\(item.id)/edit").body.contains("value=\"2024-03-05\""))
            #expect(try await ann.request(.get, "/api/v1/items/\(item.id)").body.contains("\"2024-03-05\""))
        }
    }
}
