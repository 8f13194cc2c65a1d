import Foundation
import HTTPTypes
import HummingbirdTesting
import NestoryDemo
import NestoryDomain
import NestoryStore
import NestoryServices
import NestoryStoreInterfaces
import Testing
@testable import NestoryWeb

/// A tiny valid PNG (1×1, grey).
let tinyPNG = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0,
                    0x3A, 0x7E, 0x9B, 0x55, 0, 0, 0, 10, 0x49, 0x44, 0x41, 0x54, 0x78, 0x01, 0x63, 0x60, 0, 0, 0, 2, 0, 1, 0x73, 0x75, 0x01, 0x18,
                    0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])

@Suite struct InventoryTests {
    @Test func addViewEditAndDeleteAnItemThroughTheForms() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let office = try app.database.rooms(household.id).first { $0.name == "Office" }!
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            #expect(try await browser.request(.get, "/items/new").body.contains("Add item"))
            let invalid = try await browser.request(.post, "/items", form: ["name": "", "price": "12.345", "purchaseDate": "2019-02-29", "quantity": "two"])
            #expect(invalid.status == .unprocessableContent)
            for message in ["Give the item a name.", "at most 2 decimal places", "does not exist on the calendar", "whole number"] {
                #expect(invalid.body.contains(message), "missing: \(message)")
            }
            // A rule of the item's (not of reading the amount) is marked under the field too, not only in the summary.
            let negative = try await browser.request(.post, "/items", form: ["name": "Lamp", "price": "-3"])
            #expect(negative.status == .unprocessableContent && negative.body.contains("A price cannot be negative."))
            let priceInput = negative.body.components(separatedBy: #"name="price""#).dropFirst().first?.prefix { $0 != ">" }
            #expect(priceInput?.contains(#"aria-invalid="true""#) == true, "the price field is marked")
            // The first marked field has the focus (a phone scrolls to it), not the name.
            #expect(priceInput?.contains("autofocus") == true)
            #expect(negative.body.components(separatedBy: #"name="name""#).dropFirst().first?.prefix { $0 != ">" }.contains("autofocus") == false)
            // An amount as it is typed in much of the world is read as meant; another currency's mark is refused.
            let comma = try await browser.request(.post, "/items", form: ["name": "Kettle", "price": "1.234,50", "currency": "EUR"])
            #expect(comma.status == .seeOther)
            #expect(try await browser.request(.get, try #require(comma.location)).body.contains("€1,234.50"))
            let dollars = try await browser.request(.post, "/items", form: ["name": "Kettle", "price": "12 USD", "currency": "EUR"])
            #expect(dollars.status == .unprocessableContent && dollars.body.contains("Amounts here are in EUR, and this one is in USD."))
            let lateWarranty = try await browser.request(.post, "/items", form: ["name": "Lamp", "warrantyExpiry": "2024-02-30"])
            #expect(lateWarranty.body.components(separatedBy: #"name="warrantyExpiry""#).dropFirst().first?.prefix { $0 != ">" }.contains("autofocus") == true)
            let created = try await browser.request(.post, "/items", form: [
                "name": "Fender <Stratocaster>", "brand": "Fender", "price": "1,299.99", "currency": "USD", "purchaseDate": "2021-06-01",
                "roomID": office.id.description, "serialNumber": "US21001234", "tags": "music, insured", "quantity": "1", "condition": "good"])
            #expect(created.status == .seeOther)
            let location = try #require(created.location)
            let detail = try await browser.request(.get, location)
            #expect(detail.status == .ok)
            #expect(detail.body.contains("Fender &lt;Stratocaster&gt;"))  // escaped, never markup
            #expect(!detail.body.contains("<Stratocaster>"))
            #expect(detail.body.contains("$1,299.99"))
            #expect(detail.body.contains("US21001234"))
            #expect(detail.body.contains("What’s missing?"))
            let id = String(location.dropFirst("/items/".count).prefix(36))
            let edit = try await browser.request(.get, "/items/\(id)/edit")
            #expect(edit.body.contains("value=\"1299.99\""))
            let saved = try await browser.request(.post, "/items/\(id)", form: ["name": "Stratocaster", "price": "1200", "quantity": "2"])
            #expect(saved.status == .seeOther)
            let item = try app.database.item(household.id, ItemID(string: id)!).item
            #expect(item.name == "Stratocaster" && item.totalValue?.minorUnits == 240_000)
            #expect(try await browser.request(.post, "/items/\(id)/delete", form: [:]).status == .seeOther)
            #expect(try await browser.request(.get, "/items/\(id)").status == .notFound)
        }
    }

    /// The edit form as a browser posts it: every field as shown (with `changes`), and the hidden base it was shown with.
    static func editForm(_ page: String, _ changes: [String: String]) throws -> [String: String] {
        let base = try Browser.inputValue("base", in: page)
        var form = try #require(try JSONSerialization.jsonObject(with: Data(base.utf8)) as? [String: String])
        form["base"] = base
        form["baseVersion"] = try Browser.inputValue("baseVersion", in: page)
        for (field, value) in changes { form[field] = value }
        return form
    }

    /// Two people edit one item: the later save keeps the earlier one's changes to other fields, and where both changed
    /// a field the form comes back (409) saying so, with the later person's value, and saves it when sent again.
    @Test func twoEditsOfOneItemMergeAndAClashIsShownNotLost() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        _ = try app.member(of: household.id, email: "bob@example.com")
        let piano = try app.database.createItem(household.id, ItemDraft(name: "Piano", purchasePrice: try Money.parse("400", currency: .usd), currency: .usd),
                                                now: Date(timeIntervalSinceNow: -60))
        try await app.run { client in
            var ann = Browser(client), bob = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            _ = try await bob.signIn("bob@example.com")
            let annPage = try await ann.request(.get, "/items/\(piano.id)/edit").body
            let bobPage = try await bob.request(.get, "/items/\(piano.id)/edit").body
            #expect(try await bob.request(.post, "/items/\(piano.id)", form: try Self.editForm(bobPage, ["price": "450", "brand": "Yamaha"])).status == .seeOther)
            // A mistake first: the form comes back with the base it was opened with, so Bob's changes still count as his.
            let mistake = try await ann.request(.post, "/items/\(piano.id)", form: try Self.editForm(annPage, ["notes": "Tuned in 2025", "purchaseDate": "2025-02-30"]),
                                                headers: [.accept: "text/html"])
            #expect(mistake.status == .unprocessableContent && mistake.body.contains("value=\"400.00\""))
            #expect(try await ann.request(.post, "/items/\(piano.id)", form: try Self.editForm(mistake.body, ["notes": "Tuned in 2025"])).status == .seeOther)
            var item = try app.database.item(household.id, piano.id).item
            #expect(item.brand == "Yamaha" && item.purchasePrice?.minorUnits == 45_000 && item.notes == "Tuned in 2025")

            let clash = try await ann.request(.post, "/items/\(piano.id)", form: try Self.editForm(annPage, ["price": "425", "notes": "Tuned in 2025"]),
                                              headers: [.accept: "text/html"])
            #expect(clash.status == .conflict)
            #expect(clash.body.contains("Purchase price was changed meanwhile to “450.00”"))
            #expect(clash.body.contains("<strong>Not saved yet.</strong>"))
            #expect(clash.body.contains("value=\"425\"") && clash.body.contains("value=\"Yamaha\""))
            #expect(try app.database.item(household.id, piano.id).item == item)
            #expect(try await ann.request(.post, "/items/\(piano.id)", form: try Self.editForm(clash.body, ["price": "425"])).status == .seeOther)
            item = try app.database.item(household.id, piano.id).item
            #expect(item.brand == "Yamaha" && item.purchasePrice?.minorUnits == 42_500 && item.notes == "Tuned in 2025")
        }
    }

    /// The API's items carry their version as an ETag; a PUT with If-Match is refused (412) once the item has changed,
    /// and saves nothing.
    @Test func aPutMadeOnAnOlderVersionIsRefused() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let piano = try app.database.createItem(household.id, ItemDraft(name: "Piano", currency: .usd), now: Date(timeIntervalSinceNow: -60))
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let read = try await ann.request(.get, "/api/v1/items/\(piano.id)")
            let tag = try #require(read.headers[.eTag])
            #expect(tag == "\"\(piano.updatedAt.millis)\"")
            let first = try await ann.request(.put, "/api/v1/items/\(piano.id)", json: #"{"name": "Grand piano"}"#, headers: [.ifMatch: tag])
            #expect(first.status == .ok && first.headers[.eTag] != nil && first.headers[.eTag] != tag)
            let stale = try await ann.request(.put, "/api/v1/items/\(piano.id)", json: #"{"name": "Upright piano"}"#, headers: [.ifMatch: tag])
            #expect(stale.status == .preconditionFailed && stale.errorCode == "item_changed")
            #expect(try app.database.item(household.id, piano.id).item.name == "Grand piano")
            let current = try #require(first.headers[.eTag])
            #expect(try await ann.request(.put, "/api/v1/items/\(piano.id)", json: #"{"name": "Upright piano"}"#, headers: [.ifMatch: current]).status == .ok)
            #expect(try await ann.request(.put, "/api/v1/items/\(piano.id)", json: #"{"name": "Piano"}"#, headers: [.ifMatch: "yesterday"]).status == .badRequest)
            #expect(try await ann.request(.put, "/api/v1/items/\(piano.id)", json: #"{"name": "Piano"}"#, headers: [.ifMatch: "*"]).status == .ok)
            #expect(try app.database.item(household.id, piano.id).item.name == "Piano")
        }
    }

    @Test func theInventoryPageShowsSummaryChartsAndFilters() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let rooms = try app.database.rooms(household.id)
        let categories = try app.database.categories(household.id)
        let now = Date()
        for (index, name) in ["Sofa", "Laptop", "Ring", "Café table"].enumerated() {
            let item = try app.database.createItem(household.id, ItemDraft(
                name: name, purchasePrice: index == 3 ? nil : try Money(minorUnits: Int64(50_000 * (index + 1)), currency: .usd), currency: .usd,
                categoryID: categories[index].id, roomID: rooms[index % 2].id), now: now.addingTimeInterval(Double(index)))
            if index < 2 { _ = try app.database.addPhoto(household.id, to: item.id, data: tinyPNG + Data([UInt8(index)]), contentType: "image/png", now: now) }
        }
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            let page = try await browser.request(.get, "/")
            #expect(page.status == .ok)
            #expect(page.body.contains("4 items"))
            #expect(page.body.contains("Across 2 rooms"))
            #expect(page.body.contains("$3,000.00"))  // 500 + 1000 + 1500
            #expect(page.body.contains("<span class=\"big\">50%</span><span class=\"sub\">Documented: photo + value + category + room</span>"))
            #expect(page.body.contains("What counts as documented?"))
            #expect(page.body.contains("<title id=\"donut-title\">Value by category</title>"))
            #expect(page.body.contains("<desc id=\"bars-desc\">"))
            #expect(page.body.contains("High value (&gt; $1,000.00)"))
            let needsPhoto = try await browser.request(.get, "/?filter=photo")
            #expect(needsPhoto.body.contains("Ring") && needsPhoto.body.contains("Café table") && !needsPhoto.body.contains(">Sofa<"))
            let search = try await browser.request(.get, "/?q=cafe")
            #expect(search.body.contains("Café table") && search.body.contains("1 item<"))
            // A GET form writes spaces as "+": the box shows the words, and a "+" typed in the box arrives as %2B.
            let words = try await browser.request(.get, "/?q=cafe+table")
            #expect(words.body.contains("value=\"cafe table\"") && words.body.contains("1 item<"))
            #expect(try await browser.request(.get, "/?q=a%2Bb").body.contains("value=\"a+b\""))
            #expect(try await browser.request(.get, "/api/v1/items?q=cafe+table").body.contains("Café table"))
            let byValue = try await browser.request(.get, "/?sort=value&view=grid")
            #expect(byValue.body.contains("items grid"))
            let ring = try #require(byValue.body.range(of: "Ring")), sofa = try #require(byValue.body.range(of: ">Sofa<"))
            #expect(ring.lowerBound < sofa.lowerBound)  // 1500 before 500
            let hostile = try await browser.request(.get, "/?q=%22%20OR%20NEAR(%2A")
            #expect(hostile.status == .ok)
        }
    }

    @Test func pagesFollowCursorsAndFragmentsFeedInfiniteScroll() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        for index in 0..<95 {
            _ = try app.database.createItem(household.id, ItemDraft(name: String(format: "Item %03d", index), currency: .usd), now: Date())
        }
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            var seen = Set<String>()
            var next: String? = "/?fragment=1"
            while let url = next {
                let page = try await browser.request(.get, url)
                #expect(page.status == .ok)
                #expect(!page.body.contains("<html"))  // a fragment, not a page
                for match in page.body.matches(of: /Item \d{3}/) { seen.insert(String(match.output)) }
                next = page.body.firstMatch(of: /data-more href="([^"]+)"/).map { String($0.output.1).replacingOccurrences(of: "&amp;", with: "&") }
                    .map { $0 + "&fragment=1" }
            }
            #expect(seen.count == 95)
        }
    }

    @Test func photosUploadWithLimitsAndAreServedOnlyToTheirHousehold() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        _ = try app.household("Joneses", email: "joe@example.com")
        let item = try app.database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let uploaded = try await ann.request(.post, "/api/v1/items/\(item.id)/photos", body: tinyPNG, contentType: "image/png")
            #expect(uploaded.status == .created)
            let url = try #require((uploaded.json as? [String: Any])?["url"] as? String)
            let served = try await ann.request(.get, url)
            #expect(served.status == .ok && served.headers[.contentType] == "image/jpeg")  // a rendition, metadata stripped
            let sha = String(url.dropFirst("/files/".count).prefix(64))
            #expect(try await ann.request(.get, "/files/\(sha)?size=thumb").headers[.contentType] == "image/jpeg")
            let original = try await ann.request(.get, "/files/\(sha)?size=original")
            #expect(original.headers[.contentType] == "image/png" && original.headers[.contentDisposition] == "attachment")
            #expect(FileManager.default.fileExists(atPath: app.database.renditions.url(for: sha, .thumbnail).path))
            // The same picture again adds nothing: 200 and the photo the item has.
            let again = try await ann.request(.post, "/api/v1/items/\(item.id)/photos", body: tinyPNG, contentType: "image/png")
            #expect(again.status == .ok && (again.json as? [String: Any])?["id"] as? String == (uploaded.json as? [String: Any])?["id"] as? String)
            #expect(try app.database.item(household.id, item.id).photos.count == 1)
            let notImage = try await ann.request(.post, "/api/v1/items/\(item.id)/photos", body: Data("<script>alert(1)</script>".utf8), contentType: "image/png")
            #expect(notImage.status == .unprocessableContent)
            #expect(notImage.errorCode == "image_unsupported_format")
            // A decompression bomb: a PNG header announcing 30000×30000 pixels is refused from its header.
            var bomb = Data(tinyPNG.prefix(16))
            bomb += Data([0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30, 8, 2, 0, 0, 0])
            bomb += Data(DemoImages.crc32(Data("IHDR".utf8) + bomb.suffix(13)).bigEndianBytes)
            bomb += tinyPNG.suffix(from: 33)
            let refused = try await ann.request(.post, "/api/v1/items/\(item.id)/photos", body: bomb, contentType: "image/png")
            #expect(refused.status == .contentTooLarge && refused.errorCode == "image_too_many_pixels", "\(refused.status) \(refused.body)")
            let truncated = try await ann.request(.post, "/api/v1/items/\(item.id)/photos", body: tinyPNG.prefix(40), contentType: "image/png")
            #expect(truncated.status == .unprocessableContent)
            let tooLarge = try await ann.request(.post, "/api/v1/items/\(item.id)/photos", body: Data([0xFF, 0xD8, 0xFF]) + Data(count: 100_001),
                                                 contentType: "image/jpeg")
            #expect(tooLarge.status == .contentTooLarge)
            #expect(try app.database.item(household.id, item.id).photos.count == 1)  // nothing else was kept
            var joe = Browser(client)
            _ = try await joe.signIn("joe@example.com")
            #expect(try await joe.request(.get, url).status == .notFound)
            var stranger = Browser(client)
            #expect(try await stranger.request(.get, url).status == .seeOther)  // signed out: sign in first
        }
    }

    @Test func theJSONAPICoversItemsAndReportsErrorsWithStableCodes() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let kitchen = try app.database.rooms(household.id).first { $0.name == "Kitchen" }!
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            let created = try await browser.request(.post, "/api/v1/items", json: """
                {"name": "Stand mixer", "brand": "KitchenAid", "price": "449.99", "purchaseDate": "2023-03-04",
                 "roomID": "\(kitchen.id)", "tags": ["gift"], "quantity": 1}
                """)
            #expect(created.status == .created)
            let json = try #require(created.json as? [String: Any])
            let id = try #require(json["id"] as? String)
            #expect((json["price"] as? [String: Any])?["amount"] as? String == "449.99")
            #expect((json["price"] as? [String: Any])?["minorUnits"] as? Int == 44_999)
            #expect(created.location == "/api/v1/items/\(id)")
            let list = try await browser.request(.get, "/api/v1/items?q=mixer&sort=value")
            #expect(((list.json as? [String: Any])?["items"] as? [Any])?.count == 1)
            let invalid = try await browser.request(.put, "/api/v1/items/\(id)", json: #"{"name": "", "price": "-3"}"#)
            #expect(invalid.status == .unprocessableContent)
            #expect(invalid.errorCode == "validation_failed")
            let fields = (((invalid.json as? [String: Any])?["error"] as? [String: Any])?["fields"] as? [[String: String]])?.compactMap { $0["field"] }
            #expect(Set(fields ?? []) == ["name", "price"], "the fields as the API names them")
            // An item as read can be sent back changed: the price as answered, and what is answered besides the fields.
            let read = try #require(try await browser.request(.get, "/api/v1/items/\(id)").json as? [String: Any])
            var changed = read
            changed["name"] = "Stand mixer, red"
            let roundTrip = try await browser.request(.put, "/api/v1/items/\(id)",
                                                     json: String(decoding: try JSONSerialization.data(withJSONObject: changed), as: UTF8.self))
            #expect(roundTrip.status == .ok, "\(roundTrip.body)")
            let after = try #require(roundTrip.json as? [String: Any])
            #expect(after["name"] as? String == "Stand mixer, red" && (after["price"] as? [String: Any])?["amount"] as? String == "449.99")
            #expect(after["tags"] as? [String] == ["gift"] && after["roomID"] as? String == kitchen.id.description)
            // Every key an item is answered with is a field or one of those ignored, so the round trip cannot drop one.
            #expect(Set(read.keys).subtracting(ItemFormValues.fields).isSubset(of: ItemJSON.answeredOnly))
            // A misspelt field is refused, naming it, and nothing is saved (a PUT without `price` would have emptied it).
            let misspelt = try await browser.request(.put, "/api/v1/items/\(id)", json: #"{"name": "Stand mixer", "purchasePrice": "500"}"#)
            #expect(misspelt.status == .unprocessableContent && misspelt.errorCode == "validation_failed")
            #expect(misspelt.body.contains("is not a field of an item"))
            let unchanged = try #require(try await browser.request(.get, "/api/v1/items/\(id)").json as? [String: Any])
            #expect(unchanged["name"] as? String == "Stand mixer, red" && (unchanged["price"] as? [String: Any])?["amount"] as? String == "449.99")
            let garbage = try await browser.request(.post, "/api/v1/items", json: "{not json")
            #expect(garbage.status == .badRequest && garbage.errorCode == "bad_request")
            let summary = try await browser.request(.get, "/api/v1/summary")
            #expect((summary.json as? [String: Any])?["itemCount"] as? Int == 1)
            #expect(try await browser.request(.get, "/api/v1/charts").status == .ok)
            #expect(try await browser.request(.delete, "/api/v1/items/\(id)").status == .noContent)
            #expect(try await browser.request(.get, "/api/v1/items/\(id)").errorCode == "not_found")
            // Without the CSRF header a state-changing API call is refused.
            let noCSRF = try await browser.request(.post, "/api/v1/items", json: #"{"name": "x"}"#, csrf: false)
            #expect(noCSRF.status == .forbidden && noCSRF.errorCode == "csrf_failed")
            // Signed out: 401 JSON, not a redirect.
            var stranger = Browser(client)
            let anonymous = try await stranger.request(.get, "/api/v1/items")
            #expect(anonymous.status == .unauthorized && anonymous.errorCode == "sign_in_required")
        }
    }

    /// The JSON list's answers are kept (ItemPageCache), and never sent once the items changed: through the API,
    /// or through another connection to the same file (as the command line or a second process writes).
    @Test func theJSONListIsSentAgainOnlyWhileItsItemsAreUnchanged() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            let created = try await browser.request(.post, "/api/v1/items", json: #"{"name": "Stand mixer", "notes": "red"}"#)
            let id = try #require((created.json as? [String: Any])?["id"] as? String)
            func notes() async throws -> String? {
                let list = try await browser.request(.get, "/api/v1/items")
                return (((list.json as? [String: Any])?["items"] as? [[String: Any]])?.first)?["notes"] as? String
            }
            #expect(try await notes() == "red")
            #expect(app.dependencies.itemPages.heldBytes > 0)
            let first = try await browser.request(.get, "/api/v1/items").body
            #expect(try await browser.request(.get, "/api/v1/items").body == first)
            _ = try await browser.request(.put, "/api/v1/items/\(id)", json: #"{"name": "Stand mixer", "notes": "blue"}"#)
            #expect(try await notes() == "blue")
            let elsewhere = try AppDatabase.open(DataFolder(path: app.path))
            defer { try? elsewhere.close() }
            let itemID = try #require(ItemID(string: id))
            var draft = try elsewhere.item(household.id, itemID).item.draft
            draft.notes = "green"
            _ = try elsewhere.updateItem(household.id, itemID, draft, now: Date())
            #expect(try await notes() == "green")
        }
    }

    @Test func theOpenAPIDocumentIsValidJSONAndEveryPathIsRouted() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let item = try app.database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        let receipt = try app.database.addReceipt(household.id, itemID: item.id, data: Data("receipt".utf8), contentType: "image/jpeg", now: Date())
        let job = try app.database.enqueueJob(household.id, kind: "backup", payload: "{}", now: Date())
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            let doc = try await browser.request(.get, "/api/v1/openapi.json")
            let paths = try #require(((doc.json as? [String: Any])?["paths"] as? [String: [String: Any]]))
            #expect(paths.count >= 7)
            for (path, operations) in paths {
                let concrete = "/api/v1" + path.replacingOccurrences(of: "{id}", with: item.id.description)
                    .replacingOccurrences(of: "{receiptID}", with: receipt.id.description)
                    .replacingOccurrences(of: "{jobID}", with: job.id.description)
                for method in operations.keys where method != "parameters" {
                    guard method == "get" else { continue }  // reads are safe to call here; writes are covered above
                    let reply = try await browser.request(HTTPRequest.Method(method.uppercased())!, concrete)
                    #expect(reply.status == .ok, "\(method) \(path) → \(reply.status)")
                }
            }
        }
    }
}

