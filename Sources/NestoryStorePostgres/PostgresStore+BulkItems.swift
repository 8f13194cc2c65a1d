import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore {
    /// Adds many new items of one household in one transaction: the rows, their tags and their search documents go in
    /// with one statement each (arrays unnested), where `createItem` spends four round trips an item. For loading a
    /// large household (the benchmarks' million items; moving a household here). The items are taken as they are
    /// (validated, with their ids and times); their rooms and categories must be the household's. The counters' triggers
    /// keep the summary figures as for single items.
    package func insertItems(_ householdID: HouseholdID, _ items: [Item]) async throws {
        guard !items.isEmpty else { return }
        precondition(items.allSatisfy { $0.householdID == householdID }, "items of another household")
        // NULL travels as a value no item has (PostgresNIO's arrays carry no NULLs): '' for text, the smallest Int64.
        try await transaction { connection in try await Self.insertItems(connection, householdID, items, logger: logger) }
    }

    /// `insertItems` inside a transaction of the caller's.
    static func insertItems(_ connection: PostgresConnection, _ householdID: HouseholdID, _ items: [Item], logger: Logger) async throws {
        guard !items.isEmpty else { return }
        let none = Int64.min
        func text(_ value: String?) -> String { value ?? "" }
        do {
            try await connection.query("""
                INSERT INTO item (id, household_id, name, name_key, brand, model_number, serial_number, price_minor, currency, quantity,
                    purchase_date, category_id, room_id, condition, condition_notes, barcode, warranty_expiry, notes, created_at, updated_at)
                SELECT id, \(householdID.rawValue), name, name_key, NULLIF(brand, ''), NULLIF(model, ''), NULLIF(serial, ''),
                       NULLIF(price, \(none)), currency, quantity, NULLIF(purchased, ''), NULLIF(category, '')::uuid,
                       NULLIF(room, '')::uuid, condition, NULLIF(condition_notes, ''), NULLIF(barcode, ''), NULLIF(warranty, ''),
                       NULLIF(notes, ''), created_at, updated_at
                FROM unnest(\(items.map(\.id.rawValue))::uuid[], \(items.map(\.name))::text[], \(items.map { Text.foldKey($0.name) })::text[],
                            \(items.map { text($0.brand) })::text[], \(items.map { text($0.modelNumber) })::text[],
                            \(items.map { text($0.serialNumber) })::text[], \(items.map { $0.purchasePrice?.minorUnits ?? none })::bigint[],
                            \(items.map(\.currency.code))::text[], \(items.map { Int32(clamping: $0.quantity) })::integer[],
                            \(items.map { text($0.purchaseDate?.iso) })::text[], \(items.map { text($0.categoryID?.rawValue.uuidString) })::text[],
                            \(items.map { text($0.roomID?.rawValue.uuidString) })::text[], \(items.map(\.condition.rawValue))::text[],
                            \(items.map { text($0.conditionNotes) })::text[], \(items.map { text($0.barcode) })::text[],
                            \(items.map { text($0.warrantyExpiry?.iso) })::text[], \(items.map { text($0.notes) })::text[],
                            \(items.map(\.createdAt.millis))::bigint[], \(items.map(\.updatedAt.millis))::bigint[])
                     AS t(id, name, name_key, brand, model, serial, price, currency, quantity, purchased, category, room, condition,
                          condition_notes, barcode, warranty, notes, created_at, updated_at)
                """, logger: logger)
            let tagged = items.flatMap { item in item.tags.enumerated().map { (item.id.rawValue, Int32($0.offset), $0.element) } }
            if !tagged.isEmpty {
                try await connection.query("""
                    INSERT INTO item_tag (item_seq, household_id, position, tag, tag_key)
                    SELECT i.seq, i.household_id, t.position, t.tag, t.key
                    FROM unnest(\(tagged.map(\.0))::uuid[], \(tagged.map(\.1))::integer[], \(tagged.map(\.2))::text[],
                                \(tagged.map { Text.foldKey($0.2) })::text[]) AS t(id, position, tag, key)
                    JOIN item i ON i.id = t.id
                    """, logger: logger)
            }
            // The documents as `reindex` writes them (a new item has no receipts); tokens hold no spaces.
            let documents = items.map { item in
                Self.itemDocument(name: item.name, brand: item.brand, modelNumber: item.modelNumber, serialNumber: item.serialNumber,
                                  notes: item.notes, tags: item.tags, receipts: [])
            }
            try await connection.query("""
                INSERT INTO item_search (seq, household_id, document, name_key, value_minor, created_at)
                SELECT i.seq, i.household_id,
                       nestory_document(string_to_array(d.tokens, ' '), string_to_array(d.positions, ' ')::integer[]),
                       i.name_key, i.value_minor, i.created_at
                FROM unnest(\(items.map(\.id.rawValue))::uuid[], \(documents.map { $0.tokens.joined(separator: " ") })::text[],
                            \(documents.map { $0.positions.map(String.init).joined(separator: " ") })::text[]) AS d(id, tokens, positions)
                JOIN item i ON i.id = d.id
                """, logger: logger)
        }
    }
}
