import Foundation

/// The filter chips and pickers of the inventory list. They combine (AND).
public struct ItemFilter: Hashable, Codable, Sendable {
    public var needsPhoto = false
    public var needsReceipt = false
    public var needsValue = false
    /// Value (price × quantity) above the household's threshold, in the household's currency.
    public var highValue = false
    public var roomID: RoomID?
    public var categoryID: CategoryID?
    public var tag: String?

    public init(needsPhoto: Bool = false, needsReceipt: Bool = false, needsValue: Bool = false, highValue: Bool = false,
                roomID: RoomID? = nil, categoryID: CategoryID? = nil, tag: String? = nil) {
        self.needsPhoto = needsPhoto
        self.needsReceipt = needsReceipt
        self.needsValue = needsValue
        self.highValue = highValue
        self.roomID = roomID
        self.categoryID = categoryID
        self.tag = tag
    }
}

/// The orders the list can be shown in.
public enum ItemSort: String, Hashable, Codable, Sendable, CaseIterable {
    /// Name A–Z (case and accents folded).
    case name
    /// Value high → low; items without a value last.
    case value
    /// Newest added first.
    case newest

    public var label: String {
        switch self {
        case .name: return "Name A–Z"
        case .value: return "Value high → low"
        case .newest: return "Newest added"
        }
    }
}

/// A page request: search text, filters, order and where the previous page ended.
public struct ItemQuery: Hashable, Sendable {
    /// Words to find in name, brand, model, serial, notes, tags and receipt text. Plain text:
    /// quotes, `*`, `-`, `OR` and the like are searched for as words, never interpreted.
    public var search: String
    public var filter: ItemFilter
    public var sort: ItemSort
    public var limit: Int
    /// From the previous page's `nextCursor`; nil for the first page.
    public var after: PageCursor?

    public static let maxLimit = 200

    public init(search: String = "", filter: ItemFilter = ItemFilter(), sort: ItemSort = .name, limit: Int = 50,
                after: PageCursor? = nil) {
        self.search = search
        self.filter = filter
        self.sort = sort
        self.limit = min(max(limit, 1), Self.maxLimit)
        self.after = after
    }
}

/// An opaque position in a sorted list (keyset pagination: page 500 costs what page 1 costs).
public struct PageCursor: Hashable, Codable, Sendable, RawRepresentable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// One page of results.
public struct Page<Element: Sendable>: Sendable {
    public let elements: [Element]
    /// Nil on the last page.
    public let nextCursor: PageCursor?

    public init(elements: [Element], nextCursor: PageCursor?) {
        self.elements = elements
        self.nextCursor = nextCursor
    }
}

extension Page: Equatable where Element: Equatable {}

/// A row of the inventory list: the item and what the list shows beside it.
public struct ItemListing: Hashable, Codable, Sendable, Identifiable {
    public let item: Item
    public let photoCount: Int
    public let receiptCount: Int
    /// The primary photo, for the thumbnail.
    public let primaryPhoto: Attachment?

    public init(item: Item, photoCount: Int, receiptCount: Int, primaryPhoto: Attachment?) {
        self.item = item
        self.photoCount = photoCount
        self.receiptCount = receiptCount
        self.primaryPhoto = primaryPhoto
    }

    public var id: ItemID { item.id }

    public var documentation: DocumentationStatus {
        DocumentationStatus(item: item, photoCount: photoCount, receiptCount: receiptCount)
    }
}
