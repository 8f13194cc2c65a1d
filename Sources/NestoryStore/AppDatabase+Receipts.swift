import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

extension AppDatabase {
    /// One receipt of the household.
    public func receipt(_ householdID: HouseholdID, _ id: ReceiptID) throws -> ReceiptListing {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT r.*, b.content_type, b.byte_count, i.id AS item_uuid, i.name AS item_name
                FROM receipt r JOIN blob b ON b.sha256 = r.sha256 LEFT JOIN item i ON i.seq = r.item_seq
                WHERE r.household_id = ? AND r.id = ?
                """, arguments: [householdID.description, id.description]) else {
                throw DomainError.notFound("The receipt")
            }
            return Self.receiptListing(row, householdID)
        }
    }

    /// The household's receipts, newest first.
    public func receipts(_ householdID: HouseholdID, limit: Int = ReceiptPageCursor.maxLimit, after: PageCursor? = nil,
                         unlinkedOnly: Bool = false) throws -> Page<ReceiptListing> {
        let limit = min(max(limit, 1), ReceiptPageCursor.maxLimit)
        let position = try after.map { cursor in
            guard let parsed = ReceiptPageCursor.parse(cursor) else { throw ReceiptPageCursor.outOfDate }
            return parsed
        }
        return try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT r.*, b.content_type, b.byte_count, i.id AS item_uuid, i.name AS item_name
                FROM receipt r JOIN blob b ON b.sha256 = r.sha256 LEFT JOIN item i ON i.seq = r.item_seq
                WHERE r.household_id = ?\(unlinkedOnly ? " AND r.item_seq IS NULL" : "")\(position == nil ? "" : " AND (r.created_at < ? OR (r.created_at = ? AND r.id > ?))")
                ORDER BY r.created_at DESC, r.id LIMIT ?
                """, arguments: StatementArguments([householdID.description] + (position.map { [$0.millis, $0.millis, $0.id.description] as [any DatabaseValueConvertible] } ?? [])
                                                    + [limit + 1])).map { Self.receiptListing($0, householdID) }
            return ReceiptPageCursor.page(rows, limit: limit)
        }
    }

    /// Replaces what is known of a receipt (from OCR, or typed on the review screen). The linked
    /// item's search text is rewritten, so the receipt's words find it. With `expected`, only while the
    /// receipt still holds those fields (else `ReceiptChanged`).
    public func updateReceipt(_ householdID: HouseholdID, _ id: ReceiptID, _ fields: ReceiptFields, expected: ReceiptFields? = nil) throws {
        try write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT r.*, b.content_type, b.byte_count FROM receipt r JOIN blob b ON b.sha256 = r.sha256
                WHERE r.household_id = ? AND r.id = ?
                """, arguments: [householdID.description, id.description]) else {
                throw DomainError.notFound("The receipt")
            }
            if let expected, Self.receiptFrom(row, householdID: householdID, itemID: nil).fields != expected { throw ReceiptChanged() }
            try db.execute(sql: """
                UPDATE receipt SET vendor = ?, currency = ?, total_minor = ?, tax_minor = ?, purchase_date = ?, raw_text = ?, confidence = ?
                WHERE id = ?
                """, arguments: [fields.vendor, (fields.total ?? fields.tax)?.currency.code, fields.total?.minorUnits, fields.tax?.minorUnits,
                                 fields.purchaseDate?.iso, fields.rawText, fields.confidence, id.description])
            if let seq: Int64 = row["item_seq"] { try Self.reindex(db, seq: seq) }
        }
    }

    static func receiptListing(_ row: Row, _ householdID: HouseholdID) -> ReceiptListing {
        let itemID = (row["item_uuid"] as String?).flatMap(ItemID.init(string:))
        return ReceiptListing(receipt: receiptFrom(row, householdID: householdID, itemID: itemID), itemName: row["item_name"])
    }
}
