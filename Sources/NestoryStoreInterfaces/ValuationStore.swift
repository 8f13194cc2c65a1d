import Foundation
import NestoryDomain

/// A household's valuation settings as stored: the providers (keys sealed by SecretBox, with their last four
/// characters for display) and its own depreciation table (JSON), if any.
public struct StoredValuationSettings: Hashable, Sendable {
    public var analysisBaseURL: String?
    public var analysisModel: String?
    public var analysisKey: String?
    public var analysisKeyHint: String?
    public var searchKey: String?
    public var searchKeyHint: String?
    public var searchCountry: String?
    /// `CODE RATE` lines: one unit of each currency in the household's currency.
    public var exchangeRates: String?
    public var depreciationTable: String?

    public init(analysisBaseURL: String? = nil, analysisModel: String? = nil, analysisKey: String? = nil, analysisKeyHint: String? = nil,
                searchKey: String? = nil, searchKeyHint: String? = nil, searchCountry: String? = nil, exchangeRates: String? = nil,
                depreciationTable: String? = nil) {
        self.exchangeRates = exchangeRates
        self.analysisBaseURL = analysisBaseURL
        self.analysisModel = analysisModel
        self.analysisKey = analysisKey
        self.analysisKeyHint = analysisKeyHint
        self.searchKey = searchKey
        self.searchKeyHint = searchKeyHint
        self.searchCountry = searchCountry
        self.depreciationTable = depreciationTable
    }
}

/// Items' valuations (each item's history, never replaced) and the household's valuation settings.
///
/// Every engine keeps the same rules (checked by the conformance suite): a valuation belongs to an item of its
/// household (another household's item is not found); an item's history is newest first, ties in the order they were
/// added; the household's history is by the day each value is for, newest first, with totals per currency in exact
/// minor units; money and times read back exactly.
public protocol ValuationStore: Sendable {
    /// Adds a valuation to the item's history (the item must be the household's).
    func addValuation(_ householdID: HouseholdID, _ valuation: Valuation) async throws
    /// An item's valuations, newest first.
    func valuations(_ householdID: HouseholdID, item itemID: ItemID, limit: Int) async throws -> [Valuation]
    /// The household's valuation history by day (the day each value is for), newest first, with the day's totals
    /// per currency.
    func valuationHistory(_ householdID: HouseholdID, maxDays: Int) async throws -> [ValuationDay]
    /// The valuations for one day of the history, with their items' names, newest first.
    func valuations(_ householdID: HouseholdID, on day: CalendarDate, limit: Int) async throws -> [(valuation: Valuation, itemName: String)]
    /// Items that have no valuation yet, by name.
    func itemsWithoutValuation(_ householdID: HouseholdID, limit: Int) async throws -> [ItemID]
    /// Each item's latest valuation (items without one, or of another household, are absent).
    func latestValuations(_ householdID: HouseholdID, items: [ItemID]) async throws -> [ItemID: Valuation]

    /// The household's settings (empty when it has none).
    func valuationSettings(_ householdID: HouseholdID) async throws -> StoredValuationSettings
    /// Replaces the household's settings.
    func saveValuationSettings(_ householdID: HouseholdID, _ settings: StoredValuationSettings, now: Date) async throws
}

extension ValuationStore {
    public func valuations(_ householdID: HouseholdID, item itemID: ItemID) async throws -> [Valuation] {
        try await valuations(householdID, item: itemID, limit: 100)
    }

    public func valuationHistory(_ householdID: HouseholdID) async throws -> [ValuationDay] {
        try await valuationHistory(householdID, maxDays: 365)
    }

    public func valuations(_ householdID: HouseholdID, on day: CalendarDate) async throws -> [(valuation: Valuation, itemName: String)] {
        try await valuations(householdID, on: day, limit: 500)
    }
}

/// How every engine keeps a valuation's sources: JSON with times in milliseconds and sorted keys.
extension JSONEncoder {
    public static var valuationSources: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    public static var valuationSources: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}

extension ValuationDay {
    /// Days of history from per-day, per-currency totals ordered by day (newest first) then currency: one entry per
    /// day, its totals in currency order. The one fold every engine's history uses.
    public static func days(_ totals: [(day: CalendarDate, currency: CurrencyCode, count: Int, replacementCost: Int64?, actualCashValue: Int64?)],
                            maxDays: Int) -> [ValuationDay] {
        var days: [ValuationDay] = []
        for total in totals {
            let rcv = total.replacementCost.map { Money(uncheckedMinorUnits: $0, currency: total.currency) }
            let acv = total.actualCashValue.map { Money(uncheckedMinorUnits: $0, currency: total.currency) }
            if let last = days.last, last.day == total.day {
                days[days.count - 1] = ValuationDay(day: total.day, count: last.count + total.count,
                                                    replacementCost: last.replacementCost + (rcv.map { [$0] } ?? []),
                                                    actualCashValue: last.actualCashValue + (acv.map { [$0] } ?? []))
            } else {
                guard days.count < maxDays else { break }
                days.append(ValuationDay(day: total.day, count: total.count, replacementCost: rcv.map { [$0] } ?? [],
                                         actualCashValue: acv.map { [$0] } ?? []))
            }
        }
        return days
    }
}
