import Foundation

/// A stored file: its SHA-256 names it, so identical bytes are kept once.
public struct Attachment: Hashable, Codable, Sendable {
    /// Lower-case hex SHA-256 of the bytes.
    public let sha256: String
    public let contentType: String
    public let byteCount: Int64

    public init(sha256: String, contentType: String, byteCount: Int64) {
        self.sha256 = sha256
        self.contentType = contentType
        self.byteCount = byteCount
    }
}

/// A photo of an item. One photo per item is primary (the thumbnail in lists).
public struct ItemPhoto: Identifiable, Hashable, Codable, Sendable {
    public let id: PhotoID
    public let householdID: HouseholdID
    public let itemID: ItemID
    public let attachment: Attachment
    public var isPrimary: Bool
    public var position: Int
    public let createdAt: Date

    public init(id: PhotoID = PhotoID(), householdID: HouseholdID, itemID: ItemID, attachment: Attachment,
                isPrimary: Bool, position: Int, createdAt: Date) {
        self.id = id
        self.householdID = householdID
        self.itemID = itemID
        self.attachment = attachment
        self.isPrimary = isPrimary
        self.position = position
        self.createdAt = createdAt
    }
}

/// A receipt: the image kept byte-exact, the fields read from it, and the item it proves.
public struct Receipt: Identifiable, Hashable, Codable, Sendable {
    public let id: ReceiptID
    public let householdID: HouseholdID
    public var itemID: ItemID?
    public let attachment: Attachment
    public var vendor: String?
    public var total: Money?
    public var tax: Money?
    public var purchaseDate: CalendarDate?
    /// The recognised text, kept and searchable.
    public var rawText: String?
    /// 0...1, how sure the reading was overall; nil when nothing was read.
    public var confidence: Double?
    public let createdAt: Date

    public init(id: ReceiptID = ReceiptID(), householdID: HouseholdID, itemID: ItemID?, attachment: Attachment,
                vendor: String? = nil, total: Money? = nil, tax: Money? = nil, purchaseDate: CalendarDate? = nil,
                rawText: String? = nil, confidence: Double? = nil, createdAt: Date) {
        self.id = id
        self.householdID = householdID
        self.itemID = itemID
        self.attachment = attachment
        self.vendor = vendor
        self.total = total
        self.tax = tax
        self.purchaseDate = purchaseDate
        self.rawText = rawText
        self.confidence = confidence
        self.createdAt = createdAt
    }

    /// What is known of it, as `updateReceipt` writes it.
    public var fields: ReceiptFields {
        ReceiptFields(vendor: vendor, total: total, tax: tax, purchaseDate: purchaseDate, rawText: rawText, confidence: confidence)
    }
}
