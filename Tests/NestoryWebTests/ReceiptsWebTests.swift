import Foundation
import HTTPTypes
import NestoryDemo
import NestoryDomain
import NestoryReceipts
import NestoryStore
import Testing
@testable import NestoryWeb

/// A recogniser that "reads" fixed text (the OCR itself is tested in NestoryOCRTests).
struct CannedRecognizer: TextRecognizer {
    let text: String
    func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText {
        if imageData.starts(with: [0xFF, 0xD8]) && imageData.count < 8 { throw .unreadableImage }
        return RecognizedText(plainText: text)
    }
}

@Suite("Receipts in the web app: capture, review, link, create")
struct ReceiptsWebTests {
    static let receiptText = """
        HARDWARE HAVEN
        12 Main Street
        Date: 2024-03-14 10:22
        Cordless drill      129.00
        SUBTOTAL            129.00
        TAX                  10.32
        TOTAL               139.32
        CASH                150.00
        CHANGE               10.68
        """

    func app(_ text: String = Self.receiptText) throws -> TestApp {
        try TestApp(receiptReader: ReceiptReader(recognizer: CannedRecognizer(text: text)))
    }

    /// A receipt photographed and read (the canned text), as the capture page sends it: its id.
    func readReceipt(_ browser: inout Browser) async throws -> String {
        let uploaded = try await browser.request(.post, "/api/v1/receipts", body: DemoImages.receipt(variant: 1), contentType: "image/png")
        let id = try #require((uploaded.json as? [String: Any])?["id"] as? String)
        #expect(try await waitForReading(&browser, id) == "done")
        return id
    }

    /// Waits for the background reading, as the review page's script does.
    func waitForReading(_ browser: inout Browser, _ id: String) async throws -> String {
        for _ in 0..<200 {
            let state = ((try await browser.request(.get, "/api/v1/receipts/\(id)").json as? [String: Any])?["state"] as? String) ?? ""
            if state != "reading" { return state }
            try await Task.sleep(for: .milliseconds(10))
        }
        return "reading"
    }

