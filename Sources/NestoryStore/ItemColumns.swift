import Foundation
internal import GRDB
import NestoryDomain

/// The item columns every item query selects, in a fixed order, read by position: the list page
/// decodes thousands of rows a second, and looking columns up by name was most of its cost.
enum ItemColumns {
    static let select = """
        item.seq, item.id, item.household_id, item.name, item.brand, item.model_number, item.serial_number, \
        item.price_minor, item.currency, item.quantity, item.purchase_date, item.category_id, item.room_id, \
        item.condition, item.condition_notes, item.barcode, item.warranty_expiry, item.notes, item.created_at, \
        item.updated_at, item.photo_count, item.receipt_count, item.name_key, item.value_minor, \
        (SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM item_tag t WHERE t.item_seq = item.seq ORDER BY t.position)) AS tags
        """

    // Positions in `select`.
    static let seq = 0, createdAt = 18, photoCount = 20, receiptCount = 21, nameKey = 22, valueMinor = 23, tags = 24
    /// The first column after these (for queries that select more).
    static let count = 25

    /// `householdID` is the one the query was scoped to (saves parsing it again for every row).
    static func item(_ row: Row, householdID: HouseholdID) -> Item {
        let currency = (try? CurrencyCode(row[8] as String)) ?? .usd
        let tagText: String? = row[tags]
        let draft = ItemDraft(
            name: row[3], brand: row[4], modelNumber: row[5], serialNumber: row[6],
            purchasePrice: (row[7] as Int64?).flatMap { try? Money(minorUnits: $0, currency: currency) },
            purchaseDate: (row[10] as String?).flatMap { try? CalendarDate(iso: $0) },
            currency: currency, categoryID: (row[11] as String?).flatMap(CategoryID.init(string:)),
            roomID: (row[12] as String?).flatMap(RoomID.init(string:)),
            condition: ItemCondition(rawValue: row[13]) ?? .good, conditionNotes: row[14], barcode: row[15],
            warrantyExpiry: (row[16] as String?).flatMap { try? CalendarDate(iso: $0) },
            tags: tagText.map { $0.split(separator: "\u{1F}").map(String.init) } ?? [], notes: row[17], quantity: row[9])
        return Item(id: ItemID(string: row[1])!, householdID: householdID, draft: draft,
                    createdAt: Date(millis: row[createdAt]), updatedAt: Date(millis: row[19]))
    }
}
