import Foundation
import GRDB
import NestoryDomain

extension AppDatabase {
    // MARK: - The inventory list

    /// One page of the inventory: search, filters and sort compose; pages continue from a cursor.
    public func items(_ householdID: HouseholdID, _ query: ItemQuery) throws -> Page<ItemListing> {
        try read { db in
            let threshold = try Self.fetchHousehold(db, householdID).highValueThreshold
            let sql = try ItemListSQL(householdID: householdID, query: query, highValueThreshold: threshold)
            let rows = try Row.fetchAll(db, sql: sql.text, arguments: sql.arguments)
            let hasMore = rows.count > query.limit
            let pageRows = rows.prefix(query.limit)
            let seqs = pageRows.map { $0["seq"] as Int64 }
            var tagsBySeq: [Int64: [String]] = [:]
            if !seqs.isEmpty {
                let marks = Array(repeating: "?", count: seqs.count).joined(separator: ",")
                for row in try Row.fetchAll(db, sql: "SELECT item_seq, tag FROM item_tag WHERE item_seq IN (\(marks)) ORDER BY item_seq, position",
                                            arguments: StatementArguments(seqs)) {
                    tagsBySeq[row["item_seq"], default: []].append(row["tag"])
                }
            }
            let listings = pageRows.map { row -> ItemListing in
                let seq: Int64 = row["seq"]
                let primary = (row["p_sha256"] as String?).map {
                    Attachment(sha256: $0, contentType: row["p_content_type"], byteCount: row["p_byte_count"])
                }
                return ItemListing(item: Self.itemFrom(row, tags: tagsBySeq[seq] ?? []), photoCount: row["photo_count"],
                                   receiptCount: row["receipt_count"], primaryPhoto: primary)
            }
            let next = hasMore ? pageRows.last.map { ItemListSQL.cursor(after: $0, sort: query.sort) } : nil
            return Page(elements: listings, nextCursor: next)
        }
    }

    /// How many items match a search and filters (for "124 results").
    public func countItems(_ householdID: HouseholdID, search: String, filter: ItemFilter) throws -> Int {
        try read { db in
            let threshold = try Self.fetchHousehold(db, householdID).highValueThreshold
            let sql = try ItemListSQL(householdID: householdID, query: ItemQuery(search: search, filter: filter),
                                      highValueThreshold: threshold)
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE \(sql.whereClause)", arguments: sql.whereArguments) ?? 0
        }
    }

    // MARK: - Summary and charts

    /// The summary strip's figures, in one pass over the household's items.
    public func summary(_ householdID: HouseholdID) throws -> InventorySummary {
        try read { db in
            let household = try Self.fetchHousehold(db, householdID)
            let threshold = household.highValueThreshold
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS items,
                    COUNT(DISTINCT room_id) AS rooms,
                    SUM(photo_count > 0 AND price_minor IS NOT NULL AND category_id IS NOT NULL AND room_id IS NOT NULL) AS documented,
                    SUM(photo_count = 0) AS needs_photo,
                    SUM(receipt_count = 0) AS needs_receipt,
                    SUM(price_minor IS NULL) AS needs_value,
                    SUM(value_minor > ? AND currency = ?) AS high_value
                FROM item WHERE household_id = ?
                """, arguments: [threshold.minorUnits, threshold.currency.code, householdID.description])!
            var totals = MoneyTotals()
            for valueRow in try Row.fetchAll(db, sql: """
                SELECT currency, SUM(value_minor) AS total FROM item
                WHERE household_id = ? AND price_minor IS NOT NULL GROUP BY currency
                """, arguments: [householdID.description]) {
                try totals.add(Money(uncheckedMinorUnits: valueRow["total"], currency: valueRow.currency("currency")))
            }
            let itemCount: Int = row["items"]
            return InventorySummary(
                itemCount: itemCount, roomsInUse: row["rooms"],
                estimatedValue: totals.amounts(preferred: household.currency),
                score: DocumentationScore(documented: row["documented"] ?? 0, total: itemCount),
                needsPhoto: row["needs_photo"] ?? 0, needsReceipt: row["needs_receipt"] ?? 0,
                needsValue: row["needs_value"] ?? 0, highValueCount: row["high_value"] ?? 0,
                highValueThreshold: threshold)
        }
    }

    /// Value by category for the donut: one entry per category and currency, largest first.
    public func valueByCategory(_ householdID: HouseholdID) throws -> [CategoryValue] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT i.category_id, c.name, c.color_hex, i.currency, SUM(i.value_minor) AS total, COUNT(*) AS items
                FROM item i LEFT JOIN category c ON c.id = i.category_id
                WHERE i.household_id = ? AND i.price_minor IS NOT NULL
                GROUP BY i.category_id, i.currency
                ORDER BY total DESC, c.sort_order
                """, arguments: [householdID.description]).map { row in
                CategoryValue(categoryID: row.optionalID("category_id"),
                              name: row["name"] ?? CategoryValue.uncategorizedName,
                              colorHex: row["color_hex"] ?? CategoryValue.uncategorizedColor,
                              value: Money(uncheckedMinorUnits: row["total"], currency: row.currency("currency")),
                              itemCount: row["items"])
            }
        }
    }

    /// Item counts by room for the bar chart, most first; rooms without items are left out.
    public func itemsByRoom(_ householdID: HouseholdID) throws -> [RoomCount] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT i.room_id, r.name, COUNT(*) AS items
                FROM item i LEFT JOIN room r ON r.id = i.room_id
                WHERE i.household_id = ?
                GROUP BY i.room_id
                ORDER BY items DESC, r.sort_order
                """, arguments: [householdID.description]).map { row in
                RoomCount(roomID: row.optionalID("room_id"), name: row["name"] ?? RoomCount.unassignedName, itemCount: row["items"])
            }
        }
    }

    /// Tags in use, most used first (for pickers and filters).
    public func tags(_ householdID: HouseholdID) throws -> [(tag: String, count: Int)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT MIN(tag) AS tag, COUNT(*) AS n FROM item_tag WHERE household_id = ?
                GROUP BY tag_key ORDER BY n DESC, tag_key
                """, arguments: [householdID.description]).map { ($0["tag"], $0["n"]) }
        }
    }
}

