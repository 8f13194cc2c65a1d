import Foundation
import GRDB
import NestoryDomain
import NestoryStore

// nestory-bench store --data DIR [--runs N] [--rounds R]
// Times the store's list, search and summary queries on an existing demo household beside the same SQL run bare
// (the statements the facade ran, prepared once on a connection of their own), the two interleaved run by run,
// in R rounds; prints the median over the rounds of each round's p50 and p95.
// `--only TEXT` measures only the queries whose name contains TEXT and prints each statement they run with its time.
// nestory-bench postgres --url postgres://… [--items N] [--households H]: the same on PostgreSQL (PostgresBench.swift).
// nestory-bench restore --url postgres://… [--items N]: restoring a household archive into PostgreSQL (RestoreBench.swift).

struct Options {
    var dataPath = "./bench-data"
    var runs = 60
    var rounds = 5
    var command = "store"
    var only: String?
    var url: String?
    var items = 100_000
    var households = 1

    static let usage = """
        usage: nestory-bench [store] --data DIR [--runs N] [--rounds R] [--only TEXT]
               nestory-bench postgres --url postgres://… [--items N] [--households H] [--runs N] [--rounds R] [--only TEXT]
               nestory-bench restore --url postgres://… [--items N] [--runs N]
        """

    init(_ args: [String]) {
        var it = args.dropFirst().makeIterator()
        if let first = args.dropFirst().first, !first.hasPrefix("-") { command = first; _ = it.next() }
        while let arg = it.next() {
            switch arg {
            case "--data": dataPath = it.next() ?? dataPath
            case "--runs": runs = Int(it.next() ?? "") ?? runs
            case "--rounds": rounds = max(1, Int(it.next() ?? "") ?? rounds)
            case "--only": only = it.next()
            case "--url": url = it.next()
            case "--items": items = Int(it.next() ?? "") ?? items
            case "--households": households = max(1, Int(it.next() ?? "") ?? households)
            case "--help", "-h":
                print(Self.usage)
                exit(0)
            default:
                FileHandle.standardError.write(Data("nestory-bench: unknown argument \(arg)\n\(Self.usage)\n".utf8))
                exit(2)
            }
        }
    }
}

func percentile(_ samples: [Double], _ p: Double) -> Double {
    let sorted = samples.sorted()
    let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[index]
}

func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// One measured thing: the facade's call and, when there is one, the same statements run bare.
struct Case {
    let name: String
    let target: Double
    let ours: () throws -> Int
    let raw: (() throws -> Void)?
}

struct Result {
    let name: String
    let target: Double
    let p50: Double
    let p95: Double
    let rawP50: Double?
    let rawP95: Double?
    let rows: Int
}

/// Times each case `runs` times in all, in `rounds` rounds, ours then the bare statements interleaved run by run, and
/// gives the medians of the rounds' p50 and p95 (the SQLite and PostgreSQL benchmarks both). `time(index, bare)` runs
/// case `index` once (its bare statements with `bare`) and returns the milliseconds, nil when it has no bare side;
/// `rows` are what each case returned when warmed.
func measureRounds(_ cases: [(name: String, target: Double)], rows: [Int], runs: Int, rounds: Int,
                   time: (_ index: Int, _ bare: Bool) async throws -> Double?) async rethrows -> [Result] {
    let perRound = max(1, runs / rounds)
    var roundP50: [[Double]] = Array(repeating: [], count: cases.count), roundP95 = roundP50
    var rawRoundP50 = roundP50, rawRoundP95 = roundP50
    for _ in 0..<rounds {
        for index in cases.indices {
            var ours: [Double] = [], bare: [Double] = []
            for _ in 0..<perRound {
                if let ms = try await time(index, false) { ours.append(ms) }
                if let ms = try await time(index, true) { bare.append(ms) }
            }
            roundP50[index].append(percentile(ours, 0.5))
            roundP95[index].append(percentile(ours, 0.95))
            if !bare.isEmpty {
                rawRoundP50[index].append(percentile(bare, 0.5))
                rawRoundP95[index].append(percentile(bare, 0.95))
            }
        }
    }
    return cases.indices.map { index in
        Result(name: cases[index].name, target: cases[index].target, p50: median(roundP50[index]), p95: median(roundP95[index]),
               rawP50: rawRoundP50[index].isEmpty ? nil : median(rawRoundP50[index]),
               rawP95: rawRoundP95[index].isEmpty ? nil : median(rawRoundP95[index]), rows: rows[index])
    }
}

