import Foundation
import Logging
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// A search sorted by name, read from `item_word`: each word of the household's documents with its items in name order,
/// so the items of a search's rarest word come in the order asked, index-only, and only they are tested for the rest.
/// The search index (`item_search`, GIN) answers "which items match" but not in any order: for a word 77,000 items share
/// at a million, sorting its matches took 126 ms, and the walk of the name order (`ListPlan.walk`) cannot find them when
/// they sit together late in it ("Walnut …").
extension PostgresStore {
    /// The longest word `item_word` keeps whole, in bytes: an index entry holds the word and a name key (up to 800
    /// bytes) and must stay under about 2,700. A longer one is kept as its first `longWordPrefix` characters and a
    /// U+0001 (`nestory_word_key`), which no whole word equals and every shorter prefix of it starts. A search with a
    /// longer word, or whose last word (a prefix) is that long in characters, is answered without the table.
    static let longestIndexedWord = 256
    static let longWordPrefix = 200
    /// How many of the household's words a search's last word (a prefix) may stand for: more (a first keystroke), and the
    /// search is answered the other ways, whose walk of the name order finds such a page at once.
    static let mostPrefixWords = 16
    /// How many items of its rarest word a search reads before it is answered the other ways: each is tested for the
    /// search's other words (index probes) and the filters (its row), about 10–20 µs.
    static let wordBudget = 2_000

    /// A search as `item_word` serves it: for each of its words the household's words it stands for (the stemmed token;
    /// for the last word, a prefix, every word that starts with it), the rarest first. `phrase`: a word of several
    /// tokens in a row ("wi-fi"), which only the documents can tell, so each candidate's document is tested too.
    struct WordSearch: Equatable {
        var groups: [[String]]
        var phrase: Bool
    }

    /// Nil when the table cannot serve the search: no words, a word too long to be kept, or a last word that stands for
    /// more than `mostPrefixWords` words. A search whose words no item has gives an empty group (no item matches).
    static func wordSearch(_ connection: PostgresConnection, _ householdID: HouseholdID, _ search: String,
                           logger: Logger) async throws -> WordSearch? {
        try await wordSearchRecorded(connection, householdID, search, logger: logger).words
    }

    /// `wordSearch` with the statements it ran, in order (the benchmark runs them bare).
    static func wordSearchRecorded(_ connection: PostgresConnection, _ householdID: HouseholdID, _ search: String,
                                   logger: Logger) async throws -> (words: WordSearch?, ran: [PostgresQuery]) {
        var ran: [PostgresQuery] = []
        func strings(_ query: PostgresQuery) async throws -> [String] {
            ran.append(query)
            var values: [String] = []
            for try await value in try await connection.query(query, logger: logger).decode(String.self) { values.append(value) }
            return values
        }
        guard let (tokens, operators) = searchQuery(search) else { return (nil, ran) }
        // A first keystroke stands for more words than a prefix may in any household this table is for (and the walk of
        // the name order finds its page at once): no statement is spent on it.
        guard !isFirstKeystroke(tokens) else { return (nil, ran) }
        let stems = try await strings(stemsQuery(tokens))
        guard stems.count == tokens.count, let last = stems.last,
              stems.allSatisfy({ !$0.isEmpty && $0.utf8.count <= longestIndexedWord }),
              last.unicodeScalars.count < longWordPrefix else { return (nil, ran) }
        var groups: [[String]] = []
        for stem in stems.dropLast() where !groups.contains([stem]) { groups.append([stem]) }
        let expansions = try await strings(expansionsQuery(householdID, last))
        guard expansions.count <= mostPrefixWords else { return (nil, ran) }
        groups.append(expansions)
        if groups.count > 1 {
            // The rarest word leads; its items are the candidates.
            var counts: [Int] = []
            for group in groups {
                let query = postingsQuery(householdID, group, upTo: wordBudget)
                ran.append(query)
                for try await count in try await connection.query(query, logger: logger).decode(Int.self) { counts.append(count) }
            }
            groups = zip(groups, counts).enumerated().sorted { ($0.element.1, $0.offset) < ($1.element.1, $1.offset) }.map(\.element.0)
        }
        return (WordSearch(groups: groups, phrase: operators.contains(" <->")), ran)
    }

    static func isFirstKeystroke(_ tokens: [String]) -> Bool { tokens.count == 1 && tokens[0].utf8.count <= 1 }

    /// The search's tokens as the documents hold them (stemmed), in order.
    static func stemsQuery(_ tokens: [String]) -> PostgresQuery {
        "SELECT nestory_stem(u.t) FROM unnest(\(tokens)::text[]) WITH ORDINALITY AS u(t, n) ORDER BY u.n"
    }

    /// The household's words that start with `prefix`, in order, one more than `mostPrefixWords` at most: each the least
    /// one after the one before (a probe of the index, not a read of every posting).
    static func expansionsQuery(_ householdID: HouseholdID, _ prefix: String) -> PostgresQuery {
        """
        WITH RECURSIVE e(token) AS (
            SELECT min(token) FROM item_word WHERE household_id = \(householdID.rawValue) AND token >= \(prefix)
            UNION ALL
            SELECT (SELECT min(w.token) FROM item_word w WHERE w.household_id = \(householdID.rawValue) AND w.token > e.token)
            FROM e WHERE starts_with(e.token, \(prefix)))
        SELECT token FROM e WHERE starts_with(token, \(prefix)) LIMIT \(mostPrefixWords + 1)
        """
    }

