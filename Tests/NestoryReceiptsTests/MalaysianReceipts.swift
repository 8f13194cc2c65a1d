import Foundation
import NestoryDomain
@testable import NestoryReceipts

/// What the suites of hand-written Malaysian receipts share: the extractor, the household's hints (day first,
/// ringgit) and shorthands for the expected values.
protocol MalaysianReceipts {}

extension MalaysianReceipts {
    var extractor: ReceiptExtractor { ReceiptExtractor() }
    var malaysia: ReceiptHints { ReceiptHints(dateOrder: .dayFirst, currency: try! CurrencyCode("MYR")) }

    func ringgit(_ text: String) throws -> Money { try Money.parse(text, currency: try CurrencyCode("MYR")) }
    func date(_ iso: String) throws -> CalendarDate { try CalendarDate(iso: iso) }
}
