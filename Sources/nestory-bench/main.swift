import Foundation
import GRDB
import NestoryDomain
import NestoryStore

// nestory-bench store --data DIR [--runs N]
// Times the store's list, search and summary queries on an existing demo household, beside the
// same SQL run bare on the same database in the same run, and prints a table.

struct Options {
    var dataPath = "./bench-data"
    var runs = 60
    var command = "store"

    init(_ args: [String]) {
        var it = args.dropFirst().makeIterator()
        if let first = args.dropFirst().first, !first.hasPrefix("-") { command = first; _ = it.next() }
        while let arg = it.next() {
            switch arg {
            case "--data": dataPath = it.next() ?? dataPath
            case "--runs": runs = Int(it.next() ?? "") ?? runs
            default: fatalError("unknown argument \(arg)")
            }
        }
    }
}

func percentile(_ samples: [Double], _ p: Double) -> Double {
    let sorted = samples.sorted()
    let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[index]
}

func time(runs: Int, _ body: () throws -> Void) rethrows -> [Double] {
    for _ in 0..<3 { try body() }  // warm caches
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return samples
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

func runStore(_ options: Options) throws {
    let database = try AppDatabase.open(DataFolder(path: options.dataPath), mode: .migrateExisting)
    guard let household = try database.allHouseholds().max(by: { try! database.summary($0.id).itemCount < database.summary($1.id).itemCount }) else {
        fatalError("no household in \(options.dataPath): run `nestory demo` first")
    }
    let summary = try database.summary(household.id)
    let office = try database.rooms(household.id).first { $0.name == "Office" }!.id
    let electronics = try database.categories(household.id).first { $0.name == "Electronics" }!.id

    var cases: [(String, ItemQuery)] = [
        ("search, one word (\"sony\")", ItemQuery(search: "sony")),
        ("search, three words (\"sony wireless headphones\")", ItemQuery(search: "sony wireless headphones")),
        ("search, receipt text (\"costco\")", ItemQuery(search: "costco")),
        ("filter: needs photo", ItemQuery(filter: ItemFilter(needsPhoto: true))),
        ("filter: needs receipt", ItemQuery(filter: ItemFilter(needsReceipt: true))),
        ("filter: needs value", ItemQuery(filter: ItemFilter(needsValue: true))),
        ("filter: high value", ItemQuery(filter: ItemFilter(highValue: true))),
        ("filter: room (Office)", ItemQuery(filter: ItemFilter(roomID: office))),
        ("filter: category (Electronics)", ItemQuery(filter: ItemFilter(categoryID: electronics))),
        ("filter: tag (\"heirloom\")", ItemQuery(filter: ItemFilter(tag: "heirloom"))),
        ("search + filter + value sort", ItemQuery(search: "laptop", filter: ItemFilter(needsReceipt: true), sort: .value)),
    ]
    for sort in ItemSort.allCases {
        cases.append(("sort: \(sort.rawValue), page 1", ItemQuery(sort: sort)))
        // Walk to page 500 (untimed) to get its cursor.
        var query = ItemQuery(sort: sort)
        for _ in 0..<499 { query.after = try database.items(household.id, query).nextCursor }
        cases.append(("sort: \(sort.rawValue), page 500", query))
    }

    var results: [Result] = []
    for (name, query) in cases {
        var count = 0
        let ours = try time(runs: options.runs) { count = try database.items(household.id, query).elements.count }
        let (sql, arguments) = try database.rawListSQL(household.id, query)
        let raw = try time(runs: options.runs) {
            _ = try database.unsafeRawRead { db in try Row.fetchAll(db, sql: sql, arguments: arguments).count }
        }
        results.append(Result(name: name, target: 15, p50: percentile(ours, 0.5), p95: percentile(ours, 0.95),
                            rawP50: percentile(raw, 0.5), rawP95: percentile(raw, 0.95), rows: count))
    }
    let summaryTimes = try time(runs: options.runs) { _ = try database.summary(household.id) }
    let threshold = household.highValueThreshold
    let summaryRaw = try time(runs: options.runs) {
        _ = try database.unsafeRawRead { db in
            let id = household.id.description
            let s = AppDatabase.summaryStatements
            _ = try Row.fetchAll(db, sql: s[0], arguments: [id])
            _ = try Row.fetchAll(db, sql: s[1], arguments: [id])
            _ = try Row.fetchAll(db, sql: s[2], arguments: [id])
            _ = try Row.fetchAll(db, sql: s[3], arguments: [id, threshold.currency.code, threshold.minorUnits])
        }
    }
    results.append(Result(name: "summary figures", target: 50, p50: percentile(summaryTimes, 0.5), p95: percentile(summaryTimes, 0.95),
                        rawP50: percentile(summaryRaw, 0.5), rawP95: percentile(summaryRaw, 0.95), rows: 1))
    let byCategory = try time(runs: options.runs) { _ = try database.valueByCategory(household.id) }
    results.append(Result(name: "chart: value by category", target: 50, p50: percentile(byCategory, 0.5),
                          p95: percentile(byCategory, 0.95), rawP50: nil, rawP95: nil, rows: 0))
    let byRoom = try time(runs: options.runs) { _ = try database.itemsByRoom(household.id) }
    results.append(Result(name: "chart: items by room", target: 50, p50: percentile(byRoom, 0.5),
                          p95: percentile(byRoom, 0.95), rawP50: nil, rawP95: nil, rows: 0))

    print("Store queries: \(summary.itemCount) items in one household, \(options.runs) timed runs each (after 3 warm-up runs), page size 50")
    print("")
    func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
    func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
    let header = [pad("query", 50), lpad("rows", 5), lpad("p50 ms", 8), lpad("p95 ms", 8), lpad("raw p50", 8), lpad("raw p95", 8),
                  lpad("p95 ratio", 10), lpad("target", 8), lpad("ok", 4)]
    print("| " + header.joined(separator: " | ") + " |")
    print("|" + header.map { String(repeating: "-", count: $0.count + 2) }.joined(separator: "|") + "|")
    for r in results {
        let ratio = r.rawP95.map { r.p95 / $0 }
        let ok = r.p95 <= r.target && (ratio ?? 0) <= 3
        print("| " + [pad(r.name, 50), lpad(String(r.rows), 5), lpad(String(format: "%.2f", r.p50), 8), lpad(String(format: "%.2f", r.p95), 8),
                      lpad(r.rawP50.map { String(format: "%.2f", $0) } ?? "-", 8), lpad(r.rawP95.map { String(format: "%.2f", $0) } ?? "-", 8),
                      lpad(ratio.map { String(format: "%.2f×", $0) } ?? "-", 10), lpad("≤\(Int(r.target))", 8), lpad(ok ? "yes" : "NO", 4)]
            .joined(separator: " | ") + " |")
    }
    try database.close()
}

let options = Options(CommandLine.arguments)
switch options.command {
case "store": try runStore(options)
default: fatalError("unknown benchmark \(options.command); known: store")
}
