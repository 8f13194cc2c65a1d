import Foundation
import Logging
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// Items, tags, search, the inventory list and the summary on PostgreSQL (the schema: `PostgresItemSchema`). Every
/// statement names its household; the SQL is built from fixed text and bound values only.
extension PostgresStore: ItemStore {
    // MARK: - Items

    public func createItem(_ householdID: HouseholdID, _ draft: ItemDraft, now: Date, today: CalendarDate?, plan: Entitlement?) async throws -> Item {
        let draft = try draft.validated(today: today ?? CalendarDate(now, in: .current))
        return try await transaction { connection in
            // With a plan, the household's row is locked: two additions at once see each other's count.
            _ = try await Self.fetchHousehold(connection, householdID, lock: plan != nil, logger: logger)
            if let plan {
                let before = try await Self.itemCount(connection, householdID, logger: logger)
                try plan.checkItems(before: before, after: before + 1, action: .add)
            }
            try await Self.checkPlaces(connection, householdID, draft, logger: logger)
            let item = Item(householdID: householdID, draft: draft, createdAt: now)
            let seq = try await Self.insertItem(connection, item, logger: logger)
            try await Self.reindex(connection, householdID, seq: seq, draft, new: true, logger: logger)
            return item
        }
    }

    public func updateItem(_ householdID: HouseholdID, _ id: ItemID, _ draft: ItemDraft, now: Date, today: CalendarDate?,
                           expected: Date?) async throws -> Item {
        let draft = try draft.validated(today: today ?? CalendarDate(now, in: .current))
        return try await transaction { connection in
            // The item first (another household's is not found, whatever the draft says), then its places.
            var found: (seq: Int64, updatedAt: Int64)?
            for try await value in try await connection.query("""
                SELECT seq, updated_at FROM item WHERE household_id = \(householdID.rawValue) AND id = \(id.rawValue) FOR UPDATE
                """, logger: logger).decode((Int64, Int64).self) {
                found = value
            }
            guard let (seq, updatedAt) = found else { throw DomainError.notFound("The item") }
            if let expected, updatedAt != expected.millis { throw ItemChanged() }
            try await Self.checkPlaces(connection, householdID, draft, logger: logger)
            try await connection.query("""
                UPDATE item SET name = \(draft.name), name_key = \(Text.foldKey(draft.name)), brand = \(draft.brand),
                    model_number = \(draft.modelNumber), serial_number = \(draft.serialNumber), price_minor = \(draft.purchasePrice?.minorUnits),
                    currency = \(draft.currency.code), quantity = \(Int32(clamping: draft.quantity)), purchase_date = \(draft.purchaseDate?.iso),
                    category_id = \(draft.categoryID?.rawValue), room_id = \(draft.roomID?.rawValue), condition = \(draft.condition.rawValue),
                    condition_notes = \(draft.conditionNotes), barcode = \(draft.barcode), warranty_expiry = \(draft.warrantyExpiry?.iso),
                    notes = \(draft.notes), updated_at = \(now.millis)
                WHERE seq = \(seq)
                """, logger: logger)
            var tags: [String] = []
            for try await tag in try await connection.query("SELECT tag FROM item_tag WHERE item_seq = \(seq) ORDER BY position",
                                                            logger: logger).decode(String.self) {
                tags.append(tag)
            }
            if tags != draft.tags {
                try await connection.query("DELETE FROM item_tag WHERE item_seq = \(seq)", logger: logger)
                try await Self.insertTags(connection, householdID, seq: seq, tags: draft.tags, logger: logger)
            }
            try await Self.reindex(connection, householdID, seq: seq, draft, logger: logger)
            return try await Self.fetchItems(connection, householdID, seqs: [seq], logger: logger).first!.item
        }
    }

    /// Deletes an item and its photos; its receipts stay, unlinked. Stored files no other row uses are removed after
    /// the deletion has committed.
    public func deleteItem(_ householdID: HouseholdID, _ id: ItemID) async throws {
        let hashes: [String] = try await transaction { connection in
            let seq = try await Self.itemSeq(connection, householdID, id, lock: true, logger: logger)
            var hashes: [String] = []
            for try await hash in try await connection.query("SELECT DISTINCT sha256 FROM item_photo WHERE item_seq = \(seq)",
                                                             logger: logger).decode(String.self) {
                hashes.append(hash)
            }
            try await connection.query("DELETE FROM item WHERE seq = \(seq)", logger: logger)
            return hashes
        }
        try await removeUnreferencedBlobs(hashes)
    }

    public func item(_ householdID: HouseholdID, _ id: ItemID) async throws -> Item {
        try await withStoreErrors {
            try await client.withConnection { connection in
                let query = PostgresQuery(unsafeSQL: "SELECT \(Self.itemColumns) FROM item i WHERE i.household_id = $1 AND i.id = $2",
                                          binds: try Self.binds(householdID.rawValue, id.rawValue))
                guard let row = try await Self.itemRows(try await connection.query(query, logger: logger), householdID).first else {
                    throw DomainError.notFound("The item")
                }
                return row.item
            }
        }
    }

    public func rooms(_ householdID: HouseholdID) async throws -> [Room] {
        try await withStoreErrors {
            var rooms: [Room] = []
            for try await (id, name, order) in try await client.query("""
                SELECT id, name, sort_order FROM room WHERE household_id = \(householdID.rawValue) ORDER BY sort_order, name COLLATE "C"
                """, logger: logger).decode((UUID, String, Int).self) {
                rooms.append(Room(id: RoomID(id), householdID: householdID, name: name, sortOrder: order))
            }
            return rooms
        }
    }

