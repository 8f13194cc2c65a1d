import Foundation
import NestoryDomain
import NestoryOCR
import NestoryReceipts
import Testing

/// One recogniser for the whole suite: engines are expensive to start, and sharing them is the point.
let sharedRecognizer = TesseractRecognizer(configuration: .init(workers: 2))

@Suite struct RenderedReceiptTests {
    let reader = ReceiptReader(recognizer: sharedRecognizer)

    @Test func readsAUSReceipt() async throws {
        let image = try RenderedReceipts.png("""
            BLUE RIVER HARDWARE INC
            1200 MARKET STREET
            SAN FRANCISCO CA 94103
            10/23/2024 14:32
            CORDLESS DRILL        129.00
            DRILL BITS             19.99
            SUBTOTAL              148.99
            SALES TAX              12.85
            TOTAL                $161.84
            VISA                  161.84
            """, name: "us")
        let reading = try await reader.read(imageData: image, hints: ReceiptHints(dateOrder: .monthFirst, currency: .usd))
        #expect(reading.vendor?.value == "BLUE RIVER HARDWARE INC")
        #expect(reading.purchaseDate?.value == (try CalendarDate(iso: "2024-10-23")))
        #expect(reading.total?.value == (try Money.parse("161.84", currency: .usd)))
        #expect(reading.tax?.value == (try Money.parse("12.85", currency: .usd)))
        #expect((reading.textConfidence ?? 0) > 0.7)
    }

    @Test func readsAMalaysianReceiptDayFirst() async throws {
        let image = try RenderedReceipts.png("""
            KEDAI BUKU MAJU SDN BHD
            (123456-X)
            NO. 8, JALAN MERANTI 2,
            43000 KAJANG, SELANGOR
            TEL: 03-8734 1234
            DATE: 05/03/2018 19:02
            NOTEBOOK A5        2 X 4.50     9.00
            PEN BLUE           3 X 1.20     3.60
            TOTAL QTY: 5
            TOTAL INCL GST             RM 12.62
            ROUNDING ADJ               -0.02
            TOTAL ROUNDED              RM 12.60
            CASH                       RM 50.00
            CHANGE                     RM 37.40
            """, name: "my")
        let reading = try await reader.read(imageData: image, hints: ReceiptHints(dateOrder: .dayFirst))
        #expect(reading.vendor?.value == "KEDAI BUKU MAJU SDN BHD")
        #expect(reading.purchaseDate?.value == (try CalendarDate(iso: "2018-03-05")))
        #expect(reading.total?.value == (try Money.parse("12.60", currency: CurrencyCode("MYR"))))
        #expect(reading.currency?.value.code == "MYR")
    }

    @Test func readsAEuroReceiptWithDecimalCommas() async throws {
        let image = try RenderedReceipts.png("""
            BAUMARKT NORD GMBH
            HAFENSTRASSE 12
            20457 HAMBURG
            19.10.2018 18:22
            AKKUSCHRAUBER      1.234,56 EUR
            SUMME              1.234,56 EUR
            MWST 19%             197,12 EUR
            """, name: "eu")
        let reading = try await reader.read(imageData: image, hints: ReceiptHints(dateOrder: .dayFirst))
        #expect(reading.purchaseDate?.value == (try CalendarDate(iso: "2018-10-19")))
        #expect(reading.total?.value == (try Money.parse("1234.56", currency: .eur)))
        #expect(reading.vendor?.value == "BAUMARKT NORD GMBH")
    }

    @Test func returnsLinesWithBoxesAndConfidences() async throws {
        let image = try RenderedReceipts.png("FIRST LINE 1.00\nSECOND LINE 2.00", name: "boxes")
        let text = try await sharedRecognizer.recognize(imageData: image)
        #expect(text.lines.count == 2)
        let first = try #require(text.lines.first)
        let second = try #require(text.lines.last)
        #expect(first.text.contains("FIRST"))
        #expect(first.words.count == 3)
        let firstBox = try #require(first.box), secondBox = try #require(second.box)
        #expect(firstBox.maxY <= secondBox.y + 2)
        #expect(first.words.allSatisfy { ($0.confidence ?? 0) > 0.5 && $0.box != nil })
        #expect(text.imageWidth == 1400 && text.imageHeight == 2200)
    }

    /// Tesseract's OpenMP threads only contend with the other workers: an engine limits them to one (unless the
    /// operator set a limit), before tesseract is loaded, whoever makes the engine (the server or the bench).
    @Test func anEngineLimitsOpenMPToOneThread() {
        _ = sharedRecognizer
        #expect(ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] != nil)
    }

    @Test func readsSeveralReceiptsAtOnceThroughThePool() async throws {
        let image = try RenderedReceipts.png("CORNER SHOP LTD\nTOTAL 7.25", name: "pool")
        let totals = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<4 {
                group.addTask { try await reader.read(imageData: image, hints: ReceiptHints(currency: .gbp)).total?.value.plainAmount }
            }
            var all: [String?] = []
            for try await total in group { all.append(total) }
            return all
        }
        #expect(totals == Array(repeating: "7.25", count: 4))
    }
}

@Suite struct BadInputTests {
    @Test func emptyDataIsUnreadable() async {
        await #expect(throws: RecognitionError.unreadableImage) { try await sharedRecognizer.recognize(imageData: Data()) }
    }

    @Test func randomBytesAreUnreadable() async {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        await #expect(throws: RecognitionError.unreadableImage) { try await sharedRecognizer.recognize(imageData: bytes) }
    }

    @Test func aTruncatedImageIsAnErrorNotACrash() async throws {
        let image = try RenderedReceipts.png("SHOP\nTOTAL 1.00", name: "truncated")
        let truncated = image.prefix(image.count / 3)
        await #expect(throws: RecognitionError.self) { try await sharedRecognizer.recognize(imageData: Data(truncated)) }
    }

    @Test(arguments: [255, 0])
    func aBlankImageGivesNoFields(level: Int) async throws {
        let image = try RenderedReceipts.flat(level: level, name: "flat-\(level)")
        let reading = try await ReceiptReader(recognizer: sharedRecognizer).read(imageData: image)
        #expect(reading.total == nil)
        #expect(reading.purchaseDate == nil)
        #expect(reading.overallConfidence < 0.3)
    }

    @Test func anImageAboveThePixelLimitIsRefusedBeforeDecoding() async throws {
        let image = try RenderedReceipts.png("SHOP", name: "large")
        let small = TesseractRecognizer(configuration: .init(workers: 1, maxPixels: 1_000_000))
        defer { small.shutdown() }
        await #expect(throws: RecognitionError.imageTooLarge(width: 1400, height: 2200, maxPixels: 1_000_000)) {
            try await small.recognize(imageData: image)
        }
    }

    @Test func aFullQueueRefusesRatherThanGrowing() async throws {
        let image = try RenderedReceipts.png("SHOP LTD\nTOTAL 1.00\nCASH 2.00\nCHANGE 1.00", name: "queue")
        let busy = TesseractRecognizer(configuration: .init(workers: 1, maxQueued: 0))
        defer { busy.shutdown() }
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask { (try? await busy.recognize(imageData: image)) != nil }
            }
            var all: [Bool] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.contains(true))
        #expect(outcomes.contains(false))
    }
}