/// The SQL of one inventory page: the household first, then filters, search, the cursor and order.
struct ItemListSQL {
    var whereClause: String
    var whereArguments: StatementArguments
    var text: String
    var arguments: StatementArguments

    /// High value compares items in the threshold's currency only: without exchange rates, an
    /// amount in another currency cannot honestly be called above or below it.
    init(householdID: HouseholdID, query: ItemQuery, highValueThreshold: Money) throws {
        var conditions = ["item.household_id = ?"]
        var args: [any DatabaseValueConvertible] = [householdID.description]
        let filter = query.filter
        if filter.needsPhoto { conditions.append("item.photo_count = 0") }
        if filter.needsReceipt { conditions.append("item.receipt_count = 0") }
        if filter.needsValue { conditions.append("item.price_minor IS NULL") }
        if filter.highValue {
            conditions.append("item.value_minor > ? AND item.currency = ?")
            args.append(highValueThreshold.minorUnits)
            args.append(highValueThreshold.currency.code)
        }
        if let room = filter.roomID {
            conditions.append("item.room_id = ?")
            args.append(room.description)
        }
        if let category = filter.categoryID {
            conditions.append("item.category_id = ?")
            args.append(category.description)
        }
        if let tag = filter.tag.flatMap(Text.clean) {
            conditions.append("EXISTS (SELECT 1 FROM item_tag t WHERE t.item_seq = item.seq AND t.household_id = ? AND t.tag_key = ?)")
            args.append(householdID.description)
            args.append(Text.foldKey(tag))
        }
        if let match = SearchText.ftsQuery(query.search) {
            conditions.append("item.seq IN (SELECT rowid FROM item_fts WHERE item_fts MATCH ?)")
            args.append(match)
        }
        whereClause = conditions.joined(separator: " AND ")
        whereArguments = StatementArguments(args)

        let order: String
        switch query.sort {
        case .name: order = "item.name_key ASC, item.seq ASC"
        case .value: order = "item.value_minor DESC, item.seq DESC"
        case .newest: order = "item.created_at DESC, item.seq DESC"
        }
        if let cursor = query.after {
            let (clause, cursorArgs) = try Self.cursorCondition(cursor, sort: query.sort)
            conditions.append(clause)
            args.append(contentsOf: cursorArgs)
        }
        text = """
            SELECT item.*, b.sha256 AS p_sha256, b.content_type AS p_content_type, b.byte_count AS p_byte_count
            FROM item
            LEFT JOIN item_photo p ON p.item_seq = item.seq AND p.is_primary = 1
            LEFT JOIN blob b ON b.sha256 = p.sha256
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(order)
            LIMIT \(query.limit + 1)
            """
        arguments = StatementArguments(args)
    }

    /// The cursor names the sort and the last row's sort key and sequence number.
    static func cursor(after row: Row, sort: ItemSort) -> PageCursor {
        let seq: Int64 = row["seq"]
        let key: String
        switch sort {
        case .name: key = Data((row["name_key"] as String).utf8).base64EncodedString()
        case .value: key = String(row["value_minor"] as Int64)
        case .newest: key = String(row["created_at"] as Int64)
        }
        return PageCursor(rawValue: "\(sort.rawValue).\(key).\(seq)")
    }

    static func cursorCondition(_ cursor: PageCursor, sort: ItemSort) throws -> (String, [any DatabaseValueConvertible]) {
        let parts = cursor.rawValue.split(separator: ".", omittingEmptySubsequences: false)
        let invalid = DomainError.invalid(field: "cursor", message: "That page link is out of date; start again from the first page.")
        guard parts.count == 3, parts[0] == sort.rawValue, let seq = Int64(parts[2]) else { throw invalid }
        switch sort {
        case .name:
            guard let data = Data(base64Encoded: String(parts[1])), let key = String(data: data, encoding: .utf8) else { throw invalid }
            return ("(item.name_key, item.seq) > (?, ?)", [key, seq])
        case .value:
            guard let value = Int64(parts[1]) else { throw invalid }
            return ("(item.value_minor, item.seq) < (?, ?)", [value, seq])
        case .newest:
            guard let created = Int64(parts[1]) else { throw invalid }
            return ("(item.created_at, item.seq) < (?, ?)", [created, seq])
        }
    }
}