    public func categories(_ householdID: HouseholdID) async throws -> [NestoryDomain.Category] {
        try await withStoreErrors {
            var categories: [NestoryDomain.Category] = []
            for try await (id, name, color, icon, order, custom) in try await client.query("""
                SELECT id, name, color_hex, icon, sort_order, is_custom FROM category WHERE household_id = \(householdID.rawValue)
                ORDER BY sort_order, name COLLATE "C"
                """, logger: logger).decode((UUID, String, String, String, Int, Bool).self) {
                categories.append(NestoryDomain.Category(id: CategoryID(id), householdID: householdID, name: name, colorHex: color,
                                                         icon: icon, sortOrder: order, isCustom: custom))
            }
            return categories
        }
    }

    // MARK: - Writing

    static func insertItem(_ connection: PostgresConnection, _ item: Item, logger: Logger) async throws -> Int64 {
        var seq: Int64 = 0
        for try await value in try await connection.query("""
            INSERT INTO item (id, household_id, name, name_key, brand, model_number, serial_number, price_minor, currency, quantity,
                purchase_date, category_id, room_id, condition, condition_notes, barcode, warranty_expiry, notes, created_at, updated_at)
            VALUES (\(item.id.rawValue), \(item.householdID.rawValue), \(item.name), \(Text.foldKey(item.name)), \(item.brand),
                    \(item.modelNumber), \(item.serialNumber), \(item.purchasePrice?.minorUnits), \(item.currency.code),
                    \(Int32(clamping: item.quantity)), \(item.purchaseDate?.iso), \(item.categoryID?.rawValue), \(item.roomID?.rawValue),
                    \(item.condition.rawValue), \(item.conditionNotes), \(item.barcode), \(item.warrantyExpiry?.iso), \(item.notes),
                    \(item.createdAt.millis), \(item.updatedAt.millis))
            RETURNING seq
            """, logger: logger).decode(Int64.self) {
            seq = value
        }
        try await insertTags(connection, item.householdID, seq: seq, tags: item.tags, logger: logger)
        return seq
    }

    static func insertTags(_ connection: PostgresConnection, _ householdID: HouseholdID, seq: Int64, tags: [String], logger: Logger) async throws {
        guard !tags.isEmpty else { return }
        try await connection.query("""
            INSERT INTO item_tag (item_seq, household_id, position, tag, tag_key)
            SELECT \(seq), \(householdID.rawValue), ordinality - 1, tag, key
            FROM unnest(\(tags)::text[], \(tags.map(Text.foldKey))::text[]) WITH ORDINALITY AS t(tag, key, ordinality)
            """, logger: logger)
    }

    /// Writes an item's search document from its fields, tags and linked receipts' vendor and text (as SQLite's
    /// `receipts` column: one field, the receipts in the order they were added). `new`: an item just inserted, which
    /// has no receipts to read.
    static func reindex(_ connection: PostgresConnection, _ householdID: HouseholdID, seq: Int64, _ draft: ItemDraft,
                        new: Bool = false, logger: Logger) async throws {
        var receipts: [String] = []
        if !new {
            for try await text in try await connection.query("""
                SELECT COALESCE(vendor, '') || ' ' || COALESCE(raw_text, '') FROM receipt
                WHERE item_seq = \(seq) AND household_id = \(householdID.rawValue) ORDER BY created_at, id
                """, logger: logger).decode(String.self) {
                receipts.append(text)
            }
        }
        let (tokens, positions) = itemDocument(name: draft.name, brand: draft.brand, modelNumber: draft.modelNumber,
                                               serialNumber: draft.serialNumber, notes: draft.notes, tags: draft.tags, receipts: receipts)
        try await connection.query("""
            INSERT INTO item_search (seq, household_id, document, name_key, value_minor, created_at)
            SELECT seq, household_id, nestory_document(\(tokens)::text[], \(positions)::integer[]), name_key, value_minor, created_at
            FROM item WHERE seq = \(seq) AND household_id = \(householdID.rawValue)
            ON CONFLICT (seq) DO UPDATE SET document = excluded.document
            """, logger: logger)
    }

    /// An item's search document: its fields in the order SQLite's index has them (name, brand, model, serial, notes,
    /// tags, linked receipts' vendor and text), as `searchDocument` cuts them.
    static func itemDocument(name: String, brand: String?, modelNumber: String?, serialNumber: String?, notes: String?,
                             tags: [String], receipts: [String]) -> (tokens: [String], positions: [Int32]) {
        searchDocument([name, brand, modelNumber, serialNumber, notes, tags.joined(separator: " "), receipts.joined(separator: " ")])
    }

    /// The tokens of an item's fields (`Text.searchTokens`) and their positions, counted from 1, with one position
    /// left out between fields: a phrase never runs from one field into the next (FTS5 matches within a column).
    static func searchDocument(_ fields: [String?]) -> (tokens: [String], positions: [Int32]) {
        var tokens: [String] = []
        var positions: [Int32] = []
        var position: Int32 = 1
        for field in fields {
            guard let field, !field.isEmpty else { continue }
            for token in Text.searchTokens(field) {
                tokens.append(token)
                positions.append(min(position, 16_383))
                position += 1
            }
            position += 1
        }
        return (tokens, positions)
    }

