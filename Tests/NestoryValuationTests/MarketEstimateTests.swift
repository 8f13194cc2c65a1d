import Foundation
import NestoryDomain
import Testing
@testable import NestoryValuation

@Suite("The market estimate: median, quartiles, Tukey's fences")
struct MarketEstimateTests {
    static let fetched = Date(timeIntervalSince1970: 1_764_000_000)

    func prices(_ amounts: [String], currency: CurrencyCode = .usd) -> [MarketPrice] {
        amounts.enumerated().map { index, text in
            let money = try! Money.parse(text, currency: currency)
            return MarketPrice(source: ValuationSource(url: "https://example.com/\(index)", title: "Listing \(index)", amount: money, fetchedAt: Self.fetched),
                               written: money, writtenText: text, state: .unknown)
        }
    }

    @Test("Quartiles by linear interpolation between closest ranks (type 7), exact in quarter units")
    func quartiles() {
        // 1, 2, 3, 4: Q1 at h = 0.75 → 1.75, median 2.5, Q3 at h = 2.25 → 3.25 (as NumPy's default gives).
        #expect(MarketEstimator.quantileQuarters([1, 2, 3, 4], quarter: 1) == 7)
        #expect(MarketEstimator.quantileQuarters([1, 2, 3, 4], quarter: 2) == 10)
        #expect(MarketEstimator.quantileQuarters([1, 2, 3, 4], quarter: 3) == 13)
        // Odd count: the median is the middle one; 5 values: Q1 = x1, Q3 = x3.
        #expect(MarketEstimator.quantileQuarters([10, 20, 30, 40, 50], quarter: 1) == 80)
        #expect(MarketEstimator.quantileQuarters([10, 20, 30, 40, 50], quarter: 2) == 120)
        #expect(MarketEstimator.quantileQuarters([7], quarter: 3) == 28)
    }

    @Test("Outliers beyond 1.5 × IQR are left out, then median and quartiles of the rest")
    func tukey() throws {
        let estimate = try #require(MarketEstimator.estimate(prices(["100", "110", "120", "130", "140", "900"]), currency: .usd))
        // Before: Q1 = 112.50, Q3 = 137.50, IQR 25, fences 75 and 175: 900 is out.
        #expect(estimate.outliers.map(\.source.amount.plainAmount) == ["900.00"])
        #expect(estimate.value.value.plainAmount == "120.00")
        #expect(estimate.value.low.plainAmount == "110.00" && estimate.value.high.plainAmount == "130.00")
        #expect(estimate.confidence == .high)
        #expect(estimate.sources.count == 5 && estimate.sources.allSatisfy { $0.fetchedAt == Self.fetched })
        #expect(estimate.explanation.contains("1 left out as an outlier"))
    }

    @Test("A price exactly on a fence stays")
    func onTheFence() throws {
        // 20, 20, 30, 40, 70: Q1 = 20, Q3 = 40, IQR 20, upper fence 40 + 30 = 70: on it, kept; a cent more, out.
        let estimate = try #require(MarketEstimator.estimate(prices(["20", "20", "30", "40", "70"]), currency: .usd))
        #expect(estimate.outliers.isEmpty && estimate.prices.count == 5)
        let beyond = try #require(MarketEstimator.estimate(prices(["20", "20", "30", "40", "70.01"]), currency: .usd))
        #expect(beyond.outliers.map(\.source.amount.plainAmount) == ["70.01"])
        let low = try #require(MarketEstimator.estimate(prices(["100", "100", "100", "100", "40"]), currency: .usd))
        // IQR 0: every price but 100 is an outlier.
        #expect(low.outliers.map(\.source.amount.plainAmount) == ["40.00"] && low.value.value.plainAmount == "100.00")
    }

    @Test("Fewer than 3 prices: low confidence; three: medium; none: no estimate")
    func confidence() throws {
        #expect(MarketEstimator.estimate([], currency: .usd) == nil)
        let two = try #require(MarketEstimator.estimate(prices(["100", "151"]), currency: .usd))
        #expect(two.isLowConfidence && two.value.value.plainAmount == "125.50")
        #expect(two.value.low.plainAmount == "112.75" && two.value.high.plainAmount == "138.25")
        let three = try #require(MarketEstimator.estimate(prices(["100", "150", "400"]), currency: .usd))
        #expect(three.confidence == .medium && three.outliers.isEmpty)
        // Wide spread with many prices: medium, not high.
        let wide = try #require(MarketEstimator.estimate(prices(["100", "200", "300", "400", "500"]), currency: .usd))
        #expect(wide.confidence == .medium)
    }

