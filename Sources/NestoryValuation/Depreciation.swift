import Foundation
import NestoryDomain

/// How long things of a category last, for the offline estimate: a useful life in years, or none for things
/// that do not lose value with age (jewellery, fine art, antiques). Each row names where its figure comes from.
public struct DepreciationRule: Hashable, Sendable, Codable {
    /// The category's name as the household sees it (matched without case or accents).
    public let category: String
    /// Years until only the floor is left; nil: does not depreciate with age.
    public let usefulLifeYears: Int?
    /// Where the figure comes from (a public claims table, or Nestory's own estimate, said as such).
    public let source: String

    public init(category: String, usefulLifeYears: Int?, source: String) {
        self.category = category
        self.usefulLifeYears = usefulLifeYears
        self.source = source
    }
}

/// The depreciation table: a rule per category, the rule for anything else, and the floor an item still in
/// use keeps. The owner may adjust it; `standard` is what ships.
public struct DepreciationTable: Hashable, Sendable, Codable {
    public var rules: [DepreciationRule]
    public var fallback: DepreciationRule
    /// The share of the replacement cost an item still in use keeps however old, in basis points (1000 = 10%).
    public var floorBasisPoints: Int
    /// What each condition keeps of the value, in basis points (Nestory's factors: no public table exists).
    public var conditionBasisPoints: [ItemCondition: Int]

    public init(rules: [DepreciationRule], fallback: DepreciationRule, floorBasisPoints: Int, conditionBasisPoints: [ItemCondition: Int]) {
        self.rules = rules
        self.fallback = fallback
        self.floorBasisPoints = floorBasisPoints
        self.conditionBasisPoints = conditionBasisPoints
    }

    /// The rule for a category name (the fallback when there is none or it is not in the table).
    public func rule(for category: String?) -> DepreciationRule {
        guard let key = category.map(Self.key), !key.isEmpty else { return fallback }
        return rules.first { Self.key($0.category) == key } ?? fallback
    }

    static func key(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).trimmingCharacters(in: .whitespaces)
    }

    static let njc = "Canadian NJC Relocation Directive, depreciation guide (njc-cnm.gc.ca)"
    static let aldg = "U.S. military Allowance List–Depreciation Guide (televisions and home theatre: 10% a year)"
    static let nestory = "Nestory's estimate (no public table covers it; adjust to your insurer's)"

    /// The table Nestory ships, for its default categories.
    public static let standard = DepreciationTable(
        rules: [
            DepreciationRule(category: "Electronics", usefulLifeYears: 10, source: "\(aldg); \(njc): appliances, computers and sound equipment, 10 years"),
            DepreciationRule(category: "Appliances", usefulLifeYears: 10, source: "\(njc): appliances unless specified, 10 years"),
            DepreciationRule(category: "Furniture", usefulLifeYears: 15, source: "\(nestory); claims tables give 10 to 20 years by material"),
            DepreciationRule(category: "Jewelry & Watches", usefulLifeYears: nil, source: "Common claims practice: jewellery is valued, not depreciated"),
            DepreciationRule(category: "Clothing & Accessories", usefulLifeYears: 5, source: "\(njc): suits, coats, dresses, 5 years"),
            DepreciationRule(category: "Art & Decor", usefulLifeYears: nil, source: "Common claims practice: fine art is valued, not depreciated"),
            DepreciationRule(category: "Musical Instruments", usefulLifeYears: 20, source: nestory),
            DepreciationRule(category: "Tools & Equipment", usefulLifeYears: 10, source: nestory),
            DepreciationRule(category: "Sports & Outdoors", usefulLifeYears: 8, source: nestory),
            DepreciationRule(category: "Kitchenware", usefulLifeYears: 10, source: "\(njc): dishes, crockery, pottery, 10 years"),
            DepreciationRule(category: "Books & Media", usefulLifeYears: 25, source: "\(njc): professional or reference books, 25 years"),
            DepreciationRule(category: "Collectibles", usefulLifeYears: nil, source: "Common claims practice: collectibles and antiques are valued, not depreciated"),
            DepreciationRule(category: "Toys & Games", usefulLifeYears: 5, source: nestory),
        ],
        fallback: DepreciationRule(category: "Other", usefulLifeYears: 10, source: "\(njc): items unless specified, 10 years"),
        floorBasisPoints: 1000,
        conditionBasisPoints: [.new: 10_000, .likeNew: 9_500, .good: 8_500, .fair: 7_000, .poor: 5_000])
}