    /// The search's tokens, each with the operator after it (`nestory_query`): the tokens of one word follow each
    /// other (` <->`), every word must occur (` &`), the last token is a prefix (`:*`). Nil when nothing is searched.
    static func searchQuery(_ text: String) -> (tokens: [String], operators: [String])? {
        guard let words = Text.searchWords(text) else { return nil }
        let phrases = words.map(Text.searchTokens).filter { !$0.isEmpty }
        guard !phrases.isEmpty else { return nil }
        var tokens: [String] = []
        var operators: [String] = []
        for (index, phrase) in phrases.enumerated() {
            for (position, token) in phrase.enumerated() {
                tokens.append(token)
                operators.append(position < phrase.count - 1 ? " <->" : index < phrases.count - 1 ? " &" : ":*")
            }
        }
        return (tokens, operators)
    }

    static func itemCount(_ connection: PostgresConnection, _ householdID: HouseholdID, logger: Logger) async throws -> Int {
        for try await count in try await connection.query("SELECT items FROM item_stats WHERE household_id = \(householdID.rawValue)",
                                                          logger: logger).decode(Int.self) {
            return count
        }
        return 0
    }

    /// A room or category must belong to the same household.
    static func checkPlaces(_ connection: PostgresConnection, _ householdID: HouseholdID, _ draft: ItemDraft, logger: Logger) async throws {
        var errors: [FieldError] = []
        if let room = draft.roomID, try await exists(connection, """
            SELECT EXISTS (SELECT 1 FROM room WHERE household_id = \(householdID.rawValue) AND id = \(room.rawValue))
            """, logger: logger) == false {
            errors.append(FieldError(field: "roomID", message: "Choose one of your rooms."))
        }
        if let category = draft.categoryID, try await exists(connection, """
            SELECT EXISTS (SELECT 1 FROM category WHERE household_id = \(householdID.rawValue) AND id = \(category.rawValue))
            """, logger: logger) == false {
            errors.append(FieldError(field: "categoryID", message: "Choose one of your categories."))
        }
        if !errors.isEmpty { throw DomainError.validation(errors) }
    }

    // MARK: - Reading rows

    /// The columns every item query selects, read by position (`itemRows`).
    static let itemColumns = """
        i.seq, i.id, i.name, i.brand, i.model_number, i.serial_number, i.price_minor, i.currency, i.quantity, i.purchase_date, \
        i.category_id, i.room_id, i.condition, i.condition_notes, i.barcode, i.warranty_expiry, i.notes, i.created_at, i.updated_at, \
        i.photo_count, i.receipt_count, i.name_key, i.value_minor, \
        ARRAY(SELECT t.tag FROM item_tag t WHERE t.item_seq = i.seq ORDER BY t.position), \
        (SELECT ARRAY[p.sha256, b.content_type, b.byte_count::text] FROM item_photo p JOIN blob b ON b.sha256 = p.sha256 \
         WHERE p.item_seq = i.seq AND p.is_primary)
        """

    /// An item as the list reads it, with its sort keys (for the next page's cursor).
    struct ItemRow {
        var seq: Int64
        var item: Item
        var photoCount: Int
        var receiptCount: Int
        var nameKey: String
        var valueMinor: Int64
        var primaryPhoto: Attachment?

        var listing: ItemListing { ItemListing(item: item, photoCount: photoCount, receiptCount: receiptCount, primaryPhoto: primaryPhoto) }

        func cursor(_ sort: ItemSort) -> PageCursor {
            switch sort {
            case .name: return ItemPageCursor.make(sort: sort, key: .name(nameKey), seq: seq)
            case .value: return ItemPageCursor.make(sort: sort, key: .number(valueMinor), seq: seq)
            case .newest: return ItemPageCursor.make(sort: sort, key: .number(item.createdAt.millis), seq: seq)
            }
        }
    }

    static func itemRows(_ rows: PostgresRowSequence, _ householdID: HouseholdID) async throws -> [ItemRow] {
        var items: [ItemRow] = []
        for try await row in rows { items.append(try itemRow(row.makeRandomAccess(), householdID)) }
        return items
    }

    /// One row of `itemColumns` (its first 25 columns; a query may select more after them).
    static func itemRow(_ row: PostgresRandomAccessRow, _ householdID: HouseholdID) throws -> ItemRow {
        let currency = (try? CurrencyCode(try row[7].decode(String.self))) ?? .usd
        let draft = ItemDraft(
            name: try row[2].decode(String.self), brand: try row[3].decode(String?.self), modelNumber: try row[4].decode(String?.self),
            serialNumber: try row[5].decode(String?.self),
            purchasePrice: try row[6].decode(Int64?.self).flatMap { try? Money(minorUnits: $0, currency: currency) },
            purchaseDate: try row[9].decode(String?.self).flatMap { try? CalendarDate(iso: $0) },
            currency: currency, categoryID: try row[10].decode(UUID?.self).map { CategoryID($0) },
            roomID: try row[11].decode(UUID?.self).map { RoomID($0) },
            condition: ItemCondition(rawValue: try row[12].decode(String.self)) ?? .good, conditionNotes: try row[13].decode(String?.self),
            barcode: try row[14].decode(String?.self), warrantyExpiry: try row[15].decode(String?.self).flatMap { try? CalendarDate(iso: $0) },
            tags: try row[23].decode([String].self), notes: try row[16].decode(String?.self), quantity: try row[8].decode(Int.self))
        let item = Item(id: ItemID(try row[1].decode(UUID.self)), householdID: householdID, draft: draft,
                        createdAt: Date(millis: try row[17].decode(Int64.self)), updatedAt: Date(millis: try row[18].decode(Int64.self)))
        return ItemRow(seq: try row[0].decode(Int64.self), item: item, photoCount: try row[19].decode(Int.self),
                       receiptCount: try row[20].decode(Int.self), nameKey: try row[21].decode(String.self),
                       valueMinor: try row[22].decode(Int64.self),
                       primaryPhoto: try row[24].decode([String]?.self).flatMap { photo in
                           photo.count == 3 ? Int64(photo[2]).map { Attachment(sha256: photo[0], contentType: photo[1], byteCount: $0) } : nil
                       })
    }

