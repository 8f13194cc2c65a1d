import Foundation
import NestoryDomain

/// A photo file a report may show: where its bytes are and what they are.
public struct ReportPhoto: Hashable, Sendable {
    public let url: URL
    public let contentType: String
    public let sha256: String

    public init(url: URL, contentType: String, sha256: String) {
        self.url = url
        self.contentType = contentType
        self.sha256 = sha256
    }
}

/// One item as a report shows it: the item, its room and category names, its evidence and photos.
public struct ReportItem: Hashable, Sendable {
    public let item: Item
    public let roomName: String?
    public let categoryName: String?
    public let photoCount: Int
    public let receiptCount: Int
    /// Primary first. The inventory report shows the first; the loss list shows them all.
    public let photos: [ReportPhoto]
    /// The linked receipts, when the source was asked for them (the JSON export).
    public let receipts: [Receipt]
    /// The item's latest valuation (replacement cost and actual cash value), if it has one.
    public let valuation: Valuation?

    public init(item: Item, roomName: String?, categoryName: String?, photoCount: Int, receiptCount: Int, photos: [ReportPhoto],
                receipts: [Receipt] = [], valuation: Valuation? = nil) {
        self.valuation = valuation
        self.item = item
        self.roomName = roomName
        self.categoryName = categoryName
        self.photoCount = photoCount
        self.receiptCount = receiptCount
        self.photos = photos
        self.receipts = receipts
    }

    public var documentation: DocumentationStatus {
        DocumentationStatus(item: item, photoCount: photoCount, receiptCount: receiptCount)
    }
}

/// A room or category a report groups by; `id` nil is "No room" / "Uncategorized".
public struct ReportGroup: Hashable, Sendable {
    public let id: String?
    public let name: String

    public init(id: String?, name: String) {
        self.id = id
        self.name = name
    }
}

/// Count and value of a set of items (a group, a room, a category, the whole report).
public struct ReportTotal: Hashable, Sendable {
    public let name: String
    public internal(set) var itemCount: Int = 0
    /// Quantity summed (an item "Dining Chair × 6" counts 6).
    public internal(set) var unitCount: Int = 0
    public internal(set) var documentedCount: Int = 0
    /// Price × quantity per currency, for items with a value.
    public internal(set) var value = MoneyTotals()
    public internal(set) var itemsWithoutValue = 0
    /// The latest valuations' replacement costs and actual cash values, per currency, for items that have them.
    public internal(set) var replacementCost = MoneyTotals()
    public internal(set) var actualCashValue = MoneyTotals()
    public internal(set) var valuedCount = 0

    public init(name: String) { self.name = name }

    mutating func add(_ row: ReportItem) throws(DomainError) {
        itemCount += 1
        unitCount += row.item.quantity
        if row.documentation.isDocumented { documentedCount += 1 }
        if let value = row.item.totalValue { try self.value.add(value) } else { itemsWithoutValue += 1 }
        if let valuation = row.valuation {
            valuedCount += 1
            if let rcv = valuation.replacementCost { try replacementCost.add(rcv.value) }
            if let acv = valuation.actualCashValue { try actualCashValue.add(acv.value) }
        }
    }
}

/// Who and when, on every page's footer and the cover.
public struct ReportHeader: Hashable, Sendable {
    public let householdName: String
    public let currency: CurrencyCode
    public let generatedAt: Date
    /// The generation day where the household is (shown on the footer).
    public let generatedOn: CalendarDate

    public init(householdName: String, currency: CurrencyCode, generatedAt: Date, generatedOn: CalendarDate) {
        self.householdName = householdName
        self.currency = currency
        self.generatedAt = generatedAt
        self.generatedOn = generatedOn
    }
}

/// The cover of the full inventory: computed from exactly the items the report lists.
public struct InventoryCover: Hashable, Sendable {
    public let header: ReportHeader
    public let options: InventoryReportOptions
    public let total: ReportTotal
    public let score: DocumentationScore
    /// Value by category, largest first (one entry per category and currency).
    public let valueByCategory: [CategoryValue]
    /// Item counts by room, most first.
    public let itemsByRoom: [RoomCount]
    public let groupCount: Int
}

/// The end of the full inventory: totals by room and by category, and the grand total.
public struct InventoryTotals: Hashable, Sendable {
    public let byRoom: [ReportTotal]
    public let byCategory: [ReportTotal]
    public let grand: ReportTotal
}

/// Receives the full inventory report in order, as it is built. A renderer implements it; memory stays
/// flat because rows are handed over one at a time.
public protocol InventoryReportSink {
    func begin(_ cover: InventoryCover) throws
    func beginGroup(_ group: ReportGroup, total: ReportTotal) throws
    func row(_ row: ReportItem) throws
    func endGroup(_ total: ReportTotal) throws
    func end(_ totals: InventoryTotals) throws
}

/// The loss list's first page: the incident, and totals of the chosen items.
public struct LossListCover: Hashable, Sendable {
    public let header: ReportHeader
    public let options: LossListOptions
    public let total: ReportTotal
}

/// Receives the loss list in order: the cover, the table rows, then the photo pages.
public protocol LossListSink {
    func begin(_ cover: LossListCover) throws
    func row(_ row: ReportItem, number: Int) throws
    func endTable(_ total: ReportTotal) throws
    func photos(_ row: ReportItem, number: Int) throws
    func end() throws
}

/// Where a report's items come from (the store, or a test's list). Items are handed over one at a
/// time so a source can read them page by page.
public protocol ReportItemSource {
    /// The rooms or categories in the household's order, then the group of items without one.
    func groups(by grouping: ReportGrouping) throws -> [ReportGroup]
    /// The items of one group, in name order.
    func forEachItem(in group: ReportGroup, grouping: ReportGrouping, documentedOnly: Bool,
                     _ body: (ReportItem) throws -> Void) throws
    /// The items with these ids (others' ids are skipped), in name order.
    func forEachItem(ids: [ItemID], _ body: (ReportItem) throws -> Void) throws
}
