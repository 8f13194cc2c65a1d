import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain
import NestoryStore
import Testing
@testable import NestoryWeb

/// The hand-written JSON of the item list: escaping, numbers, dates, and the same meaning as `JSONEncoder`.
@Suite struct JSONWriterTests {
    private func text(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        body(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private func parsed(_ bytes: [UInt8]) throws -> NSObject {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as? NSObject)
    }

    @Test func stringsAreEscapedAndRoundTrip() throws {
        let tricky = "quote \" backslash \\ slash / newline \n return \r tab \t backspace \u{8} feed \u{C} nul \u{0} unit \u{1F} del \u{7F}"
            + " é 日本 🏠 \u{2028}\u{2029} combining e\u{301} end"
        let json = text { $0.string(tricky) }
        #expect(json.hasPrefix(#""quote \" backslash \\ slash / newline \n return \r tab \t backspace \b feed \f nul \u0000 unit \u001f del "#))
        #expect(json.contains("é 日本 🏠 \u{2028}\u{2029}"))  // UTF-8 as is, which JSON allows
        for byte in json.utf8 { #expect(byte >= 0x20) }  // no raw control character left
        #expect(try JSONDecoder().decode(String.self, from: Data(json.utf8)) == tricky)
        #expect(text { $0.string("") } == #""""#)
        #expect(text { $0.string("plain") } == #""plain""#)
        // Every control character, one by one.
        for scalar in (0..<0x20).compactMap(Unicode.Scalar.init) {
            let value = "a\(Character(scalar))b"
            #expect(try JSONDecoder().decode(String.self, from: Data(text { $0.string(value) }.utf8)) == value)
        }
    }

    @Test func theBufferGrowsAsItIsWritten() throws {
        var writer = JSONWriter(capacity: 0)
        var expected: [Any] = []
        writer.beginArray()
        for index in 0..<3000 {
            let text = String(repeating: "x\u{1}🏠", count: index % 70)
            writer.string(text)
            writer.int(index)
            expected.append(text)
            expected.append(index)
        }
        writer.endArray()
        let written = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? NSArray)
        #expect(written == expected as NSArray)
    }

    @Test func numbersBooleansAndStructure() {
        #expect(text { $0.int(Int64(0)) } == "0")
        #expect(text { $0.int(Int64(-1)) } == "-1")
        #expect(text { $0.int(Int64.max) } == "9223372036854775807")
        #expect(text { $0.int(Int64.min) } == "-9223372036854775808")
        #expect(text { $0.int(1_234_567_890) } == "1234567890")
        let object = text { json in
            json.beginObject()
            json.field("a", 1)
            json.field("skipped", nil as String?)
            json.field("b", true)
            json.key("c")
            json.beginArray()
            json.beginObject()
            json.endObject()
            json.beginArray()
            json.endArray()
            json.null()
            json.string("x")
            json.endArray()
            json.field("d", ["p", "q"])
            json.field("e", false)
            json.endObject()
        }
        #expect(object == #"{"a":1,"b":true,"c":[{},[],null,"x"],"d":["p","q"],"e":false}"#)
    }

    @Test func datesAreWrittenAsJSONEncoderWritesThem() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        var instants: [TimeInterval] = [0, 0.999, 59.5, 86_399.999, 951_782_400, 951_868_799.9, 4_107_542_400, 1_700_000_000.123,
                                        253_402_300_799, -86_400, -1_000_000_000, -5_364_662_400]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 { instants.append(Double(Int64.random(in: 0..<4_102_444_800_000, using: &generator)) / 1000) }
        for instant in instants {
            let date = Date(timeIntervalSince1970: instant)
            let expected = String(decoding: try encoder.encode(date), as: UTF8.self)
            #expect(text { $0.date(date) } == expected, "\(instant)")
        }
    }

    @Test func civilDatesFollowTheGregorianCalendar() {
        func civil(_ days: Int64) -> String {
            let date = JSONWriter.civil(fromDays: days)
            return "\(date.year)-\(date.month)-\(date.day)"
        }
        #expect(civil(0) == "1970-1-1")
        #expect(civil(11_016) == "2000-2-29")
        #expect(civil(47_541) == "2100-3-1")  // 2100 is not a leap year
        #expect(civil(-1) == "1969-12-31")
    }

