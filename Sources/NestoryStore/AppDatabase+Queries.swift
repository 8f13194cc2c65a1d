import Foundation
package import GRDB
import NestoryDomain
import NestoryStoreInterfaces

extension AppDatabase {
    // MARK: - The inventory list

    /// One page of the inventory: search, filters and sort compose; pages continue from a cursor.
    public func items(_ householdID: HouseholdID, _ query: ItemQuery) throws -> Page<ItemListing> {
        try read { db in try Self.items(db, householdID, query, lists: listCache, log: nil) }
    }

    /// A page with its household's item content version read in the same transaction (Migrations.itemContentVersion):
    /// what the page shows stays true while `itemContentVersion` still gives that number.
    public func itemsVersioned(_ householdID: HouseholdID, _ query: ItemQuery) throws -> (page: Page<ItemListing>, version: Int64) {
        try read { db in
            (try Self.items(db, householdID, query, lists: listCache, log: nil), try Self.itemContentVersion(db, householdID))
        }
    }

    /// The number that moves on with every change to anything the household's inventory list shows
    /// (Migrations.itemContentVersion); 0 before its first item.
    public func itemContentVersion(_ householdID: HouseholdID) throws -> Int64 {
        try read { db in try Self.itemContentVersion(db, householdID) }
    }

