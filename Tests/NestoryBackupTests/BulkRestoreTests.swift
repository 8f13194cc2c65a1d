import Foundation
import GRDB
import NestoryDomain
import NestoryStoreInterfaces
import Testing
@testable import NestoryBackup
@testable import NestoryStore

/// A restore with at least as many items as the server holds takes the bulk write path: the item indexes are dropped
/// for the load and built again at the end, the search index gets the new items in one pass. It must give what the
/// row-by-row path gives (rows, indexes, counters, search), in every mode, and leave nothing when it fails half-way.
@Suite("Restore on the bulk write path")
struct BulkRestoreTests {
    /// The item table's index definitions, and the schema's version (which every DROP and CREATE INDEX moves on:
    /// it tells whether a restore rebuilt the indexes).
    func schema(_ database: AppDatabase) throws -> (indexes: [String], version: Int) {
        try database.unsafeRawRead { db in
            (try String.fetchAll(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'item' AND sql IS NOT NULL ORDER BY name"),
             try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0)
        }
    }

    func quickCheck(_ database: AppDatabase) throws -> [String] {
        try database.unsafeRawRead { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
    }

    /// The search index's rows of a household's items, as text (what a search matches against).
    func searchRows(_ database: AppDatabase, _ household: HouseholdID) throws -> [String] {
        try database.unsafeRawRead { db in
            try Row.fetchAll(db, sql: """
                SELECT i.id, f.name, f.brand, f.model, f.serial, f.notes, f.tags, f.receipts FROM item_fts f JOIN item i ON i.seq = f.rowid
                WHERE i.household_id = ?
                """, arguments: [household.description]).map { "\($0)" }.sorted()
        }
    }

    /// Validates `archive` and applies it with the given rebuild minimum (0: always the bulk path when the count allows).
    func restore(_ database: AppDatabase, _ archive: URL, into target: HouseholdID?, mode: RestoreMode, rebuildMinimum: Int,
                 wrap: (ArchiveContents) -> any HouseholdArchiveSource = { $0 }) throws -> RestoreSummary {
        let checked = try BackupReader(database: database).validate(archive)
        defer { checked.discard() }
        return try database.restoreHousehold(wrap(checked.contents), files: checked.staged, reportFiles: checked.stagedReports,
                                             into: target, mode: mode, rebuildMinimum: rebuildMinimum)
    }

    func searches(_ database: AppDatabase, _ household: HouseholdID) throws -> [[String]] {
        try ["茶壶", "café", "sony", "s", "wa", "kitchen"].map { word in
            try database.items(household, ItemQuery(search: word, sort: .name, limit: 200)).elements.map(\.item.id.description)
        }
    }

    @Test("a new household: the bulk path gives the rows, files, indexes, counters and search answers of the row-by-row path")
    func newHousehold() async throws {
        let ws = try Workspace()
        let source = try ws.database("a")
        let (household, archive) = try await ws.seededArchive(source, items: 120)

        let small = try ws.database("small"), bulk = try ws.database("bulk")
        let (smallBefore, bulkBefore) = (try schema(small), try schema(bulk))
        let smallSummary = try restore(small, archive, into: nil, mode: .replace, rebuildMinimum: .max)
        let bulkSummary = try restore(bulk, archive, into: nil, mode: .replace, rebuildMinimum: 100)
        // The row-by-row restore left the schema alone; the bulk one dropped and built the indexes again, as they were.
        #expect(try schema(small).version == smallBefore.version)
        #expect(try schema(bulk).version > bulkBefore.version)
        #expect(try schema(bulk).indexes == bulkBefore.indexes && bulkBefore.indexes.count >= 10)
        #expect(try quickCheck(bulk) == ["ok"])

        #expect(bulkSummary == smallSummary && bulkSummary.items.added == 121 && bulkSummary.photos.added > 0 && bulkSummary.receipts.added > 0)
        let expected = try snapshot(source, household.id)
        #expect(try snapshot(bulk, household.id) == expected)
        #expect(try snapshot(small, household.id) == expected)
        #expect(try fileHashes(bulk, household.id) == fileHashes(source, household.id))
        #expect(try bulk.summary(household.id) == source.summary(household.id))
        #expect(try searchRows(bulk, household.id) == searchRows(source, household.id))
        let answers = try searches(bulk, household.id)
        #expect(answers == (try searches(source, household.id)))
        #expect(answers[0].count == 1 && answers[3].count > 10)
        // The indexes answer queries again.
        let plan = try bulk.unsafeRawRead { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT seq FROM item WHERE household_id = ? ORDER BY name_key, seq LIMIT 5",
                             arguments: [household.id.description]).map { $0["detail"] as String }.joined()
        }
        #expect(plan.contains("item_by_name"), "\(plan)")
    }

    @Test("replace and merge into a household that exists, on the bulk path, give what the row-by-row path gives")
    func replaceAndMerge() async throws {
        let ws = try Workspace()
        for mode in [RestoreMode.replace, .merge] {
            var results: [(summary: RestoreSummary, snapshot: [String: [String]], search: [String], answers: [[String]])] = []
            for rebuildMinimum in [Int.max, 1] {
                let database = try ws.database("\(mode)-\(rebuildMinimum)")
                let household = try ws.seeded(database, items: 40)
                let items = try database.items(household.id, ItemQuery(limit: 5)).elements.map(\.item)
                var newer = items[0].draft
                newer.name = "Newer in archive"
                newer.tags = ["archived"]
                _ = try database.updateItem(household.id, items[0].id, newer, now: ws.now.addingTimeInterval(100))
                let archive = ws.file("backup-\(mode)-\(rebuildMinimum).zip")
                try await BackupWriter(database: database).write(household: household.id, to: archive, now: ws.now)
                // Changes after the backup: an older edit, a newer one, a deleted item, a new one.
                var older = items[0].draft
                older.name = "Older here"
                _ = try database.updateItem(household.id, items[0].id, older, now: ws.now.addingTimeInterval(50))
                var newerHere = items[1].draft
                newerHere.name = "Newer here"
                _ = try database.updateItem(household.id, items[1].id, newerHere, now: ws.now.addingTimeInterval(500))
                try database.deleteItem(household.id, items[2].id)
                _ = try database.createItem(household.id, ItemDraft(name: "Only here", currency: .usd), now: ws.now)

                let before = try schema(database)
                let summary = try restore(database, archive, into: household.id, mode: mode, rebuildMinimum: rebuildMinimum)
                #expect(try (schema(database).version > before.version) == (rebuildMinimum == 1), "\(mode) \(rebuildMinimum)")
                #expect(try schema(database).indexes == before.indexes)
                #expect(try quickCheck(database) == ["ok"])
                // Ids differ between the two databases (demo items are made anew): compare without them.
                var rows = try snapshot(database, household.id)
                rows = rows.mapValues { lines in
                    lines.map { $0.replacingOccurrences(of: #""[a-z_]*id":"[0-9a-f-]{36}""#, with: "id", options: .regularExpression) }.sorted()
                }
                let search = try searchRows(database, household.id).map {
                    $0.replacingOccurrences(of: #"id:"[0-9a-f-]{36}""#, with: "id", options: .regularExpression)
                }.sorted()
                let answers = try ["newer", "older", "only", "archived", "茶壶"].map { word in
                    try database.items(household.id, ItemQuery(search: word, limit: 50)).elements.map(\.item.name).sorted()
                }
                #expect(try database.summary(household.id).itemCount == rows["items"]!.count)
                results.append((summary, rows, search, answers))
            }
            let (small, bulk) = (results[0], results[1])
            #expect(bulk.summary.items == small.summary.items, "\(mode)")
            #expect(bulk.summary.photos == small.summary.photos && bulk.summary.receipts == small.summary.receipts, "\(mode)")
            // The seeded photo of the Unicode item has bytes of its own in each database; the reports, file names of their own.
            for key in ["items", "rooms", "categories", "receipts", "valuations"] {
                #expect(bulk.snapshot[key] == small.snapshot[key], "\(mode): table \(key) differs")
            }
            #expect(bulk.snapshot["photos"]!.count == small.snapshot["photos"]!.count && bulk.snapshot["reports"]!.count == small.snapshot["reports"]!.count)
            #expect(bulk.search == small.search, "\(mode)")
            #expect(bulk.answers == small.answers, "\(mode)")
            if mode == .merge {
                #expect(bulk.summary.items.added == 1 && bulk.summary.items.updated == 1 && bulk.summary.items.skipped == 39)
                #expect(bulk.answers[0] == ["Newer here", "Newer in archive"] && bulk.answers[1].isEmpty && bulk.answers[2] == ["Only here"])
                #expect(bulk.answers[3] == ["Newer in archive"])
            } else {
                #expect(bulk.summary.items.removed == 41 && bulk.summary.items.added == 41)
                #expect(bulk.answers[0] == ["Newer in archive"] && bulk.answers[2].isEmpty)
            }
        }
    }

    @Test("into another household of the same server on the bulk path: clashing ids get new ones, and photos, receipts and valuations follow")
    func intoAnotherHousehold() async throws {
        let ws = try Workspace()
        let database = try ws.database("a")
        let (first, archive) = try await ws.seededArchive(database, items: 10)
        let second = try database.createHousehold(name: "Cabin", currency: .usd, now: ws.now)
        let before = try schema(database)
        let summary = try restore(database, archive, into: second.id, mode: .merge, rebuildMinimum: 1)
        #expect(try schema(database).version > before.version)
        #expect(summary.items.added == 11)
        let (a, b) = (try snapshot(database, first.id), try snapshot(database, second.id))
        for key in ["items", "photos", "receipts", "valuations"] { #expect(a[key]!.count == b[key]!.count, "\(key)") }
        #expect(Set(a["items"]!).isDisjoint(with: b["items"]!))  // every item has a new id
        let teapot = try #require(try database.items(second.id, ItemQuery(search: "茶壶")).elements.first?.item)
        #expect(try database.item(second.id, teapot.id).photos.count == 1)
        #expect(try database.valuations(second.id, item: teapot.id).count == 2)
        #expect(try database.summary(second.id).itemCount == 11 && database.summary(first.id).itemCount == 11)
        #expect(try searchRows(database, second.id).count == 11)
    }

    /// An archive source that fails after `items` items (or in the receipts), as a damaged or vanished file would.
    struct Failing: HouseholdArchiveSource {
        struct Failure: Error {}
        let base: ArchiveContents
        var items = Int.max
        var failInReceipts = false
        var household: ArchiveRecord.Household { base.household }
        var users: [ArchiveRecord.User] { base.users }
        var memberships: [ArchiveRecord.Membership] { base.memberships }
        var rooms: [ArchiveRecord.Room] { base.rooms }
        var categories: [ArchiveRecord.Category] { base.categories }
        var blobs: [String: ArchiveRecord.Blob] { base.blobs }
        var itemCount: Int { base.itemCount }
        var reports: [ArchiveRecord.Report] { base.reports }
        func forEachItem(_ body: (ArchiveRecord.Item) throws -> Void) throws {
            var seen = 0
            try base.forEachItem { item in
                seen += 1
                if seen > items { throw Failure() }
                try body(item)
            }
        }
        func forEachPhoto(_ body: (ArchiveRecord.Photo) throws -> Void) throws { try base.forEachPhoto(body) }
        func forEachReceipt(_ body: (ArchiveRecord.Receipt) throws -> Void) throws {
            if failInReceipts { throw Failure() }
            try base.forEachReceipt(body)
        }
        func forEachValuation(_ body: (ArchiveRecord.Valuation) throws -> Void) throws { try base.forEachValuation(body) }
    }

    @Test("a failure half-way on the bulk path leaves nothing, and the indexes as they were")
    func failureHalfWay() async throws {
        let ws = try Workspace()
        let source = try ws.database("a")
        let (household, archive) = try await ws.seededArchive(source, items: 60)

        // Into an empty server (a new household), failing among the items and after the photos.
        for (name, items, inReceipts) in [("items", 30, false), ("receipts", Int.max, true)] {
            let target = try ws.database("t-\(name)")
            let before = try schema(target)
            #expect(throws: Failing.Failure.self) {
                try restore(target, archive, into: nil, mode: .replace, rebuildMinimum: 10) {
                    Failing(base: $0, items: items, failInReceipts: inReceipts)
                }
            }
            #expect(try schema(target) == before, "\(name)")
            #expect(try !target.householdExists(household.id.description), "\(name)")
            let counts = try target.unsafeRawRead { db in
                try ["item", "item_tag", "item_fts", "item_photo", "receipt", "valuation", "item_stats", "room", "category", "user"].map {
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)") ?? -1
                }
            }
            #expect(counts.allSatisfy { $0 == 0 }, "\(name): \(counts)")
            #expect(try quickCheck(target) == ["ok"])
        }

        // Replacing a household that exists: it stays exactly as it was.
        let before = try snapshot(source, household.id)
        let beforeSchema = try schema(source)
        let beforeSearch = try searchRows(source, household.id)
        #expect(throws: Failing.Failure.self) {
            try restore(source, archive, into: household.id, mode: .replace, rebuildMinimum: 10) { Failing(base: $0, items: 40) }
        }
        #expect(try schema(source) == beforeSchema)
        #expect(try snapshot(source, household.id) == before)
        #expect(try searchRows(source, household.id) == beforeSearch)
        #expect(try source.summary(household.id).itemCount == 61)
    }
}