@Suite struct PlacesTests {
    @Test func roomsCanBeAddedRenamedReorderedAndDeletedKeepingTheirItems() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let garage = try app.database.rooms(household.id).first { $0.name == "Garage" }!
        let bike = try app.database.createItem(household.id, ItemDraft(name: "Bike", currency: .usd, roomID: garage.id), now: Date())
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            let page = try await browser.request(.get, "/rooms")
            #expect(page.body.contains("Garage") && page.body.contains("1 item"))
            #expect(try await browser.request(.post, "/rooms", form: ["name": "Sauna"]).status == .seeOther)
            let duplicate = try await browser.request(.post, "/rooms", form: ["name": "sauna"])
            #expect(duplicate.status == .unprocessableContent && duplicate.body.contains("already a room called"))
            #expect(try await browser.request(.post, "/rooms/\(garage.id)", form: ["action": "rename", "name": "Workshop"]).status == .seeOther)
            let before = try app.database.rooms(household.id).map(\.name)
            #expect(try await browser.request(.post, "/rooms/\(garage.id)", form: ["action": "up"]).status == .seeOther)
            let after = try app.database.rooms(household.id).map(\.name)
            let index = try #require(before.firstIndex(of: "Workshop"))
            #expect(after[index - 1] == "Workshop")
            let deleted = try await browser.request(.post, "/rooms/\(garage.id)", form: ["action": "delete"])
            // The notice reads back as the sentence it is (it once showed "Room+deleted;+1+item+now+have+no+room").
            let noticePage = try await browser.request(.get, try #require(deleted.location))
            #expect(noticePage.body.contains("Room deleted; 1 item now has no room."))
            #expect(try app.database.item(household.id, bike.id).item.roomID == nil)
            #expect(try await browser.request(.post, "/categories", form: ["name": "Cameras", "color": "#112233"]).status == .seeOther)
            #expect(try app.database.categories(household.id).last?.colorHex == "#112233")
        }
    }

    /// A script manages rooms and categories as the pages do: add, rename (and recolour), reorder, delete keeping the
    /// items; ids compare as text with an item's roomID; a misspelt field is refused by name, nothing changed.
    @Test func roomsAndCategoriesAreManagedThroughTheAPI() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let garage = try app.database.rooms(household.id).first { $0.name == "Garage" }!
        let bike = try app.database.createItem(household.id, ItemDraft(name: "Bike", currency: .usd, roomID: garage.id), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            func object(_ reply: Browser.Reply) throws -> [String: Any] { try #require(reply.json as? [String: Any], "\(reply.body)") }
            func list(_ path: String) async throws -> [[String: Any]] {
                try #require(try object(try await ann.request(.get, path))["items"] as? [[String: Any]])
            }
            // The item's roomID is one of the rooms' ids, as text.
            let item = try object(try await ann.request(.get, "/api/v1/items/\(bike.id)"))
            #expect(try await list("/api/v1/rooms").contains { $0["id"] as? String == item["roomID"] as? String && $0["name"] as? String == "Garage" })
            // Each room and category says how many items it holds, as the pages do.
            #expect(try await list("/api/v1/rooms").map { "\($0["name"] ?? "")=\($0["itemCount"] ?? "none")" }.contains("Garage=1"))
            #expect(try await list("/api/v1/rooms").allSatisfy { $0["name"] as? String == "Garage" || $0["itemCount"] as? Int == 0 })
            #expect(try await list("/api/v1/categories").allSatisfy { $0["itemCount"] as? Int == 0 })

            let added = try await ann.request(.post, "/api/v1/rooms", json: #"{"name": " Sauna "}"#)
            #expect(added.status == .created, "\(added.body)")
            #expect(try object(added)["name"] as? String == "Sauna" && object(added)["itemCount"] as? Int == 0)
            #expect(try app.database.rooms(household.id).last?.name == "Sauna")
            for (body, field, message) in [(#"{"name": "sauna"}"#, "name", "already a room called"),
                                           (#"{"nmae": "Loft"}"#, "nmae", "did you mean “name”"),
                                           (##"{"name": "Loft", "colorHex": "#112233"}"##, "colorHex", "not a field of a room")] {
                let refused = try await ann.request(.post, "/api/v1/rooms", json: body)
                let problem = try #require((try object(refused)["error"] as? [String: Any])?["fields"] as? [[String: Any]])
                #expect(refused.status == .unprocessableContent && problem.first?["field"] as? String == field
                        && (problem.first?["message"] as? String ?? "").contains(message), "\(body): \(refused.body)")
            }
            #expect(try app.database.rooms(household.id).filter { $0.name == "Loft" }.isEmpty)

            // A room read, sent back changed.
            var room = try #require(try await list("/api/v1/rooms").first { $0["name"] as? String == "Garage" })
            room["name"] = "Workshop"
            let renamed = try await ann.request(.patch, "/api/v1/rooms/\(garage.id)",
                                                json: String(decoding: try JSONSerialization.data(withJSONObject: room), as: UTF8.self))
            #expect(try renamed.status == .ok && object(renamed)["name"] as? String == "Workshop" && object(renamed)["itemCount"] as? Int == 1,
                    "\(renamed.body)")

            // A category without a colour is slate; a change of colour keeps the name.
            let cameras = try object(try await ann.request(.post, "/api/v1/categories", json: #"{"name": "Cameras"}"#))
            #expect(cameras["colorHex"] as? String == "#64748B" && cameras["isCustom"] as? Bool == true)
            let recoloured = try object(try await ann.request(.patch, "/api/v1/categories/\(try #require(cameras["id"] as? String))",
                                                              json: ##"{"colorHex": "#112233"}"##))
            #expect(recoloured["name"] as? String == "Cameras" && recoloured["colorHex"] as? String == "#112233")
            // An id in upper case names the same category.
            let upper = try #require(cameras["id"] as? String).uppercased()
            #expect(try await ann.request(.patch, "/api/v1/categories/\(upper)", json: #"{"name": "Film cameras"}"#).status == .ok)

            // The rooms in reverse; an order that leaves one out changes nothing.
            let ids = try await list("/api/v1/rooms").compactMap { $0["id"] as? String }
            let partial = try await ann.request(.put, "/api/v1/rooms/order", json: #"{"roomIDs": ["\#(ids[0])"]}"#)
            #expect(partial.status == .unprocessableContent && partial.body.contains(#""field":"roomIDs""#), "\(partial.body)")
            #expect(try await ann.request(.put, "/api/v1/rooms/order", json: #"{"photoIDs": []}"#).status == .badRequest)
            let reversed = try await ann.request(.put, "/api/v1/rooms/order",
                                                 json: #"{"roomIDs": [\#(ids.reversed().map { "\"\($0)\"" }.joined(separator: ","))]}"#)
            #expect(reversed.status == .ok, "\(reversed.body)")
            #expect(try app.database.rooms(household.id).map(\.id.description) == ids.reversed())

            // Deleting keeps the item, without a room, and says so.
            let deleted = try await ann.request(.delete, "/api/v1/rooms/\(garage.id)")
            #expect(try deleted.status == .ok && object(deleted)["itemsUnassigned"] as? Int == 1, "\(deleted.body)")
            #expect(try app.database.item(household.id, bike.id).item.roomID == nil)
            #expect(try await ann.request(.delete, "/api/v1/rooms/\(garage.id)").status == .notFound)
            #expect(try await ann.request(.patch, "/api/v1/rooms/\(garage.id)", json: #"{"name": "Back"}"#).status == .notFound)
        }
    }
}

extension UInt32 {
    var bigEndianBytes: [UInt8] { [UInt8(self >> 24), UInt8((self >> 16) & 0xFF), UInt8((self >> 8) & 0xFF), UInt8(self & 0xFF)] }
}
