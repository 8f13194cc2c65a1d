import Foundation
import NestoryDomain
import NestoryReceipts
import Testing

/// Receipts written by hand in several layouts, currencies and date styles.
@Suite struct ReceiptExtractorTests {
    let extractor = ReceiptExtractor()
    /// A US household: month first, dollars.
    let us = ReceiptHints(dateOrder: .monthFirst, currency: .usd)

    func money(_ text: String, _ code: String) throws -> Money { try Money.parse(text, currency: try CurrencyCode(code)) }
    func date(_ iso: String) throws -> CalendarDate { try CalendarDate(iso: iso) }

    @Test func usReceiptMonthFirstWithDollarsAndSalesTax() throws {
        let text = """
            BEST ELECTRONICS INC
            1200 MARKET STREET
            SAN FRANCISCO, CA 94103
            TEL (415) 555-0199
            10/23/2024 14:32
            USB-C CABLE            12.99
            HEADPHONES            149.00
            SUBTOTAL              161.99
            SALES TAX 8.625%       13.97
            TOTAL                $175.96
            VISA                  175.96
            THANK YOU FOR SHOPPING
            """
        let reading = extractor.extract(text: text)
        #expect(reading.vendor?.value == "BEST ELECTRONICS INC")
        #expect(reading.purchaseDate?.value == (try date("2024-10-23")))
        #expect(reading.total?.value == (try money("175.96", "USD")))
        #expect(reading.subtotal?.value == (try money("161.99", "USD")))
        #expect(reading.tax?.value == (try money("13.97", "USD")))
        #expect(reading.currency?.value == .usd)
        #expect(reading.rawText == text)
    }

    @Test func ukReceiptDayFirstWithPoundsVatCashAndChange() throws {
        let text = """
            THE CORNER HARDWARE LTD
            14 HIGH STREET
            OXFORD OX1 4AA
            VAT NO. GB 123 4567 89
            Date: 03/11/2023  10:15
            CLAW HAMMER          £12.50
            WOOD SCREWS           £4.00
            VAT 20% INCLUDED      £2.75
            TOTAL                £16.50
            CASH                 £20.00
            CHANGE                £3.50
            """
        let reading = extractor.extract(text: text, hints: ReceiptHints(dateOrder: .dayFirst))
        #expect(reading.vendor?.value == "THE CORNER HARDWARE LTD")
        #expect(reading.purchaseDate?.value == (try date("2023-11-03")))
        #expect(reading.total?.value == (try money("16.50", "GBP")))
        #expect(reading.tax?.value == (try money("2.75", "GBP")))
        #expect(reading.currency?.value == .gbp)
    }

    @Test func theLocaleHintDecidesAnAmbiguousDate() throws {
        let text = """
            FRIENDLY GROCER
            05/10/2024 09:00
            MILK 2.00
            TOTAL 2.00
            """
        #expect(extractor.extract(text: text, hints: ReceiptHints(dateOrder: .dayFirst)).purchaseDate?.value == (try date("2024-10-05")))
        #expect(extractor.extract(text: text, hints: ReceiptHints(dateOrder: .monthFirst)).purchaseDate?.value == (try date("2024-05-10")))
        // Another date on the same receipt with a day above 12 settles the order whatever the hint says.
        let settled = text + "\nRETURN BY 20/10/2024"
        #expect(extractor.extract(text: settled, hints: ReceiptHints(dateOrder: .monthFirst)).purchaseDate?.value == (try date("2024-10-05")))
    }

    @Test func euroReceiptWithDecimalCommaAndThousandsPoint() throws {
        let text = """
            ELEKTRO MARKT GMBH
            Hauptstraße 5
            10115 Berlin
            19.10.18 18:22
            Waschmaschine        1.234,56 €
            Summe                1.234,56 €
            MwSt 19%               197,12 €
            Bar                  1.250,00 €
            Rückgeld                15,44 €
            """
        let reading = extractor.extract(text: text, hints: ReceiptHints(dateOrder: .dayFirst))
        #expect(reading.vendor?.value == "ELEKTRO MARKT GMBH")
        #expect(reading.purchaseDate?.value == (try date("2018-10-19")))
        #expect(reading.total?.value == (try money("1234.56", "EUR")))
        #expect(reading.tax?.value == (try money("197.12", "EUR")))
        #expect(reading.currency?.value == .eur)
        #expect(reading.address?.value == "Hauptstraße 5 10115 Berlin")
    }

