import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
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
            #expect(try app.database.receipts(household.id).isEmpty)
            _ = item
        }
    }
}
