import Foundation
import NestoryDomain
import NestoryReports
import NestoryStore
import Testing
@testable import NestoryReportsLive

/// Issue 17: the loss list and the full inventory show each item's latest replacement cost and actual cash value
/// with how it was made, and the market prices behind a market value; the exports carry them.
@Suite struct ValuationReportTests {
    /// Three items valued three ways: by hand, offline (with its formula) and from market prices (with sources).
    func valued(_ store: DemoStore) throws -> [ItemID] {
        let ids = try store.database.items(store.household.id, ItemQuery(sort: .name, limit: 3)).elements.map(\.item.id)
        let usd = store.household.currency
        func money(_ text: String) throws -> Money { try Money.parse(text, currency: usd) }
        let day = try CalendarDate(iso: "2026-11-20")
        try store.database.addValuation(store.household.id, try Valuation(
            itemID: ids[0], replacementCost: ValueRange(exactly: try money("1400")), actualCashValue: ValueRange(exactly: try money("700")),
            method: .manual, confidence: .high, valuedOn: day, explanation: "Appraisal by the jeweller", createdAt: store.now))
        try store.database.addValuation(store.household.id, try Valuation(
            itemID: ids[1], replacementCost: ValueRange(exactly: try money("1200")),
            actualCashValue: try ValueRange(value: try money("460.63"), low: try money("320.79"), high: try money("553.86")),
            method: .offline, confidence: .medium, valuedOn: day,
            explanation: "Actual cash value = replacement cost $1,200.00 × max(10% floor, 1 − age 5.5 years / life 10 years) × condition good 85%",
            createdAt: store.now))
        try store.database.addValuation(store.household.id, try Valuation(
            itemID: ids[2], replacementCost: try ValueRange(value: try money("899"), low: try money("849"), high: try money("949")),
            actualCashValue: try ValueRange(value: try money("520"), low: try money("480"), high: try money("560")),
            method: .market, confidence: .medium, valuedOn: day,
            sources: [ValuationSource(url: "https://market.example/listing/123", title: "Used, like new", amount: try money("520"), fetchedAt: store.now)],
            createdAt: store.now))
        return ids
    }

    @Test func theLossListShowsRCVAndACVWithTheirMethodsAndAnAppendixAnAdjusterCanFollow() async throws {
        let store = try DemoStore(items: 8)
        let ids = try valued(store)
        for paper in [PaperSize.a4, .letter] {
            let url = store.scratch.appendingPathComponent("loss-\(paper.rawValue).pdf")
            let incident = Incident(date: try CalendarDate(iso: "2026-11-21"), type: .theft, description: "Break-in")
            let unvalued = try store.database.items(store.household.id, ItemQuery(sort: .name, limit: 5)).elements.map(\.item.id).last!
            _ = try await offThePool {
                try ReportGenerator.sqlite(store.database)
                    .lossList(store.household.id, options: LossListOptions(incident: incident, itemIDs: ids + [unvalued], includePhotos: false), to: url,
                              now: store.now)
            }
            let text = try pdftotext(url).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(text.contains("RCV") && text.contains("ACV"))
            #expect(text.contains("$1,400.00 h") && text.contains("$700.00 h") && text.contains("$460.63 d") && text.contains("$520.00 m"), "\(paper)")
            #expect(text.contains("Valued items (3 of 4)") && text.contains("How values were reached"))
            #expect(text.contains("Appraisal by the jeweller") && text.contains("1 − age 5.5 years / life 10 years"))
            #expect(text.contains("https://market.example/listing/123") && text.contains("Used, like new"))
        }
    }

    @Test func theInventoryShowsTheValuesUnderThePriceAndTheMarketSourcesAtTheEnd() async throws {
        let store = try DemoStore(items: 8)
        _ = try valued(store)
        let url = store.scratch.appendingPathComponent("inventory.pdf")
        _ = try await offThePool {
            try ReportGenerator.sqlite(store.database).inventory(store.household.id, options: InventoryReportOptions(includePhotos: false), to: url,
                                                                 now: store.now)
        }
        let text = try pdftotext(url).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("RCV $1,400.00 h") && text.contains("ACV $460.63 d") && text.contains("ACV $520.00 m"))
        #expect(text.contains("Valued items (3 of 8)") && text.contains("https://market.example/listing/123"))
        // Only market values are detailed at the end of the inventory (the formula is on the item's page and in the JSON).
        #expect(!text.contains("Appraisal by the jeweller"))
    }

    @Test func theExportsCarryTheLatestValuation() async throws {
        let store = try DemoStore(items: 8)
        let ids = try valued(store)
        let (csv, json) = try await offThePool {
            let source = ReportGenerator.sqlite(store.database).source(store.household.id)
            var csv = Data()
            try InventoryExport.writeCSV(from: source) { csv.append($0) }
            var json = Data()
            try InventoryExport.writeJSON(from: source, household: store.household, exportedAt: store.now) { json.append($0) }
            return (csv, json)
        }
        let lines = String(decoding: csv, as: UTF8.self).split(separator: "\r\n")
        #expect(lines[0].hasSuffix("replacement_cost,actual_cash_value,valuation_currency,valuation_method,valued_on"))
        #expect(lines.contains { $0.contains(ids[0].description) && $0.hasSuffix("1400.00,700.00,USD,manual,2026-11-20") })
        #expect(lines.filter { $0.hasSuffix(",,,,") }.count == 5)
        let items = try #require((try JSONSerialization.jsonObject(with: json) as? [String: Any])?["items"] as? [[String: Any]])
        let market = try #require(items.first { $0["id"] as? String == ids[2].description }?["valuation"] as? [String: Any])
        #expect(market["method"] as? String == "market" && (market["sources"] as? [[String: Any]])?.first?["url"] as? String == "https://market.example/listing/123")
        #expect(items.filter { $0["valuation"] is NSNull }.count == 5)
    }
}
