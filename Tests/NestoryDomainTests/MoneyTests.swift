import Foundation
import Testing
@testable import NestoryDomain

@Suite struct MoneyTests {
    let usd = CurrencyCode.usd

    @Test func parsesPlainAmounts() throws {
        #expect(try Money.parse("12.50", currency: usd).minorUnits == 1250)
        #expect(try Money.parse("12.5", currency: usd).minorUnits == 1250)
        #expect(try Money.parse("12", currency: usd).minorUnits == 1200)
        #expect(try Money.parse(".99", currency: usd).minorUnits == 99)
        #expect(try Money.parse("-12.50", currency: usd).minorUnits == -1250)
        #expect(try Money.parse(" 1,234,567.89 ", currency: usd).minorUnits == 123_456_789)
        #expect(try Money.parse("5000", currency: .jpy).minorUnits == 5000)
        #expect(try Money.parse("1.234", currency: try CurrencyCode("KWD")).minorUnits == 1234)
    }

    /// As people type amounts in the forms and the API: their decimal comma, grouping by spaces, dots or apostrophes,
    /// a symbol or code beside; then `parse`'s rules (decimals for the currency, the largest amount).
    @Test(arguments: [("12,50", 1250), ("1.234,56 €", 123_456), ("1 234,56", 123_456), ("1\u{202F}234,56", 123_456), ("1'250.50", 125_050),
                      ("1,234.56", 123_456), ("1,234", 123_400), ("1.234.567", 123_456_700), ("12.50 EUR", 1250), ("€12", 1200),
                      ("-12,50", -1250), (".99", 99), ("0", 0), ("+7", 700), ("eur 3", 300), ("3 €", 300), ("1,23,456.50", 12_345_650), ("€-12", -1200)])
    func readsAmountsAsTyped(_ text: String, _ minorUnits: Int64) throws {
        #expect(try Money.parse(typed: text, currency: .eur).minorUnits == minorUnits)
    }

