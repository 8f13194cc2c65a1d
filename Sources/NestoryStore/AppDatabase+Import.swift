import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

extension AppDatabase {
    /// Adds imported items in one transaction (all or nothing), creating the rooms and categories
    /// they name that the household does not have yet (matched by name, ignoring case and accents).
    /// `plan`, when given, is checked in the same transaction (Free's item limit: the whole file or nothing).
    public func importItems(_ householdID: HouseholdID, _ items: [NamedPlaceDraft], now: Date, today: CalendarDate,
                            plan: Entitlement? = nil) throws -> ImportSummary {
        var pending: [NamedPlaceDraft]? = items
        return try importItemsInBulk(householdID, count: items.count, now: now, today: today, plan: plan) {
            defer { pending = nil }
            return pending
        }
    }

    /// The same for items that come in batches from `next` (nil at the end), only one batch in memory at a time: a
    /// file of any size is imported in the same memory, on the bulk insert path (`count`, how many are coming, is
    /// the plan's check and decides whether the item indexes are rebuilt at the end, as for `insertItemsInBulk`).
    public func importItemsInBulk(_ householdID: HouseholdID, count: Int, now: Date, today: CalendarDate, plan: Entitlement? = nil,
                                  next: () throws -> [NamedPlaceDraft]?) throws -> ImportSummary {
        try bulkItemWrite(count: count) { db in
            _ = try Self.fetchHousehold(db, householdID)
            if let plan {
                let before = try Self.itemsIn(db, householdID.description)
                try plan.checkItems(before: before, after: before + count, action: .import)
            }
            var places = try ImportedPlaces(db, householdID)
            var placeCheck = Set<String>()
            while let batch = try next() {
                for named in batch {
                    var draft = try named.draft.validated(today: today)
                    if let name = named.roomName { draft.roomID = try places.room(db, name) }
                    if let name = named.categoryName { draft.categoryID = try places.category(db, name) }
                    try Self.insertNew(db, householdID, NewItem(draft: draft, createdAt: now), placeCheck: &placeCheck)
                    places.summary.items += 1
                }
            }
            return places.summary
        }
    }
}

/// The household's rooms and categories by folded name while an import runs, creating the ones a row names that
/// do not exist yet (at the end of the household's order, custom categories in the import colours).
struct ImportedPlaces {
    let householdID: HouseholdID
    var rooms: [String: RoomID]
    var categories: [String: CategoryID]
    var nextRoom: Int
    var nextCategory: Int
    var summary = ImportSummary()

    init(_ db: Database, _ householdID: HouseholdID) throws {
        self.householdID = householdID
        rooms = Dictionary(try AppDatabase.fetchRooms(db, householdID).map { (Text.foldKey($0.name), $0.id) }, uniquingKeysWith: { a, _ in a })
        categories = Dictionary(try AppDatabase.fetchCategories(db, householdID).map { (Text.foldKey($0.name), $0.id) },
                                uniquingKeysWith: { a, _ in a })
        nextRoom = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(sort_order) + 1, 0) FROM room WHERE household_id = ?",
                                    arguments: [householdID.description]) ?? 0
        nextCategory = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(sort_order) + 1, 0) FROM category WHERE household_id = ?",
                                        arguments: [householdID.description]) ?? 0
    }

    mutating func room(_ db: Database, _ raw: String) throws -> RoomID {
        let name = try PlaceName.validated(raw, field: "room")
        let key = Text.foldKey(name)
        if let id = rooms[key] { return id }
        let id = RoomID()
        try db.execute(sql: "INSERT INTO room (id, household_id, name, sort_order) VALUES (?, ?, ?, ?)",
                       arguments: [id.description, householdID.description, name, nextRoom])
        nextRoom += 1
        rooms[key] = id
        summary.roomsCreated.append(name)
        return id
    }

    mutating func category(_ db: Database, _ raw: String) throws -> CategoryID {
        let name = try PlaceName.validated(raw, field: "category")
        let key = Text.foldKey(name)
        if let id = categories[key] { return id }
        let id = CategoryID()
        let color = NamedPlaceDraft.importColors[summary.categoriesCreated.count % NamedPlaceDraft.importColors.count]
        try db.execute(sql: """
            INSERT INTO category (id, household_id, name, color_hex, icon, sort_order, is_custom) VALUES (?, ?, ?, ?, 'box', ?, 1)
            """, arguments: [id.description, householdID.description, name, color, nextCategory])
        nextCategory += 1
        categories[key] = id
        summary.categoriesCreated.append(name)
        return id
    }
}
