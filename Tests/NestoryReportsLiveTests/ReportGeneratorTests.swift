import Foundation
import NestoryChildProcess
import NestoryDemo
import NestoryDomain
import NestoryReports
import NestoryStore
import Testing
@testable import NestoryReportsLive

/// A demo household in a fresh data folder.
final class DemoStore: Sendable {
    let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-reports-\(UUID().uuidString)").path)
    let database: AppDatabase
    let household: Household
    let now = Date(timeIntervalSince1970: 1_763_800_000)

    init(items: Int, name: String = "Demo Household") throws {
        database = try AppDatabase.open(folder)
        household = try DemoSeeder.seed(database, name: name, count: items, seed: 3, now: now)
    }

    deinit {
        try? database.close()
        try? FileManager.default.removeItem(at: folder.url)
    }

    var scratch: URL { folder.url }
}

/// Runs a report's synchronous work on a thread of its own: the generator waits there for the async stores, which a
/// thread of Swift's cooperative pool (a test's) must not do.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// The rows an inventory of `store` hands its sink, and its cover.
func inventoryRows(_ store: DemoStore, _ options: InventoryReportOptions) async throws -> (rows: [ItemID], cover: InventoryCover?) {
    try await offThePool {
        let sink = CountingSink()
        try ReportBuilder(source: ReportGenerator.sqlite(store.database).source(store.household.id), header: reportHeader(store.household))
            .buildInventory(options, into: sink)
        return (sink.rows, sink.cover)
    }
}

func pdftotext(_ url: URL) throws -> String {
    try ChildProcess.run("/usr/bin/pdftotext", [url.path, "-"]).outputText
}

/// Counts rows per group as a sink.
final class CountingSink: InventoryReportSink {
    var rows: [ItemID] = []
    var cover: InventoryCover?
    func begin(_ cover: InventoryCover) throws { self.cover = cover }
    func beginGroup(_ group: ReportGroup, total: ReportTotal) throws {}
    func row(_ row: ReportItem) throws { rows.append(row.item.id) }
    func endGroup(_ total: ReportTotal) throws {}
    func end(_ totals: InventoryTotals) throws {}
}

func reportHeader(_ household: Household) -> ReportHeader {
    ReportHeader(householdName: household.name, currency: household.currency, generatedAt: Date(), generatedOn: CalendarDate(Date(), in: .current))
}

@Suite(.serialized) struct ReportGeneratorTests {
    @Test func theStoreSourceListsEveryItemOnceAcrossPagesAndMatchesTheSummary() async throws {
        let store = try DemoStore(items: 450)
        let summary = try store.database.summary(store.household.id)
        for grouping in ReportGrouping.allCases {
            let sink = try await inventoryRows(store, InventoryReportOptions(grouping: grouping))
            #expect(sink.rows.count == 450 && Set(sink.rows).count == 450)
            #expect(sink.cover?.total.value.amounts(preferred: .usd) == summary.estimatedValue)
            #expect(sink.cover?.score == summary.score)
        }
        let documented = try await inventoryRows(store, InventoryReportOptions(includeUndocumented: false))
        #expect(documented.rows.count == summary.score.documented)
    }

    @Test func theInventoryPDFHasEveryItemAndTheHouseholdsTotal() async throws {
        let store = try DemoStore(items: 120)
        let url = store.scratch.appendingPathComponent("inventory.pdf")
        let result = try await offThePool {
            try ReportGenerator.sqlite(store.database)
                .inventory(store.household.id, options: InventoryReportOptions(includePhotos: true), to: url, now: store.now)
        }
        let summary = try store.database.summary(store.household.id)
        #expect(result.items == 120 && result.pages > 5 && result.images > 0)
        // Names that wrap onto two lines of their cell read back with a line break: compare words.
        let text = try pdftotext(url).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains(summary.estimatedValue[0].formatted))
        #expect(text.contains("Page 1 of \(result.pages)") && text.contains("Page \(result.pages) of \(result.pages)"))
        var cursor: PageCursor?
        repeat {
            let page = try store.database.items(store.household.id, ItemQuery(limit: 200, after: cursor))
            for listing in page.elements { #expect(text.contains(listing.item.name.split(whereSeparator: \.isWhitespace).joined(separator: " "))) }
            cursor = page.nextCursor
        } while cursor != nil
    }

