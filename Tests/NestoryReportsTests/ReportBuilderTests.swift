import Foundation
import NestoryDomain
import Testing
@testable import NestoryReports

typealias MemorySource = MemoryReportSource

func reportItem(_ name: String, price: String?, currency: CurrencyCode = .usd, quantity: Int = 1, room: String? = "Kitchen",
                category: String? = "Appliances", photo: Bool = true, serial: String? = nil, purchased: String? = nil) -> ReportItem {
    let household = HouseholdID()
    let draft = ItemDraft(name: name, serialNumber: serial, purchasePrice: price.map { try! Money.parse($0, currency: currency) },
                          purchaseDate: purchased.map { try! CalendarDate(iso: $0) }, currency: currency,
                          categoryID: category == nil ? nil : CategoryID(), roomID: room == nil ? nil : RoomID(), quantity: quantity)
    let item = Item(householdID: household, draft: draft, createdAt: Date(timeIntervalSince1970: 1_763_800_000))
    let photos = photo ? [ReportPhoto(url: URL(fileURLWithPath: "/nonexistent/\(name).jpg"), contentType: "image/jpeg", sha256: name)] : []
    return ReportItem(item: item, roomName: room, categoryName: category, photoCount: photos.count, receiptCount: 0, photos: photos)
}

/// Records what a builder hands over.
final class RecordingSink: InventoryReportSink, LossListSink {
    var events: [String] = []
    var cover: InventoryCover?
    var lossCover: LossListCover?
    var totals: InventoryTotals?

    func begin(_ cover: InventoryCover) throws { self.cover = cover; events.append("cover") }
    func beginGroup(_ group: ReportGroup, total: ReportTotal) throws { events.append("group \(group.name) \(total.itemCount)") }
    func row(_ row: ReportItem) throws { events.append("row \(row.item.name)") }
    func endGroup(_ total: ReportTotal) throws { events.append("subtotal \(total.name) \(ReportFormat.money(total.value, preferred: .usd))") }
    func end(_ totals: InventoryTotals) throws { self.totals = totals; events.append("end") }
    func begin(_ cover: LossListCover) throws { lossCover = cover; events.append("loss cover") }
    func row(_ row: ReportItem, number: Int) throws { events.append("\(number). \(row.item.name)") }
    func endTable(_ total: ReportTotal) throws { events.append("table total \(ReportFormat.money(total.value, preferred: .usd))") }
    func photos(_ row: ReportItem, number: Int) throws { events.append("photos \(number)") }
    func end() throws { events.append("end") }
}

let header = ReportHeader(householdName: "The Smiths", currency: .usd, generatedAt: Date(timeIntervalSince1970: 1_763_800_000),
                          generatedOn: try! CalendarDate(iso: "2025-11-22"))

@Suite struct ReportBuilderTests {
    let source = MemorySource(rooms: ["Kitchen", "Office"], categories: ["Appliances", "Electronics"], items: [
        reportItem("Toaster", price: "0.10", room: "Kitchen"),
        reportItem("Kettle", price: "0.20", quantity: 3, room: "Kitchen"),
        reportItem("Laptop", price: "1299.99", room: "Office", category: "Electronics"),
        reportItem("Yen camera", price: "5000", currency: .jpy, room: "Office", category: "Electronics"),
        reportItem("Mystery box", price: nil, room: nil, category: nil, photo: false),
    ])