    @Test("capture → review with the fields read → create a new item from it")
    func captureAndCreate() async throws {
        let app = try app()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            #expect(try await ann.request(.get, "/capture/receipt").body.contains("data-upload-next=\"/api/v1/receipts\""))
            let uploaded = try await ann.request(.post, "/api/v1/receipts", body: DemoImages.receipt(variant: 1), contentType: "image/png")
            #expect(uploaded.status == .created)
            let json = try #require(uploaded.json as? [String: Any])
            let id = try #require(json["id"] as? String)
            #expect(json["next"] as? String == "/receipts/\(id)")
            // Stored before it is read: nothing is lost whatever the reading does.
            #expect(try app.database.receipts(household.id).elements.count == 1)
            #expect(try await waitForReading(&ann, id) == "done")
            // The receipts list and the recent-captures strip show it, by the vendor read (both read through ReceiptsService).
            let list = try await ann.request(.get, "/receipts")
            #expect(list.status == .ok)
            #expect(list.body.contains("href=\"/receipts/\(id)\"") && list.body.contains("HARDWARE HAVEN"))
            let capture = try await ann.request(.get, "/capture")
            #expect(capture.body.contains("href=\"/receipts/\(id)\"") && capture.body.contains("HARDWARE HAVEN"))

            let review = try await ann.request(.get, "/receipts/\(id)")
            #expect(review.status == .ok)
            #expect(review.body.contains("value=\"HARDWARE HAVEN\"") && review.body.contains("value=\"2024-03-14\""))
            #expect(review.body.contains("value=\"139.32\"") && review.body.contains("value=\"10.32\""))
            #expect(review.body.contains("Text read from the photo"))

            let created = try await ann.request(.post, "/receipts/\(id)/item", form: [
                "name": "Cordless drill", "price": "139.32", "purchaseDate": "2024-03-14", "notes": "Bought at HARDWARE HAVEN."])
            #expect(created.status == .seeOther)
            let itemPath = try #require(created.location?.split(separator: "?").first.map(String.init))
            let item = try await ann.request(.get, itemPath)
            #expect(item.body.contains("HARDWARE HAVEN") && item.body.contains("$139.32"))
            // The receipt's words now find the item.
            let found = try app.database.items(household.id, ItemQuery(search: "haven")).elements.map(\.item.name)
            #expect(found == ["Cordless drill"])
        }
    }

    @Test("a wrong field is fixed on the review screen; the receipt is linked to an item found by search")
    func fixAndLink() async throws {
        let app = try app()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        let lamp = try app.database.createItem(household.id, ItemDraft(name: "Reading lamp", currency: .usd), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let uploaded = try await ann.request(.post, "/api/v1/receipts", body: DemoImages.receipt(variant: 2), contentType: "image/png")
            let id = try #require((uploaded.json as? [String: Any])?["id"] as? String)
            _ = try await waitForReading(&ann, id)
            // A date that does not exist: the form comes back with what was typed, the field marked, nothing saved.
            let mistake = try await ann.request(.post, "/receipts/\(id)", form: ["vendor": "Lamp Shop", "purchaseDate": "2024-02-30", "total": "45"])
            #expect(mistake.status == .unprocessableContent)
            #expect(mistake.body.contains("value=\"Lamp Shop\"") && mistake.body.contains("value=\"2024-02-30\"") && mistake.body.contains("value=\"45\""))
            #expect(mistake.body.contains("aria-describedby=\"receipt-purchaseDate-error\"") && mistake.body.contains("Use a date such as 2024-03-31."))
            #expect(try app.database.receipt(household.id, try #require(ReceiptID(string: id))).receipt.vendor == "HARDWARE HAVEN")
            #expect(try await ann.request(.post, "/receipts/\(id)", form: ["vendor": "Lamp Shop", "purchaseDate": "2024-02-29", "total": "45.00", "tax": ""]).status == .seeOther)
            let receipt = try app.database.receipt(household.id, try #require(ReceiptID(string: id))).receipt
            #expect(receipt.vendor == "Lamp Shop" && receipt.total?.minorUnits == 4500 && receipt.tax == nil && receipt.purchaseDate?.iso == "2024-02-29")

            let search = try await ann.request(.get, "/receipts/\(id)?q=reading")
            #expect(search.body.contains("Reading lamp") && search.body.contains("name=\"item\" value=\"\(lamp.id)\""))
            let linked = try await ann.request(.post, "/receipts/\(id)/link", form: ["item": lamp.id.description])
            #expect(linked.location?.hasPrefix("/items/\(lamp.id)?notice=") == true)
            let detail = try await ann.request(.get, try #require(linked.location))
            #expect(detail.body.contains("Lamp Shop") && detail.body.contains("$45.00"))
            #expect(detail.body.contains("<div class=\"notice\" role=\"status\">Receipt linked to this item.</div>"))
            let list = try await ann.request(.get, "/receipts")
            #expect(list.body.contains("Lamp Shop") && list.body.contains("for Reading lamp"))
            // The API answers what the receipt says (it answered only whether it was still being read), and its photo.
            let api = try #require(try await ann.request(.get, "/api/v1/receipts/\(id)").json as? [String: Any])
            #expect(api["state"] as? String == "done" && api["vendor"] as? String == "Lamp Shop" && api["purchaseDate"] as? String == "2024-02-29")
            #expect((api["total"] as? [String: Any])?["amount"] as? String == "45.00" && api["tax"] == nil && api["itemID"] as? String == lamp.id.description)
            let file = try #require(api["file"] as? String)
            #expect(try await ann.request(.get, file).body.utf8.count > 0)
            // And the item read whole lists its receipts.
            let withReceipts = try #require(try await ann.request(.get, "/api/v1/items/\(lamp.id)").json as? [String: Any])
            let listed = try #require(withReceipts["receipts"] as? [[String: Any]])
            #expect(listed.count == 1 && listed[0]["id"] as? String == id && listed[0]["vendor"] as? String == "Lamp Shop" && listed[0]["file"] as? String == file)
        }
    }

    @Test("not an image, empty, too large: refused with a message, nothing stored; unreadable: kept for typing")
    func badInput() async throws {
        let app = try app("")
        let (household, _) = try app.household("Home", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let text = try await ann.request(.post, "/api/v1/receipts", body: Data("hello".utf8), contentType: "text/plain")
            #expect(text.status == .unprocessableContent && text.body.contains("not an image"))
            #expect(try await ann.request(.post, "/api/v1/receipts", body: Data(), contentType: "image/png").status == .unprocessableContent)
            let huge = try await ann.request(.post, "/api/v1/receipts", body: Data(count: 200_000), contentType: "image/jpeg")
            #expect(huge.status == .contentTooLarge)
            #expect(try app.database.receipts(household.id).elements.isEmpty)

            // A blank picture: stored, and the review says so and offers the fields to type.
            let blank = try await ann.request(.post, "/api/v1/receipts", body: DemoImages.photo(variant: 3), contentType: "image/png")
            let id = try #require((blank.json as? [String: Any])?["id"] as? String)
            #expect(try await waitForReading(&ann, id) == "failed")
            let review = try await ann.request(.get, "/receipts/\(id)")
            #expect(review.body.contains("No receipt text could be read") && review.body.contains("id=\"receipt-vendor\""))
            #expect(review.body.contains("role=\"alert\""))
            #expect(try app.database.receipts(household.id).elements.count == 1)
            // Once the fields are typed and saved, the review no longer asks for them as an error: it says how they came.
            let typed = try await ann.request(.post, "/receipts/\(id)", form: try Self.reviewForm(review.body, ["vendor": "Corner Shop", "total": "12.50"]))
            #expect(typed.status == .seeOther)
            let after = try await ann.request(.get, "/receipts/\(id)").body
            #expect(after.contains("value=\"Corner Shop\"") && !after.contains("No receipt text could be read") && !after.contains("role=\"alert\""))
            #expect(after.contains("The picture could not be read; the fields were typed."))
        }
    }

    /// The review form as a browser posts it: its fields as shown (with `changes`) and the hidden base it was shown with
    /// (the review form comes first on the page).
    static func reviewForm(_ page: String, _ changes: [String: String]) throws -> [String: String] {
        var form = ["base": try Browser.inputValue("base", in: page)]
        for field in ["vendor", "purchaseDate", "total", "tax"] { form[field] = try Browser.inputValue(field, in: page) }
        form["currency"] = try Browser.selectedValue("currency", in: page)
        for (field, value) in changes { form[field] = value }
        return form
    }

    /// Two people check one receipt: the later save keeps the other's fields, and where both changed one the form comes
    /// back (409) with the later person's value and saves it when sent again. The reading is not undone by either.
    @Test func twoPeopleCheckingOneReceiptKeepEachOthersFields() async throws {
        let app = try app()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        _ = try app.member(of: household.id, email: "bob@example.com")
        try await app.run { client in
            var ann = Browser(client), bob = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            _ = try await bob.signIn("bob@example.com")
            let id = try await readReceipt(&ann)
            let receiptID = try #require(ReceiptID(string: id))
            let annPage = try await ann.request(.get, "/receipts/\(id)").body
            let bobPage = try await bob.request(.get, "/receipts/\(id)").body
            #expect(try await bob.request(.post, "/receipts/\(id)", form: try Self.reviewForm(bobPage, ["total": "140.00"])).status == .seeOther)
            #expect(try await ann.request(.post, "/receipts/\(id)", form: try Self.reviewForm(annPage, ["vendor": "Hardware Haven"])).status == .seeOther)
            var receipt = try app.database.receipt(household.id, receiptID).receipt
            #expect(receipt.vendor == "Hardware Haven" && receipt.total?.minorUnits == 14_000 && receipt.tax?.minorUnits == 1_032)
            #expect(receipt.rawText?.contains("Cordless drill") == true)

            let clash = try await ann.request(.post, "/receipts/\(id)", form: try Self.reviewForm(annPage, ["total": "139.50", "tax": "10.00"]))
            #expect(clash.status == .conflict)
            #expect(clash.body.contains("Total was changed meanwhile to “140.00”. Saving replaces it with yours."))
            #expect(clash.body.contains("<strong>Not saved yet.</strong>") && !clash.body.contains("Please check the form."))
            #expect(clash.body.contains("value=\"139.50\"") && clash.body.contains("value=\"10.00\"") && clash.body.contains("value=\"Hardware Haven\""))
            #expect(try app.database.receipt(household.id, receiptID).receipt == receipt)
            #expect(try await ann.request(.post, "/receipts/\(id)", form: try Self.reviewForm(clash.body, [:])).status == .seeOther)
            receipt = try app.database.receipt(household.id, receiptID).receipt
            #expect(receipt.vendor == "Hardware Haven" && receipt.total?.minorUnits == 13_950 && receipt.tax?.minorUnits == 1_000)
        }
    }

    /// The new-item form on the review page comes back with what was typed when something is wrong, and nothing is made;
    /// the page shows no message it was handed in its address.
    @Test func aNewItemWithAMistakeKeepsWhatWasTyped() async throws {
        let app = try app()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let id = try await readReceipt(&ann)
            let mistake = try await ann.request(.post, "/receipts/\(id)/item", form: [
                "name": "Cordless drill, 18 V", "price": "12..3", "purchaseDate": "2024-03-14", "notes": "Bought at HARDWARE HAVEN."])
            #expect(mistake.status == .unprocessableContent)
            #expect(mistake.body.contains("value=\"Cordless drill, 18 V\"") && mistake.body.contains("value=\"12..3\""))
            #expect(mistake.body.contains("aria-describedby=\"f-price-error\""))
            #expect(try app.database.items(household.id, ItemQuery()).elements.isEmpty)
            let planted = try await ann.request(.get, "/receipts/\(id)?error=Your+account+is+locked.+Call+555-0100")
            #expect(planted.status == .ok && !planted.body.contains("555-0100"))
        }
    }

    /// A receipt read in another currency than the household's keeps it when a person corrects another field, and the
    /// item made from it is priced in it.
    @Test func aReceiptFromAbroadKeepsItsCurrency() async throws {
        let app = try app()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let id = try await readReceipt(&ann)
            let receiptID = try #require(ReceiptID(string: id))
            let myr = try CurrencyCode("MYR")
            try app.database.updateReceipt(household.id, receiptID, ReceiptFields(vendor: "INDAH GIFT", total: try Money.parse("60.30", currency: myr),
                                                                                  rawText: "INDAH GIFT\nTOTAL RM 60.30", confidence: 0.8))
            let page = try await ann.request(.get, "/receipts/\(id)").body
            #expect(try Browser.selectedValue("currency", in: page) == "MYR")
            #expect(try await ann.request(.post, "/receipts/\(id)", form: try Self.reviewForm(page, ["vendor": "Indah Gift & Home Deco"])).status == .seeOther)
            let saved = try app.database.receipt(household.id, receiptID).receipt
            let rm = try Money.parse("60.30", currency: myr)
            #expect(saved.vendor == "Indah Gift & Home Deco" && saved.total == rm)
            // A page from before the currency was on the form (no currency, no base) leaves it as it is.
            #expect(try await ann.request(.post, "/receipts/\(id)", form: ["vendor": "Indah Gift", "purchaseDate": "", "total": "60.30", "tax": ""])
                        .status == .seeOther)
            #expect(try app.database.receipt(household.id, receiptID).receipt.total == rm)

            let review = try await ann.request(.get, "/receipts/\(id)").body
            let newItemForm = try #require(review.range(of: "action=\"/receipts/\(id)/item\"")).upperBound
            let currency = try Browser.selectedValue("currency", in: String(review[newItemForm...]))
            #expect(currency == "MYR")
            let created = try await ann.request(.post, "/receipts/\(id)/item", form: [
                "name": "Table lamp", "price": "60.30", "currency": currency, "purchaseDate": "2018-10-19", "notes": ""])
            #expect(created.status == .seeOther)
            let item = try #require(try app.database.items(household.id, ItemQuery(search: "lamp")).elements.first?.item)
            #expect(item.currency == myr && item.purchasePrice == rm)
        }
    }

    /// A household with more receipts than a page reaches every one: the list page goes on to older ones (and back), and
    /// the API pages with `limit` and `after` as the items do.
    @Test func everyReceiptIsReachedPageByPage() async throws {
        let app = try app()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let count = ReceiptsController.pageSize + 5
        for n in 0..<count {
            _ = try app.database.addReceipt(household.id, itemID: nil, data: Data("receipt \(n)".utf8), contentType: "image/jpeg",
                                            fields: ReceiptFields(vendor: "Shop \(n)"), now: start.addingTimeInterval(Double(n)))
        }
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let first = try await ann.request(.get, "/receipts").body
            #expect(first.contains(">Shop \(count - 1)<") && !first.contains(">Shop 4<") && !first.contains("Newest receipts"))
            let older = try #require(first.components(separatedBy: "rel=\"next\" href=\"").dropFirst().first?.prefix { $0 != "\"" })
            let second = try await ann.request(.get, String(older)).body
            #expect((0..<5).allSatisfy { second.contains(">Shop \($0)<") } && !second.contains(">Shop 5<") && !second.contains("rel=\"next\""))
            #expect(second.contains("href=\"/receipts\">Newest receipts"))
            #expect(try await ann.request(.get, "/receipts?after=nonsense").status == .unprocessableContent)

            // Through the API, 40 at a time: every receipt once, newest first.
            var (vendors, after, pages): ([String], String?, Int) = ([], nil, 0)
            repeat {
                let reply = try await ann.request(.get, "/api/v1/receipts" + (after.map { "?after=\($0)" } ?? ""))
                let body = try #require(reply.json as? [String: Any], "\(reply.body)")
                vendors += (body["items"] as? [[String: Any]] ?? []).compactMap { $0["vendor"] as? String }
                (after, pages) = (body["nextCursor"] as? String, pages + 1)
            } while after != nil && pages < 10
            #expect(pages == 3 && vendors == (0..<count).reversed().map { "Shop \($0)" })
            let three = try #require(try await ann.request(.get, "/api/v1/receipts?limit=3").json as? [String: Any])
            #expect((three["items"] as? [Any])?.count == 3 && three["nextCursor"] is String)
            // Those linked to no item: one linked drops out of the page and the API's list.
            let drill = try app.database.createItem(household.id, ItemDraft(name: "Drill", currency: .usd), now: Date())
            let newest = try #require(try app.database.receipts(household.id, limit: 1).elements.first?.receipt.id)
            try app.database.linkReceipt(household.id, newest, to: drill.id)
            let loose = try await ann.request(.get, "/receipts?filter=unlinked").body
            #expect(!loose.contains(">Shop \(count - 1)<") && loose.contains(">Shop \(count - 2)<") && loose.contains("aria-current=\"true\">Not linked"))
            let looseOlder = try #require(loose.components(separatedBy: "rel=\"next\" href=\"").dropFirst().first?.prefix { $0 != "\"" })
                .replacingOccurrences(of: "&amp;", with: "&")
            #expect(looseOlder.hasPrefix("/receipts?filter=unlinked&after="))
            let looseSecond = try await ann.request(.get, looseOlder).body
            #expect(looseSecond.contains(">Shop 0<") && looseSecond.contains("href=\"/receipts?filter=unlinked\">Newest receipts"))
            let unlinked = try #require(try await ann.request(.get, "/api/v1/receipts?filter=unlinked&limit=200").json as? [String: Any])
            #expect((unlinked["items"] as? [Any])?.count == count - 1)
            for bad in ["limit=0", "limit=201", "limit=many", "after=name.x.1", "filter=linked"] {
                let refused = try await ann.request(.get, "/api/v1/receipts?\(bad)")
                #expect(refused.status == .unprocessableContent, "\(bad): \(refused.status)")
            }
        }
    }

    /// "Needs receipt" points to the receipts linked to no item, while there are any: the proof may be there already.
    @Test func itemsNeedingAReceiptPointToTheReceiptsNotLinkedYet() async throws {
        let app = try app()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        let lamp = try app.database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let hint = "href=\"/receipts?filter=unlinked\""
            #expect(!(try await ann.request(.get, "/?filter=receipt").body.contains(hint)))
            let receipt = try app.database.addReceipt(household.id, itemID: nil, data: Data("lamp receipt".utf8), contentType: "image/jpeg", now: Date())
            #expect(try await ann.request(.get, "/?filter=receipt").body.contains(hint))
            #expect(!(try await ann.request(.get, "/").body.contains(hint)))  // only beside the items that need one
            try app.database.linkReceipt(household.id, receipt.id, to: lamp.id)
            #expect(!(try await ann.request(.get, "/?filter=receipt").body.contains(hint)))
        }
    }

    /// A script lists the receipts, corrects what was read and links one to an item, by the review screen's rules: the
    /// fields given change and the rest stay, an amount keeps the receipt's currency, and nothing is saved when a field
    /// does not read or the item is another household's.
    @Test func aScriptCorrectsAndLinksAReceiptThroughTheAPI() async throws {
        let app = try app()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        let (other, _) = try app.household("Others", email: "eve@example.com")
        let drill = try app.database.createItem(household.id, ItemDraft(name: "Cordless drill", currency: .usd), now: Date())
        let theirs = try app.database.createItem(other.id, ItemDraft(name: "Their drill", currency: .usd), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let id = try await readReceipt(&ann)
            let receiptID = try #require(ReceiptID(string: id))
            func object(_ reply: Browser.Reply) throws -> [String: Any] { try #require(reply.json as? [String: Any], "\(reply.body)") }

            let listed = try #require(try object(try await ann.request(.get, "/api/v1/receipts"))["items"] as? [[String: Any]])
            #expect(listed.count == 1 && listed[0]["id"] as? String == id && listed[0]["vendor"] as? String == "HARDWARE HAVEN")

            // Refused by name, nothing saved.
            let before = try app.database.receipt(household.id, receiptID).receipt
            for (body, field) in [(#"{"totl": "140"}"#, "totl"), (#"{"total": "1.234", "purchaseDate": "2024-02-30"}"#, "total"),
                                  (#"{"total": {"amount": "140.00", "currency": "EUR"}, "currency": "USD"}"#, "total"),
                                  (#"{"vendor": 7}"#, "vendor")] {
                let refused = try await ann.request(.patch, "/api/v1/receipts/\(id)", json: body)
                #expect(refused.status == .unprocessableContent && refused.body.contains(#""field":"\#(field)""#), "\(body): \(refused.body)")
            }
            #expect(try await ann.request(.patch, "/api/v1/receipts/\(id)", json: #"{"itemID": "\#(theirs.id)"}"#).status == .notFound)
            #expect(try app.database.receipt(household.id, receiptID).receipt == before)

            // The total corrected and the receipt linked; the store, the date and the tax as they were.
            let saved = try await ann.request(.patch, "/api/v1/receipts/\(id)", json: #"{"total": 140, "itemID": "\#(drill.id)"}"#)
            #expect(saved.status == .ok, "\(saved.body)")
            let answer = try object(saved)
            #expect(answer["itemID"] as? String == drill.id.description && answer["vendor"] as? String == "HARDWARE HAVEN"
                    && (answer["total"] as? [String: Any])?["amount"] as? String == "140.00" && answer["state"] as? String == "done")
            var receipt = try app.database.receipt(household.id, receiptID).receipt
            #expect(receipt.itemID == drill.id && receipt.purchaseDate == before.purchaseDate && receipt.tax == before.tax)

            // As GET answers it, sent back changed; an amount in another currency moves the receipt's currency with it.
            var read = try object(try await ann.request(.get, "/api/v1/receipts/\(id)"))
            read["vendor"] = "Hardware Haven"
            read["tax"] = ["amount": "8.00", "currency": "CAD"]
            read["total"] = NSNull()
            let sentBack = try await ann.request(.patch, "/api/v1/receipts/\(id)",
                                                 json: String(decoding: try JSONSerialization.data(withJSONObject: read), as: UTF8.self))
            #expect(sentBack.status == .ok, "\(sentBack.body)")
            receipt = try app.database.receipt(household.id, receiptID).receipt
            let cad = try Money.parse("8.00", currency: CurrencyCode("CAD"))
            #expect(receipt.vendor == "Hardware Haven" && receipt.total == nil && receipt.tax == cad)

            // Unlinked.
            #expect(try await ann.request(.patch, "/api/v1/receipts/\(id)", json: #"{"itemID": null}"#).status == .ok)
            #expect(try app.database.receipt(household.id, receiptID).receipt.itemID == nil)
        }
    }

    /// A receipt captured by mistake is deleted from its review page (back to its item, which no longer has a receipt)
    /// or through the API; its photo goes with it, and a receipt deleted while it waits to be read is not read.
    @Test func aReceiptCapturedByMistakeIsDeleted() async throws {
        let app = try app()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        _ = try app.household("Others", email: "eve@example.com")
        let drill = try app.database.createItem(household.id, ItemDraft(name: "Cordless drill", currency: .usd), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let uploaded = try await ann.request(.post, "/api/v1/receipts?item=\(drill.id)", body: DemoImages.receipt(variant: 1), contentType: "image/png")
            let id = try #require((uploaded.json as? [String: Any])?["id"] as? String)
            #expect(try await waitForReading(&ann, id) == "done")
            let receiptID = try #require(ReceiptID(string: id))
            let sha = try app.database.receipt(household.id, receiptID).receipt.attachment.sha256
            #expect(try app.database.item(household.id, drill.id).documentation.hasReceipt)

            let page = try await ann.request(.get, "/receipts/\(id)").body
            #expect(page.contains("action=\"/receipts/\(id)/delete\"") && page.contains("and Cordless drill no longer has it"))
            var eve = Browser(client)
            _ = try await eve.signIn("eve@example.com")
            #expect(try await eve.request(.post, "/receipts/\(id)/delete", form: [:]).status == .notFound)
            #expect(try await eve.request(.delete, "/api/v1/receipts/\(id)").status == .notFound)

            let deleted = try await ann.request(.post, "/receipts/\(id)/delete", form: [:])
            #expect(deleted.status == .seeOther && deleted.location?.hasPrefix("/items/\(drill.id)") == true)
            #expect(try await ann.request(.get, try #require(deleted.location)).body.contains("Receipt deleted."))
            #expect(throws: DomainError.self) { try app.database.receipt(household.id, receiptID) }
            #expect(try !app.database.item(household.id, drill.id).documentation.hasReceipt)
            #expect(try await ann.request(.get, "/files/\(sha)").status == .notFound)
            #expect(try await ann.request(.get, "/api/v1/receipts/\(id)").status == .notFound)

        }
    }

    /// Deleted through the API while it is being read: the reading ends there (cancelled, or failed saying why),
    /// and is not tried again.
    @Test func aReceiptDeletedWhileItIsReadIsNotReadAgain() async throws {
        let app = try TestApp(receiptReader: ReceiptReader(recognizer: SlowRecognizer(text: Self.receiptText)))
        let (household, _) = try app.household("Home", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let uploaded = try await ann.request(.post, "/api/v1/receipts", body: DemoImages.receipt(variant: 2), contentType: "image/png")
            let id = try #require((uploaded.json as? [String: Any])?["id"] as? String)
            let receiptID = try #require(ReceiptID(string: id))
            let job = try #require(try await app.dependencies.services.receipts.reading(household.id, receiptID))
            #expect(try await ann.request(.delete, "/api/v1/receipts/\(id)").status == .noContent)
            #expect(try await ann.request(.delete, "/api/v1/receipts/\(id)").status == .notFound)
            let ended = try await app.waitForJob(job.id)
            #expect(ended.attempts <= 1 && (ended.state == .cancelled || ended.errorCode == "receipt_deleted"), "\(ended.state) \(ended.errorCode ?? "")")
        }
    }
}

/// A recogniser that takes its time (half a second), so a receipt can be deleted while it is read.
struct SlowRecognizer: TextRecognizer {
    let text: String
    func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText {
        try? await Task.sleep(for: .milliseconds(500))
        return RecognizedText(plainText: text)
    }
}
