import ArgumentParser
import Foundation
import Logging
import NestoryDomain
import NestoryOCR
import NestoryReceipts

/// `nestory receipt …`: reading receipts from the command line.
struct ReceiptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Read receipts.",
        subcommands: [Read.self]
    )

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read a receipt photo or scan and print its vendor, date, total, tax and raw text as JSON.")

        @Argument(help: "The receipt image (JPEG, PNG, TIFF, …).")
        var image: String

        @Option(name: .customLong("date-order"),
                help: "How the household writes dates when the receipt does not say: dmy (19/10/2018) or mdy (10/19/2018).")
        var dateOrder: String?

        @Option(help: "The household's currency (ISO code), used when the receipt prints none.")
        var currency: String?

        func validate() throws {
            if let dateOrder, DateOrder(rawValue: dateOrder.lowercased()) == nil {
                throw ValidationError("--date-order is dmy or mdy.")
            }
            if let currency, (try? CurrencyCode(currency)) == nil {
                throw ValidationError("--currency is a three-letter ISO code such as USD or MYR.")
            }
        }

        func run() async throws {
            let url = try InputFile.url(image, .file)
            let data: Data
            do { data = try Data(contentsOf: url) } catch { throw CLIError("\(image) cannot be read: \(error.localizedDescription)") }
            let hints = ReceiptHints(dateOrder: dateOrder.flatMap { DateOrder(rawValue: $0.lowercased()) },
                                     currency: currency.flatMap { try? CurrencyCode($0) })
            let (engine, python) = OCREngine.fromEnvironment
            let recognizer = OCREngine.recognizer(engine: engine, python: python, workers: 1, maxQueued: 0) { level, message in
                // A worker's start is the server log's business; here only what went wrong is worth a line.
                guard level >= .warning else { return }
                FileHandle.standardError.write(Data("nestory: \(message)\n".utf8))
            }
            let reading: ReceiptReading
            do {
                reading = try await ReceiptReader(recognizer: recognizer).read(imageData: data, hints: hints)
            } catch {
                throw CLIError("\(image): \(error.description)")
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(ReadingJSON(reading)), as: UTF8.self))
        }
    }

    /// The JSON printed by `receipt read`: every field present, `null` when it was not found.
    struct ReadingJSON: Encodable {
        let reading: ReceiptReading
        init(_ reading: ReceiptReading) { self.reading = reading }

        enum CodingKeys: String, CodingKey {
            case vendor, address, purchaseDate, total, subtotal, tax, currency, confidence, textConfidence, rawText
        }

        struct TextField: Encodable { let value: String; let confidence: Double; let source: String }
        struct AmountField: Encodable {
            let amount: String; let currency: String; let minorUnits: Int64; let confidence: Double; let source: String
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            func text(_ field: ReadField<String>?) -> TextField? {
                field.map { TextField(value: $0.value, confidence: rounded($0.confidence), source: $0.sourceText) }
            }
            func amount(_ field: ReadField<Money>?) -> AmountField? {
                field.map { AmountField(amount: $0.value.plainAmount, currency: $0.value.currency.code,
                                        minorUnits: $0.value.minorUnits, confidence: rounded($0.confidence), source: $0.sourceText) }
            }
            try container.encode(text(reading.vendor), forKey: .vendor)
            try container.encode(text(reading.address), forKey: .address)
            try container.encode(reading.purchaseDate.map { TextField(value: $0.value.iso, confidence: rounded($0.confidence), source: $0.sourceText) },
                                 forKey: .purchaseDate)
            try container.encode(amount(reading.total), forKey: .total)
            try container.encode(amount(reading.subtotal), forKey: .subtotal)
            try container.encode(amount(reading.tax), forKey: .tax)
            try container.encode(reading.currency.map { TextField(value: $0.value.code, confidence: rounded($0.confidence), source: $0.sourceText) },
                                 forKey: .currency)
            try container.encode(rounded(reading.overallConfidence), forKey: .confidence)
            try container.encode(reading.textConfidence.map(rounded), forKey: .textConfidence)
            try container.encode(reading.rawText, forKey: .rawText)
        }

        private func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
    }
}
