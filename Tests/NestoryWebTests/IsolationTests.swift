import Foundation
import HTTPTypes
import HummingbirdTesting
import NestoryDomain
import NestoryStore
import Testing
@testable import NestoryWeb

/// Walks every route with household A's ids, as household B's member and as a signed-out visitor:
/// nothing of A's may be shown, and nothing of A's may change.
@Suite struct IsolationTests {
    struct Route {
        let method: HTTPRequest.Method
        let path: String
        var form: [String: String]? = nil
        var json: String? = nil
        var body: Data? = nil
    }

    @Test func anotherHouseholdAndStrangersCanNeitherSeeNorChangeAnything() async throws {
        let app = try TestApp()
        let (a, owner) = try app.household("Alphas", email: "alpha@example.com")
        _ = try app.household("Betas", email: "beta@example.com")
        let secretName = "Secret Fabergé egg"
        let item = try app.database.createItem(a.id, ItemDraft(name: secretName, serialNumber: "SECRET-SERIAL",
                                                               purchasePrice: try Money.parse("99999", currency: .usd), currency: .usd),
                                               now: Date())
        let photo = try app.database.addPhoto(a.id, to: item.id, data: tinyPNG, contentType: "image/png", now: Date())
        let room = try app.database.rooms(a.id)[0]
        let category = try app.database.categories(a.id)[0]
        let roomIDs = try app.database.rooms(a.id).map { "\"\($0.id)\"" }.joined(separator: ",")
        let routes: [Route] = [
            Route(method: .get, path: "/"), Route(method: .get, path: "/?q=egg"), Route(method: .get, path: "/?room=\(room.id)"),
            Route(method: .get, path: "/items/\(item.id)"), Route(method: .get, path: "/items/\(item.id)/edit"),
            Route(method: .get, path: "/files/\(photo.attachment.sha256)"), Route(method: .get, path: "/settings"),
            Route(method: .post, path: "/items/\(item.id)", form: ["name": "Stolen"]),
            Route(method: .post, path: "/items/\(item.id)/delete", form: [:]),
            Route(method: .post, path: "/settings/members/\(owner.id)/remove", form: [:]),
            Route(method: .get, path: "/api/v1/items"), Route(method: .get, path: "/api/v1/items?q=secret"),
            Route(method: .get, path: "/api/v1/items/\(item.id)"), Route(method: .get, path: "/api/v1/summary"),
            Route(method: .get, path: "/api/v1/charts"), Route(method: .get, path: "/api/v1/rooms"), Route(method: .get, path: "/api/v1/categories"),
            Route(method: .put, path: "/api/v1/items/\(item.id)", json: #"{"name": "Stolen"}"#),
            Route(method: .delete, path: "/api/v1/items/\(item.id)"),
            Route(method: .post, path: "/api/v1/items/\(item.id)/photos", body: tinyPNG + Data([1])),
            Route(method: .put, path: "/api/v1/items/\(item.id)/photos/order", json: #"{"photoIDs": ["\#(photo.id)"]}"#),
            Route(method: .post, path: "/items/\(item.id)/photos/\(photo.id)/move", form: ["direction": "later"]),
            Route(method: .patch, path: "/api/v1/rooms/\(room.id)", json: #"{"name": "Stolen"}"#),
            Route(method: .delete, path: "/api/v1/rooms/\(room.id)"),
            Route(method: .put, path: "/api/v1/rooms/order", json: #"{"roomIDs": [\#(roomIDs)]}"#),
            Route(method: .patch, path: "/api/v1/categories/\(category.id)", json: ##"{"colorHex": "#000000"}"##),
            Route(method: .delete, path: "/api/v1/categories/\(category.id)"),
        ]
        let before = try snapshot(app, a.id)
        try await app.run { client in
            var beta = Browser(client)
            _ = try await beta.signIn("beta@example.com")
            var stranger = Browser(client)
            for route in routes {
                for (who, browser) in [("household B", beta), ("signed out", stranger)] {
                    var browser = browser
                    let reply = try await browser.request(route.method, route.path, form: route.form, json: route.json, body: route.body,
                                                          contentType: route.body == nil ? nil : "image/png")
                    let label = "\(who): \(route.method) \(route.path) → \(reply.status)"
                    #expect(!reply.body.contains(secretName) && !reply.body.contains("SECRET-SERIAL") && !reply.body.contains("Alphas"), "\(label) leaked")
                    if who == "signed out" {
                        #expect([.seeOther, .unauthorized, .forbidden].contains(reply.status), "\(label)")
                    } else if reply.status.code < 300 {
                        // Allowed only for B's own views (lists, summary), never for A's ids.
                        #expect(!route.path.contains(item.id.description) && !route.path.contains(photo.attachment.sha256)
                                && route.method == .get, "\(label) succeeded")
                    }
                }
                stranger = Browser(client)
            }
        }
        #expect(try snapshot(app, a.id) == before)
    }

    /// Everything of a household's that a request could change.
    func snapshot(_ app: TestApp, _ id: HouseholdID) throws -> String {
        let items = try app.database.items(id, ItemQuery(limit: 200)).elements.map { listing in
            "\(listing.item)|\(listing.photoCount)|\(listing.receiptCount)"
        }
        let members = try app.database.members(of: id).map { "\($0.user.email):\($0.role)" }
        let places = try app.database.rooms(id).map { "\($0)" } + (try app.database.categories(id).map { "\($0)" })
        return (items + members + places).joined(separator: "\n")
    }
}