/// Reads at most `limit` rows of a statement, as the facade reads them. A statement gathering the search index's matches
/// stops itself with SQLITE_TOOBIG past its limit (the store's SeqCollector): that is where the facade stops it too.
func readRows(_ statement: Statement, _ arguments: StatementArguments, limit: Int) throws {
    do {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var read = 0
        while read < limit, try rows.next() != nil { read += 1 }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_TOOBIG {}
}

func runStore(_ options: Options) async throws {
    let database = try AppDatabase.open(DataFolder(path: options.dataPath), mode: .migrateExisting)
    guard let household = try database.allHouseholds().max(by: { try! database.summary($0.id).itemCount < database.summary($1.id).itemCount }) else {
        fatalError("no household in \(options.dataPath): run `nestory demo` first")
    }
    let id = household.id
    let summary = try database.summary(id)
    // The household's sort keys in memory, as a server holds them after its first searches (made in the background there).
    let warming = ContinuousClock.now
    try database.warmListKeys(id)
    print("sort keys of \(summary.itemCount) items read into memory in \(ContinuousClock.now - warming)")
    let office = try database.rooms(id).first { $0.name == "Office" }!.id
    let electronics = try database.categories(id).first { $0.name == "Electronics" }!.id
    let raw = try database.rawConnection()
    // The commonest word of the index (as the index holds it: stemmed), found once.
    let commonest: String = try raw.inDatabase { db in
        try db.execute(sql: "CREATE VIRTUAL TABLE temp.vocabulary USING fts5vocab(main, item_fts, row)")
        return try String.fetchOne(db, sql: "SELECT term FROM temp.vocabulary WHERE length(term) > 2 ORDER BY doc DESC LIMIT 1") ?? "walnut"
    }

    var queries: [(String, ItemQuery)] = [
        ("search, one word (\"sony\")", ItemQuery(search: "sony")),
        ("search, three words (\"sony wireless headphones\")", ItemQuery(search: "sony wireless headphones")),
        ("search, receipt text (\"costco\")", ItemQuery(search: "costco")),
        ("search, a common word (\"walnut\")", ItemQuery(search: "walnut")),
        ("search, the commonest word (\"\(commonest)\")", ItemQuery(search: commonest)),
        ("search, first keystroke (\"s\")", ItemQuery(search: "s")),
        ("search, two letters (\"wa\")", ItemQuery(search: "wa")),
    ]
    let filters: [(String, ItemFilter)] = [
        ("needs photo", ItemFilter(needsPhoto: true)), ("needs receipt", ItemFilter(needsReceipt: true)),
        ("needs value", ItemFilter(needsValue: true)), ("high value", ItemFilter(highValue: true)),
        ("room (Office)", ItemFilter(roomID: office)), ("category (Electronics)", ItemFilter(categoryID: electronics)),
        ("tag (\"heirloom\")", ItemFilter(tag: "heirloom")),
    ]
    for (name, filter) in filters { queries.append(("filter: \(name)", ItemQuery(filter: filter))) }
    for word in ["walnut", "s"] {
        for (name, filter) in filters { queries.append(("search \"\(word)\" + \(name)", ItemQuery(search: word, filter: filter))) }
        for sort in ItemSort.allCases where sort != .name {
            queries.append(("search \"\(word)\", sort: \(sort.rawValue)", ItemQuery(search: word, sort: sort)))
        }
    }
    queries.append(("search + filter + value sort", ItemQuery(search: "laptop", filter: ItemFilter(needsReceipt: true), sort: .value)))
    let deep = summary.itemCount / 2
    for sort in ItemSort.allCases {
        queries.append(("sort: \(sort.rawValue), page 1", ItemQuery(sort: sort)))
        // Walk (untimed, in pages of 1,000) to the row half-way down for its cursor.
        var query = ItemQuery(sort: sort, limit: 1000)
        for _ in 0..<(deep / 1000) { query.after = try database.items(id, query).nextCursor }
        query.limit = ItemQuery().limit
        queries.append(("sort: \(sort.rawValue), \(deep) rows deep", query))
    }

    if let only = options.only { queries = queries.filter { $0.0.contains(only) } }
    var cases: [Case] = []
    for (name, query) in queries {
        // The statements the facade ran for this query, prepared once on the bare connection.
        let statements = try database.listStatements(id, query)
        if options.only != nil {
            print(name)
            for statement in statements {
                // The fastest of 10 runs: the statement's own cost, with the machine's noise mostly left out.
                let time = try raw.inDatabase { db in
                    let prepared = try db.makeStatement(sql: statement.sql)
                    return try (0..<10).map { _ in
                        try milliseconds { try readRows(prepared, statement.arguments, limit: statement.rowLimit ?? query.limit + 1) }
                    }.min()!
                }
                print(String(format: "  %8.2f ms  ", time) + statement.sql.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))
            }
        }
        let prepared = try raw.inDatabase { db in try statements.map { (try db.makeStatement(sql: $0.sql), $0.arguments, $0.rowLimit ?? query.limit + 1) } }
        // Each read as the facade reads it: as many rows as it reads at most (a page and one, or all the matches).
        cases.append(Case(name: name, target: 15, ours: { try database.items(id, query).elements.count }, raw: {
            try raw.inDatabase { _ in
                for (statement, arguments, rowLimit) in prepared { try readRows(statement, arguments, limit: rowLimit) }
            }
        }))
    }
    let summaryStatements = try raw.inDatabase { db in
        try (["SELECT * FROM household WHERE id = ?"] + AppDatabase.summaryStatements).map { try db.makeStatement(sql: $0) }
    }
    cases.append(Case(name: "summary figures", target: 5, ours: { _ = try database.summary(id); return 1 }, raw: {
        try raw.inDatabase { _ in for statement in summaryStatements { _ = try Row.fetchAll(statement, arguments: [id.description]) } }
    }))
    cases.append(Case(name: "chart: value by category", target: 50, ours: { try database.valueByCategory(id).count }, raw: nil))
    cases.append(Case(name: "chart: items by room", target: 50, ours: { try database.itemsByRoom(id).count }, raw: nil))

    // Warm both sides, then interleave: each run times ours then the bare statements.
    var rows = [Int](repeating: 0, count: cases.count)
    for (index, c) in cases.enumerated() {
        rows[index] = try c.ours()
        try c.raw?()
    }
    let results = try await measureRounds(cases.map { ($0.name, $0.target) }, rows: rows, runs: options.runs, rounds: options.rounds) { index, bare in
        if bare { return try cases[index].raw.map { body in try milliseconds { try body() } } }
        return try milliseconds { _ = try cases[index].ours() }
    }

    print("Store queries: \(summary.itemCount) items in one household; \(options.rounds) rounds of \(max(1, options.runs / options.rounds)) runs each, ours and the")
    print("same statements bare (prepared once) interleaved run by run; p50 and p95 are the medians of the rounds' figures; page size 50")
    print("")
    printTable(results)
    try database.close()
}

