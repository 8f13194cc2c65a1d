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

    /// Deletes a room or category: its items lose it and are changed at `now` (their counters and the household's item
    /// content version move with them, by the item triggers), then the row goes, with its emptied chart counters.
    func deletePlace(_ place: Place, _ householdID: HouseholdID, _ id: UUID, now: Date) async throws -> Int {
        try await transaction { connection in
            try await Self.lockHousehold(connection, householdID, logger: logger)
            // Counted in the statement (a room of many items sends one number, not a row each).
            var affected = 0
            for try await count in try await connection.query(PostgresQuery(unsafeSQL: """
                WITH moved AS (UPDATE item SET \(place.itemColumn) = NULL, updated_at = $3 WHERE household_id = $1 AND \(place.itemColumn) = $2
                               RETURNING 1)
                SELECT count(*) FROM moved
                """, binds: try Self.binds(householdID.rawValue, id, now.millis)), logger: logger).decode(Int.self) {
                affected = count
            }
            let deleted = try await Self.rowCount(connection, PostgresQuery(unsafeSQL: """
                DELETE FROM \(place.table) WHERE household_id = $1 AND id = $2 RETURNING 1
                """, binds: try Self.binds(householdID.rawValue, id)), logger: logger)
            guard deleted == 1 else { throw place.notFound }
            try await connection.query(PostgresQuery(unsafeSQL: """
                DELETE FROM \(place.totals) WHERE household_id = $1 AND \(place.itemColumn) = $2
                """, binds: try Self.binds(householdID.rawValue, id)), logger: logger)
            return affected
        }
    }
}