    @Test func identifiersDaysAndAmountsAreWrittenAsTheirTexts() throws {
        for _ in 0..<200 {
            let id = ItemID()
            #expect(text { $0.id(id) } == "\"\(id.description)\"")
        }
        let fixed = try #require(ItemID(string: "00000000-0000-0000-0000-00000000000f"))
        #expect(text { $0.id(fixed) } == #""00000000-0000-0000-0000-00000000000f""#)
        for iso in ["1800-01-01", "2000-02-29", "2023-03-04", "2026-11-23", "9999-12-31"] {
            #expect(text { $0.calendarDate(try! CalendarDate(iso: iso)) } == "\"\(iso)\"")
        }
        let currencies = [CurrencyCode.usd, .jpy, .eur, try CurrencyCode("KWD"), try CurrencyCode("CLF"), try CurrencyCode("XYZ")]
        let amounts: [Int64] = [0, 1, 5, 9, 10, 99, 100, 101, 1_000, 12_345, 44_999, 1_000_000, -1, -5, -100, -12_345,
                                Money.maxMagnitude, -Money.maxMagnitude]
        for currency in currencies {
            for minor in amounts {
                let money = try Money(minorUnits: minor, currency: currency)
                #expect(text { $0.plainAmount(money) } == "\"\(money.plainAmount)\"", "\(minor) \(currency)")
            }
        }
        let cents = try Money(minorUnits: 5, currency: .usd), negative = try Money(minorUnits: -123_456, currency: .usd)
        let yen = try Money(minorUnits: 5_000, currency: .jpy)
        #expect(text { $0.plainAmount(cents) } == #""0.05""#)
        #expect(text { $0.plainAmount(negative) } == #""-1234.56""#)
        #expect(text { $0.plainAmount(yen) } == #""5000""#)
        #expect(text { $0.string(prefix: "/files/", "abc") } == #""/files/abc""#)
        #expect(text { $0.string(prefix: "/files/", "a\"b\\c\n") } == #""/files/a\"b\\c\n""#)
        let object = text { json in
            json.beginObject()
            json.field("a", fixed)
            json.field("b", nil as ItemID?)
            json.field("c", nil as CalendarDate?)
            json.field("d", try! CalendarDate(iso: "2024-01-02"))
            json.key("e")
            json.string(prefix: "/x/", "y")
            json.endObject()
        }
        #expect(object == #"{"a":"00000000-0000-0000-0000-00000000000f","d":"2024-01-02","e":"/x/y"}"#)
    }

    private func sampleItem(full: Bool) throws -> ItemJSON {
        let household = HouseholdID()
        let draft = full
            ? ItemDraft(name: "Mixer \"Pro\" \\ 5 / 日本 🏠\n", brand: "Kitchen\tAid", modelNumber: "KSM-150", serialNumber: "S/N 1\u{1}",
                        purchasePrice: try Money.parse("449.99", currency: .usd), purchaseDate: try CalendarDate(iso: "2023-03-04"),
                        currency: .usd, categoryID: CategoryID(), roomID: RoomID(), condition: .likeNew, conditionNotes: "scratch\r\n",
                        barcode: "0012345678905", warrantyExpiry: try CalendarDate(iso: "2026-03-04"), tags: ["gift", "kitchen \"main\"", ""],
                        notes: "bought at <b>store</b> & co", quantity: 3)
            : ItemDraft(name: "Lamp", currency: .eur)
        let item = Item(householdID: household, draft: draft, createdAt: Date(timeIntervalSince1970: 1_700_000_000.789),
                        updatedAt: Date(timeIntervalSince1970: 1_700_086_400.001))
        let status = DocumentationStatus(item: item, photoCount: full ? 1 : 0, receiptCount: 0)
        let attachment = Attachment(sha256: String(repeating: "ab", count: 32), contentType: "image/jpeg", byteCount: 12_345)
        let photos = full ? [PhotoJSON(ItemPhoto(householdID: household, itemID: item.id, attachment: attachment, isPrimary: true,
                                                 position: 0, createdAt: Date()))] : nil
        var json = ItemJSON(item, status: status, photos: photos, primary: full ? attachment : nil)
        if full {
            let scan = Attachment(sha256: String(repeating: "cd", count: 32), contentType: "image/png", byteCount: 999)
            json.receipts = [
                ReceiptJSON(Receipt(householdID: household, itemID: item.id, attachment: scan, vendor: "Ünïcode \"Shop\"",
                                    total: try Money.parse("12.50", currency: .eur), tax: try Money.parse("2", currency: .eur),
                                    purchaseDate: try CalendarDate(iso: "2023-03-04"), createdAt: Date(timeIntervalSince1970: 1_700_000_001))),
                ReceiptJSON(Receipt(householdID: household, itemID: nil, attachment: scan, createdAt: Date(timeIntervalSince1970: 1_700_000_002))),
            ]
        }
        return json
    }