    @Test("Rounding of a median between two cents is half to even")
    func rounding() throws {
        let estimate = try #require(MarketEstimator.estimate(prices(["0.01", "0.02"]), currency: .usd))
        #expect(estimate.value.value.minorUnits == 2)  // 1.5 cents → 2
        let yen = try #require(MarketEstimator.estimate(prices(["101", "102"], currency: .jpy), currency: .jpy))
        #expect(yen.value.value.minorUnits == 102)  // 101.5 → 102
    }

    @Test("From search results: the query's state, other currencies only with a rate, one per amount and address")
    func collect() throws {
        let results = [
            SearchResult(url: "https://a.example.com/1", title: "Sony WH-1000XM4 used", content: "Sold for $180.00. Shipping $9.99"),
            SearchResult(url: "https://b.example.com/2", title: "Sony WH-1000XM4 brand new", content: "$348.00"),
            SearchResult(url: "https://c.example.com/3", title: "Sony WH-1000XM4", content: "Pre-owned $170 or best offer; $170"),
            SearchResult(url: "https://d.example.de/4", title: "Sony WH-1000XM4 gebraucht", content: "150,00 €"),
            SearchResult(url: "https://e.example.co.uk/5", title: "Sony WH-1000XM4 used", content: "£140"),
        ]
        let query = MarketQuery(brand: "Sony", productName: "WH-1000XM4", used: true)
        let rates: [CurrencyCode: Decimal] = [.eur: Decimal(string: "1.0825")!]
        let found = MarketPrices.collect(results, query: query, currency: .usd, rates: rates, fetchedAt: Self.fetched)
        #expect(found.map(\.source.amount.plainAmount) == ["180.00", "170.00", "162.38"])  // 150 × 1.0825 = 162.375 → 162.38
        #expect(found.last?.written.plainAmount == "150.00" && found.last?.written.currency == .eur && found.last?.writtenText == "150,00 €")
        let new = MarketPrices.collect(results, query: MarketQuery(brand: "Sony", productName: "WH-1000XM4", used: false), currency: .usd,
                                       fetchedAt: Self.fetched)
        #expect(new.map(\.source.amount.plainAmount) == ["348.00"])
    }

    @Test("Conversion is exact decimal arithmetic, half to even, into the target's minor units")
    func convert() throws {
        let eur = try Money.parse("10.00", currency: .eur)
        #expect(MarketPrices.convert(eur, to: .jpy, rates: [.eur: 162.5])?.minorUnits == 1625)
        #expect(MarketPrices.convert(eur, to: .usd, rates: [:]) == nil)
        let cents = try Money.parse("0.05", currency: .eur)
        #expect(MarketPrices.convert(cents, to: .usd, rates: [.eur: Decimal(string: "0.5")!])?.minorUnits == 2)  // 2.5 → 2
    }

    @Test("Estimate against expected figures from the corpus shapes")
    func endToEnd() throws {
        let results = [
            SearchResult(url: "https://a.example.com", title: "Dyson V11 used", content: "Sold for $310. Sold for $325."),
            SearchResult(url: "https://b.example.com", title: "Dyson V11 pre-owned", content: "$299 + $15 shipping"),
            SearchResult(url: "https://c.example.com", title: "Dyson V11 used", content: "Typically $280–$320"),
            SearchResult(url: "https://d.example.com", title: "Dyson V11 used, for parts", content: "$40"),
            SearchResult(url: "https://e.example.com", title: "Dyson V11 used", content: "Was $599, now $1,999 (typo listing)"),
        ]
        let prices = MarketPrices.collect(results, query: MarketQuery(brand: "Dyson", productName: "V11", used: true), currency: .usd,
                                          fetchedAt: Self.fetched)
        #expect(prices.map(\.source.amount.plainAmount) == ["310.00", "325.00", "299.00", "300.00", "1999.00"])
        let estimate = try #require(MarketEstimator.estimate(results, query: MarketQuery(brand: "Dyson", productName: "V11", used: true),
                                                             currency: .usd, fetchedAt: Self.fetched))
        #expect(estimate == MarketEstimator.estimate(prices, currency: .usd))
        #expect(estimate.outliers.map(\.source.amount.plainAmount) == ["1999.00"])
        #expect(estimate.value.value.plainAmount == "305.00")
        #expect(estimate.value.low.plainAmount == "299.75" && estimate.value.high.plainAmount == "313.75")
    }
}