/// The results as a Markdown table: each query's p50 and p95, the bare statements' beside them and the ratio of the p95s.
func printTable(_ results: [Result]) {
    func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
    func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
    let header = [pad("query", 52), lpad("rows", 5), lpad("p50 ms", 8), lpad("p95 ms", 8), lpad("raw p50", 8), lpad("raw p95", 8),
                  lpad("p95 ratio", 10), lpad("target", 8), lpad("ok", 4)]
    print("| " + header.joined(separator: " | ") + " |")
    print("|" + header.map { String(repeating: "-", count: $0.count + 2) }.joined(separator: "|") + "|")
    for r in results {
        let ratio = r.rawP95.map { r.p95 / $0 }
        // The 3× ratio is asked of lists; under a millisecond it measures the facade's fixed cost (decoding rows).
        let ok = r.p95 <= r.target && ((ratio ?? 0) <= 3 || r.p95 < 1)
        print("| " + [pad(r.name, 52), lpad(String(r.rows), 5), lpad(String(format: "%.2f", r.p50), 8), lpad(String(format: "%.2f", r.p95), 8),
                      lpad(r.rawP50.map { String(format: "%.2f", $0) } ?? "-", 8), lpad(r.rawP95.map { String(format: "%.2f", $0) } ?? "-", 8),
                      lpad(ratio.map { String(format: "%.2f×", $0) } ?? "-", 10), lpad("≤\(Int(r.target))", 8), lpad(ok ? "yes" : "NO", 4)]
            .joined(separator: " | ") + " |")
    }
}

let options = Options(CommandLine.arguments)
switch options.command {
case "store": try await runStore(options)
case "postgres": try await runPostgres(options)
case "restore": try await runRestore(options)
default: fatalError("unknown benchmark \(options.command); known: store, postgres, restore")
}
