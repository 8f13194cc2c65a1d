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
