import Foundation
internal import GRDB
import NestoryDomain
import Synchronization

/// What a large household's inventory list is sorted and filtered by, item by item, held in memory: so a search
/// that many items match is listed from the search index's matches without looking each match up in the item
/// table. That lookup is a seek (about 1 µs at a million items): 76 ms for a word 76,000 items share, when they
/// sit together in the asked order and the bounded walk of the sort order (AppDatabase.plan) cannot find them.
/// Reading the index's matches costs about 0.06 µs each, gathered in one blob (SeqCollector), and placing them by these
/// keys about 0.03 µs.
///
/// A copy is used only while it is exactly current: it carries the household's `item_list_version` (a number
/// triggers move on with every change to these keys, Migrations.itemListVersion) read in the same transaction as
/// its keys, and a list uses it only when that is the number its own transaction reads. Otherwise the list runs
/// on SQL alone, as without this, and a new copy is made in the background. So a copy can be late, never wrong.
final class ItemListCache: Sendable {
    /// Households with fewer items are never kept: the walk of the sort order covers them whole.
    static let minimumItems = AppDatabase.walkBudget
    /// At most this many items are kept over all households (about 50 bytes each); the household used least
    /// recently is dropped first.
    static let budget = 2_000_000
    private let pool: DatabasePool
    private let gate: UseGate
    private let state = Mutex(State())

    private struct State {
        var snapshots: [String: Snapshot] = [:]
        var lastUse: [String: UInt64] = [:]
        var building: Set<String> = []
        /// When a household's next copy may start: a household written to all the time is not copied again after
        /// every write (a copy of a million items costs about a second of CPU).
        var notBefore: [String: ContinuousClock.Instant] = [:]
        var clock: UInt64 = 0
        var closed = false
    }

    init(pool: DatabasePool, gate: UseGate) {
        self.pool = pool
        self.gate = gate
    }