    static func fetchItems(_ connection: PostgresConnection, _ householdID: HouseholdID, seqs: [Int64], logger: Logger) async throws -> [ItemRow] {
        let query = PostgresQuery(unsafeSQL: "SELECT \(itemColumns) FROM item i WHERE i.household_id = $1 AND i.seq = ANY($2) ORDER BY i.seq",
                                  binds: try binds(householdID.rawValue, seqs))
        return try await itemRows(try await connection.query(query, logger: logger), householdID)
    }

    // MARK: - The list

    /// The conditions of a list (the household, filters; the cursor when asked) and its search, with their values bound.
    struct ListConditions {
        var binds = PostgresBindings()
        var conditions: [String] = []
        /// The search's tsquery, made once (a sub-select); nil without search words.
        var tsquery: String?
        let household: String

        mutating func bind(_ value: some PostgresEncodable) throws -> String {
            try binds.append(value, context: .default)
            return "$\(binds.count)"
        }

        init(_ householdID: HouseholdID, search: String, filter: ItemFilter) throws {
            try binds.append(householdID.rawValue, context: .default)
            let household = "$1"
            self.household = household
            conditions.append("i.household_id = \(household)")
            var bare = filter
            bare.tag = filter.tag.flatMap(Text.clean)
            unfiltered = bare == ItemFilter()
            if filter.needsPhoto { conditions.append("i.photo_count = 0") }
            if filter.needsReceipt { conditions.append("i.receipt_count = 0") }
            if filter.needsValue { conditions.append("i.price_minor IS NULL") }
            if filter.highValue {
                // In the threshold's currency only: without exchange rates another currency's amount is not comparable.
                conditions.append("""
                    i.value_minor > (SELECT high_value_threshold_minor FROM household WHERE id = \(household)) \
                    AND i.currency = (SELECT currency FROM household WHERE id = \(household))
                    """)
            }
            if let room = filter.roomID { conditions.append("i.room_id = \(try bind(room.rawValue))") }
            if let category = filter.categoryID { conditions.append("i.category_id = \(try bind(category.rawValue))") }
            if let tag = filter.tag.flatMap(Text.clean) {
                let key = try bind(Text.foldKey(tag))
                tagKey = key
                conditions.append("""
                    EXISTS (SELECT 1 FROM item_tag t WHERE t.item_seq = i.seq AND t.household_id = \(household) \
                    AND t.tag_key = \(key))
                    """)
                tagCondition = conditions.last
            }
            if let (tokens, operators) = PostgresStore.searchQuery(search) {
                tsquery = "(SELECT nestory_query(\(try bind(tokens))::text[], \(try bind(operators))::text[]))"
            }
        }

        /// `alias`: the table the sort keys are read from (`i`: item; `s`: item_search, which holds them too).
        mutating func after(_ cursor: PageCursor, sort: ItemSort, alias: String = "i") throws {
            conditions.append(try condition(after: cursor, sort: sort, alias: alias))
        }

        /// The condition of the rows after `cursor` in the sort's order, its values bound.
        mutating func condition(after cursor: PageCursor, sort: ItemSort, alias: String) throws -> String {
            guard let (key, seq) = ItemPageCursor.parse(cursor, sort: sort) else { throw ItemPageCursor.outOfDate }
            let a = alias
            switch (sort, key) {
            case (.name, .name(let name)): return "(\(a).name_key, \(a).seq) > (\(try bind(name)) COLLATE \"C\", \(try bind(seq)))"
            case (.value, .number(let value)): return "(\(a).value_minor, \(a).seq) < (\(try bind(value)), \(try bind(seq)))"
            case (.newest, .number(let created)): return "(\(a).created_at, \(a).seq) < (\(try bind(created)), \(try bind(seq)))"
            default: throw ItemPageCursor.outOfDate
            }
        }

        /// The items the filters leave after `cursor`, in the sort's order, as `seq` and the sort key `k`, at most `limit`.
        /// With a tag they are read from the tag's rows in that order (`item_tag_by_*`: each carries its item's keys), and
        /// each one's item row tested for the other filters; else from `item`, whose indexes give the household's, a
        /// room's or a category's items in each order. Call on conditions without a cursor of their own.
        mutating func inOrder(_ sort: ItemSort, after cursor: PageCursor?, limit: Int?) throws -> String {
            let bound = limit.map { " LIMIT \($0)" } ?? ""
            guard let tagKey else {
                let key = PostgresStore.walkKey(sort)
                var clause = filterClause
                if let cursor { clause += " AND " + (try condition(after: cursor, sort: sort, alias: "i")) }
                return "SELECT i.seq, \(key.column) AS k FROM item i WHERE \(clause) ORDER BY \(PostgresStore.order(sort))\(bound)"
            }
            let key = PostgresStore.walkKey(sort, alias: "t")
            var clause = "t.household_id = \(household) AND t.tag_key = \(tagKey)"
            if let cursor { clause += " AND " + (try condition(after: cursor, sort: sort, alias: "t")) }
            let others = conditions.filter { $0 != tagCondition && $0 != "i.household_id = \(household)" }
            let item = others.isEmpty ? "" : """
                 CROSS JOIN LATERAL (SELECT 1 FROM item i WHERE i.seq = t.seq AND \(others.joined(separator: " AND ")) LIMIT 1) AS f
                """
            return """
                SELECT t.seq, \(key.column) AS k FROM \(PostgresStore.taggedItems) AS t\(item) \
                WHERE \(clause) ORDER BY \(PostgresStore.order(sort, alias: "t"))\(bound)
                """
        }

