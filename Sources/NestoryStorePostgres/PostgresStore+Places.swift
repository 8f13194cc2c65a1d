import Foundation
import Logging
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// Rooms and categories on PostgreSQL, with SQLite's rules (`PlaceName`): names unique in the household (folded),
/// new ones at the end, an order lists each once, and deleting one keeps its items without it. Each write locks the
/// household's row first, so two writers of one household's places take turns (SQLite has one writer).
extension PostgresStore {
    /// The two kinds of place: their table, the item column that names one, and how they are called in messages.
    enum Place {
        case room, category

        var table: String { self == .room ? "room" : "category" }
        var itemColumn: String { self == .room ? "room_id" : "category_id" }
        var totals: String { self == .room ? "room_total" : "category_total" }
        var notFound: DomainError { .notFound(self == .room ? "The room" : "The category") }
    }

    public func createRoom(_ householdID: HouseholdID, name: String) async throws -> Room {
        let name = try PlaceName.validated(name)
        return try await transaction { connection in
            _ = try await Self.fetchHousehold(connection, householdID, lock: true, logger: logger)
            try await Self.checkUniquePlace(connection, .room, householdID, name: name, except: nil, logger: logger)
            let next = try await Self.nextSortOrder(connection, .room, householdID, logger: logger)
            let room = Room(householdID: householdID, name: name, sortOrder: next)
            try await connection.query("""
                INSERT INTO room (id, household_id, name, sort_order) VALUES (\(room.id.rawValue), \(householdID.rawValue), \(name), \(next))
                """, logger: logger)
            return room
        }
    }

    public func renameRoom(_ householdID: HouseholdID, _ id: RoomID, to name: String) async throws {
        let name = try PlaceName.validated(name)
        try await transaction { connection in
            try await Self.lockHousehold(connection, householdID, logger: logger)
            try await Self.checkUniquePlace(connection, .room, householdID, name: name, except: id.rawValue, logger: logger)
            let changed = try await Self.rowCount(connection, """
                UPDATE room SET name = \(name) WHERE household_id = \(householdID.rawValue) AND id = \(id.rawValue) RETURNING 1
                """, logger: logger)
            guard changed == 1 else { throw Place.room.notFound }
        }
    }

    public func reorderRooms(_ householdID: HouseholdID, _ ids: [RoomID]) async throws {
        try await reorder(.room, householdID, ids.map(\.rawValue))
    }

    public func deleteRoom(_ householdID: HouseholdID, _ id: RoomID, now: Date) async throws -> Int {
        try await deletePlace(.room, householdID, id.rawValue, now: now)
    }

    public func createCategory(_ householdID: HouseholdID, name: String, colorHex: String, icon: String) async throws -> NestoryDomain.Category {
        let name = try PlaceName.validated(name)
        let color = try NestoryDomain.Category.validatedColor(colorHex)
        return try await transaction { connection in
            _ = try await Self.fetchHousehold(connection, householdID, lock: true, logger: logger)
            try await Self.checkUniquePlace(connection, .category, householdID, name: name, except: nil, logger: logger)
            let next = try await Self.nextSortOrder(connection, .category, householdID, logger: logger)
            let category = NestoryDomain.Category(householdID: householdID, name: name, colorHex: color, icon: icon, sortOrder: next, isCustom: true)
            try await connection.query("""
                INSERT INTO category (id, household_id, name, color_hex, icon, sort_order, is_custom)
                VALUES (\(category.id.rawValue), \(householdID.rawValue), \(name), \(color), \(icon), \(next), true)
                """, logger: logger)
            return category
        }
    }

    public func updateCategory(_ householdID: HouseholdID, _ id: CategoryID, name: String, colorHex: String) async throws {
        let name = try PlaceName.validated(name)
        let color = try NestoryDomain.Category.validatedColor(colorHex)
        try await transaction { connection in
            try await Self.lockHousehold(connection, householdID, logger: logger)
            try await Self.checkUniquePlace(connection, .category, householdID, name: name, except: id.rawValue, logger: logger)
            let changed = try await Self.rowCount(connection, """
                UPDATE category SET name = \(name), color_hex = \(color) WHERE household_id = \(householdID.rawValue) AND id = \(id.rawValue)
                RETURNING 1
                """, logger: logger)
            guard changed == 1 else { throw Place.category.notFound }
        }
    }