    /// How many postings the words have, counted up to `limit` (to pick the leader, only counts under the budget
    /// matter; for a one-word count, the cap and one). An item with two of the words is counted twice.
    static func postingsQuery(_ householdID: HouseholdID, _ group: [String], upTo limit: Int) -> PostgresQuery {
        """
        SELECT count(*) FROM (SELECT 1 FROM item_word WHERE household_id = \(householdID.rawValue) AND token = ANY(\(group)::text[])
        LIMIT \(limit)) AS c
        """
    }

    /// A page sorted by name from the leading word's items (at most `budget` of them, after the cursor), each kept when
    /// the other words have it too, its document matches (only for a phrase) and it passes the filters; the rows keep
    /// the name order, so reading stops after a page and one. `count`: the statement that counts the candidates read
    /// instead (up to `budget`), to tell a short page that is the whole answer from one that ran out of budget.
    static func wordQuery(_ householdID: HouseholdID, _ query: ItemQuery, _ words: WordSearch, budget: Int,
                          count: Bool = false) throws -> PostgresQuery {
        // Only what the statement uses is bound: the search's tsquery for a phrase, the filters for the page.
        var conditions = try ListConditions(householdID, search: words.phrase && !count ? query.search : "",
                                            filter: count ? ItemFilter() : query.filter)
        let filters = conditions.conditions
        conditions.conditions = []
        if let cursor = query.after { try conditions.after(cursor, sort: .name, alias: "d") }
        let after = conditions.conditions.first.map { " AND \($0)" } ?? ""
        guard let lead = words.groups.first, !lead.isEmpty else {
            // A word no item has: nothing matches.
            return PostgresQuery(unsafeSQL: count ? "SELECT 0::bigint" : "SELECT \(itemColumns) FROM item i WHERE false", binds: conditions.binds)
        }
        let h = conditions.household
        // An item at (key, seq) has one of each group's words (an index probe per group).
        func has(_ groups: ArraySlice<[String]>, key: String, seq: String) throws -> [String] {
            try groups.map { group in
                """
                EXISTS (SELECT 1 FROM item_word x WHERE x.household_id = \(h) AND x.token = ANY(\(try conditions.bind(group))::text[]) \
                AND x.name_key = \(key) AND x.seq = \(seq))
                """
            }
        }
        var candidates: String
        var tests: [String] = []
        if let partner = partner(query, words) {
            // The lead word's items and its partner's (a room's, category's or tag's items, `item_by_room_name`,
            // `item_by_category_name`, `item_tag_by_name`, or the next rarest word's) are two lists in name order: each step seeks one list to
            // where the other stands (a leapfrog), so items of one far from the other's (at a million items "walnut" in
            // the Office: 93,000 of its items before the first) are stepped over, not read. A step is two index probes
            // (and one per other word, where the two meet), about 10 µs; `budget / 4` steps at most. When nothing else is
            // to be tested, the steps stop at a page and one; else all are taken (the outer sort reads the whole
            // recursion). Then the search is answered the other ways.
            let token = try conditions.bind(lead[0])
            let seek: String
            var rest = query.filter
            rest.tag = rest.tag.flatMap(Text.clean)
            switch partner {
            case .place(let column, let value):
                seek = "FROM item f WHERE f.household_id = \(h) AND f.\(column) = \(try conditions.bind(value))"
                if column == "room_id" { rest.roomID = nil } else { rest.categoryID = nil }
            case .tag(let key):
                seek = "FROM \(taggedItems) AS f WHERE f.household_id = \(h) AND f.tag_key = \(try conditions.bind(key))"
                rest.tag = nil
            case .word(let word):
                seek = "FROM item_word f WHERE f.household_id = \(h) AND f.token = \(try conditions.bind(word))"
            }
            let others = try has(words.groups.dropFirst(partner.isWord ? 2 : 1), key: "j.k", seq: "j.s")
            let stop = !words.phrase && rest == ItemFilter() ? query.limit + 1 : budget
            let steps = """
                WITH RECURSIVE j(k, s, hk, hs, n) AS (
                    (SELECT d.name_key, d.seq, NULL::text COLLATE "C", NULL::bigint, 0 FROM item_word d
                     WHERE d.household_id = \(h) AND d.token = \(token)\(after) ORDER BY d.name_key, d.seq LIMIT 1)
                    UNION ALL
                    SELECT n.name_key, n.seq, CASE WHEN p.hit THEN j.k END, CASE WHEN p.hit THEN j.s END, j.n + CASE WHEN p.hit THEN 1 ELSE 0 END
                    FROM j CROSS JOIN LATERAL (
                        SELECT \((["f.seq = j.s"] + others).joined(separator: " AND ")) AS hit, f.seq = j.s AS met, f.name_key AS pk, f.seq AS ps \(seek)
                        AND (f.name_key, f.seq) >= (j.k, j.s) ORDER BY f.name_key, f.seq LIMIT 1) AS p
                    LEFT JOIN LATERAL (
                        SELECT d.name_key, d.seq FROM item_word d WHERE d.household_id = \(h) AND d.token = \(token)
                        AND (d.name_key, d.seq) >= (p.pk, p.ps + CASE WHEN p.met THEN 1 ELSE 0 END) ORDER BY d.name_key, d.seq LIMIT 1) AS n ON true
                    WHERE j.k IS NOT NULL AND j.n < \(stop))
                """
            if count {
                return PostgresQuery(unsafeSQL: "\(steps) SELECT count(*) FROM (SELECT 1 FROM j LIMIT \(budget / 4)) AS c", binds: conditions.binds)
            }
            candidates = """
                (\(steps) SELECT j.hk AS name_key, j.hs AS seq FROM (SELECT * FROM j LIMIT \(budget / 4)) AS j WHERE j.hk IS NOT NULL)
                """
        } else {
            // One ordered read per word the lead stands for, merged in name order (an item with two of them comes twice,
            // together: DISTINCT keeps one).
            let reads = try lead.map { token in
                """
                (SELECT d.name_key, d.seq FROM item_word d WHERE d.household_id = \(h) AND d.token = \(try conditions.bind(token))\(after)
                 ORDER BY d.name_key, d.seq LIMIT \(budget))
                """
            }
            candidates = reads.count == 1 ? reads[0] : """
                (SELECT DISTINCT u.name_key, u.seq FROM (\(reads.joined(separator: " UNION ALL "))) AS u ORDER BY u.name_key, u.seq LIMIT \(budget))
                """
            if count {
                return PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(candidates) AS w", binds: conditions.binds)
            }
            tests = try has(words.groups.dropFirst(), key: "w.name_key", seq: "w.seq")
        }
        if words.phrase, let tsquery = conditions.tsquery {
            tests.append("EXISTS (SELECT 1 FROM item_search s WHERE s.seq = w.seq AND s.document @@ \(tsquery))")
        }
        return PostgresQuery(unsafeSQL: """
            SELECT \(itemColumns) FROM \(candidates) AS w
            CROSS JOIN LATERAL (SELECT * FROM item i WHERE i.seq = w.seq AND \(filters.joined(separator: " AND ")) LIMIT 1) AS i
            \(tests.isEmpty ? "" : "WHERE " + tests.joined(separator: " AND "))
            ORDER BY w.name_key, w.seq LIMIT \(query.limit + 1)
            """, binds: conditions.binds)
    }

