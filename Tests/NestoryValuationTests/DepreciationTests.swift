import NestoryDomain
import Testing
@testable import NestoryValuation

@Suite("The offline estimate: ACV = RCV × max(floor, 1 − age/life) × condition")
struct DepreciationTests {
    func day(_ text: String) throws -> CalendarDate { try CalendarDate(iso: text) }
    func usd(_ text: String) throws -> Money { try Money.parse(text, currency: .usd) }
    func m(_ text: String) -> Money { try! Money.parse(text, currency: .usd) }

    @Test("an electronics item half way through its 10-year life, in good condition")
    func halfWay() throws {
        let estimate = try OfflineEstimator.estimate(unitReplacementCost: try usd("1000"), quantity: 1, purchaseDate: try day("2021-11-25"),
                                                     on: try day("2026-11-25"), category: "Electronics", condition: .good)
        // 5 years = 1826 days of 3652.5: 1 − 0.49993 → 5000 bp (rounded down); × 85% = 42.5%
        #expect(estimate.ageDays == 1826 && estimate.ageBasisPoints == 5000)
        #expect(estimate.actualCashValue == m("425"))
        #expect(estimate.replacementCost == m("1000"))
        #expect(estimate.low.minorUnits < estimate.actualCashValue.minorUnits && estimate.actualCashValue.minorUnits < estimate.high.minorUnits)
        #expect(estimate.confidence == .medium)
        #expect(estimate.explanation.contains("life 10 years") && estimate.explanation.contains("condition good 85%") && estimate.explanation.hasSuffix("= $425.00"))
    }

    @Test("past its life, an item keeps the 10% floor (times its condition)")
    func floor() throws {
        let estimate = try OfflineEstimator.estimate(unitReplacementCost: try usd("600"), quantity: 1, purchaseDate: try day("1990-01-01"),
                                                     on: try day("2026-11-25"), category: "appliances", condition: .new)
        #expect(estimate.ageBasisPoints == 1000 && estimate.actualCashValue == m("60"))
        #expect(estimate.low == estimate.actualCashValue && estimate.high == estimate.actualCashValue)
    }

    @Test("jewellery, fine art and collectibles do not depreciate with age; condition still counts")
    func noDepreciation() throws {
        for category in ["Jewelry & Watches", "art & décor", "COLLECTIBLES"] {
            let estimate = try OfflineEstimator.estimate(unitReplacementCost: try usd("2000"), quantity: 1, purchaseDate: try day("1960-05-01"),
                                                         on: try day("2026-11-25"), category: category, condition: .fair)
            #expect(estimate.ageBasisPoints == 10_000 && estimate.actualCashValue == m("1400"), "\(category)")
            #expect(estimate.explanation.contains("does not depreciate"))
        }
    }

    @Test("a purchase date after the valuation date is age 0; no date is a low-confidence range from the floor to new")
    func oddDates() throws {
        let future = try OfflineEstimator.estimate(unitReplacementCost: try usd("100"), quantity: 1, purchaseDate: try day("2027-01-01"),
                                                   on: try day("2026-11-25"), category: "Electronics", condition: .new)
        #expect(future.ageDays == 0 && future.actualCashValue == m("100"))
        let undated = try OfflineEstimator.estimate(unitReplacementCost: try usd("100"), quantity: 1, purchaseDate: nil,
                                                    on: try day("2026-11-25"), category: "Electronics", condition: .new)
        #expect(undated.ageDays == nil && undated.confidence == .low)
        #expect(undated.low == m("10") && undated.high == m("100") && undated.actualCashValue == m("55"))
        #expect(undated.explanation.contains("unknown (no purchase date)"))
    }

    @Test("quantity multiplies, in exact minor units; an unknown or missing category uses the fallback rule")
    func quantityAndFallback() throws {
        let estimate = try OfflineEstimator.estimate(unitReplacementCost: try usd("19.99"), quantity: 3, purchaseDate: try day("2026-11-25"),
                                                     on: try day("2026-11-25"), category: "Garden gnomes", condition: .poor)
        #expect(estimate.replacementCost == m("59.97"))
        #expect(estimate.actualCashValue == m("29.98"))  // 59.97 × 50% = 29.985, half-even
        #expect(estimate.rule == DepreciationTable.standard.fallback && estimate.confidence == .medium)
        #expect(throws: DomainError.self) {
            try OfflineEstimator.estimate(unitReplacementCost: try usd("1"), quantity: 0, purchaseDate: nil, on: try day("2026-11-25"),
                                          category: nil, condition: .good)
        }
        let none = try OfflineEstimator.estimate(unitReplacementCost: try usd("1"), quantity: 1, purchaseDate: try day("2026-01-01"),
                                                 on: try day("2026-11-25"), category: nil, condition: .good)
        #expect(none.rule == DepreciationTable.standard.fallback && none.confidence == .low)
    }

    @Test("every default category has a rule with a source, and the condition factors are ordered")
    func table() {
        let table = DepreciationTable.standard
        for category in Defaults.categories where category.name != "Other" {
            #expect(table.rule(for: category.name) != table.fallback, "\(category.name)")
        }
        #expect(table.rules.allSatisfy { !$0.source.isEmpty })
        let factors = ItemCondition.allCases.map { table.conditionBasisPoints[$0] ?? 0 }
        #expect(factors == factors.sorted(by: >) && factors.first == 10_000)
    }
}