    @Test func groupsRowsSubtotalsAndTotalsAreExactAndInOrder() throws {
        let sink = RecordingSink()
        try ReportBuilder(source: source, header: header).buildInventory(InventoryReportOptions(grouping: .room), into: sink)
        #expect(sink.events == [
            "cover", "group Kitchen 2", "row Kettle", "row Toaster", "subtotal Kitchen $0.70",
            "group Office 2", "row Laptop", "row Yen camera", "subtotal Office $1,299.99 + ¥5,000",
            "group No room 1", "row Mystery box", "subtotal No room —", "end",
        ])
        let cover = try #require(sink.cover)
        #expect(cover.total.itemCount == 5 && cover.total.unitCount == 7)
        #expect(cover.total.value[.usd].minorUnits == 130_069)  // 0.10 + 3 × 0.20 + 1299.99, to the cent
        #expect(cover.total.value[.jpy].minorUnits == 5000)
        #expect(cover.total.itemsWithoutValue == 1)
        #expect(cover.score == DocumentationScore(documented: 4, total: 5))
        #expect(cover.itemsByRoom.map(\.name) == ["Kitchen", "Office", "No room"])
        #expect(cover.valueByCategory.first?.name == "Electronics")
        let totals = try #require(sink.totals)
        #expect(totals.byCategory.map(\.name) == ["Appliances", "Electronics", "Uncategorized"])
        #expect(totals.byRoom.first { $0.name == "Kitchen" }?.value[.usd].minorUnits == 70)
    }

    @Test func leavingOutUndocumentedItemsChangesRowsAndTheCover() throws {
        let sink = RecordingSink()
        try ReportBuilder(source: source, header: header)
            .buildInventory(InventoryReportOptions(grouping: .category, includeUndocumented: false), into: sink)
        #expect(!sink.events.contains("row Mystery box"))
        #expect(!sink.events.contains { $0.hasPrefix("group Uncategorized") })  // empty groups are not shown
        #expect(sink.cover?.total.itemCount == 4)
        #expect(sink.cover?.score.percent == 100)
    }

    @Test func progressCountsUpToEveryRow() throws {
        let many = MemorySource(rooms: ["Kitchen"], categories: [], items: (0..<230).map { reportItem("Item \($0)", price: "1.00") })
        var reports: [(Int, Int)] = []
        try ReportBuilder(source: many, header: header).buildInventory(InventoryReportOptions(), into: RecordingSink()) { reports.append(($0, $1)) }
        #expect(reports.first! == (0, 230))
        #expect(reports.last! == (230, 230))
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.0 <= $1.0 })
    }

    @Test func lossListNumbersTheChosenItemsAndTotalsThem() throws {
        let id = { (name: String) in source.items.first { $0.item.name == name }!.item.id }
        let chosen = [id("Kettle"), id("Laptop"), id("Mystery box"), ItemID()]
        let incident = Incident(date: try CalendarDate(iso: "2025-10-01"), type: .theft, description: "Break-in")
        let sink = RecordingSink()
        try ReportBuilder(source: source, header: header).buildLossList(LossListOptions(incident: incident, itemIDs: chosen), into: sink)
        #expect(sink.events == ["loss cover", "1. Kettle", "2. Laptop", "3. Mystery box", "table total $1,300.59",
                                "photos 1", "photos 2", "end"])
        #expect(sink.lossCover?.total.itemCount == 3)
        #expect(throws: DomainError.self) {
            try ReportBuilder(source: source, header: header)
                .buildLossList(LossListOptions(incident: incident, itemIDs: [ItemID()]), into: RecordingSink())
        }
    }

    @Test func ageIsCountedInWholeMonthsAndYears() throws {
        let asOf = try CalendarDate(iso: "2025-11-22")
        #expect(ReportFormat.age(from: try CalendarDate(iso: "2025-11-01"), asOf: asOf) == "< 1 mo")
        #expect(ReportFormat.age(from: try CalendarDate(iso: "2025-04-22"), asOf: asOf) == "7 mo")
        #expect(ReportFormat.age(from: try CalendarDate(iso: "2024-11-23"), asOf: asOf) == "11 mo")
        #expect(ReportFormat.age(from: try CalendarDate(iso: "2024-11-22"), asOf: asOf) == "1 yr")
        #expect(ReportFormat.age(from: try CalendarDate(iso: "2024-02-10"), asOf: asOf) == "1 yr 9 mo")
        #expect(ReportFormat.age(from: try CalendarDate(iso: "2015-01-01"), asOf: asOf) == "10 yrs")
        #expect(ReportFormat.age(from: try CalendarDate(iso: "2026-01-01"), asOf: asOf) == nil)
        #expect(ReportFormat.age(from: nil, asOf: asOf) == nil)
    }

    @Test func anIncidentIsCheckedAndTrimmed() throws {
        let today = try CalendarDate(iso: "2025-11-22")
        let ok = try Incident(date: try CalendarDate(iso: "2025-11-22"), type: .water, description: "  Pipe burst\n\n ",
                              policyNumber: "  ", claimNumber: " C-1 ").validated(today: today)
        #expect(ok.description == "Pipe burst" && ok.policyNumber == nil && ok.claimNumber == "C-1")
        #expect(throws: DomainError.self) {
            try Incident(date: try CalendarDate(iso: "2025-11-23"), type: .fire, description: "").validated(today: today)
        }
    }
}

@Suite struct InventoryExportTests {
    let source = ReportBuilderTests().source

    @Test func csvHasAHeaderAndOneExactRowPerItem() throws {
        var data = Data()
        let count = try InventoryExport.writeCSV(from: source) { data.append($0) }
        #expect(count == 5)
        let rows = parseCSV(String(decoding: data.dropFirst(3), as: UTF8.self))
        #expect(rows.first == InventoryExport.csvHeader)
        let byName = Dictionary(uniqueKeysWithValues: rows.dropFirst().map { ($0[1], Dictionary(uniqueKeysWithValues: zip(InventoryExport.csvHeader, $0))) })
        #expect(byName["Kettle"]?["unit_price"] == "0.20" && byName["Kettle"]?["total_value"] == "0.60" && byName["Kettle"]?["quantity"] == "3")
        #expect(byName["Yen camera"]?["unit_price"] == "5000" && byName["Yen camera"]?["currency"] == "JPY")
        #expect(byName["Mystery box"]?["unit_price"] == "" && byName["Mystery box"]?["room"] == "")
        #expect(byName["Laptop"]?["created_at"] == "2025-11-22T08:26:40Z")
    }

    @Test func jsonIsCompleteAndReadsBack() throws {
        var data = Data()
        let household = Household(name: "The Smiths", currency: .usd, createdAt: Date())
        try InventoryExport.writeJSON(from: source, household: household, exportedAt: Date(timeIntervalSince1970: 1_763_800_000)) { data.append($0) }
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(root["format"] as? String == "nestory-inventory" && root["version"] as? Int == 1)
        let items = try #require(root["items"] as? [[String: Any]])
        #expect(items.count == 5)
        for item in items { #expect(item.keys.count == 25, "every key is present, null when absent (valuation too)") }
        let decoded = try JSONDecoder().decode([String: [InventoryExport.ItemJSON]].self,
                                               from: JSONSerialization.data(withJSONObject: ["items": items]))
        let kettle = try #require(decoded["items"]?.first { $0.name == "Kettle" })
        #expect(kettle.unitPrice == InventoryExport.MoneyJSON(try Money.parse("0.20", currency: .usd)))
        #expect(kettle.totalValue?.amount == "0.60" && kettle.totalValue?.minorUnits == 60)
        #expect(kettle.documentation.documented)
    }
}
