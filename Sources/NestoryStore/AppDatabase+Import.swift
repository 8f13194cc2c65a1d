import Foundation
internal import GRDB
import NestoryDomain

/// An item from an import: its fields, and its room and category by name (created when missing).
public struct NamedPlaceDraft: Sendable {
    public var draft: ItemDraft
    public var roomName: String?
    public var categoryName: String?

    public init(draft: ItemDraft, roomName: String?, categoryName: String?) {
        self.draft = draft
        self.roomName = roomName
        self.categoryName = categoryName
    }
}

extension AppDatabase {
    /// Adds imported items in one transaction (all or nothing), creating the rooms and categories
    /// they name that the household does not have yet (matched by name, ignoring case and accents).
    /// `plan`, when given, is checked in the same transaction (Free's item limit: the whole file or nothing).
    public func importItems(_ householdID: HouseholdID, _ items: [NamedPlaceDraft], now: Date, today: CalendarDate,
                            plan: Entitlement? = nil) throws -> ImportSummary {
        let drafts = try items.map { try $0.draft.validated(today: today) }
        return try write { db in
            _ = try Self.fetchHousehold(db, householdID)
            if let plan {
                let before = try Self.itemsIn(db, householdID.description)
                try plan.checkItems(before: before, after: before + drafts.count, action: .import)
            }
            var summary = ImportSummary()
            var rooms = Dictionary(try Self.fetchRooms(db, householdID).map { (Text.foldKey($0.name), $0.id) }, uniquingKeysWith: { a, _ in a })
            var categories = Dictionary(try Self.fetchCategories(db, householdID).map { (Text.foldKey($0.name), $0.id) }, uniquingKeysWith: { a, _ in a })
            var nextRoom = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(sort_order) + 1, 0) FROM room WHERE household_id = ?",
                                            arguments: [householdID.description]) ?? 0
            var nextCategory = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(sort_order) + 1, 0) FROM category WHERE household_id = ?",
                                                arguments: [householdID.description]) ?? 0
            for (index, var draft) in drafts.enumerated() {
                if let raw = items[index].roomName {
                    let name = try PlaceName.validated(raw, field: "room")
                    let key = Text.foldKey(name)
                    if rooms[key] == nil {
                        let id = RoomID()
                        try db.execute(sql: "INSERT INTO room (id, household_id, name, sort_order) VALUES (?, ?, ?, ?)",
                                       arguments: [id.description, householdID.description, name, nextRoom])
                        nextRoom += 1
                        rooms[key] = id
                        summary.roomsCreated.append(name)
                    }
                    draft.roomID = rooms[key]
                }
                if let raw = items[index].categoryName {
                    let name = try PlaceName.validated(raw, field: "category")
                    let key = Text.foldKey(name)
                    if categories[key] == nil {
                        let id = CategoryID()
                        let color = Self.importColors[summary.categoriesCreated.count % Self.importColors.count]
                        try db.execute(sql: """
                            INSERT INTO category (id, household_id, name, color_hex, icon, sort_order, is_custom) VALUES (?, ?, ?, ?, 'box', ?, 1)
                            """, arguments: [id.description, householdID.description, name, color, nextCategory])
                        nextCategory += 1
                        categories[key] = id
                        summary.categoriesCreated.append(name)
                    }
                    draft.categoryID = categories[key]
                }
                let item = Item(householdID: householdID, draft: draft, createdAt: now)
                let seq = try Self.insertItem(db, item)
                try Self.reindex(db, seq: seq, new: true)
                summary.items += 1
            }
            return summary
        }
    }

    /// Colours for categories an import creates (distinct, readable on light and dark).
    static let importColors = ["#2563EB", "#D97706", "#059669", "#DC2626", "#7C3AED", "#0891B2", "#DB2777", "#65A30D"]
}
