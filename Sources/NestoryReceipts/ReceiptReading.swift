import Foundation
import NestoryDomain

/// Which way round the day and the month are printed when a date alone does not say.
public enum DateOrder: String, Hashable, Sendable, Codable, CaseIterable {
    /// `19/10/2018` (most of the world).
    case dayFirst = "dmy"
    /// `10/19/2018` (the United States and a few others).
    case monthFirst = "mdy"
}

/// What the caller knows about the household, used only when the receipt itself does not say.
public struct ReceiptHints: Hashable, Sendable {
    /// The household's usual date order; nil to decide from the receipt alone (day first when undecided).
    public var dateOrder: DateOrder?
    /// The household's currency, used when no symbol or code is printed.
    public var currency: CurrencyCode?
    /// The day the receipt was photographed or uploaded: a purchase date after it is a misread digit
    /// (`2078` for `2018`), and is repaired or passed over.
    public var capturedOn: CalendarDate?

    public init(dateOrder: DateOrder? = nil, currency: CurrencyCode? = nil, capturedOn: CalendarDate? = nil) {
        self.dateOrder = dateOrder
        self.currency = currency
        self.capturedOn = capturedOn
    }
}

/// One field read from a receipt, with how sure the reader is (0–1) and the line it came from.
public struct ReadField<Value: Hashable & Sendable>: Hashable, Sendable {
    public var value: Value
    /// 0 (a guess) to 1 (certain). Fields below about 0.5 deserve a second look.
    public var confidence: Double
    /// The printed line(s) the value was read from.
    public var sourceText: String

    public init(value: Value, confidence: Double, sourceText: String) {
        self.value = value
        self.confidence = min(max(confidence, 0), 1)
        self.sourceText = sourceText
    }
}

/// Everything read from one receipt. Every field may be missing; the raw text is always kept.
public struct ReceiptReading: Hashable, Sendable {
    public var vendor: ReadField<String>?
    public var address: ReadField<String>?
    public var purchaseDate: ReadField<CalendarDate>?
    public var total: ReadField<Money>?
    public var subtotal: ReadField<Money>?
    public var tax: ReadField<Money>?
    public var currency: ReadField<CurrencyCode>?
    /// The recognised text, one line per line, as the recogniser returned it.
    public var rawText: String
    /// The recogniser's own mean confidence (0–1); nil when the text did not come from an image.
    public var textConfidence: Double?

    public init(vendor: ReadField<String>? = nil, address: ReadField<String>? = nil,
                purchaseDate: ReadField<CalendarDate>? = nil, total: ReadField<Money>? = nil,
                subtotal: ReadField<Money>? = nil, tax: ReadField<Money>? = nil,
                currency: ReadField<CurrencyCode>? = nil, rawText: String, textConfidence: Double? = nil) {
        self.vendor = vendor
        self.address = address
        self.purchaseDate = purchaseDate
        self.total = total
        self.subtotal = subtotal
        self.tax = tax
        self.currency = currency
        self.rawText = rawText
        self.textConfidence = textConfidence
    }

    /// One figure for the whole reading: the mean confidence of vendor, date and total (missing counts 0).
    public var overallConfidence: Double {
        ((vendor?.confidence ?? 0) + (purchaseDate?.confidence ?? 0) + (total?.confidence ?? 0)) / 3
    }
}
