import Foundation

/// An amount with the range around it (a low and a high bound).
public struct ValueRange: Hashable, Codable, Sendable {
    public let value: Money
    public let low: Money
    public let high: Money

    public init(value: Money, low: Money, high: Money) throws(DomainError) {
        guard value.currency == low.currency, value.currency == high.currency else {
            throw .invalid(field: "currency", message: "A value and its range must be in one currency.")
        }
        guard low.minorUnits <= value.minorUnits, value.minorUnits <= high.minorUnits else {
            throw .invalid(field: "range", message: "The low bound must not be above the value, nor the high bound below it.")
        }
        self.value = value
        self.low = low
        self.high = high
    }

    /// "$460.63 ($320.79–$553.86)", or the value alone when it is known exactly.
    public var formatted: String {
        low == high ? value.formatted : "\(value.formatted) (\(low.formatted)–\(high.formatted))"
    }

    /// A value known exactly (entered by hand): its range is itself.
    public init(exactly value: Money) {
        self.value = value
        low = value
        high = value
    }
}

/// Where a value came from.
public enum ValuationMethod: String, Hashable, Codable, Sendable, CaseIterable {
    /// Prices found by a market search.
    case market
    /// Depreciation from the replacement cost by category, age and condition (no network, no key).
    case offline
    /// Entered by a person.
    case manual

    public var label: String {
        switch self {
        case .market: return "Market search"
        case .offline: return "Offline estimate (depreciation)"
        case .manual: return "Entered by hand"
        }
    }
}

/// A price a market value was made from, for an adjuster to follow.
public struct ValuationSource: Hashable, Codable, Sendable {
    public let url: String
    public let title: String
    public let amount: Money
    public let fetchedAt: Date

    public init(url: String, title: String, amount: Money, fetchedAt: Date) {
        self.url = url
        self.title = title
        self.amount = amount
        self.fetchedAt = fetchedAt
    }
}

/// What an item was worth on a date: kept apart from its purchase price (never overwritten), and never
/// replaced: each valuation is added to the item's history.
public struct Valuation: Identifiable, Hashable, Sendable {
    public enum Confidence: String, Hashable, Codable, Sendable { case low, medium, high }

    public let id: UUID
    public let itemID: ItemID
    /// What a like item costs new (for the whole quantity).
    public let replacementCost: ValueRange?
    /// What it was worth at `valuedOn`, after depreciation (for the whole quantity).
    public let actualCashValue: ValueRange?
    public let method: ValuationMethod
    public let confidence: Confidence
    /// The date the value is for.
    public let valuedOn: CalendarDate
    public let sources: [ValuationSource]
    /// How the figure was reached, in words (the offline formula with its inputs).
    public let explanation: String?
    public let createdAt: Date

    public init(id: UUID = UUID(), itemID: ItemID, replacementCost: ValueRange?, actualCashValue: ValueRange?, method: ValuationMethod,
                confidence: Confidence, valuedOn: CalendarDate, sources: [ValuationSource] = [], explanation: String? = nil,
                createdAt: Date) throws(DomainError) {
        guard replacementCost != nil || actualCashValue != nil else {
            throw .invalid(field: "value", message: "Enter a replacement cost or an actual cash value.")
        }
        if let replacementCost, let actualCashValue, replacementCost.value.currency != actualCashValue.value.currency {
            throw .invalid(field: "currency", message: "The replacement cost and the actual cash value must be in one currency.")
        }
        self.id = id
        self.itemID = itemID
        self.replacementCost = replacementCost
        self.actualCashValue = actualCashValue
        self.method = method
        self.confidence = confidence
        self.valuedOn = valuedOn
        self.sources = sources
        self.explanation = explanation
        self.createdAt = createdAt
    }

    public var currency: CurrencyCode { (actualCashValue ?? replacementCost)!.value.currency }
}

/// One day of a household's valuation history: the valuations made that day and their totals per currency.
public struct ValuationDay: Hashable, Sendable {
    public let day: CalendarDate
    public let count: Int
    public let replacementCost: [Money]
    public let actualCashValue: [Money]

    public init(day: CalendarDate, count: Int, replacementCost: [Money], actualCashValue: [Money]) {
        self.day = day
        self.count = count
        self.replacementCost = replacementCost
        self.actualCashValue = actualCashValue
    }
}