    static func itemContentVersion(_ db: Database, _ householdID: HouseholdID) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT content FROM item_list_version WHERE household_id = ?"),
                           arguments: [householdID.description]) ?? 0
    }

    /// One page and how many items match in all (for "124 items"), at most `cap`, read together.
    public func itemsAndCount(_ householdID: HouseholdID, _ query: ItemQuery, cap: Int = 1000) throws
        -> (page: Page<ItemListing>, matching: (count: Int, exact: Bool)) {
        try read { db in
            // When the keys placed every match for the page, they counted them too.
            let learned = ListLearned()
            let page = try Self.items(db, householdID, query, lists: listCache, log: nil, learned: learned)
            let matching = try learned.matching.map { (min($0, cap), $0 <= cap) }
                ?? Self.countItems(db, householdID, search: query.search, filter: query.filter, cap: cap, lists: listCache)
            return (page, matching)
        }
    }

    /// What a list found out on the way that its caller may use: how many items match in all, when the keys counted them.
    final class ListLearned {
        var matching: Int?
    }

    /// Searches whose words match at most this many items in the whole index are listed from the index's
    /// matches (each looked up in the item table, about 1 µs a match at a million items); more are found by walking the sort order.
    static let searchFirstLimit = 20_000
    /// How many items of the sort order a search walks, testing each, before it lists from the index's matches
    /// instead (about 3 µs an item): it finds a page when matches are common, and gives up quickly when they
    /// are common overall but rare where the walk starts (a word used by one kind of item, in name order).
    static let walkBudget = 3_000
    /// While a household's sort keys are held in memory and current (ItemListCache), searches matching at most this
    /// many items in the index are listed from the index's matches and those keys (about 0.05 µs a match, no seek);
    /// more common words are walked first, and listed from the keys when the walk finds no page.
    static let keysLimit = 100_000

    /// Test hook: one plan forced; every plan gives the same pages.
    func items(_ householdID: HouseholdID, _ query: ItemQuery, plan: ItemListSQL.Plan) throws -> Page<ItemListing> {
        try read { db in try Self.items(db, householdID, query, plan: plan, log: nil) }
    }

    /// Test hook: the page listed from the household's keys in memory (made now if they are not current), or nil
    /// when its cursor cannot be placed there.
    func itemsFromKeys(_ householdID: HouseholdID, _ query: ItemQuery) throws -> Page<ItemListing>? {
        try read { db in
            let keys = try listCache.currentOrBuilt(db, householdID)
            guard case .page(let page) = try Self.fromKeys(db, householdID, query, keys, log: nil) else { return nil }
            return page
        }
    }

    /// Test hook: the page the keys' walk finds with this budget, else the page listed from the keys (as `items` does).
    func itemsFromKeys(_ householdID: HouseholdID, _ query: ItemQuery, walkBudget budget: Int) throws -> Page<ItemListing>? {
        try read { db in
            let keys = try listCache.currentOrBuilt(db, householdID)
            if let walk = try keys.walk(db, search: query.search, filter: query.filter, sort: query.sort, after: query.after,
                                        limit: query.limit + 1, log: nil),
               case .page(let page) = try Self.keysWalk(db, householdID, query, keys, walk, budget: budget, log: nil) { return page }
            guard case .page(let page) = try Self.fromKeys(db, householdID, query, keys, log: nil) else { return nil }
            return page
        }
    }

    /// Test hook: how many items match in all, as the keys counted them while placing the matches for this page (nil when
    /// they could not say: a later page, or the page was not placed by them).
    func matchingCountedByKeys(_ householdID: HouseholdID, _ query: ItemQuery) throws -> Int? {
        try read { db in
            let keys = try listCache.currentOrBuilt(db, householdID)
            let learned = ListLearned()
            _ = try Self.fromKeys(db, householdID, query, keys, log: nil, learned: learned)
            return learned.matching
        }
    }

    /// Test hook: whether the household's keys in memory are current.
    func listKeysAreCurrent(_ householdID: HouseholdID) throws -> Bool {
        try read { db in try listCache.current(db, householdID, requestBuild: false) != nil }
    }

    /// Makes the household's keys in memory now if they are not current (benchmarks; tests).
    package func warmListKeys(_ householdID: HouseholdID) throws {
        _ = try read { db in try listCache.currentOrBuilt(db, householdID) }
    }

    /// The statements `items` runs for a query, in order, with their arguments (it runs them to find out): for
    /// benchmarks that time the same SQL bare beside the facade.
    package func listStatements(_ householdID: HouseholdID, _ query: ItemQuery) throws -> [ListStatement] {
        let log = StatementLog()
        _ = try read { db in try Self.items(db, householdID, query, lists: listCache, log: log) }
        return log.statements
    }

    /// One statement a list ran; `rowLimit`: how many of its rows it reads at most (nil: a page and one).
    package struct ListStatement {
        package var sql: String
        package var arguments: StatementArguments
        package var rowLimit: Int?
    }

    /// What a list ran, when someone asks.
    final class StatementLog {
        var statements: [ListStatement] = []
    }

    static let probeSQL = "SELECT count(*) FROM (SELECT 1 FROM item_fts WHERE item_fts MATCH ? LIMIT ?)"
    static let decidableSQL = "SELECT nestory_matches(?, '', '', '', '', '', '', '')"

    /// How many items of the whole index match the search, counting stops past `limit`.
    private static func probe(_ db: Database, _ match: String, limit: Int, log: StatementLog?) throws -> Int {
        let arguments: StatementArguments = [match, limit + 1]
        log?.statements.append(.init(sql: probeSQL, arguments: arguments))
        return try Int.fetchOne(db.cachedStatement(sql: probeSQL), arguments: arguments) ?? 0
    }

    /// The plan for a query: the index counts the search's matches (stopping past `searchFirstLimit`, so a
    /// common word costs no more than a rare one); few are listed from the index, many by a bounded walk.
    static func plan(_ db: Database, _ query: ItemQuery, log: StatementLog? = nil) throws -> ItemListSQL.Plan {
        guard let match = SearchText.ftsQuery(query.search) else { return .sortOrderFirst }
        let matches = try probe(db, match, limit: searchFirstLimit, log: log)
        return matches <= searchFirstLimit ? .searchFirst : .walkThenSearch(budget: walkBudget)
    }

    /// A page: from the household's keys in memory when they are current, else by the SQL plans alone.
    ///
    /// With the keys, a walk of the sort order (in memory, over the items the filters leave) answers when matches are
    /// dense where it starts (the first keystrokes): it goes on while those found so far promise a page within
    /// `promisingWalkBudget`. Else the index's matches are placed by the keys, unless they are more than `keysLimit`
    /// (then the walk goes on to `walkBudget` first).
    private static func items(_ db: Database, _ householdID: HouseholdID, _ query: ItemQuery, lists: ItemListCache?,
                              log: StatementLog?, learned: ListLearned? = nil) throws -> Page<ItemListing> {
        if SearchText.ftsQuery(query.search) != nil, let keys = try lists?.current(db, householdID),
           let match = try ItemListCache.fullTextQuery(db, query.search) {
            log?.statements.append(.init(sql: decidableSQL, arguments: [query.search]))
            let decidable = try DatabaseValue.fetchOne(db.cachedStatement(sql: decidableSQL), arguments: [query.search])?.isNull == false
            let walk = decidable ? try keys.walk(db, search: query.search, filter: query.filter, sort: query.sort, after: query.after,
                                                 limit: query.limit + 1, log: log) : nil
            if let walk, case .page(let page) = try keysWalk(db, householdID, query, keys, walk, budget: promisingWalkBudget,
                                                                  whilePromising: true, log: log) { return page }
            switch try fromKeys(db, householdID, query, keys, match: match, matchLimit: keysLimit, log: log, learned: learned) {
            case .page(let page): return page
            case .tooMany:
                if let walk, case .page(let page) = try keysWalk(db, householdID, query, keys, walk, budget: walkBudget, log: log) { return page }
                if case .page(let page) = try fromKeys(db, householdID, query, keys, match: match, log: log, learned: learned) { return page }
            case .unplaced: break
            }
        }
        return try items(db, householdID, query, plan: try plan(db, query, log: log), log: log)
    }

    /// How many items the first walk tests at most, while the matches it finds promise a page within them: about 5 µs
    /// an item walked, against about 0.1 µs a match gathered from the index and placed by the keys (measured at a
    /// million items; so for a word in 2% of them, about 2,550 items walked for a page, 13 ms, against its 20,000
    /// matches gathered, 2 ms).
    static let promisingWalkBudget = 1_000

    private static func items(_ db: Database, _ householdID: HouseholdID, _ query: ItemQuery, plan: ItemListSQL.Plan,
                              log: StatementLog?) throws -> Page<ItemListing> {
        if case .walkThenSearch(let budget) = plan {
            if let page = try walk(db, householdID, query, budget: budget, log: log) { return page }
            return try fetchPage(db, householdID, query, sql: try ItemListSQL(householdID: householdID, query: query, plan: .searchFirst), log: log)
        }
        return try fetchPage(db, householdID, query, sql: try ItemListSQL(householdID: householdID, query: query, plan: plan), log: log)
    }

    /// Walks at most `budget` items of the sort order, testing each against the search: the page if that decided it
    /// (it found more than a page, so the next page is known to exist, or walked every item the filters leave), else
    /// nil. It decides only searches whose every word has a token (nearly all).
    private static func walk(_ db: Database, _ householdID: HouseholdID, _ query: ItemQuery, budget: Int,
                             log: StatementLog?) throws -> Page<ItemListing>? {
        log?.statements.append(.init(sql: decidableSQL, arguments: [query.search]))
        guard try DatabaseValue.fetchOne(db.cachedStatement(sql: decidableSQL), arguments: [query.search])?.isNull == false,
              let page = try fetchPage(db, householdID, query, sql: try ItemListSQL(householdID: householdID, query: query,
                                                                                     plan: .walkThenSearch(budget: budget)),
                                       checkOrder: true, log: log) else { return nil }
        if page.nextCursor != nil { return page }
        let rest = try ItemListSQL(householdID: householdID, query: ItemQuery(filter: query.filter, sort: query.sort, after: query.after),
                                   plan: .sortOrderFirst)
        // In the walk's order, so SQLite reads the rows the walk read (in another order it may pass over most of the
        // household to find them: 119 ms for high value at a million items).
        let countSQL = "SELECT COUNT(*) FROM (SELECT 1 FROM item WHERE \(rest.pageWhereClause) ORDER BY \(rest.order) LIMIT \(budget))"
        log?.statements.append(.init(sql: countSQL, arguments: rest.arguments))
        let candidates = try Int.fetchOne(db, sql: countSQL, arguments: rest.arguments) ?? 0
        return candidates < budget ? page : nil
    }

    /// The page the keys' walk found, walking on to `budget` (see `Snapshot.Walk.run`), or that it stopped first (`tooMany`).
    private static func keysWalk(_ db: Database, _ householdID: HouseholdID, _ query: ItemQuery, _ keys: ItemListCache.Snapshot,
                                 _ walk: ItemListCache.Snapshot.Walk, budget: Int, whilePromising: Bool = false,
                                 log: StatementLog?) throws -> KeysAnswer {
        guard let positions = try walk.run(db, budget: budget, whilePromising: whilePromising) else { return .tooMany }
        return try page(db, householdID, query, seqs: positions.map { keys.seqs[$0] }, log: log)
    }

    /// What the keys in memory answered: a page; or that the index has more than the limit's matches; or that the
    /// query's cursor (or a row) could not be placed among the keys.
    private enum KeysAnswer {
        case page(Page<ItemListing>)
        case tooMany
        case unplaced
    }

    /// A page chosen from the search index's matches by the household's keys in memory; the chosen rows' columns are
    /// then read by seq.
    private static func fromKeys(_ db: Database, _ householdID: HouseholdID, _ query: ItemQuery, _ keys: ItemListCache.Snapshot,
                                 match: String? = nil, matchLimit: Int = .max, log: StatementLog?, learned: ListLearned? = nil) throws -> KeysAnswer {
        guard let match = try match ?? ItemListCache.fullTextQuery(db, query.search),
              let chosen = try keys.select(db, match: match, filter: query.filter, sort: query.sort, after: query.after,
                                           limit: query.limit + 1, countCap: 0, matchLimit: matchLimit, log: log) else { return .unplaced }
        if chosen.tooMany { return .tooMany }
        // Every match passing the filters was counted (after the cursor: so only a first page's count is the total).
        if query.after == nil { learned?.matching = chosen.passing }
        return try page(db, householdID, query, seqs: chosen.positions.map { keys.seqs[$0] }, log: log)
    }

    /// The page of these items, in this order (a page and one at most): their columns read by seq.
    private static func page(_ db: Database, _ householdID: HouseholdID, _ query: ItemQuery, seqs: [Int64], log: StatementLog?) throws -> KeysAnswer {
        guard !seqs.isEmpty else { return .page(Page(elements: [], nextCursor: nil)) }
        // `+` keeps SQLite from reading the household's whole index (it chose that over the seqs, 140 ms at a million
        // items). One statement per number of seqs, kept prepared: preparing this join again cost each page about 1 ms.
        let sql = """
            SELECT \(ItemColumns.select), b.sha256, b.content_type, b.byte_count
            FROM item
            LEFT JOIN item_photo p ON p.item_seq = item.seq AND p.is_primary = 1
            LEFT JOIN blob b ON b.sha256 = p.sha256
            WHERE item.seq IN (\(placeholders(seqs.count))) AND +item.household_id = ?
            """
        let arguments = StatementArguments(seqs) + [householdID.description]
        log?.statements.append(.init(sql: sql, arguments: arguments, rowLimit: .max))
        var rows: [Int64: Row] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments) { rows[row[ItemColumns.seq]] = row }
        // The keys were read in an earlier transaction at the same version, so every row is there; if not, the SQL plans answer.
        guard rows.count == seqs.count else { return .unplaced }
        let listings = seqs.prefix(query.limit).map { listing(rows[$0]!, householdID) }
        let next = seqs.count > query.limit ? ItemListSQL.cursor(after: rows[seqs[query.limit - 1]]!, sort: query.sort) : nil
        return .page(Page(elements: listings, nextCursor: next))
    }

    /// `count` SQL parameters, comma-separated.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }

    /// A listing from a row of `ItemColumns.select` followed by the primary photo's blob columns.
    private static func listing(_ row: Row, _ householdID: HouseholdID) -> ItemListing {
        let p = ItemColumns.count
        let primary = (row[p] as String?).map { Attachment(sha256: $0, contentType: row[p + 1], byteCount: row[p + 2]) }
        return ItemListing(item: ItemColumns.item(row, householdID: householdID), photoCount: row[ItemColumns.photoCount],
                           receiptCount: row[ItemColumns.receiptCount], primaryPhoto: primary)
    }

    /// One page from `sql`, reading a page and one row at most.
    private static func fetchPage(_ db: Database, _ householdID: HouseholdID, _ query: ItemQuery, sql: ItemListSQL,
                                  log: StatementLog?) throws -> Page<ItemListing> {
        try fetchPage(db, householdID, query, sql: sql, checkOrder: false, log: log)!
    }

    /// `checkOrder`: the statement has no ORDER BY of its own (the walk), its rows are checked to come in the sort's
    /// order; nil when one did not (then none of them is trusted).
    private static func fetchPage(_ db: Database, _ householdID: HouseholdID, _ query: ItemQuery, sql: ItemListSQL, checkOrder: Bool,
                                  log: StatementLog?) throws -> Page<ItemListing>? {
        log?.statements.append(.init(sql: sql.text, arguments: sql.arguments))
        // The usual shapes (no search words or tag, the pages' and the API's page sizes) stay
        // prepared: at most a few hundred statements per connection. The LIMIT stays literal, as
        // the planner is tuned with it.
        let statement = query.search.isEmpty && query.filter.tag == nil && [40, ItemQuery().limit].contains(query.limit)
            ? try db.cachedStatement(sql: sql.text)
            : try db.makeStatement(sql: sql.text)
        // Rows are decoded as the cursor meets them (no copy of each row first); the query asks
        // for one row more than a page to tell whether another page follows.
        let rows = try Row.fetchCursor(statement, arguments: sql.arguments)
        var listings: [ItemListing] = []
        listings.reserveCapacity(query.limit)
        var lastCursor: PageCursor?
        var hasMore = false
        var previous: Row?
        while let row = try rows.next() {
            if checkOrder {
                if let previous, !ItemListSQL.inOrder(previous, row, sort: query.sort) { return nil }
                previous = row.copy()
            }
            guard listings.count < query.limit else {
                hasMore = true
                break
            }
            listings.append(listing(row, householdID))
            if listings.count == query.limit { lastCursor = ItemListSQL.cursor(after: row, sort: query.sort) }
        }
        let next = hasMore ? lastCursor : nil
        return Page(elements: listings, nextCursor: next)
    }

    /// How many items match a search and filters (for "124 items"), at most `cap`: the counters
    /// answer the plain filters at once; other counts stop at the cap, so they stay cheap at any size.
    public func countItems(_ householdID: HouseholdID, search: String, filter: ItemFilter, cap: Int = 1000) throws -> (count: Int, exact: Bool) {
        try read { db in try Self.countItems(db, householdID, search: search, filter: filter, cap: cap, lists: listCache) }
    }

    private static func countItems(_ db: Database, _ householdID: HouseholdID, search: String, filter: ItemFilter, cap: Int,
                                   lists: ItemListCache?) throws -> (count: Int, exact: Bool) {
        let match = SearchText.ftsQuery(search)
        let searching = match != nil
        // With the household's keys current, the matches are counted from the index and the keys (no seek each).
        if match != nil, let keys = try lists?.current(db, householdID), let match = try ItemListCache.fullTextQuery(db, search),
           let counted = try keys.select(db, match: match, filter: filter, sort: .name, after: nil, limit: 0, countCap: cap, log: nil) {
            return (min(counted.passing, cap), counted.passing <= cap)
        }
        let plain = !searching && filter.roomID == nil && filter.categoryID == nil && filter.tag == nil
            && [filter.needsPhoto, filter.needsReceipt, filter.needsValue, filter.highValue].filter { $0 }.count <= 1
        if plain {
            let column = filter.needsPhoto ? "no_photo" : filter.needsReceipt ? "no_receipt" : filter.needsValue ? "no_value"
                : filter.highValue ? "high_value" : "items"
            let count = try Int.fetchOne(db, sql: "SELECT \(column) FROM item_stats WHERE household_id = ?",
                                         arguments: [householdID.description]) ?? 0
            return (count, true)
        }
        // A search's matches are counted from the full-text index (each match looked up once, and
        // the count stops at the cap), not by testing every item of the household against them.
        let sql = try ItemListSQL(householdID: householdID, query: ItemQuery(search: search, filter: filter),
                                  plan: searching ? .searchFirst : .sortOrderFirst)
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT 1 FROM \(sql.from) WHERE \(sql.whereClause) LIMIT \(cap + 1))",
                                     arguments: sql.whereArguments) ?? 0
        return (min(count, cap), count <= cap)
    }

    /// `FROM … WHERE … ORDER BY seq` for one household's items (its id the statement's next argument). A household
    /// holding at least half of all items is read straight down the table, already in seq order: through one of its
    /// indexes SQLite sorted them all first, in memory (about 300 MB at a million items). A smaller one is read
    /// through its index and sorted, since the table's scan would pass every other household's items.
    /// Also gives how many items the household holds.
    static func householdItemsBySeq(_ db: Database, _ householdID: String) throws -> (sql: String, items: Int) {
        let mine = try Int.fetchOne(db.cachedStatement(sql: "SELECT items FROM item_stats WHERE household_id = ?"), arguments: [householdID]) ?? 0
        let all = try Int.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(SUM(items), 0) FROM item_stats")) ?? 0
        return (mine * 2 >= all ? "FROM item NOT INDEXED WHERE household_id = ? ORDER BY seq" : "FROM item WHERE household_id = ? ORDER BY seq", mine)
    }

    // MARK: - Summary and charts

    /// The statements behind `summary`, in order (public so benchmarks can run them bare).
    public static let summaryStatements = [
        "SELECT items, documented, no_photo, no_receipt, no_value, high_value FROM item_stats WHERE household_id = ?",
        "SELECT currency, total FROM value_total WHERE household_id = ? AND items > 0",
        "SELECT COUNT(*) FROM room_total WHERE household_id = ? AND room_id <> '' AND items > 0",
    ]

    /// The summary strip's figures: counters kept by triggers (the same cost at any size), and the rooms in use
    /// counted from the rooms' counters.
    public func summary(_ householdID: HouseholdID) throws -> InventorySummary {
        try read { db in
            let household = try Self.fetchHousehold(db, householdID)
            let threshold = household.highValueThreshold
            let id = householdID.description
            let statements = Self.summaryStatements
            let stats = try Row.fetchOne(db, sql: statements[0], arguments: [id])
            var totals = MoneyTotals()
            for row in try Row.fetchAll(db, sql: statements[1], arguments: [id]) {
                try totals.add(Money(uncheckedMinorUnits: row[1], currency: row.currency("currency")))
            }
            let rooms = try Int.fetchOne(db, sql: statements[2], arguments: [id]) ?? 0
            let highValue: Int = stats?[5] ?? 0
            let itemCount: Int = stats?[0] ?? 0
            return InventorySummary(
                itemCount: itemCount, roomsInUse: rooms,
                estimatedValue: totals.amounts(preferred: household.currency),
                score: DocumentationScore(documented: stats?[1] ?? 0, total: itemCount),
                needsPhoto: stats?[2] ?? 0, needsReceipt: stats?[3] ?? 0, needsValue: stats?[4] ?? 0,
                highValueCount: highValue, highValueThreshold: threshold)
        }
    }

    /// Value by category for the donut: one entry per category and currency, largest first.
    /// Aggregated from an index alone, then named.
    public func valueByCategory(_ householdID: HouseholdID) throws -> [CategoryValue] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT NULLIF(g.category_id, '') AS category_id, c.name, c.color_hex, g.currency, g.total, g.items
                FROM category_total g LEFT JOIN category c ON c.id = g.category_id
                WHERE g.household_id = ? AND g.items > 0
                ORDER BY g.total DESC, c.sort_order
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
                SELECT NULLIF(g.room_id, '') AS room_id, r.name, g.items
                FROM room_total g LEFT JOIN room r ON r.id = g.room_id
                WHERE g.household_id = ? AND g.items > 0
                ORDER BY g.items DESC, r.sort_order
                """, arguments: [householdID.description]).map { row in
                RoomCount(roomID: row.optionalID("room_id"), name: row["name"] ?? RoomCount.unassignedName, itemCount: row["items"])
            }
        }
    }

    /// How many items each category holds (from an index alone).
    public func itemCountsByCategory(_ householdID: HouseholdID) throws -> [CategoryID: Int] {
        try read { db in
            var counts: [CategoryID: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT category_id, COUNT(*) FROM item WHERE household_id = ? AND category_id IS NOT NULL GROUP BY category_id",
                                        arguments: [householdID.description]) {
                if let id = CategoryID(string: row[0]) { counts[id] = row[1] }
            }
            return counts
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
    /// How SQLite finds a page's rows; both give the same rows in the same order.
    enum Plan: Equatable {
        /// Walk the household's index in the requested order, testing each item, until the page
        /// is full: quick when many items match, a walk through the whole household when few do.
        case sortOrderFirst
        /// Take the search's matches from the full-text index, keep the household's that pass the
        /// filters, sort them and read the columns of the page's rows only: quick when few match.
        /// Without search words this is `sortOrderFirst`.
        case searchFirst
        /// Walk at most `budget` items of the household's index in the requested order (after the filters and
        /// the cursor), keeping those whose indexed text `nestory_matches` the search: quick when many match
        /// where the walk starts. When it finds less than a page and more items were left, the list is made by
        /// `searchFirst` (`AppDatabase.items` decides).
        case walkThenSearch(budget: Int)
    }

    /// The FROM clause `whereClause` is written for.
    var from: String
    var whereClause: String
    var whereArguments: StatementArguments
    /// Every condition of the page (the household, filters, search unless walked, the cursor), for `FROM item`.
    var pageWhereClause: String
    /// The sort's ORDER BY terms.
    var order: String
    var text: String
    var arguments: StatementArguments

    /// High value compares items in the threshold's currency only: without exchange rates, an
    /// amount in another currency cannot honestly be called above or below it.
    init(householdID: HouseholdID, query: ItemQuery, plan: Plan) throws {
        var conditions = ["item.household_id = ?"]
        var args: [any DatabaseValueConvertible] = [householdID.description]
        let filter = query.filter
        if filter.needsPhoto { conditions.append("item.photo_count = 0") }
        if filter.needsReceipt { conditions.append("item.receipt_count = 0") }
        if filter.needsValue { conditions.append("item.price_minor IS NULL") }
        if filter.highValue {
            // `+` keeps SQLite from driving the scan by the value index when another order was asked
            // for: scanning in the requested order stops after one page.
            conditions.append("""
                +item.value_minor > (SELECT high_value_threshold_minor FROM household WHERE id = ?) \
                AND +item.currency = (SELECT currency FROM household WHERE id = ?)
                """)
            args.append(householdID.description)
            args.append(householdID.description)
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
        let match = SearchText.ftsQuery(query.search)
        let searchFirst = plan == .searchFirst && match != nil
        var walkBudget: Int?
        if case .walkThenSearch(let budget) = plan, match != nil { walkBudget = budget }
        if let match, walkBudget == nil {
            conditions.append(searchFirst ? "item_fts MATCH ?" : "item.seq IN (SELECT rowid FROM item_fts WHERE item_fts MATCH ?)")
            args.append(match)
        }
        // CROSS JOIN keeps this order: the full-text matches first, each item then found by its key.
        from = searchFirst ? "item_fts CROSS JOIN item ON item.seq = item_fts.rowid" : "item"
        whereClause = conditions.joined(separator: " AND ")
        whereArguments = StatementArguments(args)

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
        pageWhereClause = conditions.joined(separator: " AND ")
        if let walkBudget {
            // The walk reads keys from the sort order's index; each item's indexed text is read by its rowid
            // from the search index's copy and tested; columns and photos are read for the page's rows only.
            // No ORDER BY outside: rows come in the walk's order (the join order is fixed), so the caller stops
            // reading after a page and one, and checks that order as it reads (`inOrder`).
            text = """
                SELECT \(ItemColumns.select), b.sha256, b.content_type, b.byte_count
                FROM (SELECT item.seq AS seq FROM item
                      WHERE \(conditions.joined(separator: " AND "))
                      ORDER BY \(order)
                      LIMIT \(walkBudget)) AS walk
                CROSS JOIN item_fts ON item_fts.rowid = walk.seq
                CROSS JOIN item ON item.seq = walk.seq
                LEFT JOIN item_photo p ON p.item_seq = item.seq AND p.is_primary = 1
                LEFT JOIN blob b ON b.sha256 = p.sha256
                WHERE nestory_matches(?, item_fts.name, item_fts.brand, item_fts.model, item_fts.serial, item_fts.notes,
                                      item_fts.tags, item_fts.receipts)
                """
            args.append(query.search)
        } else if searchFirst {
            // The matches are sorted by their keys alone; columns, tags and photos are read for
            // the page's rows only.
            text = """
                SELECT \(ItemColumns.select), b.sha256, b.content_type, b.byte_count
                FROM (SELECT item.seq AS seq FROM \(from)
                      WHERE \(conditions.joined(separator: " AND "))
                      ORDER BY \(order)
                      LIMIT \(query.limit + 1)) AS page
                CROSS JOIN item ON item.seq = page.seq
                LEFT JOIN item_photo p ON p.item_seq = item.seq AND p.is_primary = 1
                LEFT JOIN blob b ON b.sha256 = p.sha256
                ORDER BY \(order)
                """
        } else {
            text = """
                SELECT \(ItemColumns.select), b.sha256, b.content_type, b.byte_count
                FROM item
                LEFT JOIN item_photo p ON p.item_seq = item.seq AND p.is_primary = 1
                LEFT JOIN blob b ON b.sha256 = p.sha256
                WHERE \(conditions.joined(separator: " AND "))
                ORDER BY \(order)
                LIMIT \(query.limit + 1)
                """
        }
        arguments = StatementArguments(args)
    }

    /// Whether `next` comes after `previous` in the sort's order (sort key, then sequence number).
    static func inOrder(_ previous: Row, _ next: Row, sort: ItemSort) -> Bool {
        let previousSeq: Int64 = previous[ItemColumns.seq], nextSeq: Int64 = next[ItemColumns.seq]
        switch sort {
        case .name:
            let a: String = previous[ItemColumns.nameKey], b: String = next[ItemColumns.nameKey]
            // The index orders by SQLite's BINARY collation: bytes.
            return a.utf8.lexicographicallyPrecedes(b.utf8) || (a.utf8.elementsEqual(b.utf8) && previousSeq < nextSeq)
        case .value:
            let a: Int64 = previous[ItemColumns.valueMinor], b: Int64 = next[ItemColumns.valueMinor]
            return a > b || (a == b && previousSeq > nextSeq)
        case .newest:
            let a: Int64 = previous[ItemColumns.createdAt], b: Int64 = next[ItemColumns.createdAt]
            return a > b || (a == b && previousSeq > nextSeq)
        }
    }

    /// The cursor names the sort and the last row's sort key and sequence number (`ItemPageCursor`, every engine's format).
    static func cursor(after row: Row, sort: ItemSort) -> PageCursor {
        let key: ItemPageCursor.Key
        switch sort {
        case .name: key = .name(row[ItemColumns.nameKey])
        case .value: key = .number(row[ItemColumns.valueMinor])
        case .newest: key = .number(row[ItemColumns.createdAt])
        }
        return ItemPageCursor.make(sort: sort, key: key, seq: row[ItemColumns.seq])
    }

    /// A cursor's sort key (the name key, or the value or created time) and sequence number; nil when it is not one of
    /// this sort's cursors (`cursor(after:sort:)` writes them).
    static func cursorKey(_ cursor: PageCursor, sort: ItemSort) -> (key: CursorKey, seq: Int64)? {
        ItemPageCursor.parse(cursor, sort: sort)
    }

    typealias CursorKey = ItemPageCursor.Key

    static func cursorCondition(_ cursor: PageCursor, sort: ItemSort) throws -> (String, [any DatabaseValueConvertible]) {
        let invalid = ItemPageCursor.outOfDate
        guard let (key, seq) = cursorKey(cursor, sort: sort) else { throw invalid }
        switch (sort, key) {
        case (.name, .name(let name)): return ("(item.name_key, item.seq) > (?, ?)", [name, seq])
        case (.value, .number(let value)): return ("(item.value_minor, item.seq) < (?, ?)", [value, seq])
        case (.newest, .number(let created)): return ("(item.created_at, item.seq) < (?, ?)", [created, seq])
        default: throw invalid  // cursorKey gives a name key for the name sort only
        }
    }
}