    /// A page sorted by name from `item_word`, or nil when its budget ran out before a page and one passed (the caller
    /// then answers the other ways).
    static func wordPage(_ connection: PostgresConnection, _ householdID: HouseholdID, _ query: ItemQuery, _ words: WordSearch,
                         budget: Int, logger: Logger) async throws -> [ItemRow]? {
        let rows = try await itemRows(try await connection.query(try wordQuery(householdID, query, words, budget: budget), logger: logger),
                                      householdID)
        guard rows.count <= query.limit else { return rows }
        var read = 0
        for try await count in try await connection.query(try wordQuery(householdID, query, words, budget: budget, count: true),
                                                          logger: logger).decode(Int.self) {
            read = count
        }
        return read < (partner(query, words) != nil ? budget / 4 : budget) ? rows : nil
    }

    /// What a search's lead word steps along with (`wordQuery`): a room's, category's or tag's items (the tag by its
    /// key), else the next rarest word's.
    enum Partner {
        case place(column: String, id: UUID)
        case tag(String)
        case word(String)

        var isWord: Bool { if case .word = self { true } else { false } }
    }

    /// The partner of a lead word that stands for one word only (a prefix of several is read merged, not stepped along).
    static func partner(_ query: ItemQuery, _ words: WordSearch) -> Partner? {
        guard words.groups.first?.count == 1 else { return nil }
        if let room = query.filter.roomID { return .place(column: "room_id", id: room.rawValue) }
        if let category = query.filter.categoryID { return .place(column: "category_id", id: category.rawValue) }
        if let tag = query.filter.tag.flatMap(Text.clean) { return .tag(Text.foldKey(tag)) }
        if words.groups.count > 1, words.groups[1].count == 1 { return .word(words.groups[1][0]) }
        return nil
    }
}

extension PostgresStore {
    /// What `item_word` alone answers for a search sorted by name (nil: it cannot serve the search, or its budget ran
    /// out): tests hold it to the search index's answer.
    package func itemsFromWords(_ householdID: HouseholdID, _ query: ItemQuery, budget: Int) async throws -> [ItemListing]? {
        try await withStoreErrors {
            try await client.withConnection { connection in
                guard let words = try await Self.wordSearch(connection, householdID, query.search, logger: logger),
                      let rows = try await Self.wordPage(connection, householdID, query, words, budget: budget, logger: logger) else { return nil }
                return Self.page(rows, query).elements
            }
        }
    }
}
