import Foundation

// Read models: what a page, a report, an export or the API shows of stored records. Plain values, so
// views, services and every store engine share them without depending on a store.

/// An item with everything its detail page shows.
public struct ItemDetails: Hashable, Sendable {
    public let item: Item
    public let photos: [ItemPhoto]
    public let receipts: [Receipt]

    public init(item: Item, photos: [ItemPhoto], receipts: [Receipt]) {
        self.item = item
        self.photos = photos
        self.receipts = receipts
    }

    public var documentation: DocumentationStatus {
        DocumentationStatus(item: item, photoCount: photos.count, receiptCount: receipts.count)
    }
}

/// A receipt with the item it is linked to (for the receipts list and the review screen).
public struct ReceiptListing: Hashable, Sendable {
    public let receipt: Receipt
    public let itemName: String?

    public init(receipt: Receipt, itemName: String?) {
        self.receipt = receipt
        self.itemName = itemName
    }
}

/// A generated report in the export history.
public struct StoredReport: Hashable, Sendable, Identifiable {
    public let id: UUID
    public let householdID: HouseholdID
    /// `inventory` or `loss`.
    public let kind: String
    public let createdAt: Date
    public let byteCount: Int64
    /// The options as JSON, as the report module wrote them.
    public let options: String
    /// The file's name inside the data folder's `reports/`.
    public let fileName: String

    public init(id: UUID, householdID: HouseholdID, kind: String, createdAt: Date, byteCount: Int64, options: String, fileName: String) {
        self.id = id
        self.householdID = householdID
        self.kind = kind
        self.createdAt = createdAt
        self.byteCount = byteCount
        self.options = options
        self.fileName = fileName
    }
}

/// What an import added.
public struct ImportSummary: Codable, Hashable, Sendable {
    public var items = 0
    public var roomsCreated: [String] = []
    public var categoriesCreated: [String] = []
    public init() {}

    enum CodingKeys: String, CodingKey { case items, roomsCreated = "rooms_created", categoriesCreated = "categories_created" }
}

/// How a restore treats the household's existing data.
public enum RestoreMode: String, Sendable, CaseIterable, Codable {
    /// The household's rooms, categories, items, photos and receipts become exactly the archive's.
    case replace
    /// Rows are matched by id: new ones are added, an item newer in the archive replaces the stored one,
    /// everything else is kept. Rooms and categories with the same name are the same place.
    case merge
}

/// What a restore did, per kind of row.
public struct RestoreSummary: Codable, Hashable, Sendable {
    public struct Counts: Codable, Hashable, Sendable {
        public var added = 0
        public var updated = 0
        public var skipped = 0
        public var removed = 0
        public init() {}
    }

    public var householdID: String = ""
    public var householdCreated = false
    public var rooms = Counts()
    public var categories = Counts()
    public var items = Counts()
    public var photos = Counts()
    public var receipts = Counts()
    public var reports = Counts()
    public var members = Counts()
    /// Accounts created without a password (the archive had none): they need one before signing in.
    public var accountsNeedingPassword: [String] = []
    public init() {}

    enum CodingKeys: String, CodingKey {
        case householdID = "household_id", householdCreated = "household_created", rooms, categories, items, photos, receipts, reports, members
        case accountsNeedingPassword = "accounts_needing_password"
    }
}

/// What was read from a receipt (all optional: a receipt may be stored for manual entry).
public struct ReceiptFields: Hashable, Sendable {
    public var vendor: String?
    public var total: Money?
    public var tax: Money?
    public var purchaseDate: CalendarDate?
    public var rawText: String?
    public var confidence: Double?

    public init(vendor: String? = nil, total: Money? = nil, tax: Money? = nil, purchaseDate: CalendarDate? = nil,
                rawText: String? = nil, confidence: Double? = nil) {
        self.vendor = vendor
        self.total = total
        self.tax = tax
        self.purchaseDate = purchaseDate
        self.rawText = rawText
        self.confidence = confidence
    }
}