    public func reorderCategories(_ householdID: HouseholdID, _ ids: [CategoryID]) async throws {
        try await reorder(.category, householdID, ids.map(\.rawValue))
    }

    public func deleteCategory(_ householdID: HouseholdID, _ id: CategoryID, now: Date) async throws -> Int {
        try await deletePlace(.category, householdID, id.rawValue, now: now)
    }

    public func items(_ householdID: HouseholdID, barcodes codes: [String], limit: Int) async throws -> [Item] {
        guard !codes.isEmpty, limit > 0 else { return [] }
        // `item_by_barcode`; ties of the change time by the order added, newest first.
        let query = PostgresQuery(unsafeSQL: """
            SELECT \(Self.itemColumns) FROM item i WHERE i.household_id = $1 AND i.barcode = ANY($2)
            ORDER BY i.updated_at DESC, i.seq DESC LIMIT $3
            """, binds: try Self.binds(householdID.rawValue, codes, limit))
        return try await withStoreErrors {
            try await Self.itemRows(try await client.query(query, logger: logger), householdID).map(\.item)
        }
    }

    // MARK: - Shared by rooms and categories

    /// Takes the household's row lock (nothing when there is no such household: the write then finds nothing).
    static func lockHousehold(_ connection: PostgresConnection, _ householdID: HouseholdID, logger: Logger) async throws {
        try await connection.query("SELECT 1 FROM household WHERE id = \(householdID.rawValue) FOR UPDATE", logger: logger)
    }