    @Test func malaysianReceiptWithRinggitRoundingAndGst() throws {
        let text = """
            TAN AH KOW
            KEDAI RUNCIT MAJU JAYA SDN BHD (001234-K)
            NO. 12, JALAN MERDEKA 3,
            43000 KAJANG, SELANGOR.
            TEL: 03-8734 1234
            GST ID: 000123456789
            TAX INVOICE
            DATE: 05/03/2018 19:02
            MILO TIN 1.5KG     1 X 39.90    39.90 SR
            GULA 1KG           2 X 2.86      5.72 SR
            TOTAL QTY: 3
            TOTAL INCL GST          RM 45.62
            ROUNDING ADJ            -RM 0.02
            TOTAL ROUNDED           RM 45.60
            GST 6% INCLUDED          RM 2.58
            CASH                    RM 50.00
            CHANGE                   RM 4.40
            """
        let reading = extractor.extract(text: text, hints: ReceiptHints(dateOrder: .dayFirst))
        #expect(reading.vendor?.value == "KEDAI RUNCIT MAJU JAYA SDN BHD")
        #expect(reading.address?.value == "NO. 12, JALAN MERDEKA 3, 43000 KAJANG, SELANGOR.")
        #expect(reading.purchaseDate?.value == (try date("2018-03-05")))
        #expect(reading.total?.value == (try money("45.60", "MYR")))
        #expect(reading.tax?.value == (try money("2.58", "MYR")))
        #expect(reading.currency?.value.code == "MYR")
    }

    @Test func isoDateAndAmountsOnTheLineAfterTheirLabels() throws {
        let text = """
            GREEN LEAF CAFE
            88 ORCHARD ROAD
            2024-02-29 12:01
            LATTE
            $5.50
            CROISSANT
            $8.50
            TOTAL
            $14.00
            CASH
            $20.00
            CHANGE
            $6.00
            """
        let reading = extractor.extract(text: text, hints: ReceiptHints(currency: try CurrencyCode("SGD")))
        #expect(reading.purchaseDate?.value == (try date("2024-02-29")))
        #expect(reading.total?.value == (try money("14.00", "SGD")))
        #expect(reading.vendor?.value == "GREEN LEAF CAFE")
    }

    @Test func columnLayoutWithLabelsThenValues() throws {
        let text = """
            NYONYA HOUSE SDN BHD (562007-D)
            18-03-2018 11 : 23
            KUIH
            LAKSA
            RM2.70
            RM11.60
            SUBTOTAL
            CASH
            CHANGE
            RM14.30
            RM50.00
            RM35.70
            """
        let reading = extractor.extract(text: text, hints: ReceiptHints(dateOrder: .dayFirst))
        #expect(reading.total?.value == (try money("14.30", "MYR")))
        #expect(reading.purchaseDate?.value == (try date("2018-03-18")))
        #expect(reading.vendor?.value == "NYONYA HOUSE SDN BHD")
    }

    @Test func cashAndChangeLargerAndSmallerThanTheTotal() throws {
        // Change larger than the total, and a cash part smaller than it (split payment).
        let large = """
            QUICK NOODLE BAR
            19 OCT 2018 13:05
            NOODLES 5.30
            TOTAL 5.30
            CASH 100.00
            CHANGE 94.70
            """
        #expect(extractor.extract(text: large, hints: us).total?.value == (try money("5.30", "USD")))
        #expect(extractor.extract(text: large, hints: us).purchaseDate?.value == (try date("2018-10-19")))
        let split = """
            QUICK NOODLE BAR
            TOTAL 30.00
            CASH 10.00
            VISA 20.00
            """
        #expect(extractor.extract(text: split, hints: us).total?.value == (try money("30.00", "USD")))
    }