        /// Whether only the household (and a cursor) limits the list: no filter.
        let unfiltered: Bool
        /// The tag filter's key (its bound value) and its condition among `conditions`, when the list has one.
        private(set) var tagKey: String?
        private var tagCondition: String?

        /// The household, filters and cursor, without the search.
        var filterClause: String { conditions.joined(separator: " AND ") }

        /// Every condition, the search looked up in the household's part of the index.
        var whereClause: String {
            guard let tsquery else { return filterClause }
            return filterClause + " AND i.seq IN (SELECT s.seq FROM item_search s WHERE s.household_id = \(household) AND s.document @@ \(tsquery))"
        }
    }

    /// How a page's rows are found; every plan gives the same page.
    package enum ListPlan: Equatable, Sendable {
        /// No search: the household's index in the sort's order, filters tested on the way.
        case sortOrder
        /// Walk at most `budget` items of the sort's order (after filters and cursor), keeping those whose document
        /// matches (each looked up by its key): quick when matches are many where the walk starts.
        case walk(budget: Int)
        /// The household's matches from the search index first (materialized), then filtered and sorted: quick when
        /// matches are few. A walk that found less than a page among `budget` items is followed by this.
        case searchFirst
    }

    /// A tag's rows named as the list's statements name an item's sort keys (`seq` for `item_seq`): a sub-select
    /// PostgreSQL flattens, so conditions on it are conditions on `item_tag` and its indexes serve them.
    static let taggedItems = "(SELECT item_seq AS seq, household_id, tag_key, name_key, value_minor, created_at FROM item_tag)"

    static func order(_ sort: ItemSort, alias: String = "i") -> String {
        switch sort {
        case .name: return "\(alias).name_key, \(alias).seq"
        case .value: return "\(alias).value_minor DESC, \(alias).seq DESC"
        case .newest: return "\(alias).created_at DESC, \(alias).seq DESC"
        }
    }

    /// The sort's key as the walk selects it, and its ORDER BY over the walk's rows.
    /// `alias`: the table the key is read from (`i`: item; `s`: item_search, which holds the keys too).
    static func walkKey(_ sort: ItemSort, alias: String = "i") -> (column: String, order: String) {
        switch sort {
        case .name: return ("\(alias).name_key", "w.k, w.seq")
        case .value: return ("\(alias).value_minor", "w.k DESC, w.seq DESC")
        case .newest: return ("\(alias).created_at", "w.k DESC, w.seq DESC")
        }
    }