    /// Another currency's mark is refused, never taken for this one ("12 USD" is not €12).
    @Test func anotherCurrencysMarkIsNamed() {
        #expect(throws: DomainError.invalid(field: "price", message: "Amounts here are in EUR, and this one is in USD.")) {
            try Money.parse(typed: "12.50 USD", currency: .eur)
        }
        #expect(throws: DomainError.invalid(field: "price", message: "Amounts here are in USD, and this one is in GBP.")) {
            try Money.parse(typed: "£1,200", currency: .usd)
        }
        // `$` is several currencies' sign: only that it is not an amount here.
        #expect(throws: DomainError.invalid(field: "price", message: "Enter an amount such as 1234.56.")) { try Money.parse(typed: "$12", currency: .eur) }
    }

    @Test(arguments: ["12,34.5", "1.2,50", "1,2.50", "1  234", "1.2.3", "12 apples", "1,234.5.6", "", "EUR", "1.234", "12 USD", "$12", "£5"])
    func typedAmountsThatAreNotOneAreRefused(_ text: String) {
        #expect(throws: DomainError.self) { try Money.parse(typed: text, currency: .eur) }
    }

    @Test(arguments: ["", "abc", "1.2.3", "12,34", "1,2345", "--1", "1e5", "٣", "12.345", "½", "0x10", ".", "1,234,56"])
    func rejectsMalformedAmounts(_ text: String) {
        #expect(throws: DomainError.self) { try Money.parse(text, currency: .usd) }
    }

    @Test func rejectsTooManyDecimalsForTheCurrency() {
        #expect(throws: DomainError.self) { try Money.parse("10.5", currency: .jpy) }
        #expect(throws: DomainError.self) { try Money.parse("10.505", currency: .eur) }
    }

    @Test func rejectsAbsurdAmounts() throws {
        #expect(throws: DomainError.self) { try Money.parse("99999999999999999999", currency: .usd) }
        #expect(throws: DomainError.self) { try Money.parse("10000000000000.01", currency: .usd) }
        #expect(throws: DomainError.self) { try Money(minorUnits: .max, currency: .usd) }
        #expect(try Money.parse("10000000000000", currency: .usd).minorUnits == Money.maxMagnitude)
    }

    @Test func formatsWithSymbolAndGrouping() throws {
        #expect(try Money.parse("1234.5", currency: usd).formatted == "$1,234.50")
        #expect(try Money.parse("-0.05", currency: usd).formatted == "-$0.05")
        #expect(try Money.parse("5000", currency: .jpy).formatted == "¥5,000")
        #expect(try Money.parse("999", currency: .eur).formatted == "€999.00")
        #expect(try Money.parse("1000000", currency: try CurrencyCode("sek")).formatted == "SEK 1,000,000.00")
        #expect(try Money.parse("-12.50", currency: usd).plainAmount == "-12.50")
        #expect(try Money.parse("1.234", currency: try CurrencyCode("BHD")).plainAmount == "1.234")
    }

    @Test func decimalAmountIsExact() throws {
        let money = try Money.parse("0.10", currency: usd)
        #expect(money.decimalAmount == Decimal(string: "0.1"))
        // The classic floating-point trap: 0.1 + 0.2 is exactly 0.3 here.
        let sum = try money.adding(Money.parse("0.20", currency: usd))
        #expect(sum == (try Money.parse("0.30", currency: usd)))
    }

    @Test func addingRefusesMixedCurrencies() throws {
        let dollars = try Money.parse("1", currency: .usd)
        let euros = try Money.parse("1", currency: .eur)
        #expect(throws: DomainError.currencyMismatch(.usd, .eur)) { try dollars.adding(euros) }
    }

    @Test func multiplicationDetectsOverflow() throws {
        let price = try Money.parse("10000000000", currency: .usd)
        #expect(try price.multiplied(by: 100).minorUnits == 100_000_000_000_000)
        #expect(throws: DomainError.self) { try price.multiplied(by: 100_000) }
    }

    @Test func scalingRoundsAsAsked() throws {
        let cents = { (n: Int64) in try Money(minorUnits: n, currency: .usd) }
        // 2.5 cents: half-even goes to 2, half-up to 3, toward zero to 2.
        #expect(try cents(5).scaled(by: 1, over: 2, rounding: .halfEven).minorUnits == 2)
        #expect(try cents(5).scaled(by: 1, over: 2, rounding: .halfUp).minorUnits == 3)
        #expect(try cents(5).scaled(by: 1, over: 2, rounding: .towardZero).minorUnits == 2)
        #expect(try cents(7).scaled(by: 1, over: 2, rounding: .halfEven).minorUnits == 4)
        #expect(try cents(-5).scaled(by: 1, over: 2, rounding: .halfUp).minorUnits == -3)
        #expect(try cents(-7).scaled(by: 1, over: 2, rounding: .halfEven).minorUnits == -4)
        // 15% off $19.99 = $16.9915 → $16.99.
        #expect(try cents(1999).scaled(by: 85, over: 100).minorUnits == 1699)
        // Large values do not overflow in the intermediate product.
        #expect(try cents(Money.maxMagnitude).scaled(by: 3, over: 7).minorUnits == 428_571_428_571_429)
    }

    @Test func splitLosesNothing() throws {
        let total = try Money.parse("100.00", currency: .usd)
        let parts = total.split(into: 3)
        #expect(parts.map(\.minorUnits) == [3334, 3333, 3333])
        #expect(parts.reduce(0) { $0 + $1.minorUnits } == 10_000)
        let negative = try Money(minorUnits: -10, currency: .usd).split(into: 4)
        #expect(negative.map(\.minorUnits).reduce(0, +) == -10)
    }

    @Test func totalsKeepCurrenciesApart() throws {
        var totals = MoneyTotals()
        try totals.add(Money.parse("10.00", currency: .usd))
        try totals.add(Money.parse("5.50", currency: .eur))
        try totals.add(Money.parse("0.01", currency: .usd))
        #expect(totals[.usd].minorUnits == 1001)
        #expect(totals.amounts(preferred: .eur).map(\.currency) == [.eur, .usd])
    }

    @Test func currencyCodesAreValidated() throws {
        #expect(try CurrencyCode("eur") == .eur)
        #expect(throws: DomainError.self) { try CurrencyCode("EURO") }
        #expect(throws: DomainError.self) { try CurrencyCode("€") }
        #expect(throws: DomainError.self) { try CurrencyCode("U1D") }
        #expect(CurrencyCode.jpy.minorUnitDigits == 0)
    }

    @Test func codableRoundTrip() throws {
        let money = try Money.parse("42.42", currency: .gbp)
        let data = try JSONEncoder().encode(money)
        #expect(String(decoding: data, as: UTF8.self).contains("\"GBP\""))
        #expect(try JSONDecoder().decode(Money.self, from: data) == money)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CurrencyCode.self, from: Data(#""dollars""#.utf8))
        }
    }
}
