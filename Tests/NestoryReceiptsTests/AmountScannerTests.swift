import Testing
@testable import NestoryReceipts

@Suite struct AmountScannerTests {
    @Test func readsDecimalPointAndCommaAndThousands() {
        #expect(AmountScanner.scan("TOTAL 1,234.56").map(\.cents) == [123_456])
        #expect(AmountScanner.scan("Summe 1.234,56 €").map(\.cents) == [123_456])
        #expect(AmountScanner.scan("RM60.30").first?.currency?.code == "MYR")
        #expect(AmountScanner.scan("ROUNDING ADJ -0.01").map(\.cents) == [-1])
        #expect(AmountScanner.scan(".01").map(\.cents) == [1])
    }

    @Test func ignoresDatesTimesQuantitiesAndCodes() {
        #expect(AmountScanner.scan("19/10/2018 20:49:59 #01").isEmpty)
        #expect(AmountScanner.scan("12.01.2019").isEmpty)
        #expect(AmountScanner.scan("@DISC 10.00%").isEmpty)
        #expect(AmountScanner.scan("SPRAYER 1.5L").isEmpty)
        #expect(AmountScanner.scan("MB: MO26588 050100035279").isEmpty)
    }
}