    /// The statement of one page by one plan: a page and one row, to tell whether another follows.
    static func pageQuery(_ householdID: HouseholdID, _ query: ItemQuery, plan: ListPlan = .sortOrder) throws -> PostgresQuery {
        var conditions = try ListConditions(householdID, search: query.search, filter: query.filter)
        let limit = query.limit + 1
        if conditions.tsquery == nil, conditions.tagKey != nil {
            // A tag's page: its rows in the sort's order, each item read and tested for the other filters, until a page
            // and one pass.
            let items = try conditions.inOrder(query.sort, after: query.after, limit: nil)
            return PostgresQuery(unsafeSQL: """
                SELECT \(itemColumns) FROM (\(items)) AS w JOIN item i ON i.seq = w.seq
                ORDER BY \(walkKey(query.sort).order) LIMIT \(limit)
                """, binds: conditions.binds)
        }
        if case .walk(let budget) = plan, let tsquery = conditions.tsquery, !Self.walksSearchRows(query.filter) {
            // A room, a category or a tag: the items of the sort order that pass it come from their own indexes
            // (`item_by_room_*`, `item_by_category_*`, `item_tag_by_*`), and each one's document is tested by its key in
            // a LATERAL sub-select (its LIMIT keeps the planner from making it a join, which read every match of the index
            // first); the walk's rows keep their order (the outer ORDER BY is theirs), so reading stops after a page and one.
            let items = try conditions.inOrder(query.sort, after: query.after, limit: budget)
            return PostgresQuery(unsafeSQL: """
                SELECT \(itemColumns) FROM (\(items)) AS w
                CROSS JOIN LATERAL (SELECT 1 FROM item_search s WHERE s.seq = w.seq AND s.household_id = \(conditions.household)
                                    AND s.document @@ \(tsquery) LIMIT 1) AS m
                JOIN item i ON i.seq = w.seq
                ORDER BY \(walkKey(query.sort).order) LIMIT \(limit)
                """, binds: conditions.binds)
        }
        if let cursor = query.after { try conditions.after(cursor, sort: query.sort) }
        guard let tsquery = conditions.tsquery, plan != .sortOrder else {
            return PostgresQuery(unsafeSQL: """
                SELECT \(itemColumns) FROM item i WHERE \(conditions.whereClause)
                ORDER BY \(order(query.sort)) LIMIT \(limit)
                """, binds: conditions.binds)
        }
        if case .walk(let budget) = plan, Self.walksSearchRows(query.filter) {
            // The walk reads the search index's own rows in the sort's order (they hold the sort keys, `item_search_by_*`)
            // and tests each document where it lies: about 1.3–1.9 µs a row at 100,000 items, against 16 µs for looking up
            // each item's document by its key. Only a matching row's item is read, to test the filters (a LATERAL
            // sub-select, so not a join of every walked row). The inner LIMIT bounds the walk; the rows keep its order,
            // so reading stops after a page and one.
            var walk = try ListConditions(householdID, search: query.search, filter: query.filter)
            let filters = walk.conditions
            walk.conditions = ["s.household_id = \(walk.household)"]
            if let cursor = query.after { try walk.after(cursor, sort: query.sort, alias: "s") }
            let key = walkKey(query.sort, alias: "s")
            return PostgresQuery(unsafeSQL: """
                SELECT \(itemColumns) FROM (
                    SELECT s.seq, s.document, \(key.column) AS k FROM item_search s
                    WHERE \(walk.filterClause) ORDER BY \(order(query.sort, alias: "s")) LIMIT \(budget)) AS w
                CROSS JOIN LATERAL (SELECT * FROM item i WHERE i.seq = w.seq AND \(filters.joined(separator: " AND ")) LIMIT 1) AS i
                WHERE w.document @@ \(walk.tsquery ?? tsquery)
                ORDER BY \(key.order) LIMIT \(limit)
                """, binds: walk.binds)
        }
        if conditions.unfiltered {
            // Without filters the matches are sorted by the keys the index's rows hold; only the page's items are read.
            var matches = try ListConditions(householdID, search: query.search, filter: ItemFilter())
            matches.conditions = ["s.household_id = \(matches.household)", "s.document @@ \(matches.tsquery ?? tsquery)"]
            if let cursor = query.after { try matches.after(cursor, sort: query.sort, alias: "s") }
            let key = walkKey(query.sort, alias: "s")
            // The matches are gathered unordered (MATERIALIZED), then sorted: asked for them in a sort's order, the planner
            // walked the index's rows in that order (`item_search_by_*`, for the walk) testing every document, 50 ms for
            // a word nothing has at 100,000 items, since it takes any search to match one item in 200.
            return PostgresQuery(unsafeSQL: """
                WITH m AS MATERIALIZED (
                    SELECT s.seq, \(key.column) AS k FROM item_search s
                    WHERE \(matches.filterClause))
                SELECT \(itemColumns) FROM (SELECT w.seq, w.k FROM m AS w ORDER BY \(key.order) LIMIT \(limit)) AS w
                JOIN item i ON i.seq = w.seq ORDER BY \(key.order)
                """, binds: matches.binds)
        }
        // With filters: the matches sorted by the index's copy of the keys, then each one's item read in that order and
        // tested (a LATERAL sub-select, so not a join of every match), until a page and one pass.
        var matches = try ListConditions(householdID, search: query.search, filter: query.filter)
        let filters = matches.conditions
        matches.conditions = ["s.household_id = \(matches.household)", "s.document @@ \(matches.tsquery ?? tsquery)"]
        if let cursor = query.after { try matches.after(cursor, sort: query.sort, alias: "s") }
        let key = walkKey(query.sort, alias: "s")
        return PostgresQuery(unsafeSQL: """
            WITH m AS MATERIALIZED (
                SELECT s.seq, \(key.column) AS k FROM item_search s
                WHERE \(matches.filterClause))
            SELECT \(itemColumns) FROM (SELECT w.seq, w.k FROM m AS w ORDER BY \(key.order) OFFSET 0) AS w
            CROSS JOIN LATERAL (SELECT * FROM item i WHERE i.seq = w.seq AND \(filters.joined(separator: " AND ")) LIMIT 1) AS i
            ORDER BY \(key.order) LIMIT \(limit)
            """, binds: matches.binds)
    }

    /// How many rows the walk would pass after the cursor (`walksSearchRows`: the household's, since filters are tested on
    /// the matches; else the items that pass the filters), counting stops at `budget`.
    static func walkCandidates(_ householdID: HouseholdID, _ query: ItemQuery, budget: Int) throws -> PostgresQuery {
        guard walksSearchRows(query.filter) else {
            var conditions = try ListConditions(householdID, search: "", filter: query.filter)
            let items = try conditions.inOrder(query.sort, after: query.after, limit: budget)
            return PostgresQuery(unsafeSQL: "SELECT count(*) FROM (\(items)) AS c", binds: conditions.binds)
        }
        var conditions = try ListConditions(householdID, search: "", filter: ItemFilter())
        conditions.conditions = ["s.household_id = \(conditions.household)"]
        if let cursor = query.after { try conditions.after(cursor, sort: query.sort, alias: "s") }
        return PostgresQuery(unsafeSQL: """
            SELECT count(*) FROM (SELECT 1 FROM item_search s WHERE \(conditions.filterClause) ORDER BY \(order(query.sort, alias: "s")) LIMIT \(budget)) AS c
            """, binds: conditions.binds)
    }

    /// Whether a search's walk reads the search index's rows (no filter, or only filters no index serves: needs a photo,
    /// a receipt, a value, high value) rather than the items a room, category or tag index gives in the sort's order.
    /// Measured at 100,000 items: "s" + room went from 1.5 ms to 50 ms on the index's rows (the room's few matches among
    /// 4,000 rows, then every match of "s" sorted), "s" + needs photo from 42 ms to 1.2 ms.
    static func walksSearchRows(_ filter: ItemFilter) -> Bool {
        filter.roomID == nil && filter.categoryID == nil && filter.tag.flatMap(Text.clean) == nil
    }

