import Foundation
import NestoryDomain
import NestoryStore
import Testing
@testable import NestoryWeb

@Suite("Settings: the storage summary and About")
struct StorageAndAboutTests {
    @Test("the storage summary counts the household's photos, receipts and reports, a shared file once, and not another household's")
    func storage() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        let (other, _) = try app.household("The Joneses", email: "joe@example.com")
        let lamp = try app.database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        let clock = try app.database.createItem(household.id, ItemDraft(name: "Clock", currency: .usd), now: Date())
        let theirs = try app.database.createItem(other.id, ItemDraft(name: "Vase", currency: .usd), now: Date())
        let photo = Data(repeating: 7, count: 50_000), another = Data(repeating: 9, count: 20_000)
        _ = try app.database.addPhoto(household.id, to: lamp.id, data: photo, contentType: "image/jpeg", now: Date())
        _ = try app.database.addPhoto(household.id, to: clock.id, data: photo, contentType: "image/jpeg", now: Date())  // the same file
        _ = try app.database.addPhoto(household.id, to: clock.id, data: another, contentType: "image/jpeg", now: Date())
        _ = try app.database.addPhoto(other.id, to: theirs.id, data: Data(repeating: 1, count: 90_000), contentType: "image/jpeg", now: Date())
        let summary = try app.database.storageSummary(household.id)
        #expect(summary.items == 2)
        #expect(summary.photos == .init(count: 3, bytes: 70_000))
        #expect(summary.receipts == .init(count: 0, bytes: 0) && summary.reports == .init(count: 0, bytes: 0))
        #expect(summary.databaseBytes > 0 && (summary.freeBytes ?? 0) > 0)
        #expect(DataViews.storageLine(summary) == "70 KB used, 3 photos")

        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let settings = try await ann.request(.get, "/settings")
            #expect(settings.body.contains("70 KB used, 3 photos"))
            let data = try await ann.request(.get, "/settings/data")
            #expect(data.body.contains("<h2>Storage</h2>") && data.body.contains("<dd>3 photos · 70 KB</dd>") && data.body.contains("free on the server"))
        }
    }

    @Test("About: the version, the privacy statement as configured, the API description and the licences")
    func about() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let page = try await ann.request(.get, "/settings").body
            #expect(page.contains("<h2>About</h2>") && page.contains("Nestory \(NestoryVersion.current)"))
            #expect(page.contains("Right now, nothing does.") && page.contains("href=\"/api/v1/openapi.json\"") && page.contains("LGPL-2.1"))
            try app.database.setOnlineProductLookup(household.id, true)
            #expect(try await ann.request(.get, "/settings").body.contains("Right now: scanned barcodes are looked up in online product databases"))
            // A valuation provider set by the owner is said too.
            #expect(try await ann.request(.post, "/settings/valuation", form: ["analysisBaseURL": "http://192.0.43.10:9/v1", "analysisModel": "m",
                                                                               "analysisKey": "sk-about-0001"]).status == .seeOther)
            let after = try await ann.request(.get, "/settings").body
            #expect(after.contains("their photos (downsized, without location data) go to the photo-analysis endpoint")
                    && !after.contains("their brand, product and model go to the market search"))
        }
    }
}
