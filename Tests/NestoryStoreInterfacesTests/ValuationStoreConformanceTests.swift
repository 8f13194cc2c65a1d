import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import Testing

/// Valuations and their settings behave the same on every engine.
@Suite struct ValuationStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_123)
    let today = try! CalendarDate(iso: "2026-11-26")
    let eur = try! CurrencyCode("EUR")

    func day(_ offset: Int) -> CalendarDate { try! today.adding(days: offset) }

    func money(_ minor: Int64, _ currency: CurrencyCode = .usd) -> Money { try! Money(minorUnits: minor, currency: currency) }

    func item(_ stores: Stores, _ household: Household, _ name: String, currency: CurrencyCode = .usd) async throws -> Item {
        try await stores.items.createItem(household.id, ItemDraft(name: name, currency: currency), now: now, today: today, plan: nil)
    }

    func valuation(_ item: Item, rcv: Int64?, acv: Int64?, currency: CurrencyCode = .usd, on day: CalendarDate, at seconds: TimeInterval,
                   method: ValuationMethod = .manual, sources: [ValuationSource] = [], explanation: String? = nil) throws -> Valuation {
        try Valuation(itemID: item.id, replacementCost: rcv.map { ValueRange(exactly: money($0, currency)) },
                      actualCashValue: acv.map { try! ValueRange(value: money($0, currency), low: money($0 * 9 / 10, currency), high: money($0 * 11 / 10, currency)) },
                      method: method, confidence: .medium, valuedOn: day, sources: sources, explanation: explanation,
                      createdAt: now.addingTimeInterval(seconds))
    }

    @Test(arguments: Engine.available)
    func anItemsHistoryReadsBackExactlyNewestFirstInItsHouseholdOnly(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: now)
            let away = try await stores.accounts.createHousehold(name: "Away", currency: .usd, now: now)
            let lamp = try await item(stores, home, "Lamp")
            let source = ValuationSource(url: "https://shop.example/lamp?a=1&b=\"2\"", title: "Lamp – 40 € “new”", amount: money(12_345),
                                         fetchedAt: Date(millis: 1_763_700_000_456))
            let first = try valuation(lamp, rcv: 12_345, acv: 9_000, on: day(-3), at: 0, method: .market, sources: [source],
                                      explanation: "From 3 shops.\nMedian.")
            let second = try valuation(lamp, rcv: nil, acv: 8_000, on: day(-1), at: 10)
            let tie = try valuation(lamp, rcv: 1, acv: nil, on: day(-1), at: 10, method: .offline)
            for v in [first, second, tie] { try await stores.valuations.addValuation(home.id, v) }

            // Newest first; of two made at the same moment, the one added last first.
            #expect(try await stores.valuations.valuations(home.id, item: lamp.id) == [tie, second, first])
            #expect(try await stores.valuations.valuations(home.id, item: lamp.id, limit: 1) == [tie])
            // Another household's item is not found, for reading or adding.
            await #expect(throws: DomainError.notFound("The item")) { try await stores.valuations.valuations(away.id, item: lamp.id) }
            await #expect(throws: DomainError.notFound("The item")) {
                try await stores.valuations.addValuation(away.id, try valuation(lamp, rcv: 5, acv: nil, on: day(0), at: 20))
            }
            #expect(try await stores.valuations.valuations(home.id, item: lamp.id).count == 3)
        }
    }

    @Test(arguments: Engine.available)
    func theHouseholdsHistoryIsByDayNewestFirstWithExactTotalsPerCurrency(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: now)
            let away = try await stores.accounts.createHousehold(name: "Away", currency: .usd, now: now)
            let lamp = try await item(stores, home, "Lamp")
            let sofa = try await item(stores, home, "Sofa")
            let bike = try await item(stores, home, "Bike", currency: eur)
            let theirs = try await item(stores, away, "Their lamp")
            // Totals of the largest amounts stay exact (a day's total may pass the largest single amount).
            let big: Int64 = Money.maxMagnitude - 1
            try await stores.valuations.addValuation(home.id, try valuation(lamp, rcv: big, acv: 1, on: day(-1), at: 0))
            try await stores.valuations.addValuation(home.id, try valuation(sofa, rcv: big, acv: nil, on: day(-1), at: 1))
            try await stores.valuations.addValuation(home.id, try valuation(bike, rcv: 700, acv: 500, currency: eur, on: day(-1), at: 2))
            try await stores.valuations.addValuation(home.id, try valuation(lamp, rcv: nil, acv: 300, on: day(-5), at: 3))
            try await stores.valuations.addValuation(away.id, try valuation(theirs, rcv: 99, acv: 99, on: day(-1), at: 4))

            let history = try await stores.valuations.valuationHistory(home.id)
            #expect(history == [
                ValuationDay(day: day(-1), count: 3, replacementCost: [money(700, eur), Money(uncheckedMinorUnits: big * 2, currency: .usd)], actualCashValue: [money(500, eur), money(1)]),
                ValuationDay(day: day(-5), count: 1, replacementCost: [], actualCashValue: [money(300)]),
            ])
            #expect(try await stores.valuations.valuationHistory(home.id, maxDays: 1).map(\.day) == [day(-1)])

            let onDay = try await stores.valuations.valuations(home.id, on: day(-1))
            #expect(onDay.map(\.itemName) == ["Bike", "Sofa", "Lamp"])
            #expect(onDay.map(\.valuation.itemID) == [bike.id, sofa.id, lamp.id])
            #expect(try await stores.valuations.valuations(home.id, on: day(-1), limit: 2).count == 2)
            #expect(try await stores.valuations.valuations(home.id, on: day(-2)).isEmpty)
        }
    }

    @Test(arguments: Engine.available)
    func latestValuationsAndItemsWithoutOneAreTheHouseholds(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: now)
            let away = try await stores.accounts.createHousehold(name: "Away", currency: .usd, now: now)
            let lamp = try await item(stores, home, "Lamp")
            let sofa = try await item(stores, home, "Sofa")
            let chair = try await item(stores, home, "Chair")
            let apple = try await item(stores, home, "apple crate")
            let theirs = try await item(stores, away, "Their lamp")
            let old = try valuation(lamp, rcv: 100, acv: nil, on: day(-1), at: 0)
            let newer = try valuation(lamp, rcv: 200, acv: nil, on: day(-9), at: 5)
            let sofas = try valuation(sofa, rcv: 300, acv: 250, on: day(0), at: 1)
            for v in [old, newer, sofas] { try await stores.valuations.addValuation(home.id, v) }
            try await stores.valuations.addValuation(away.id, try valuation(theirs, rcv: 1, acv: nil, on: day(0), at: 0))

            // The latest by when it was made (not by the day it is for).
            let latest = try await stores.valuations.latestValuations(home.id, items: [lamp.id, sofa.id, chair.id, theirs.id])
            #expect(latest == [lamp.id: newer, sofa.id: sofas])
            #expect(try await stores.valuations.latestValuations(home.id, items: []).isEmpty)
            // By name (byte order of the folded name), then the order they were added.
            #expect(try await stores.valuations.itemsWithoutValuation(home.id, limit: 10) == [apple.id, chair.id])
            #expect(try await stores.valuations.itemsWithoutValuation(home.id, limit: 1) == [apple.id])
            #expect(try await stores.valuations.itemsWithoutValuation(away.id, limit: 10).isEmpty)
        }
    }

    @Test(arguments: Engine.available)
    func settingsAreKeptPerHouseholdAndReplacedWhole(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: now)
            let away = try await stores.accounts.createHousehold(name: "Away", currency: .usd, now: now)
            #expect(try await stores.valuations.valuationSettings(home.id) == StoredValuationSettings())
            let full = StoredValuationSettings(analysisBaseURL: "https://api.example/v1", analysisModel: "m", analysisKey: "sealed:abc",
                                               analysisKeyHint: "1234", searchKey: "sealed:def", searchKeyHint: "5678", searchCountry: "de",
                                               exchangeRates: "EUR 1.08\nGBP 1.27", depreciationTable: #"{"rules":[]}"#)
            try await stores.valuations.saveValuationSettings(home.id, full, now: now)
            #expect(try await stores.valuations.valuationSettings(home.id) == full)
            #expect(try await stores.valuations.valuationSettings(away.id) == StoredValuationSettings())
            let fewer = StoredValuationSettings(depreciationTable: "{}")
            try await stores.valuations.saveValuationSettings(home.id, fewer, now: now)
            #expect(try await stores.valuations.valuationSettings(home.id) == fewer)
            await #expect(throws: DomainError.notFound("The household")) {
                try await stores.valuations.saveValuationSettings(HouseholdID(), full, now: now)
            }
        }
    }
}