    /// The walk's budget for a query: rows of the search index (about 1.3–1.9 µs each), or items (about 16 µs each, their
    /// documents looked up by key).
    static func walkBudget(_ query: ItemQuery) -> Int { walksSearchRows(query.filter) ? walkBudget : itemWalkBudget }

    /// How many rows of the sort order a search walks before it lists the index's matches instead: 4,000 rows cost about
    /// 5–8 ms, and find a page wherever one item in 80 matches; rarer words are quicker from the index.
    static let walkBudget = 4_000
    /// The same for a walk of the items a room, category or tag index gives.
    static let itemWalkBudget = 500

    /// A second, longer walk of a room's, category's or tag's items after one that found matches but less than a page
    /// and one: as far as their density says a page and one lies (twice that), at most `longerWalkFactor` times the
    /// first. Listing every match of the search instead sorts them all: a first keystroke ("s") with a room found 49 of
    /// the 51 rows it needed in the Office's first 500 items, then sorted 78,000 matches at 200,000 items (80 ms; 420 ms at
    /// 1,000,000). Nil when a second walk is not worth it (nothing found: the matches are few, the index is quicker).
    static func longerWalk(_ query: ItemQuery, budget: Int, found: Int) -> Int? {
        guard !walksSearchRows(query.filter), found > 0 else { return nil }
        let longer = min(budget * longerWalkFactor, 2 * (query.limit + 1) * budget / found)
        return longer > budget ? longer : nil
    }

    /// 500 items × 8: about 10 ms with the rows in memory (1.3 ms for 500 at 200,000 items).
    static let longerWalkFactor = 8

    public func items(_ householdID: HouseholdID, _ query: ItemQuery) async throws -> Page<ItemListing> {
        try await items(householdID, query, walkBudget: Self.walkBudget(query))
    }

    /// `walkBudget`, `wordBudget`: test hooks (a small one makes searches list the index's matches after a short walk;
    /// a word budget of 0 leaves `item_word` out).
    package func items(_ householdID: HouseholdID, _ query: ItemQuery, walkBudget: Int,
                       wordBudget: Int = PostgresStore.wordBudget) async throws -> Page<ItemListing> {
        guard Self.searchQuery(query.search) != nil else { return try await items(householdID, query, plan: .sortOrder) }
        // Sorted by name, a search reads its rarest word's items in name order first (`item_word`). Else, or when that
        // runs out of budget, it walks the sort order a little: if that finds a page, or passes every item the filters
        // leave, it is the answer; else the index's matches are listed.
        return try await withStoreErrors {
            try await client.withConnection { connection in
                if query.sort == .name, wordBudget > 0,
                   let words = try await Self.wordSearch(connection, householdID, query.search, logger: logger),
                   let rows = try await Self.wordPage(connection, householdID, query, words, budget: wordBudget, logger: logger) {
                    return Self.page(rows, query)
                }
                func walk(_ budget: Int) async throws -> [ItemRow] {
                    try await Self.itemRows(try await connection.query(try Self.pageQuery(householdID, query, plan: .walk(budget: budget)),
                                                                       logger: logger), householdID)
                }
                /// Whether a walk of `budget` stopped short of the items the filters leave (so a page may lie beyond it).
                func cutShort(_ budget: Int) async throws -> Bool {
                    var candidates = 0
                    for try await count in try await connection.query(try Self.walkCandidates(householdID, query, budget: budget),
                                                                      logger: logger).decode(Int.self) {
                        candidates = count
                    }
                    return candidates >= budget
                }
                var rows = try await walk(walkBudget)
                guard rows.count <= query.limit, try await cutShort(walkBudget) else { return Self.page(rows, query) }
                if let longer = Self.longerWalk(query, budget: walkBudget, found: rows.count) {
                    rows = try await walk(longer)
                    guard rows.count <= query.limit, try await cutShort(longer) else { return Self.page(rows, query) }
                }
                rows = try await Self.itemRows(try await connection.query(try Self.pageQuery(householdID, query, plan: .searchFirst),
                                                                          logger: logger), householdID)
                return Self.page(rows, query)
            }
        }
    }

    /// One page by one plan (tests hold every plan to the same pages; benchmarks time them).
    package func items(_ householdID: HouseholdID, _ query: ItemQuery, plan: ListPlan) async throws -> Page<ItemListing> {
        let statement = try Self.pageQuery(householdID, query, plan: plan)
        return try await withStoreErrors {
            Self.page(try await Self.itemRows(try await client.query(statement, logger: logger), householdID), query)
        }
    }

    static func page(_ rows: [ItemRow], _ query: ItemQuery) -> Page<ItemListing> {
        let next = rows.count > query.limit ? rows[query.limit - 1].cursor(query.sort) : nil
        return Page(elements: rows.prefix(query.limit).map(\.listing), nextCursor: next)
    }