    @Test func subtotalAboveTheTotalAfterADiscount() throws {
        let text = """
            OUTDOOR SUPPLY CO
            10-19-18 10:00
            TENT 50.00
            SUBTOTAL 50.00
            DISCOUNT -5.00
            GRAND TOTAL 45.00
            CREDIT CARD 45.00
            """
        let reading = extractor.extract(text: text, hints: us)
        #expect(reading.total?.value == (try money("45.00", "USD")))
        #expect(reading.subtotal?.value == (try money("50.00", "USD")))
        #expect(reading.purchaseDate?.value == (try date("2018-10-19")))
    }

    @Test func totalQuantityLinesAreNotTheTotal() throws {
        let text = """
            PAPER WORLD
            DATE 2019-01-12
            A4 PAPER 12.00
            TOTAL QTY 12.00
            TOTAL 12.50
            """
        #expect(extractor.extract(text: text, hints: us).total?.value == (try money("12.50", "USD")))
    }

    @Test func missingFieldsStayMissingWithTheRawTextKept() {
        let reading = extractor.extract(text: "hello\nworld")
        #expect(reading.total == nil)
        #expect(reading.purchaseDate == nil)
        #expect(reading.rawText == "hello\nworld")
        #expect(reading.overallConfidence < 0.5)
        let empty = extractor.extract(text: "")
        #expect(empty.vendor == nil && empty.total == nil && empty.purchaseDate == nil)
    }

    @Test func confidencesAreBetweenZeroAndOneAndHigherForLabelledFields() throws {
        let labelled = extractor.extract(text: "SHOP LTD\nDATE: 2024-01-02\nTOTAL 10.00\nCASH 20.00\nCHANGE 10.00")
        let guessed = extractor.extract(text: "SHOP LTD\n3.00\n10.00")
        let strong = try #require(labelled.total?.confidence)
        let weak = try #require(guessed.total?.confidence)
        #expect((0...1).contains(strong) && (0...1).contains(weak))
        #expect(strong > weak)
    }

    @Test func layoutJoinsFragmentsOfOneRowAndPrefersTheProminentName() throws {
        func line(_ text: String, x: Int, y: Int, h: Int = 20) -> RecognizedLine {
            RecognizedLine(text: text, box: TextBox(x: x, y: y, width: text.count * 10, height: h), confidence: 0.9)
        }
        let recognized = RecognizedText(lines: [
            line("Served by Anna Lee", x: 10, y: 10, h: 14),
            line("MOUNTAIN OUTFITTERS", x: 10, y: 40, h: 40),
            line("12 RIVER ROAD", x: 10, y: 100),
            line("2024-06-01", x: 10, y: 130),
            line("TOTAL", x: 10, y: 200),
            line("$89.99", x: 300, y: 202),
        ])
        let reading = extractor.extract(recognized)
        #expect(reading.total?.value == (try money("89.99", "USD")))
        #expect(reading.vendor?.value == "MOUNTAIN OUTFITTERS")
    }
}

/// The reader runs the recogniser, then the extractor.
@Suite struct ReceiptReaderTests {
    struct FixedRecognizer: TextRecognizer {
        let result: Result<RecognizedText, RecognitionError>
        func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText { try result.get() }
    }

    @Test func readsThroughTheRecognizer() async throws {
        let reader = ReceiptReader(recognizer: FixedRecognizer(result: .success(RecognizedText(plainText: "CAFE LTD\nTOTAL 3.50"))))
        let reading = try await reader.read(imageData: Data([1]), hints: ReceiptHints(currency: .usd))
        #expect(reading.total?.value == (try Money.parse("3.50", currency: .usd)))
    }

    @Test func passesRecognitionErrorsOn() async {
        let reader = ReceiptReader(recognizer: FixedRecognizer(result: .failure(.unreadableImage)))
        await #expect(throws: RecognitionError.unreadableImage) { try await reader.read(imageData: Data([1])) }
    }
}