    static func version(_ db: Database, _ householdID: String) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM item_list_version WHERE household_id = ?"),
                           arguments: [householdID]) ?? 0
    }

    /// The search as a full-text query, its last word no longer a prefix when no word of the index merely starts with
    /// it: the same matches, read about ten times faster (a prefix query gathers every matching word's list of
    /// places first: 13 ms for "walnut"* at a million items, 1.5 ms for "walnut"). The index's vocabulary is read in
    /// the caller's transaction, so the answer holds for the matches read in it.
    static func fullTextQuery(_ db: Database, _ search: String) throws -> String? {
        guard let match = SearchText.ftsQuery(search), let last = SearchText.words(search)?.last else { return nil }
        let tokenizer = try db.makeTokenizer(SearchMatcher.descriptor)
        guard let token = try tokenizer.tokenize(query: last).last?.token else { return match }
        // The first word of the index after the token and any longer word starting with it (no word has a control
        // character): `instance` rows, so no word's list of places is read to count it (`row` rows read the list of
        // the word they stop at, and a `>` bound stops at the token itself first: 23 ms for "for" at a million items).
        // Made once per connection: GRDB empties a connection's statement cache after any statement that creates a table,
        // even one that already exists (so each search prepared all its statements again).
        if try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM temp.sqlite_master WHERE name = 'nestory_vocabulary')")) != true {
            try db.execute(sql: "CREATE VIRTUAL TABLE temp.nestory_vocabulary USING fts5vocab(main, item_fts, instance)")
        }
        let next = try String.fetchOne(db.cachedStatement(sql: "SELECT term FROM temp.nestory_vocabulary WHERE term >= ? LIMIT 1"),
                                       arguments: [token + "\u{1}"])
        if let next, next.utf8.starts(with: token.utf8) { return match }
        return String(match.dropLast())
    }

    /// The household's copy if it is current in `db`'s transaction; else nil, and a new copy is asked for.
    func current(_ db: Database, _ householdID: HouseholdID, requestBuild: Bool = true) throws -> Snapshot? {
        let id = householdID.description
        let version = try Self.version(db, id)
        let found: Snapshot? = state.withLock { state in
            guard let snapshot = state.snapshots[id], snapshot.version == version else { return nil }
            state.clock += 1
            state.lastUse[id] = state.clock
            return snapshot
        }
        if found == nil, requestBuild { try self.requestBuild(db, id) }
        return found
    }

    private func requestBuild(_ db: Database, _ id: String) throws {
        let items = try Int.fetchOne(db.cachedStatement(sql: "SELECT items FROM item_stats WHERE household_id = ?"), arguments: [id]) ?? 0
        guard items >= Self.minimumItems else { return }
        let start: Bool = state.withLock { state in
            if state.closed || state.building.contains(id) { return false }
            if let notBefore = state.notBefore[id], ContinuousClock.now < notBefore { return false }
            state.building.insert(id)
            return true
        }
        guard start else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            let started = ContinuousClock.now
            let snapshot: Snapshot? = try? {
                try gate.enter(path: "")
                defer { gate.leave() }
                return try pool.read { db in try Snapshot.build(db, id) }
            }()
            let took = ContinuousClock.now - started
            state.withLock { state in
                state.building.remove(id)
                state.notBefore[id] = ContinuousClock.now + max(.seconds(2), took * 5)
            }
            if let snapshot { keep(snapshot) }
        }
    }

    /// The household's copy, made now in `db`'s transaction if it is not current (tests, benchmarks and warming).
    func currentOrBuilt(_ db: Database, _ householdID: HouseholdID) throws -> Snapshot {
        try current(db, householdID, requestBuild: false) ?? build(db, householdID)
    }

    /// No copy is started after this (the store is closing); one under way finishes first or fails quietly.
    func close() {
        state.withLock { $0.closed = true }
    }

    /// Makes the household's copy now, in `db`'s transaction, and keeps it (tests, benchmarks and warming).
    @discardableResult
    func build(_ db: Database, _ householdID: HouseholdID) throws -> Snapshot {
        let snapshot = try Snapshot.build(db, householdID.description)
        keep(snapshot)
        return snapshot
    }

    private func keep(_ snapshot: Snapshot) {
        state.withLock { state in
            if let held = state.snapshots[snapshot.householdID], held.version > snapshot.version { return }
            state.clock += 1
            state.snapshots[snapshot.householdID] = snapshot
            state.lastUse[snapshot.householdID] = state.clock
            var total = state.snapshots.values.reduce(0) { $0 + $1.count }
            while total > Self.budget, state.snapshots.count > 1,
                  let oldest = state.lastUse.filter({ $0.key != snapshot.householdID }).min(by: { $0.value < $1.value })?.key {
                total -= state.snapshots[oldest]?.count ?? 0
                state.snapshots[oldest] = nil
                state.lastUse[oldest] = nil
            }
        }
    }

    /// The keys of one household's items at one version. Arrays run in the order of `seqs` (ascending).
    final class Snapshot: Sendable {
        let householdID: String
        let version: Int64
        let seqs: [Int64]
        /// Position in name order (name_key as bytes, then seq), as the name index orders them.
        let nameRank: [UInt32]
        let value: [Int64]
        let created: [Int64]
        /// Rooms and categories by number (0: none), numbered in `rooms` and `categories`.
        let room: [UInt32]
        let category: [UInt32]
        let flags: [UInt8]
        let rooms: [String: UInt32]
        let categories: [String: UInt32]
        /// Positions in each sort's order.
        let byName: [UInt32]
        let byValue: [UInt32]
        let byNewest: [UInt32]
        /// Which items carry a tag, by tag key, read the first time a list filters by it.
        private let tags = Mutex<[String: [UInt64]]>([:])

        static let noPhoto: UInt8 = 1, noReceipt: UInt8 = 2, noValue: UInt8 = 4, highValue: UInt8 = 8

        var count: Int { seqs.count }

        private init(householdID: String, version: Int64, seqs: [Int64], nameRank: [UInt32], value: [Int64], created: [Int64],
                     room: [UInt32], category: [UInt32], flags: [UInt8], rooms: [String: UInt32], categories: [String: UInt32]) {
            self.householdID = householdID
            self.version = version
            self.seqs = seqs
            self.nameRank = nameRank
            self.value = value
            self.created = created
            self.room = room
            self.category = category
            self.flags = flags
            self.rooms = rooms
            self.categories = categories
            var byName = [UInt32](repeating: 0, count: seqs.count)
            for (position, rank) in nameRank.enumerated() { byName[Int(rank)] = UInt32(position) }
            self.byName = byName
            let positions = (0..<UInt32(seqs.count))
            self.byValue = positions.sorted { (value[Int($0)], seqs[Int($0)]) > (value[Int($1)], seqs[Int($1)]) }
            self.byNewest = positions.sorted { (created[Int($0)], seqs[Int($0)]) > (created[Int($1)], seqs[Int($1)]) }
        }

        static func build(_ db: Database, _ id: String) throws -> Snapshot {
            let version = try ItemListCache.version(db, id)
            let household = try Row.fetchOne(db, sql: "SELECT currency, high_value_threshold_minor FROM household WHERE id = ?", arguments: [id])
            let currency: String = household?[0] ?? "", threshold: Int64 = household?[1] ?? Int64.max
            let (from, mine) = try AppDatabase.householdItemsBySeq(db, id)
            var seqs: [Int64] = [], value: [Int64] = [], created: [Int64] = [], room: [UInt32] = [], category: [UInt32] = []
            var flags: [UInt8] = []
            seqs.reserveCapacity(mine)
            value.reserveCapacity(mine)
            created.reserveCapacity(mine)
            room.reserveCapacity(mine)
            category.reserveCapacity(mine)
            flags.reserveCapacity(mine)
            var rooms: [String: UInt32] = [:], categories: [String: UInt32] = [:]
            func number(_ text: String?, _ table: inout [String: UInt32]) -> UInt32 {
                guard let text else { return 0 }
                if let known = table[text] { return known }
                let next = UInt32(table.count + 1)
                table[text] = next
                return next
            }
            let rows = try Row.fetchCursor(db, sql: """
                SELECT seq, value_minor, created_at, room_id, category_id,
                       photo_count = 0, receipt_count = 0, price_minor IS NULL, currency = ? AND value_minor > ?
                \(from)
                """, arguments: [currency, threshold, id])
            while let row = try rows.next() {
                seqs.append(row[0])
                value.append(row[1])
                created.append(row[2])
                room.append(number(row[3], &rooms))
                category.append(number(row[4], &categories))
                var bits: UInt8 = 0
                if row[5] as Bool { bits |= noPhoto }
                if row[6] as Bool { bits |= noReceipt }
                if row[7] as Bool { bits |= noValue }
                if row[8] as Bool { bits |= highValue }
                flags.append(bits)
            }
            var nameRank = [UInt32](repeating: 0, count: seqs.count)
            var rank: UInt32 = 0
            let names = try Int64.fetchCursor(db, sql: "SELECT seq FROM item WHERE household_id = ? ORDER BY name_key, seq", arguments: [id])
            while let seq = try names.next() {
                guard let position = position(of: seq, in: seqs) else { throw StoreError.corrupt(path: "nestory.sqlite", detail: "item \(seq) is in the name index but not the table") }
                nameRank[position] = rank
                rank += 1
            }
            return Snapshot(householdID: id, version: version, seqs: seqs, nameRank: nameRank, value: value, created: created,
                            room: room, category: category, flags: flags, rooms: rooms, categories: categories)
        }

        static func position(of seq: Int64, in seqs: [Int64]) -> Int? {
            let index = lowerBound(seqs, seq, from: 0)
            return index < seqs.count && seqs[index] == seq ? index : nil
        }

        /// The first index at or after `from` whose seq is not below `seq`, by galloping then bisecting: the search
        /// index gives its matches in ascending order, so each is found from where the last one was.
        @inline(__always)
        static func lowerBound(_ seqs: [Int64], _ seq: Int64, from start: Int) -> Int {
            var low = start, step = 1, high = start
            while high < seqs.count, seqs[high] < seq {
                low = high + 1
                high += step
                step *= 2
            }
            high = min(high, seqs.count)
            while low < high {
                let middle = (low + high) / 2
                if seqs[middle] < seq { low = middle + 1 } else { high = middle }
            }
            return low
        }

        /// Which positions carry the tag (its key as item_tag keeps it).
        func tagged(_ db: Database, _ key: String) throws -> [UInt64] {
            if let known = tags.withLock({ $0[key] }) { return known }
            var bits = [UInt64](repeating: 0, count: (seqs.count + 63) / 64)
            let rows = try Int64.fetchCursor(db, sql: "SELECT item_seq FROM item_tag WHERE household_id = ? AND tag_key = ? ORDER BY item_seq",
                                             arguments: [householdID, key])
            var from = 0
            while let seq = try rows.next() {
                from = Self.lowerBound(seqs, seq, from: from)
                if from < seqs.count, seqs[from] == seq { bits[from / 64] |= 1 << UInt64(from % 64) }
            }
            tags.withLock { $0[key] = bits }
            return bits
        }

        /// What a position is ordered by in `sort`: smaller first. Seqs break ties as the SQL orders do.
        @inline(__always)
        func orderKey(_ position: Int, _ sort: ItemSort) -> (Int64, Int64) {
            switch sort {
            case .name: (Int64(nameRank[position]), 0)
            case .value: (-value[position], -seqs[position])
            case .newest: (-created[position], -seqs[position])
            }
        }

        /// The filter as tests on positions; nil when no item can pass (a room or category no item is in).
        struct Test {
            var flags: UInt8 = 0
            var room: UInt32?
            var category: UInt32?
            var tagged: [UInt64]?
            var none = false

            @inline(__always)
            func passes(_ snapshot: Snapshot, _ position: Int) -> Bool {
                if snapshot.flags[position] & flags != flags { return false }
                if let room, snapshot.room[position] != room { return false }
                if let category, snapshot.category[position] != category { return false }
                if let tagged, tagged[position / 64] & (1 << UInt64(position % 64)) == 0 { return false }
                return true
            }
        }

        func test(_ db: Database, _ filter: ItemFilter) throws -> Test {
            var test = Test()
            if filter.needsPhoto { test.flags |= Self.noPhoto }
            if filter.needsReceipt { test.flags |= Self.noReceipt }
            if filter.needsValue { test.flags |= Self.noValue }
            if filter.highValue { test.flags |= Self.highValue }
            if let room = filter.roomID {
                guard let number = rooms[room.description] else { test.none = true; return test }
                test.room = number
            }
            if let category = filter.categoryID {
                guard let number = categories[category.description] else { test.none = true; return test }
                test.category = number
            }
            if let tag = filter.tag.flatMap(Text.clean) { test.tagged = try tagged(db, Text.foldKey(tag)) }
            return test
        }

        /// The order key a page continues after, from its cursor; nil when the cursor cannot be placed here (the SQL
        /// path then reads it, and says what is wrong with it).
        func boundary(_ db: Database, _ cursor: PageCursor, _ sort: ItemSort) throws -> (Int64, Int64)? {
            guard let (key, seq) = ItemListSQL.cursorKey(cursor, sort: sort) else { return nil }
            switch key {
            case .name(let name):
                // The rank of the cursor's item, if it is still there under the name the cursor carries.
                guard let position = Self.position(of: seq, in: seqs),
                      try String.fetchOne(db, sql: "SELECT name_key FROM item WHERE seq = ?", arguments: [seq]) == name else { return nil }
                return (Int64(nameRank[position]), 0)
            case .number(let number):
                return (-number, -seq)
            }
        }

        /// A walk of the sort's order from the cursor over the items passing the filter, testing their indexed text
        /// against the search in batches (`nestory_matches`, as the SQL walk does); nil when the cursor cannot be placed.
        func walk(_ db: Database, search: String, filter: ItemFilter, sort: ItemSort, after cursor: PageCursor?, limit: Int,
                  log: AppDatabase.StatementLog?) throws -> Walk? {
            let test = try test(db, filter)
            let order = self.order(sort)
            var start = 0
            if let cursor, !test.none {
                guard let first = try first(db, after: cursor, sort) else { return nil }
                start = first
            }
            return Walk(snapshot: self, test: test, order: order, index: test.none ? order.count : start, search: search,
                        limit: limit, log: log)
        }

        func order(_ sort: ItemSort) -> [UInt32] {
            switch sort { case .name: byName; case .value: byValue; case .newest: byNewest }
        }

        /// The place in the sort's order of the first item after the cursor; nil when the cursor cannot be placed here.
        func first(_ db: Database, after cursor: PageCursor, _ sort: ItemSort) throws -> Int? {
            guard let after = try boundary(db, cursor, sort) else { return nil }
            let order = self.order(sort)
            var start = 0, high = order.count
            while start < high {
                let middle = (start + high) / 2
                if orderKey(Int(order[middle]), sort) > after { high = middle } else { start = middle + 1 }
            }
            return start
        }

        /// A walk under way: it goes on from where it stopped when given a larger budget.
        final class Walk {
            private let snapshot: Snapshot
            private let test: Test
            private let order: [UInt32]
            private var index: Int
            private let search: String
            private let limit: Int
            private let log: AppDatabase.StatementLog?
            private var found: [Int] = []
            private var candidates: [Int] = []
            /// Items passing the filter tested so far (or waiting in `candidates`).
            private var walked = 0

            fileprivate init(snapshot: Snapshot, test: Test, order: [UInt32], index: Int, search: String, limit: Int,
                             log: AppDatabase.StatementLog?) {
                self.snapshot = snapshot
                self.test = test
                self.order = order
                self.index = index
                self.search = search
                self.limit = limit
                self.log = log
            }

            /// Walks on until `budget` items in all were tested: the positions of the first `limit` that match, or of
            /// every match when the walk reached the end of the order (complete); nil when the budget ran out first.
            /// `whilePromising`: the walk also stops (nil) after a batch when, at the share of matches found so far, the
            /// rest of the budget could not find a page (the index's matches are then cheaper than walking on).
            func run(_ db: Database, budget: Int, whilePromising: Bool = false) throws -> [Int]? {
                if whilePromising, !promising(budget) { return nil }
                while index < order.count, found.count < limit, walked < budget {
                    let position = Int(order[index])
                    index += 1
                    guard test.passes(snapshot, position) else { continue }
                    candidates.append(position)
                    walked += 1
                    if candidates.count == Snapshot.walkBatch {
                        try testBatch(db)
                        if whilePromising, !promising(budget) { break }
                    }
                }
                if found.count < limit { try testBatch(db) }
                if found.count >= limit { return Array(found.prefix(limit)) }
                return index >= order.count ? found : nil
            }

            /// Whether `budget` items in all are expected to give a page, at the share of matches among those tested.
            private func promising(_ budget: Int) -> Bool {
                walked == 0 || found.count * budget >= limit * walked
            }

            private func testBatch(_ db: Database) throws {
                guard !candidates.isEmpty else { return }
                let seqs = snapshot.seqs
                // Prepared once for each batch size (nearly always `walkBatch`).
                let sql = """
                    SELECT rowid FROM item_fts WHERE rowid IN (\(AppDatabase.placeholders(candidates.count)))
                    AND nestory_matches(?, name, brand, model, serial, notes, tags, receipts)
                    """
                let arguments = StatementArguments(candidates.map { seqs[$0] }) + [search]
                log?.statements.append(.init(sql: sql, arguments: arguments, rowLimit: .max))
                let matching = Set(try Int64.fetchAll(db.cachedStatement(sql: sql), arguments: arguments))
                found += candidates.filter { matching.contains(seqs[$0]) }
                candidates.removeAll(keepingCapacity: true)
            }
        }

        /// How many candidates one statement of the walk tests.
        static let walkBatch = 100

        /// What `select` found: the positions of the first `limit` matches passing the filter after the cursor, in
        /// order, and how many pass in all (counting stops past `countCap`); or that the index had more than
        /// `matchLimit` matches (then nothing else was decided).
        struct Selection {
            var positions: [Int] = []
            var passing = 0
            var tooMany = false
        }

        /// nil when the cursor cannot be placed here.
        func select(_ db: Database, match: String, filter: ItemFilter, sort: ItemSort, after cursor: PageCursor?, limit: Int,
                    countCap: Int, matchLimit: Int = .max, log: AppDatabase.StatementLog?) throws -> Selection? {
            let test = try test(db, filter)
            if test.none { return Selection() }
            var after: (Int64, Int64)?
            if let cursor {
                guard let placed = try boundary(db, cursor, sort) else { return nil }
                after = placed
            }
            var placer = Placer(snapshot: self, test: test, sort: sort, after: after, limit: limit, countCap: countCap)
            if limit == 0 {
                // A count stops at its cap: the matches are read one by one, as far as that.
                let sql = "SELECT rowid FROM item_fts WHERE item_fts MATCH ? ORDER BY rowid"
                log?.statements.append(.init(sql: sql, arguments: [match], rowLimit: matchLimit == .max ? .max : matchLimit + 1))
                let matches = try Int64.fetchCursor(db.cachedStatement(sql: sql), arguments: [match])
                var read = 0
                while let seq = try matches.next() {
                    read += 1
                    if read > matchLimit { return Selection(tooMany: true) }
                    guard try placer.place(seq) else { break }
                }
            } else {
                // A page needs every match: gathered in one blob (SeqCollector), unless they are more than the limit.
                let sql = "SELECT \(SeqCollector.name)(rowid, ?) FROM item_fts WHERE item_fts MATCH ?"
                let arguments: StatementArguments = [matchLimit == .max ? -1 : matchLimit, match]
                log?.statements.append(.init(sql: sql, arguments: arguments, rowLimit: 1))
                guard case .values(let matches) = try SeqCollector.gather(db.cachedStatement(sql: sql), arguments) else {
                    return Selection(tooMany: true)
                }
                for seq in matches { guard try placer.place(seq) else { break } }
            }
            return Selection(positions: placer.best.map(\.position), passing: placer.passing)
        }

        /// Places the search index's matches, one by one in ascending seq, among the best `limit` in the sort's order.
        private struct Placer {
            let seqs: [Int64]
            let snapshot: Snapshot
            let test: Test
            let sort: ItemSort
            /// The order key of the page's cursor: only items after it are placed.
            let after: (Int64, Int64)?
            let limit: Int
            let countCap: Int
            /// The best `limit` so far, in order (few are inserted: matches come in seq order, not the sort's).
            var best: [(key: (Int64, Int64), position: Int)] = []
            var passing = 0
            private var from = 0
            private var previous = Int64.min

            init(snapshot: Snapshot, test: Test, sort: ItemSort, after: (Int64, Int64)?, limit: Int, countCap: Int) {
                self.seqs = snapshot.seqs
                self.snapshot = snapshot
                self.test = test
                self.sort = sort
                self.after = after
                self.limit = limit
                self.countCap = countCap
                best.reserveCapacity(limit + 1)
            }

            /// False once no later match can change the answer.
            @inline(__always)
            mutating func place(_ seq: Int64) throws -> Bool {
                // The gallop below needs the index's order (ascending rowids, as FTS5 gives them).
                guard seq > previous else { throw StoreError.corrupt(path: "nestory.sqlite", detail: "the search index gave its matches out of order") }
                previous = seq
                from = Snapshot.lowerBound(seqs, seq, from: from)
                guard from < seqs.count else { return false }  // no later match is this household's
                guard seqs[from] == seq, test.passes(snapshot, from) else { return true }
                let key = snapshot.orderKey(from, sort)
                if let after, !(key > after) { return true }
                passing += 1
                if limit == 0 { return passing <= countCap }
                if best.count == limit, !(key < best[limit - 1].key) { return true }
                var index = best.count
                while index > 0, key < best[index - 1].key { index -= 1 }
                best.insert((key, from), at: index)
                if best.count > limit { best.removeLast() }
                return true
            }
        }
    }
}