    /// How many rows a statement returned (a write `RETURNING 1` counts the rows it changed).
    static func rowCount(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> Int {
        var count = 0
        for try await _ in try await connection.query(query, logger: logger) { count += 1 }
        return count
    }

    static func checkUniquePlace(_ connection: PostgresConnection, _ place: Place, _ householdID: HouseholdID, name: String, except: UUID?,
                                 logger: Logger) async throws {
        var existing: [(id: String, name: String)] = []
        let query = PostgresQuery(unsafeSQL: "SELECT id, name FROM \(place.table) WHERE household_id = $1", binds: try binds(householdID.rawValue))
        for try await (id, name) in try await connection.query(query, logger: logger).decode((UUID, String).self) {
            existing.append((id.uuidString, name))
        }
        try PlaceName.checkUnique(name, kind: place.table, among: existing, except: except?.uuidString)
    }

    static func nextSortOrder(_ connection: PostgresConnection, _ place: Place, _ householdID: HouseholdID, logger: Logger) async throws -> Int {
        let query = PostgresQuery(unsafeSQL: "SELECT COALESCE(MAX(sort_order) + 1, 0) FROM \(place.table) WHERE household_id = $1",
                                  binds: try binds(householdID.rawValue))
        for try await next in try await connection.query(query, logger: logger).decode(Int.self) { return next }
        return 0
    }

    func reorder(_ place: Place, _ householdID: HouseholdID, _ ids: [UUID]) async throws {
        try await transaction { connection in
            try await Self.lockHousehold(connection, householdID, logger: logger)
            var existing: Set<String> = []
            let query = PostgresQuery(unsafeSQL: "SELECT id FROM \(place.table) WHERE household_id = $1", binds: try Self.binds(householdID.rawValue))
            for try await id in try await connection.query(query, logger: logger).decode(UUID.self) { existing.insert(id.uuidString) }
            try PlaceName.checkOrder(ids.map(\.uuidString), existing: existing, kind: place.table)
            try await connection.query(PostgresQuery(unsafeSQL: """
                UPDATE \(place.table) p SET sort_order = o.n - 1 FROM unnest($2::uuid[]) WITH ORDINALITY AS o(id, n)
                WHERE p.household_id = $1 AND p.id = o.id
                """, binds: try Self.binds(householdID.rawValue, ids)), logger: logger)
        }
    }

    /// Deletes a room or category: its items lose it and are changed at `now`, then the row goes, with its chart
    /// counters. The items move in one statement with the row triggers standing aside (`nestory.item_rows`, migration
    /// `2026-12-03-places`); the counters they would have kept are moved here by sums over the same items, read while
    /// they are locked: the documented count (an item needs a room and a category for it), the rooms' or the
    /// categories' chart rows (to "no room" or "Uncategorized"), and the item content version, moved on once.
    func deletePlace(_ place: Place, _ householdID: HouseholdID, _ id: UUID, now: Date) async throws -> Int {
        try await transaction { connection in
            try await Self.lockHousehold(connection, householdID, logger: logger)
            // The row, locked: no item can be put in it meanwhile (the reference waits for this lock).
            let found = try await Self.rowCount(connection, PostgresQuery(unsafeSQL: """
                SELECT 1 FROM \(place.table) WHERE household_id = $1 AND id = $2 FOR UPDATE
                """, binds: try Self.binds(householdID.rawValue, id)), logger: logger)
            guard found == 1 else { throw place.notFound }
            // Its items, locked, so the sums are theirs when they move: how many, and how many of them are documented.
            let other = place == .room ? "category_id" : "room_id"
            var (affected, documented) = (0, 0)
            for try await (count, flagged) in try await connection.query(PostgresQuery(unsafeSQL: """
                SELECT count(*), count(*) FILTER (WHERE documented) FROM (
                    SELECT photo_count > 0 AND price_minor IS NOT NULL AND \(other) IS NOT NULL AS documented
                    FROM item WHERE household_id = $1 AND \(place.itemColumn) = $2 FOR UPDATE) moving
                """, binds: try Self.binds(householdID.rawValue, id)), logger: logger).decode((Int, Int).self) {
                (affected, documented) = (count, flagged)
            }
            if affected > 0 {
                try await connection.query("SELECT set_config('nestory.item_rows', 'statement', true)", logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: """
                    UPDATE item SET \(place.itemColumn) = NULL, updated_at = $3 WHERE household_id = $1 AND \(place.itemColumn) = $2
                    """, binds: try Self.binds(householdID.rawValue, id, now.millis)), logger: logger)
                try await connection.query("SELECT set_config('nestory.item_rows', '', true)", logger: logger)
                try await moveCounters(connection, place, householdID, id, affected: affected, documented: documented)
            }
            try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(place.table) WHERE household_id = $1 AND id = $2",
                                                     binds: try Self.binds(householdID.rawValue, id)), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: """
                DELETE FROM \(place.totals) WHERE household_id = $1 AND \(place.itemColumn) = $2
                """, binds: try Self.binds(householdID.rawValue, id)), logger: logger)
            return affected
        }
    }

    /// What the row triggers would have done for `affected` items leaving a room or category (`documented` of them
    /// documented until then): the place's chart counts go to the "none" row, the documented count drops, the item
    /// content version moves on.
    private func moveCounters(_ connection: PostgresConnection, _ place: Place, _ householdID: HouseholdID, _ id: UUID, affected: Int,
                              documented: Int) async throws {
        switch place {
        case .room:
            try await connection.query("""
                INSERT INTO room_total AS t (household_id, room_id, items) VALUES (\(householdID.rawValue), NULL, \(affected))
                ON CONFLICT (household_id, room_id) DO UPDATE SET items = t.items + excluded.items
                """, logger: logger)
        case .category:
            // Each currency's total and priced items, as the category's rows hold them.
            try await connection.query("""
                INSERT INTO category_total AS c (household_id, category_id, currency, total, items)
                SELECT household_id, NULL, currency, total, items FROM category_total
                WHERE household_id = \(householdID.rawValue) AND category_id = \(id) AND items > 0
                ON CONFLICT (household_id, category_id, currency) DO UPDATE SET total = c.total + excluded.total, items = c.items + excluded.items
                """, logger: logger)
        }
        try await connection.query("""
            UPDATE item_stats SET documented = documented - \(documented) WHERE household_id = \(householdID.rawValue)
            """, logger: logger)
        try await connection.query("""
            UPDATE item_content_version SET content = content + 1 WHERE household_id = \(householdID.rawValue)
            """, logger: logger)
    }
}
