import Foundation
import NestoryDomain

/// A price read from a search result, in the household's currency, with where it came from.
public struct MarketPrice: Hashable, Sendable {
    /// The result's address and title, the amount in the household's currency and when it was fetched.
    public let source: ValuationSource
    /// The amount as written, in its own currency (for a range, its midpoint).
    public let written: Money
    /// The text as written ("1.234,56 €", "$100–$150").
    public let writtenText: String
    public let state: ListingState

    public init(source: ValuationSource, written: Money, writtenText: String, state: ListingState) {
        self.source = source
        self.written = written
        self.writtenText = writtenText
        self.state = state
    }
}

public enum MarketPrices {
    /// The usable prices in search results: amounts that are prices of the item (not shipping, savings,
    /// instalments, lots, "was" prices, bounds, fees or promotions), not of the other state (a used search
    /// leaves out amounts said to be new, a new search those said to be used; amounts that say neither are
    /// kept), in `currency` or converted with `rates`, one per amount and address.
    /// `rates[X]`: what one unit of X is worth in `currency`; amounts in a currency without a rate are left out.
    public static func collect(_ results: [SearchResult], query: MarketQuery, currency: CurrencyCode, rates: [CurrencyCode: Decimal] = [:],
                               fetchedAt: Date) -> [MarketPrice] {
        var seen = Set<String>()
        var prices: [MarketPrice] = []
        let itemWords = [query.brand, query.productName, query.model ?? ""].joined(separator: " ")
        for result in results {
            let context = PriceContext.forResult(url: result.url, country: query.country)
            for found in PriceExtractor.amounts(in: result, context: context, itemWords: itemWords) where found.dropped == nil {
                if query.used ? found.state == .new : found.state == .used { continue }
                guard let amount = convert(found.amount, to: currency, rates: rates), amount.minorUnits > 0,
                      seen.insert("\(result.url)|\(amount.minorUnits)").inserted else { continue }
                prices.append(MarketPrice(source: ValuationSource(url: result.url, title: result.title, amount: amount, fetchedAt: fetchedAt),
                                          written: found.amount, writtenText: found.written, state: found.state))
            }
        }
        return prices
    }

    /// `money` in `currency`: itself, or converted at `rates[money.currency]` (exact decimal arithmetic, rounded
    /// half to even to the currency's minor unit); nil without a rate.
    public static func convert(_ money: Money, to currency: CurrencyCode, rates: [CurrencyCode: Decimal]) -> Money? {
        if money.currency == currency { return money }
        guard let rate = rates[money.currency], rate > 0 else { return nil }
        var value = money.decimalAmount * rate
        for _ in 0..<currency.minorUnitDigits { value *= 10 }
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .bankers)
        guard let minor = Int64(rounded.description) else { return nil }
        return try? Money(minorUnits: minor, currency: currency)
    }
}

/// A market value made from prices found: their median, with the quartiles as its range.
public struct MarketEstimate: Hashable, Sendable {
    /// The median, from the lower to the upper quartile.
    public let value: ValueRange
    /// Low below three prices (the caller shows the offline estimate beside it); high from five prices whose
    /// quartiles lie within half the median of each other; medium otherwise.
    public let confidence: Valuation.Confidence
    /// The prices the value is made from, lowest first.
    public let prices: [MarketPrice]
    /// Prices left out as outliers (beyond Tukey's fences), lowest first.
    public let outliers: [MarketPrice]
    /// How the value was reached, in words.
    public let explanation: String

    public var sources: [ValuationSource] { prices.map(\.source) }
    public var isLowConfidence: Bool { confidence == .low }
}

/// Median and quartiles of market prices, outliers removed.
///
/// Quartiles are computed by linear interpolation between closest ranks (Hyndman and Fan's type 7: the default
/// of R, NumPy and spreadsheets' QUARTILE.INC): for n sorted prices x₀…xₙ₋₁, the p-quantile is at h = (n−1)p,
/// xₗ + (h − l)(xₗ₊₁ − xₗ) with l = ⌊h⌋. The median is the 0.5-quantile. Computed exactly in quarter minor units,
/// rounded half to even to the minor unit only at the end.
///
/// With four prices or more, those outside Tukey's fences (Q1 − 1.5 × IQR, Q3 + 1.5 × IQR) are left out first, and
/// the median and quartiles are those of the prices kept.
public enum MarketEstimator {
    public static let minimumForConfidence = 3
    public static let minimumForFences = 4

