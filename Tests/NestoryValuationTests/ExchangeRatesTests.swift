import Foundation
import NestoryDomain
import NestoryValuation
import Testing

@Suite("Exchange rates set by the owner: read as CODE RATE lines, used directly or through the household's currency")
struct ExchangeRatesTests {
    @Test("lines are read; mistakes are refused with the line; rates into another currency go through the household's")
    func rates() throws {
        let rates = try ExchangeRates.parse("EUR 1.08\n\n gbp=1,25 \n", base: .usd)
        #expect(rates.perUnit == [try CurrencyCode("EUR"): Decimal(string: "1.08")!, try CurrencyCode("GBP"): Decimal(string: "1.25")!])
        #expect(rates.text == "EUR 1.08\nGBP 1.25")
        #expect(rates.rates(into: .usd)[try CurrencyCode("EUR")] == Decimal(string: "1.08"))
        // For an item in euros: a pound is 1.25 / 1.08 euros, a dollar 1 / 1.08.
        let intoEUR = rates.rates(into: try CurrencyCode("EUR"))
        #expect(intoEUR[try CurrencyCode("GBP")] == Decimal(string: "1.25")! / Decimal(string: "1.08")!)
        #expect(intoEUR[.usd] == 1 / Decimal(string: "1.08")!)
        // No rate for the item's currency: nothing converts, nothing is guessed.
        #expect(rates.rates(into: try CurrencyCode("JPY")).isEmpty)
        for bad in ["EUR", "EUR -1", "XYZ 2", "EUR one", "EUR 1 2"] {
            #expect(throws: DomainError.self) { try ExchangeRates.parse(bad, base: .usd) }
        }
        let converted = MarketPrices.convert(try Money.parse("100", currency: try CurrencyCode("EUR")), to: .usd, rates: rates.rates(into: .usd))
        #expect(converted == (try Money.parse("108", currency: .usd)))
    }
}

@Suite("Provider errors say what to do")
struct ProviderErrorTests {
    @Test("only errors that pass are worth trying again later")
    func tryAgain() {
        #expect(ProviderError.unavailable(provider: "OpenAI", status: 503, message: "overloaded").description.hasSuffix("Try again later."))
        #expect(ProviderError.unavailable(provider: "OpenAI", status: 429, message: "rate limited").description.hasSuffix("Try again later."))
        #expect(!ProviderError.unavailable(provider: "Ollama", status: 400, message: "model does not accept images").description.contains("Try again"))
        #expect(ProviderError.invalidKey(provider: "Tavily").stopsBatch && !ProviderError.truncated.stopsBatch)
    }
}