    @Test func historyKeepsTheFileAndIsScopedToTheHousehold() async throws {
        let store = try DemoStore(items: 30)
        let other = try store.database.createHousehold(name: "Neighbours", currency: .eur, now: store.now)
        let generator = ReportGenerator.sqlite(store.database)
        let rendered = store.folder.tmpURL.appendingPathComponent("report-\(UUID().uuidString.lowercased()).pdf")
        let options = try await offThePool {
            try generator.generate(store.household.id, request: .inventory(InventoryReportOptions(includePhotos: false)), to: rendered,
                                   now: store.now)
        }
        let report = try store.database.recordReport(store.household.id, kind: "inventory", options: options, file: rendered, now: store.now)
        let (listed, url) = try store.database.report(store.household.id, report.id)
        #expect(listed.kind == "inventory" && listed.fileName == report.fileName)
        #expect(url.path.hasPrefix(store.folder.reportsURL.path))
        let bytes = try Data(contentsOf: url)
        #expect(bytes.starts(with: Data("%PDF".utf8)) && Int64(bytes.count) == listed.byteCount)
        #expect(try JSONDecoder().decode(InventoryReportOptions.self, from: Data(listed.options.utf8)) == InventoryReportOptions(includePhotos: false))
        #expect(try store.database.reports(store.household.id).map(\.id) == [report.id])
        #expect(try store.database.reports(other.id).isEmpty)
        #expect(throws: DomainError.self) { try store.database.report(other.id, report.id) }
        #expect(throws: DomainError.self) { try store.database.deleteReport(other.id, report.id) }
        #expect(FileManager.default.fileExists(atPath: url.path))
        // Nothing is left in tmp/.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.tmpURL.path).filter { $0.hasPrefix("report-") }.isEmpty)
        try store.database.deleteReport(store.household.id, report.id)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try store.database.reports(store.household.id).isEmpty)
    }

    @Test func aLossListOnlyTakesTheHouseholdsOwnItems() async throws {
        let store = try DemoStore(items: 20)
        let neighbours = try DemoSeeder.seed(store.database, name: "Neighbours", count: 5, seed: 9, now: store.now)
        let mine = try store.database.items(store.household.id, ItemQuery(limit: 3)).elements.map(\.item.id)
        let theirs = try store.database.items(neighbours.id, ItemQuery(limit: 2)).elements.map(\.item.id)
        let records = try store.database.reportItems(store.household.id, ids: mine + theirs)
        #expect(Set(records.map(\.listing.item.id)) == Set(mine))
        let url = store.scratch.appendingPathComponent("loss.pdf")
        let incident = Incident(date: try CalendarDate(iso: "2025-11-01"), type: .fire, description: "Kitchen fire")
        let result = try await offThePool {
            try ReportGenerator.sqlite(store.database)
                .lossList(store.household.id, options: LossListOptions(incident: incident, itemIDs: mine + theirs), to: url, now: store.now)
        }
        #expect(result.items == 3)
        await #expect(throws: DomainError.self) {
            try await offThePool {
                try ReportGenerator.sqlite(store.database).lossList(store.household.id, options: LossListOptions(incident: incident, itemIDs: theirs),
                                                                    to: store.scratch.appendingPathComponent("none.pdf"), now: store.now)
            }
        }
    }

    @Test func exportsCoverEveryItemWithExactTotals() async throws {
        let store = try DemoStore(items: 250)
        let generator = ReportGenerator.sqlite(store.database)
        let jsonURL = store.scratch.appendingPathComponent("export.json")
        // One item with a second photo.
        let first = try #require(try store.database.items(store.household.id, ItemQuery(limit: 1)).elements.first?.item.id)
        _ = try store.database.addPhoto(store.household.id, to: first, data: DemoImages.photo(variant: 9), contentType: "image/png", now: store.now)
        _ = try store.database.addPhoto(store.household.id, to: first, data: DemoImages.photo(variant: 10), contentType: "image/png", now: store.now)
        #expect(try await offThePool { try generator.exportJSON(store.household.id, to: jsonURL, now: store.now) } == 250)
        let decoded = try JSONSerialization.jsonObject(with: Data(contentsOf: jsonURL)) as? [String: Any]
        let items = try #require(decoded?["items"] as? [[String: Any]])
        #expect(items.count == 250)
        let total = items.compactMap { ($0["totalValue"] as? [String: Any])?["minorUnits"] as? Int64 }.reduce(0, +)
        // Receipts come with what was read from them (the demo gives about a third of the items one).
        let receipts = items.flatMap { $0["receipts"] as? [[String: Any]] ?? [] }
        #expect(receipts.count == items.map { $0["receiptCount"] as? Int ?? 0 }.reduce(0, +) && !receipts.isEmpty)
        #expect(receipts.allSatisfy { ($0["rawText"] as? String)?.contains("TOTAL") == true && $0["vendor"] is String })
        #expect(total == (try store.database.summary(store.household.id)).estimatedValue[0].minorUnits)
        // Every photo of an item, not only its main one (found: the export listed one where the API listed two).
        let photos = items.map { ($0["photos"] as? [Any])?.count ?? 0 }
        let counts = try items.map { try store.database.item(store.household.id, ItemID(string: $0["id"] as? String ?? "")!).photos.count }
        #expect(photos == counts && counts.contains { $0 > 1 }, "\(zip(photos, counts).filter { $0 != $1 }.prefix(5))")
        let csvURL = store.scratch.appendingPathComponent("export.csv")
        #expect(try await offThePool { try generator.exportCSV(store.household.id, to: csvURL) } == 250)
        let csv = try Data(contentsOf: csvURL)
        #expect(csv.starts(with: [0xEF, 0xBB, 0xBF]))
        #expect(String(decoding: csv, as: UTF8.self).components(separatedBy: "\r\n").first?.hasSuffix("created_at,updated_at,replacement_cost,actual_cash_value,valuation_currency,valuation_method,valued_on") == true)
    }
}