    /// nil when there are no prices in `currency`.
    public static func estimate(_ prices: [MarketPrice], currency: CurrencyCode) -> MarketEstimate? {
        let sorted = prices.filter { $0.source.amount.currency == currency }.sorted { $0.source.amount.minorUnits < $1.source.amount.minorUnits }
        guard !sorted.isEmpty else { return nil }
        var kept = sorted
        var outliers: [MarketPrice] = []
        if sorted.count >= minimumForFences {
            let (low, high) = fences(sorted.map(\.source.amount.minorUnits))
            kept = sorted.filter { (low...high).contains(Int128($0.source.amount.minorUnits) * 8) }
            outliers = sorted.filter { !(low...high).contains(Int128($0.source.amount.minorUnits) * 8) }
        }
        let minor = kept.map(\.source.amount.minorUnits)
        let money = { (quarters: Int128) in
            (try? Money(uncheckedMinorUnits: Int64(quarters), currency: currency).scaled(by: 1, over: 4)) ?? Money.zero(currency)
        }
        let q1 = money(quantileQuarters(minor, quarter: 1))
        let median = money(quantileQuarters(minor, quarter: 2))
        let q3 = money(quantileQuarters(minor, quarter: 3))
        let range = (try? ValueRange(value: median, low: q1, high: q3)) ?? ValueRange(exactly: median)
        let confidence: Valuation.Confidence
        if kept.count < minimumForConfidence {
            confidence = .low
        } else if kept.count >= 5, (q3.minorUnits - q1.minorUnits) * 2 <= median.minorUnits {
            confidence = .high
        } else {
            confidence = .medium
        }
        var explanation = kept.count == 1
            ? "One price found: \(median.formatted)"
            : "Median of \(kept.count) prices found: \(median.formatted), from the lower quartile \(q1.formatted) to the upper \(q3.formatted)"
        if !outliers.isEmpty {
            explanation += "; \(outliers.count) left out as \(outliers.count == 1 ? "an outlier" : "outliers") (beyond 1.5 × the interquartile range: "
                + outliers.map(\.source.amount.formatted).joined(separator: ", ") + ")"
        }
        if confidence == .low { explanation += ". Fewer than \(minimumForConfidence) prices: low confidence" }
        return MarketEstimate(value: range, confidence: confidence, prices: kept, outliers: outliers, explanation: explanation)
    }

    /// Search results to a market value in one call: the usable prices (`MarketPrices.collect`), then their
    /// estimate; nil when no result holds a usable price.
    public static func estimate(_ results: [SearchResult], query: MarketQuery, currency: CurrencyCode, rates: [CurrencyCode: Decimal] = [:],
                                fetchedAt: Date) -> MarketEstimate? {
        estimate(MarketPrices.collect(results, query: query, currency: currency, rates: rates, fetchedAt: fetchedAt), currency: currency)
    }

    /// The `quarter`/4 quantile (type 7) of sorted values, in quarter units (× 4), exactly.
    public static func quantileQuarters(_ sorted: [Int64], quarter: Int) -> Int128 {
        precondition(!sorted.isEmpty && (0...4).contains(quarter))
        let h4 = (sorted.count - 1) * quarter  // 4h
        let index = h4 / 4
        let fraction = Int128(h4 % 4)
        let base = Int128(sorted[index])
        guard fraction > 0 else { return base * 4 }
        return base * 4 + fraction * (Int128(sorted[index + 1]) - base)
    }

    /// Tukey's fences (Q1 − 1.5 IQR, Q3 + 1.5 IQR) in eighth units (× 8), exactly.
    public static func fences(_ sorted: [Int64]) -> (low: Int128, high: Int128) {
        let q1 = quantileQuarters(sorted, quarter: 1)
        let q3 = quantileQuarters(sorted, quarter: 3)
        let iqr = q3 - q1
        return (2 * q1 - 3 * iqr, 2 * q3 + 3 * iqr)
    }
}

/// The household's exchange rates for market prices in other currencies: how much one unit of each currency is
/// worth in the household's currency, as the owner set them (no rate is fetched). Prices in a currency without a
/// rate are left out, never guessed.
public struct ExchangeRates: Hashable, Sendable {
    public let base: CurrencyCode
    public let perUnit: [CurrencyCode: Decimal]

    public init(base: CurrencyCode, perUnit: [CurrencyCode: Decimal]) {
        self.base = base
        self.perUnit = perUnit.filter { $0.key != base && $0.value > 0 }
    }

    /// Reads lines like `EUR 1.08` (one euro is worth 1.08 of the household's currency); blank lines are skipped.
    public static func parse(_ text: String, base: CurrencyCode) throws(DomainError) -> ExchangeRates {
        var rates: [CurrencyCode: Decimal] = [:]
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard lines.count <= 60 else { throw .invalid(field: "exchangeRates", message: "Keep to 60 currencies.") }
        for line in lines {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "=" || $0 == "\t" }).map(String.init)
            guard parts.count == 2, let code = try? CurrencyCode.iso(parts[0].uppercased()),
                  let rate = Decimal(string: parts[1].replacingOccurrences(of: ",", with: "."), locale: Locale(identifier: "en_US_POSIX")),
                  rate > 0, rate < 1_000_000 else {
                throw .invalid(field: "exchangeRates", message: "Write one currency a line as CODE RATE, e.g. “EUR 1.08”: what one unit is worth in \(base.code). “\(line.prefix(40))” is not that.")
            }
            rates[code] = rate
        }
        return ExchangeRates(base: base, perUnit: rates)
    }

    /// The same rates as `CODE RATE` lines.
    public var text: String {
        perUnit.sorted { $0.key.code < $1.key.code }.map { "\($0.key.code) \($0.value)" }.joined(separator: "\n")
    }

    /// The rates into `target` (an item's currency): as set when it is the household's currency, else through it,
    /// when the target's own rate is known.
    public func rates(into target: CurrencyCode) -> [CurrencyCode: Decimal] {
        if target == base { return perUnit }
        guard let targetRate = perUnit[target] else { return [:] }
        var out: [CurrencyCode: Decimal] = [base: 1 / targetRate]
        for (code, rate) in perUnit where code != target { out[code] = rate / targetRate }
        return out
    }
}
