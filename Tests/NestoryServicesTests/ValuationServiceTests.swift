import Foundation
import NestoryDomain
import NestoryServices
import NestoryStore
import NestoryValuation
import Testing

@Suite("Valuations: the offline estimate, values entered by hand, the history")
struct ValuationServiceTests {
    final class Fixture: @unchecked Sendable {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-valuation-\(UUID())").path)
        let database: AppDatabase
        let service: ValuationService
        let household: Household

        init() throws {
            database = try AppDatabase.open(folder)
            let now = Date(timeIntervalSince1970: 1_795_608_000)  // 2026-11-25 12:00 UTC
            service = ValuationService.sqlite(database, now: { now })
            household = try database.createHousehold(name: "Smiths", currency: .usd, now: Date())
        }

        func item(_ name: String, price: String?, bought: String?, category: String?, quantity: Int = 1, condition: ItemCondition = .good) throws -> Item {
            var draft = ItemDraft(name: name, currency: .usd)
            draft.purchasePrice = try price.map { try Money.parse($0, currency: .usd) }
            draft.purchaseDate = try bought.map { try CalendarDate(iso: $0) }
            draft.categoryID = try category.flatMap { name in try database.categories(household.id).first { $0.name == name }?.id }
            draft.quantity = quantity
            draft.condition = condition
            return try database.createItem(household.id, draft, now: Date())
        }

        deinit {
            try? database.close()
            try? FileManager.default.removeItem(atPath: folder.path)
        }
    }

    @Test("the offline estimate starts from the purchase price, is kept in the history, and leaves the price alone")
    func offline() async throws {
        let f = try Fixture()
        let tv = try f.item("TV", price: "1000", bought: "2021-11-25", category: "Electronics", quantity: 2)
        let valuation = try await f.service.estimateOffline(f.household.id, item: tv.id)
        #expect(valuation.method == .offline && valuation.confidence == .medium)
        #expect(try valuation.replacementCost?.value == (try Money.parse("2000", currency: .usd)))
        #expect(try valuation.actualCashValue?.value == (try Money.parse("850", currency: .usd)))  // 2000 × 50% × 85%
        #expect(valuation.explanation?.contains("Source of the life") == true)
        let history = try await f.service.history(f.household.id, item: tv.id)
        #expect(history.count == 1 && history[0] == valuation)
        #expect(try f.database.item(f.household.id, tv.id).item.purchasePrice == tv.purchasePrice)
    }

    @Test("a value entered by hand becomes the replacement cost the next estimate starts from; a value without price is refused")
    func manualThenOffline() async throws {
        let f = try Fixture()
        let ring = try f.item("Ring", price: nil, bought: "2000-01-01", category: "Jewelry & Watches")
        await #expect(throws: DomainError.self) { try await f.service.estimateOffline(f.household.id, item: ring.id) }
        let appraisal = try await f.service.enter(f.household.id, item: ring.id, replacementCost: "3,200", actualCashValue: "", note: "Appraisal")
        #expect(try appraisal.method == .manual && appraisal.replacementCost?.value == (try Money.parse("3200", currency: .usd)))
        let estimate = try await f.service.estimateOffline(f.household.id, item: ring.id)
        #expect(try estimate.actualCashValue?.value == (try Money.parse("2720", currency: .usd)))  // no depreciation, good 85%
        #expect(try await f.service.history(f.household.id, item: ring.id).map(\.method) == [.offline, .manual])
    }

    @Test("values entered by hand: bad amounts and days are refused by field; nothing is saved")
    func manualErrors() async throws {
        let f = try Fixture()
        let lamp = try f.item("Lamp", price: "40", bought: nil, category: nil)
        for (rcv, acv, day, field) in [("abc", "", "", "replacementCost"), ("", "-5", "", "actualCashValue"), ("", "", "", "replacementCost"),
                                       ("10", "", "2027-01-01", "date"), ("10", "", "yesterday", "date")] {
            do {
                try await f.service.enter(f.household.id, item: lamp.id, replacementCost: rcv, actualCashValue: acv, on: day)
                Issue.record("accepted \(rcv) \(acv) \(day)")
            } catch let error as DomainError {
                #expect(FieldErrors.fields(of: error).contains { $0.field == field }, "\(rcv) \(acv) \(day): \(error)")
            }
        }
        #expect(try await f.service.history(f.household.id, item: lamp.id).isEmpty)
        let other = try f.database.createHousehold(name: "Others", currency: .usd, now: Date())
        await #expect(throws: DomainError.self) { try await f.service.enter(other.id, item: lamp.id, replacementCost: "1", actualCashValue: "") }
    }

    @Test("the household's history: one row per day with totals per currency")
    func dailyTotals() async throws {
        let f = try Fixture()
        let a = try f.item("A", price: "100", bought: "2026-11-25", category: "Electronics", condition: .new)
        let b = try f.item("B", price: "50", bought: "2026-11-25", category: "Electronics", condition: .new)
        try await f.service.estimateOffline(f.household.id, item: a.id)
        try await f.service.estimateOffline(f.household.id, item: b.id)
        try await f.service.enter(f.household.id, item: a.id, replacementCost: "120", actualCashValue: "90", on: "2026-11-20")
        let days = try await f.service.householdHistory(f.household.id)
        #expect(days.map(\.day.iso) == ["2026-11-25", "2026-11-20"])
        #expect(try days[0].count == 2 && days[0].actualCashValue == [try Money.parse("150", currency: .usd)])
        #expect(try days[1].replacementCost == [try Money.parse("120", currency: .usd)] && days[1].actualCashValue == [try Money.parse("90", currency: .usd)])
    }
}
