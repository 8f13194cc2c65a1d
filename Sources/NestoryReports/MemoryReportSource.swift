import Foundation
import NestoryDomain

/// Items held in memory, grouped by room and category names: for tests, previews and tools that
/// make reports without a store. `ReportGroup.id` is the room or category name here.
public struct MemoryReportSource: ReportItemSource {
    public var rooms: [String]
    public var categories: [String]
    public var items: [ReportItem]

    public init(rooms: [String], categories: [String], items: [ReportItem]) {
        self.rooms = rooms
        self.categories = categories
        self.items = items.sorted { (Text.foldKey($0.item.name), $0.item.id) < (Text.foldKey($1.item.name), $1.item.id) }
    }

    public func groups(by grouping: ReportGrouping) throws -> [ReportGroup] {
        (grouping == .room ? rooms : categories).map { ReportGroup(id: $0, name: $0) }
            + [ReportGroup(id: nil, name: grouping == .room ? RoomCount.unassignedName : CategoryValue.uncategorizedName)]
    }

    public func forEachItem(in group: ReportGroup, grouping: ReportGrouping, documentedOnly: Bool,
                            _ body: (ReportItem) throws -> Void) throws {
        for row in items where (grouping == .room ? row.roomName : row.categoryName) == group.id {
            if documentedOnly, !row.documentation.isDocumented { continue }
            try body(row)
        }
    }

    public func forEachItem(ids: [ItemID], _ body: (ReportItem) throws -> Void) throws {
        let wanted = Set(ids)
        for row in items where wanted.contains(row.item.id) { try body(row) }
    }
}
