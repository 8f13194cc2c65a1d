// Snapshot tests of the main pages' HTML (spec §14): the inventory list and grid, an item's page, the Reports
// tab and the full inventory report's options, rendered by the real router for a fixed household and compared
// line by line with the recorded files in __Snapshots__/PageSnapshotTests/, so any change to a page shows in
// review as a diff of those files.
//
// After an intended change to a page, re-record them all and commit the changed files:
//
//     SNAPSHOT_TESTING_RECORD=all swift test --filter PageSnapshotTests
//
// That run passes, listing each file it wrote as a known issue ("Record mode is on…"); review the change with
// `git diff Tests/NestoryWebTests/__Snapshots__`. A missing snapshot is recorded and fails the test
// (swift-snapshot-testing's default record mode, `.missing`), so a CI run never passes on a snapshot nobody committed.
import Foundation
import HTTPTypes
import HummingbirdTesting
import NestoryDemo
import NestoryDomain
import NestoryStore
import SnapshotTesting
import Testing
@testable import NestoryWeb

@Suite struct PageSnapshotTests {
    @Test func pages() async throws {
        let app = try TestApp()
        let household = try SnapshotHousehold(app)
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let csrf = try #require(ann.csrf)
            for (name, path) in [("inventory-list", "/"), ("inventory-grid", "/?view=grid"), ("item", "/items/\(household.laptop)"),
                                 ("reports", "/reports"), ("report-options", "/reports/inventory")] {
                let reply = try await ann.request(.get, path, headers: [.acceptLanguage: "en-US"])
                #expect(reply.status == .ok, "\(path)")
                let html = household.normalised(reply.body, csrf: csrf)
                if Self.recording {
                    withKnownIssue("Recorded \(name)") { assertSnapshot(of: html, as: .lines, named: name, testName: "pages") }
                } else {
                    assertSnapshot(of: html, as: .lines, named: name, testName: "pages")
                }
            }
        }
    }

    @Test func normalisationReplacesWhatChangesFromRunToRun() {
        let known = "0b1e0a52-7c7e-4d0e-9d1a-2f6f1c3e4a5b", other = "F3A1C2D4-0000-4000-8000-000000000001"
        let hash = String(repeating: "ab", count: 32)
        let html = """
            <meta name="csrf-token" content="tok3n"><link href="/assets/app.css?v=1a2b3c"><script src="/assets/app.js?v=9f9f"></script>
            <a href="/items/\(known)">x</a> <a href="/items/\(other)">y</a> <a href="/items/\(other.lowercased())">z</a>
            <img src="/files/\(hash)?size=thumb"> expires in 3,012 days; expired 4 days ago; in 2 years; 6 rooms
            """
        #expect(SnapshotHousehold.normalised(html, csrf: "tok3n", names: [known: "item-lamp"]) == """
            <meta name="csrf-token" content="CSRF-TOKEN"><link href="/assets/app.css?v=HASH"><script src="/assets/app.js?v=HASH"></script>
            <a href="/items/item-lamp">x</a> <a href="/items/uuid-1">y</a> <a href="/items/uuid-1">z</a>
            <img src="/files/sha256-1?size=thumb"> expires in N days; expired N days ago; in N years; 6 rooms

            """)
    }

    /// `SNAPSHOT_TESTING_RECORD=all` (read by the library) rewrites every snapshot; the library reports each write
    /// as an issue, taken here as a known one, so that run passes and `git diff` shows what changed.
    static let recording = ProcessInfo.processInfo.environment["SNAPSHOT_TESTING_RECORD"] == "all"
}

/// The household the snapshots show: eight items with fixed names, prices and dates, from fully documented
/// (photos, a receipt, tags, notes, a warranty) to bare, in several rooms and categories, with one in none.
///
/// What changes from run to run is replaced before comparing (`normalised`):
/// - every id (items, rooms, categories, photos, receipts, the household; random UUIDs) by a name: the ones
///   made here by what they are (`item-laptop`, `room-office`, `category-electronics`, `photo-laptop-1`),
///   any other by `uuid-N`, numbered in order of first appearance in the page;
/// - the session's CSRF token by `CSRF-TOKEN`;
/// - the stylesheet's and script's content hashes in their URLs (`/assets/app.css?v=HASH`), which change with
///   every edit to those files;
/// - stored files' SHA-256 names (`/files/<sha256>`) by `sha256-` and the photo's or receipt's name
///   (`sha256-photo-laptop-1`), any other by `sha256-N`;
/// - counts of days, weeks, months or years relative to today ("expires in 3,012 days", "expired 4 days ago")
///   by `N`: the warranty's date is fixed, today is not.
/// Dates are fixed and in the past (purchases) or far ahead (the warranty); the page's language is en-US.
struct SnapshotHousehold {
    let laptop: ItemID
    /// Known ids and file hashes, lower-case, to their placeholders.
    private var names: [String: String] = [:]

    init(_ app: TestApp) throws {
        let database = app.database
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        let id = household.id
        let now = Date(timeIntervalSince1970: 1_717_243_200)  // 2024-06-01 12:00 UTC
        let today = try CalendarDate(iso: "2024-06-01")
        func slug(_ name: String) -> String {
            name.lowercased().replacingOccurrences(of: "[^a-z0-9]+", with: "-", options: .regularExpression)
        }
        let rooms = Dictionary(uniqueKeysWithValues: try database.rooms(id).map { ($0.name, $0.id) })
        let categories = Dictionary(uniqueKeysWithValues: try database.categories(id).map { ($0.name, $0.id) })
        for (name, room) in rooms { names[room.description] = "room-\(slug(name))" }
        for (name, category) in categories { names[category.description] = "category-\(slug(name))" }
        func usd(_ text: String) throws -> Money { try Money.parse(text, currency: .usd) }
        func day(_ iso: String) throws -> CalendarDate { try CalendarDate(iso: iso) }

        var laptop: ItemID?
        var variant = 0  // a different picture for each photo (files are stored by content)
        for (key, draft, photos) in [
            ("laptop", ItemDraft(name: "MacBook Pro 14-inch", brand: "Apple", modelNumber: "A2442", serialNumber: "C02FK1ABQ6L4",
                                 purchasePrice: try usd("1999.00"), purchaseDate: try day("2023-03-14"), currency: .usd,
                                 categoryID: categories["Electronics"], roomID: rooms["Office"], condition: .likeNew,
                                 conditionNotes: "Small scratch on the lid", barcode: "0194252538418",
                                 warrantyExpiry: try day("2035-03-14"), tags: ["insured", "work"],
                                 notes: "Bought at the Apple Store on Fifth Avenue.\nAppleCare+ for three years."), 2),
            ("sofa", ItemDraft(name: "Corner sofa", brand: "Hay", purchasePrice: try usd("2450.00"), purchaseDate: try day("2020-08-02"),
                               currency: .usd, categoryID: categories["Furniture"], roomID: rooms["Living Room"]), 1),
            ("mixer", ItemDraft(name: "Stand mixer", brand: "KitchenAid", purchasePrice: try usd("429.99"), currency: .usd,
                                categoryID: categories["Appliances"], roomID: rooms["Kitchen"]), 0),
            ("ring", ItemDraft(name: "Wedding ring", purchasePrice: try usd("3200.00"), purchaseDate: try day("2015-05-23"),
                               currency: .usd, categoryID: categories["Jewelry & Watches"], roomID: rooms["Primary Bedroom"],
                               tags: ["insured"]), 1),
            ("guitar", ItemDraft(name: "Acoustic guitar", brand: "Martin", modelNumber: "D-28", currency: .usd,
                                 categoryID: categories["Musical Instruments"], roomID: rooms["Living Room"], condition: .fair), 1),
            ("chairs", ItemDraft(name: "Dining chairs", purchasePrice: try usd("180.00"), currency: .usd,
                                 categoryID: categories["Furniture"], roomID: rooms["Dining Room"], quantity: 4), 0),
            ("drill", ItemDraft(name: "Cordless drill", brand: "Bosch", purchasePrice: try usd("149.00"),
                                purchaseDate: try day("2022-11-25"), currency: .usd, categoryID: categories["Tools & Equipment"],
                                roomID: rooms["Garage"]), 1),
            ("box", ItemDraft(name: "Box from the attic", currency: .usd), 0),
        ] as [(String, ItemDraft, Int)] {
            let item = try database.createItem(id, draft, now: now, today: today)
            names[item.id.description] = "item-\(key)"
            if key == "laptop" { laptop = item.id }
            for index in 0..<photos {
                let photo = try database.addPhoto(id, to: item.id, data: DemoImages.photo(variant: variant),
                                                  contentType: "image/png", now: now)
                names[photo.id.description] = "photo-\(key)-\(index + 1)"
                names[photo.attachment.sha256] = "sha256-photo-\(key)-\(index + 1)"
                variant += 1
            }
        }
        self.laptop = try #require(laptop)
        let fields = ReceiptFields(vendor: "Apple Store", total: try usd("2176.91"), tax: try usd("177.91"),
                                   purchaseDate: try day("2023-03-14"), confidence: 0.9)
        let receipt = try database.addReceipt(id, itemID: self.laptop, data: DemoImages.receipt(variant: 1), contentType: "image/png",
                                              fields: fields, now: now)
        names[receipt.id.description] = "receipt-laptop"
        names[receipt.attachment.sha256] = "sha256-receipt-laptop"
        names[id.description] = "household"
    }

    /// The page with what varies between runs replaced (see the type's comment), ending in a newline.
    func normalised(_ html: String, csrf: String) -> String { Self.normalised(html, csrf: csrf, names: names) }

    /// `names` maps lower-case ids and file hashes to their placeholders.
    static func normalised(_ html: String, csrf: String, names: [String: String]) -> String {
        var out = html.replacingOccurrences(of: csrf, with: "CSRF-TOKEN")
        out = Self.replace(#"(/assets/[^"?\s]+)\?v=[^"&\s]+"#, in: out) { match in match[1] + "?v=HASH" }
        var others: [String: String] = [:]
        var counts: [String: Int] = [:]
        func placeholder(_ key: String, prefix: String) -> String {
            let key = key.lowercased()
            if let name = names[key] ?? others[key] { return name }
            counts[prefix, default: 0] += 1
            let name = "\(prefix)-\(counts[prefix]!)"
            others[key] = name
            return name
        }
        out = Self.replace(#"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"#, in: out) { match in
            placeholder(match[0], prefix: "uuid")
        }
        out = Self.replace(#"\b[0-9a-f]{64}\b"#, in: out) { match in placeholder(match[0], prefix: "sha256") }
        let units = "(?:day|week|month|year)s?"
        out = Self.replace(#"\b(in )\d[\d,]*( \#(units))\b"#, in: out) { match in match[1] + "N" + match[2] }
        out = Self.replace(#"\b\d[\d,]*( \#(units) ago)\b"#, in: out) { match in "N" + match[1] }
        return out.hasSuffix("\n") ? out : out + "\n"
    }

    /// Replaces every match of `pattern`; `transform` gets the whole match and its groups.
    static func replace(_ pattern: String, in text: String, _ transform: ([String]) -> String) -> String {
        let regex = try! NSRegularExpression(pattern: pattern)
        var out = ""
        var last = text.startIndex
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let range = Range(match.range, in: text)!
            let groups = (0..<match.numberOfRanges).map { Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? "" }
            out += text[last..<range.lowerBound] + transform(groups)
            last = range.upperBound
        }
        return out + text[last...]
    }
}
