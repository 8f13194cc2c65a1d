import Foundation

/// The figures at the top of the Inventory tab and on report covers.
public struct InventorySummary: Hashable, Codable, Sendable {
    public let itemCount: Int
    /// Rooms that hold at least one item ("across 9 rooms").
    public let roomsInUse: Int
    /// Estimated value (price × quantity) per currency, household currency first.
    public let estimatedValue: [Money]
    public let score: DocumentationScore
    public let needsPhoto: Int
    public let needsReceipt: Int
    public let needsValue: Int
    public let highValueCount: Int
    public let highValueThreshold: Money

    public init(itemCount: Int, roomsInUse: Int, estimatedValue: [Money], score: DocumentationScore, needsPhoto: Int,
                needsReceipt: Int, needsValue: Int, highValueCount: Int, highValueThreshold: Money) {
        self.itemCount = itemCount
        self.roomsInUse = roomsInUse
        self.estimatedValue = estimatedValue
        self.score = score
        self.needsPhoto = needsPhoto
        self.needsReceipt = needsReceipt
        self.needsValue = needsValue
        self.highValueCount = highValueCount
        self.highValueThreshold = highValueThreshold
    }
}

/// One slice of the value-by-category donut (one per category and currency).
public struct CategoryValue: Hashable, Codable, Sendable {
    /// Nil for items without a category.
    public let categoryID: CategoryID?
    public let name: String
    public let colorHex: String
    public let value: Money
    public let itemCount: Int

    public init(categoryID: CategoryID?, name: String, colorHex: String, value: Money, itemCount: Int) {
        self.categoryID = categoryID
        self.name = name
        self.colorHex = colorHex
        self.value = value
        self.itemCount = itemCount
    }

    public static let uncategorizedName = "Uncategorized"
    public static let uncategorizedColor = "#94A3B8"
}

/// One bar of the items-by-room chart.
public struct RoomCount: Hashable, Codable, Sendable {
    /// Nil for items without a room.
    public let roomID: RoomID?
    public let name: String
    public let itemCount: Int

    public init(roomID: RoomID?, name: String, itemCount: Int) {
        self.roomID = roomID
        self.name = name
        self.itemCount = itemCount
    }

    public static let unassignedName = "No room"
}

/// Settings → Your data: what a household keeps on the server, and what the server has room for.
public struct StorageSummary: Hashable, Sendable {
    public struct Files: Hashable, Sendable {
        public let count: Int
        public let bytes: Int64

        public init(count: Int, bytes: Int64) {
            self.count = count
            self.bytes = bytes
        }
    }

    public let items: Int
    public let photos: Files
    public let receipts: Files
    public let reports: Files
    /// The database file (and its write-ahead log), shared by every household on the server.
    public let databaseBytes: Int64
    /// Free space where the data folder is, when the system says.
    public let freeBytes: Int64?

    public init(items: Int, photos: Files, receipts: Files, reports: Files, databaseBytes: Int64, freeBytes: Int64?) {
        self.items = items
        self.photos = photos
        self.receipts = receipts
        self.reports = reports
        self.databaseBytes = databaseBytes
        self.freeBytes = freeBytes
    }

    /// What this household's files take: photos, receipts and reports (a file kept twice counts once).
    public var householdBytes: Int64 { photos.bytes + receipts.bytes + reports.bytes }
}
