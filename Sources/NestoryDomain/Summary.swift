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

    /// At most this many categories have their own slice in a donut (the app's and the report's).
    public static let sliceLimit = 8

    /// The slices of a value-by-category donut drawn from `values` (largest first, in one currency): those with a value,
    /// the first `sliceLimit` each their own and the rest together as "Other categories".
    public static func slices(_ values: [CategoryValue]) -> [CategoryValue] {
        let positive = values.filter { $0.value.minorUnits > 0 }
        guard positive.count > sliceLimit, let currency = positive.first?.value.currency else { return positive }
        let rest = positive.dropFirst(sliceLimit)
        let other = Money(uncheckedMinorUnits: rest.reduce(Int64(0)) { $0 + $1.value.minorUnits }, currency: currency)
        return Array(positive.prefix(sliceLimit))
            + [CategoryValue(categoryID: nil, name: "Other categories", colorHex: uncategorizedColor, value: other,
                             itemCount: rest.reduce(0) { $0 + $1.itemCount })]
    }
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

    /// At most this many bars in a chart (the app's and the report's).
    public static let barLimit = 10

    /// The items without a room (a report names it so too, having no room ids).
    public var isUnassigned: Bool { roomID == nil && name == Self.unassignedName }

    /// The bars of an items-by-room chart drawn from `rooms` (most items first): every item is in a bar. With more
    /// than `barLimit`, the rooms with fewest items share the last bar ("3 other rooms"), and "No room" keeps its own
    /// (it says what to do).
    public static func bars(_ rooms: [RoomCount]) -> [RoomCount] {
        guard rooms.count > barLimit else { return rooms }
        let slots = barLimit - 1 - (rooms.contains(where: \.isUnassigned) ? 1 : 0)
        var shown: [RoomCount] = [], rest: [RoomCount] = [], placed = 0
        for room in rooms {
            if room.isUnassigned { shown.append(room) } else if placed < slots { shown.append(room); placed += 1 } else { rest.append(room) }
        }
        return shown + [RoomCount(roomID: nil, name: "\(rest.count) other rooms", itemCount: rest.reduce(0) { $0 + $1.itemCount })]
    }
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