    @Test func itemsAndPagesMeanWhatJSONEncoderWouldHaveWritten() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        for full in [true, false] {
            let item = try sampleItem(full: full)
            var writer = JSONWriter()
            item.write(to: &writer)
            #expect(try parsed(writer.bytes) == (try parsed(Array(try encoder.encode(item)))))
        }
        for cursor in ["name.TWl4ZXI=.42", nil] {
            let page = PageJSON(items: [try sampleItem(full: true), try sampleItem(full: false)], nextCursor: cursor)
            var writer = JSONWriter()
            page.write(to: &writer)
            let written = try parsed(writer.bytes)
            #expect(written == (try parsed(Array(try encoder.encode(page)))))
            #expect(((written as? [String: Any])?["nextCursor"] as? String) == cursor)
        }
        // The values themselves, as the item's texts say.
        let full = try sampleItem(full: true)
        var writer = JSONWriter()
        full.write(to: &writer)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
        #expect(object["id"] as? String == full.item.id.description)
        #expect(object["roomID"] as? String == full.item.roomID?.description)
        #expect(object["categoryID"] as? String == full.item.categoryID?.description)
        #expect((object["price"] as? [String: Any])?["amount"] as? String == "449.99")
        #expect((object["price"] as? [String: Any])?["minorUnits"] as? Int == 44_999)
        #expect((object["totalValue"] as? [String: Any])?["amount"] as? String == "1349.97")
        #expect((object["totalValue"] as? [String: Any])?["currency"] as? String == "USD")
        #expect(object["purchaseDate"] as? String == "2023-03-04")
        #expect(object["warrantyExpiry"] as? String == "2026-03-04")
        #expect(object["createdAt"] as? String == "2023-11-14T22:13:20Z")
        #expect(object["condition"] as? String == "like_new")
        #expect(object["tags"] as? [String] == full.item.tags)
        #expect(object["primaryPhoto"] as? String == "/files/" + String(repeating: "ab", count: 32))
        #expect(object["documented"] as? Bool == full.documentation.isDocumented)
        let receipts = try #require(object["receipts"] as? [[String: Any]])
        #expect(receipts.count == 2 && receipts[0]["vendor"] as? String == "Ünïcode \"Shop\"" && receipts[1]["vendor"] == nil)
        #expect((receipts[0]["tax"] as? [String: Any])?["amount"] as? String == "2.00" && receipts[0]["file"] as? String == "/files/" + String(repeating: "cd", count: 32) + "?size=original")
        let bare = try sampleItem(full: false)
        writer = JSONWriter()
        bare.write(to: &writer)
        let keys = Set(try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any]).keys)
        #expect(keys == ["id", "name", "currency", "quantity", "condition", "tags", "createdAt", "updatedAt", "documentation", "documented"])
        let empty = PageJSON(items: [], nextCursor: nil)
        writer = JSONWriter()
        empty.write(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"items":[]}"#)
    }

    @Test func theListThroughTheRouterIsJSONWithItsLength() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let name = "Quote \" back \\ tab \t bell \u{7} 🏠"
        // What the store keeps (it tidies control characters out of names) is what the list must send back.
        let stored = try app.database.createItem(household.id, ItemDraft(name: name, currency: .usd, notes: "line 1\nline 2"), now: Date()).name
        #expect(stored.contains("\"") && stored.contains("\\") && stored.contains("🏠"))
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            let list = try await browser.request(.get, "/api/v1/items")
            #expect(list.status == .ok)
            #expect(list.headers[.contentType] == "application/json; charset=utf-8")
            #expect(list.headers[.contentLength] == String(list.body.utf8.count))
            let items = try #require((list.json as? [String: Any])?["items"] as? [[String: Any]])
            #expect(items.count == 1)
            #expect(items.first?["name"] as? String == stored)
            #expect(items.first?["notes"] as? String == "line 1\nline 2")
            #expect(items.first?["brand"] == nil)  // nil fields are left out, as before
            let id = try #require(items.first?["id"] as? String)
            let one = try await browser.request(.get, "/api/v1/items/\(id)")
            #expect((one.json as? [String: Any])?["name"] as? String == stored)
            #expect(((one.json as? [String: Any])?["photos"] as? [Any])?.isEmpty == true)
        }
    }
}