/// An offline estimate of what an item was worth, with everything needed to explain it.
public struct OfflineEstimate: Hashable, Sendable {
    public enum Confidence: String, Hashable, Sendable, Codable { case low, medium }

    /// Replacement cost new (all of the quantity).
    public let replacementCost: Money
    /// Actual cash value at `valuationDate`, with a low and high bound.
    public let actualCashValue: Money
    public let low: Money
    public let high: Money
    public let valuationDate: CalendarDate
    /// Whole days from purchase to the valuation date; nil when the purchase date is unknown.
    public let ageDays: Int?
    public let rule: DepreciationRule
    /// The share age leaves, in basis points (10000 when the category does not depreciate).
    public let ageBasisPoints: Int
    public let conditionBasisPoints: Int
    public let condition: ItemCondition
    public let confidence: Confidence
    /// The formula with its inputs, as the web app shows it beside the number.
    public let explanation: String
}

/// ACV = RCV × max(floor, 1 − age/life) × condition factor. All arithmetic in integer minor units.
public enum OfflineEstimator {
    public static func estimate(unitReplacementCost: Money, quantity: Int, purchaseDate: CalendarDate?, on valuationDate: CalendarDate,
                                category: String?, condition: ItemCondition,
                                table: DepreciationTable = .standard) throws(DomainError) -> OfflineEstimate {
        guard quantity >= 1 else { throw .invalid(field: "quantity", message: "Quantity must be at least 1.") }
        let rcv = try unitReplacementCost.multiplied(by: quantity)
        let rule = table.rule(for: category)
        let conditionBP = table.conditionBasisPoints[condition] ?? 10_000
        let floor = min(max(table.floorBasisPoints, 0), 10_000)
        // A purchase date after the valuation date (a typing mistake, or valuing as of an earlier day) is age 0.
        let ageDays = purchaseDate.map { max(0, valuationDate.daysSinceEpoch - $0.daysSinceEpoch) }
        func ageFactor(lifeScale: Double) -> Int {
            guard let life = rule.usefulLifeYears, life > 0 else { return 10_000 }
            guard let ageDays else { return floor }  // unknown age: the low end
            let lifeDays = Double(life) * 365.25 * lifeScale
            let left = 1 - Double(ageDays) / lifeDays
            return max(floor, Int((left * 10_000).rounded(.down)))
        }
        let value = { (ageBP: Int) throws(DomainError) -> Money in
            try rcv.scaled(by: Int64(ageBP) * Int64(conditionBP), over: 100_000_000)
        }
        let ageBP = ageFactor(lifeScale: 1)
        let acv: Money
        let low: Money
        let high: Money
        if ageDays == nil, rule.usefulLifeYears != nil {
            // Without a purchase date the age is unknown: the range runs from the floor to as good as new.
            acv = try value(Int((Double(floor) + 10_000) / 2))
            low = try value(floor)
            high = try value(10_000)
        } else {
            acv = try value(ageBP)
            low = try value(ageFactor(lifeScale: 0.8))  // a life 20% shorter
            high = try value(ageFactor(lifeScale: 1.2))
        }
        let percent = { (bp: Int) in bp % 100 == 0 ? "\(bp / 100)%" : String(format: "%.1f%%", Double(bp) / 100) }
        let explanation: String
        if let life = rule.usefulLifeYears {
            let age = ageDays.map { String(format: "%.1f years", Double($0) / 365.25) } ?? "unknown (no purchase date)"
            explanation = "Actual cash value = replacement cost \(rcv.formatted) × max(\(percent(floor)) floor, 1 − age \(age) / life \(life) years)"
                + " × condition \(condition.label.lowercased()) \(percent(conditionBP))" + (ageDays == nil ? " (age unknown: the middle of the floor and new)" : " = \(acv.formatted)")
        } else {
            explanation = "Actual cash value = replacement cost \(rcv.formatted) × condition \(condition.label.lowercased()) \(percent(conditionBP)) = \(acv.formatted)"
                + " (\(rule.category) does not depreciate with age)"
        }
        return OfflineEstimate(replacementCost: rcv, actualCashValue: acv, low: low, high: high, valuationDate: valuationDate, ageDays: ageDays,
                               rule: rule, ageBasisPoints: ageDays == nil && rule.usefulLifeYears != nil ? (floor + 10_000) / 2 : ageBP,
                               conditionBasisPoints: conditionBP, condition: condition,
                               confidence: ageDays != nil && category != nil ? .medium : .low, explanation: explanation)
    }
}