    public func countItems(_ householdID: HouseholdID, search: String, filter: ItemFilter, cap: Int) async throws -> (count: Int, exact: Bool) {
        let searching = Self.searchQuery(search) != nil
        let plain = !searching && filter.roomID == nil && filter.categoryID == nil && filter.tag == nil
            && [filter.needsPhoto, filter.needsReceipt, filter.needsValue, filter.highValue].filter { $0 }.count <= 1
        return try await withStoreErrors {
            if plain {
                // The counters answer one filter at once.
                let column = filter.needsPhoto ? "no_photo" : filter.needsReceipt ? "no_receipt" : filter.needsValue ? "no_value"
                    : filter.highValue ? "high_value" : "items"
                let query = PostgresQuery(unsafeSQL: "SELECT \(column) FROM item_stats WHERE household_id = $1",
                                          binds: try Self.binds(householdID.rawValue))
                for try await count in try await client.query(query, logger: logger).decode(Int.self) { return (count, true) }
                return (0, true)
            }
            if searching, filter.tag.flatMap(Text.clean) == nil, filter == ItemFilter(tag: filter.tag),
               let count = try await client.withConnection({ connection -> Int? in
                   // A search of one word and nothing else: its items in `item_word`, each once.
                   guard let words = try await Self.wordSearch(connection, householdID, search, logger: logger), !words.phrase,
                         words.groups.count == 1, words.groups[0].count <= 1 else { return nil }
                   for try await count in try await connection.query(Self.postingsQuery(householdID, words.groups[0], upTo: cap + 1),
                                                                     logger: logger).decode(Int.self) {
                       return count
                   }
                   return 0
               }) {
                return (min(count, cap), count <= cap)
            }
            // Others are counted up to the cap, so they stay cheap at any size.
            let conditions = try ListConditions(householdID, search: search, filter: filter)
            let query = PostgresQuery(unsafeSQL: "SELECT count(*) FROM (SELECT 1 FROM item i WHERE \(conditions.whereClause) LIMIT \(cap + 1)) AS m",
                                      binds: conditions.binds)
            var count = 0
            for try await value in try await client.query(query, logger: logger).decode(Int.self) { count = value }
            return (min(count, cap), count <= cap)
        }
    }

    // MARK: - Summary and charts

    public func summary(_ householdID: HouseholdID) async throws -> InventorySummary {
        try await withStoreErrors {
            try await client.withConnection { connection in
                let household = try await Self.fetchHousehold(connection, householdID, logger: logger)
                var stats: [Int] = [0, 0, 0, 0, 0, 0]
                for try await row in try await connection.query("""
                    SELECT items, documented, no_photo, no_receipt, no_value, high_value FROM item_stats WHERE household_id = \(householdID.rawValue)
                    """, logger: logger).decode((Int, Int, Int, Int, Int, Int).self) {
                    stats = [row.0, row.1, row.2, row.3, row.4, row.5]
                }
                var totals = MoneyTotals()
                for try await (currency, total) in try await connection.query("""
                    SELECT currency, total FROM value_total WHERE household_id = \(householdID.rawValue) AND items > 0
                    """, logger: logger).decode((String, Int64).self) {
                    try totals.add(Money(uncheckedMinorUnits: total, currency: (try? CurrencyCode(currency)) ?? .usd))
                }
                var rooms = 0
                for try await count in try await connection.query("""
                    SELECT count(*) FROM room_total WHERE household_id = \(householdID.rawValue) AND room_id IS NOT NULL AND items > 0
                    """, logger: logger).decode(Int.self) {
                    rooms = count
                }
                return InventorySummary(itemCount: stats[0], roomsInUse: rooms, estimatedValue: totals.amounts(preferred: household.currency),
                                        score: DocumentationScore(documented: stats[1], total: stats[0]), needsPhoto: stats[2],
                                        needsReceipt: stats[3], needsValue: stats[4], highValueCount: stats[5],
                                        highValueThreshold: household.highValueThreshold)
            }
        }
    }

    public func valueByCategory(_ householdID: HouseholdID) async throws -> [CategoryValue] {
        try await withStoreErrors {
            var values: [CategoryValue] = []
            for try await (id, name, color, currency, total, items) in try await client.query("""
                SELECT g.category_id, c.name, c.color_hex, g.currency, g.total, g.items
                FROM category_total g LEFT JOIN category c ON c.id = g.category_id
                WHERE g.household_id = \(householdID.rawValue) AND g.items > 0
                ORDER BY g.total DESC, c.sort_order NULLS FIRST
                """, logger: logger).decode((UUID?, String?, String?, String, Int64, Int).self) {
                values.append(CategoryValue(categoryID: id.map { CategoryID($0) }, name: name ?? CategoryValue.uncategorizedName,
                                            colorHex: color ?? CategoryValue.uncategorizedColor,
                                            value: Money(uncheckedMinorUnits: total, currency: (try? CurrencyCode(currency)) ?? .usd),
                                            itemCount: items))
            }
            return values
        }
    }

    public func itemsByRoom(_ householdID: HouseholdID) async throws -> [RoomCount] {
        try await withStoreErrors {
            var counts: [RoomCount] = []
            for try await (id, name, items) in try await client.query("""
                SELECT g.room_id, r.name, g.items FROM room_total g LEFT JOIN room r ON r.id = g.room_id
                WHERE g.household_id = \(householdID.rawValue) AND g.items > 0
                ORDER BY g.items DESC, r.sort_order NULLS FIRST
                """, logger: logger).decode((UUID?, String?, Int).self) {
                counts.append(RoomCount(roomID: id.map { RoomID($0) }, name: name ?? RoomCount.unassignedName, itemCount: items))
            }
            return counts
        }
    }

    public func tags(_ householdID: HouseholdID) async throws -> [(tag: String, count: Int)] {
        try await withStoreErrors {
            var tags: [(tag: String, count: Int)] = []
            for try await (tag, count) in try await client.query("""
                SELECT min(tag), count(*) AS n FROM item_tag WHERE household_id = \(householdID.rawValue)
                GROUP BY tag_key ORDER BY n DESC, tag_key
                """, logger: logger).decode((String, Int).self) {
                tags.append((tag, count))
            }
            return tags
        }
    }
}
