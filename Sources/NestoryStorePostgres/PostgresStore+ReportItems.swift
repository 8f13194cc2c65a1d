import Foundation
import Logging
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// Items as reports and exports read them on PostgreSQL: a group's items page by page in name order, or chosen items,
/// each with its room's and category's names, its photos and (for the JSON export) its receipts. The same order and
/// pages as SQLite (`name_key` in byte order, then `seq`), every statement naming its household.
extension PostgresStore {
    public func reportItems(_ householdID: HouseholdID, groupBy column: ReportGroupColumn, groupID: String?, documentedOnly: Bool,
                            allPhotos: Bool, receipts: Bool, after: ReportCursor?, limit: Int) async throws
        -> (items: [ReportItemRecord], next: ReportCursor?) {
        var binds = PostgresBindings()
        try binds.append(householdID.rawValue, context: .default)
        let field = column == .room ? "i.room_id" : "i.category_id"
        var conditions = ["i.household_id = $1"]
        if let groupID {
            // Ids are kept in lower case on SQLite, where another spelling finds nothing: the same here.
            guard let id = UUID(uuidString: groupID), id.uuidString.lowercased() == groupID else { return ([], nil) }
            try binds.append(id, context: .default)
            conditions.append("\(field) = $\(binds.count)")
        } else {
            conditions.append("\(field) IS NULL")
        }
        if documentedOnly {
            conditions.append("i.photo_count > 0 AND i.price_minor IS NOT NULL AND i.category_id IS NOT NULL AND i.room_id IS NOT NULL")
        }
        if let after {
            try binds.append(after.nameKey, context: .default)
            try binds.append(after.seq, context: .default)
            conditions.append("(i.name_key, i.seq) > ($\(binds.count - 1), $\(binds.count))")
        }
        let limit = max(1, limit)
        let query = PostgresQuery(unsafeSQL: """
            SELECT \(Self.itemColumns), r.name, c.name FROM item i
            LEFT JOIN room r ON r.id = i.room_id LEFT JOIN category c ON c.id = i.category_id
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY i.name_key, i.seq LIMIT \(limit)
            """, binds: binds)
        return try await withStoreErrors {
            try await client.withConnection { connection in
                let rows = try await Self.reportRows(try await connection.query(query, logger: logger), householdID)
                let records = try await Self.reportRecords(connection, householdID, rows, allPhotos: allPhotos, receipts: receipts,
                                                           logger: logger)
                let next = rows.count == limit ? rows.last.map { ReportCursor(nameKey: $0.item.nameKey, seq: $0.item.seq) } : nil
                return (records, next)
            }
        }
    }

    public func reportItems(_ householdID: HouseholdID, ids: [ItemID], allPhotos: Bool) async throws -> [ReportItemRecord] {
        guard !ids.isEmpty else { return [] }
        let query = PostgresQuery(unsafeSQL: """
            SELECT \(Self.itemColumns), r.name, c.name FROM item i
            LEFT JOIN room r ON r.id = i.room_id LEFT JOIN category c ON c.id = i.category_id
            WHERE i.household_id = $1 AND i.id = ANY($2) ORDER BY i.name_key, i.seq
            """, binds: try Self.binds(householdID.rawValue, Array(Set(ids.map(\.rawValue)))))
        return try await withStoreErrors {
            try await client.withConnection { connection in
                let rows = try await Self.reportRows(try await connection.query(query, logger: logger), householdID)
                return try await Self.reportRecords(connection, householdID, rows, allPhotos: allPhotos, receipts: false, logger: logger)
            }
        }
    }

    /// An item row (`itemColumns`) followed by its room's and category's names.
    static func reportRows(_ rows: PostgresRowSequence, _ householdID: HouseholdID) async throws
        -> [(item: ItemRow, room: String?, category: String?)] {
        var out: [(item: ItemRow, room: String?, category: String?)] = []
        for try await row in rows {
            let row = row.makeRandomAccess()
            out.append((try itemRow(row, householdID), try row[25].decode(String?.self), try row[26].decode(String?.self)))
        }
        return out
    }

    /// The records of a page of items: their photos (main first, then by position and time added; the main one alone
    /// unless `allPhotos`) and, when asked, their linked receipts (oldest first), one statement each for the page.
    static func reportRecords(_ connection: PostgresConnection, _ householdID: HouseholdID,
                              _ rows: [(item: ItemRow, room: String?, category: String?)], allPhotos: Bool, receipts withReceipts: Bool,
                              logger: Logger) async throws -> [ReportItemRecord] {
        var photos: [Int64: [Attachment]] = [:]
        let withPhotos = rows.filter { $0.item.photoCount > 0 }.map(\.item.seq)
        if !withPhotos.isEmpty {
            let query = PostgresQuery(unsafeSQL: """
                SELECT p.item_seq, b.sha256, b.content_type, b.byte_count FROM item_photo p JOIN blob b ON b.sha256 = p.sha256
                WHERE p.household_id = $1 AND p.item_seq = ANY($2) ORDER BY p.item_seq, p.is_primary DESC, p.position, p.created_at
                """, binds: try binds(householdID.rawValue, withPhotos))
            for try await (seq, sha256, type, bytes) in try await connection.query(query, logger: logger).decode((Int64, String, String, Int64).self) {
                if !allPhotos, photos[seq] != nil { continue }
                photos[seq, default: []].append(Attachment(sha256: sha256, contentType: type, byteCount: bytes))
            }
        }
        var receipts: [ItemID: [Receipt]] = [:]
        let withReceipts = withReceipts ? rows.filter { $0.item.receiptCount > 0 }.map(\.item.seq) : []
        if !withReceipts.isEmpty {
            let query = PostgresQuery(unsafeSQL: "\(receiptSelect) WHERE r.household_id = $1 AND r.item_seq = ANY($2) ORDER BY r.created_at, r.id",
                                      binds: try binds(householdID.rawValue, withReceipts))
            for listing in try await receiptListings(try await connection.query(query, logger: logger), householdID) {
                if let item = listing.receipt.itemID { receipts[item, default: []].append(listing.receipt) }
            }
        }
        return rows.map { row in
            let itemPhotos = photos[row.item.seq] ?? []
            let listing = ItemListing(item: row.item.item, photoCount: row.item.photoCount, receiptCount: row.item.receiptCount,
                                      primaryPhoto: itemPhotos.first)
            return ReportItemRecord(listing: listing, roomName: row.room, categoryName: row.category, photos: itemPhotos,
                                    receipts: receipts[row.item.item.id] ?? [])
        }
    }
}
