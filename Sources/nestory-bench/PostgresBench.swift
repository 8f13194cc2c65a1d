import Foundation
import NestoryDemo
import NestoryDomain
import NestoryStoreInterfaces
import NestoryStorePostgres

// nestory-bench postgres --url postgres://… [--items N] [--runs N] [--rounds R] [--only TEXT]
// Loads N demo items into one household of a schema of their own (`bench_items_N`, kept for the next run), then
// times the store's lists, searches and summary beside the same statements run bare on one connection (rows read,
// not decoded), interleaved run by run, in R rounds; prints the median over the rounds of each round's p50 and p95.
// `--only TEXT` measures only the queries whose name contains TEXT and prints PostgreSQL's plan of each.

func runPostgres(_ options: Options) async throws {
    guard let url = options.url else { fatalError("nestory-bench postgres needs --url postgres://…") }
    let store = try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: "bench_items_\(options.items)",
                                                   maximumConnections: 4))
    let household: Household
    if let existing = try await store.allHouseholds().first {
        household = existing
    } else {
        household = try await store.createHousehold(name: "Bench", currency: .usd, now: Date())
    }
    let have = try await store.countItems(household.id, search: "", filter: ItemFilter(), cap: .max - 1).count
    if have < options.items {
        let generator = DemoGenerator(seed: 42, currency: .usd, today: CalendarDate(Date(), in: .current),
                                      rooms: try await store.rooms(household.id), categories: try await store.categories(household.id))
        let loading = ContinuousClock.now
        // In batches of 1,000 (`insertItems`: one transaction, one statement each for rows, tags and documents), two at
        // a time; one item at a time through `createItem` ran at about 320 items a second.
        let batch = 1_000
        let workers = 2
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var first = have + worker * batch
                    while first < options.items {
                        let today = CalendarDate(Date(), in: .current)
                        let items = try (first..<min(first + batch, options.items)).map { index in
                            let demo = generator.item(index)
                            return Item(householdID: household.id, draft: try demo.draft.validated(today: today), createdAt: demo.createdAt)
                        }
                        try await store.insertItems(household.id, items)
                        first += workers * batch
                    }
                }
            }
            try await group.waitForAll()
        }
        print("loaded \(options.items - have) items in \(ContinuousClock.now - loading) (batches of \(batch), \(workers) at a time)")
        try await store.analyze()
    }
    let id = household.id
    let summary = try await store.summary(id)
    let office = try await store.rooms(id).first { $0.name == "Office" }!.id
    let electronics = try await store.categories(id).first { $0.name == "Electronics" }!.id

    var queries: [(String, ItemQuery)] = [
        ("search, one word (\"sony\")", ItemQuery(search: "sony")),
        ("search, three words (\"sony wireless headphones\")", ItemQuery(search: "sony wireless headphones")),
        ("search, a common word (\"walnut\")", ItemQuery(search: "walnut")),
        ("search, first keystroke (\"s\")", ItemQuery(search: "s")),
        ("search, two letters (\"wa\")", ItemQuery(search: "wa")),
        ("search, no match (\"zzyzx\")", ItemQuery(search: "zzyzx")),
    ]
    let filters: [(String, ItemFilter)] = [
        ("needs photo", ItemFilter(needsPhoto: true)), ("needs value", ItemFilter(needsValue: true)),
        ("high value", ItemFilter(highValue: true)), ("room (Office)", ItemFilter(roomID: office)),
        ("category (Electronics)", ItemFilter(categoryID: electronics)), ("tag (\"heirloom\")", ItemFilter(tag: "heirloom")),
    ]
    for (name, filter) in filters { queries.append(("filter: \(name)", ItemQuery(filter: filter))) }
    for word in ["walnut", "s"] {
        for (name, filter) in filters { queries.append(("search \"\(word)\" + \(name)", ItemQuery(search: word, filter: filter))) }
        for sort in ItemSort.allCases where sort != .name {
            queries.append(("search \"\(word)\", sort: \(sort.rawValue)", ItemQuery(search: word, sort: sort)))
        }
    }
    let deep = summary.itemCount / 2
    for sort in ItemSort.allCases {
        queries.append(("sort: \(sort.rawValue), page 1", ItemQuery(sort: sort)))
        var query = ItemQuery(sort: sort, limit: ItemQuery.maxLimit)
        for _ in 0..<(deep / ItemQuery.maxLimit) { query.after = try await store.items(id, query).nextCursor }
        query.limit = ItemQuery().limit
        queries.append(("sort: \(sort.rawValue), \(deep) rows deep", query))
    }
    if let only = options.only { queries = queries.filter { $0.0.contains(only) } }

    var cases: [AsyncCase] = []
    for (name, query) in queries {
        let raw = try await store.rawPage(id, query)
        if options.only != nil {
            print(name)
            for statement in raw { print(try await store.explain(statement) + "\n") }
        }
        cases.append(AsyncCase(name: name, target: 20, ours: { try await store.items(id, query).elements.count },
                               raw: { _ = try await store.run(raw) }))
    }
    let summaryRaw = PostgresStore.rawSummary(id)
    cases.append(AsyncCase(name: "summary figures", target: 5, ours: { _ = try await store.summary(id); return 1 },
                           raw: { _ = try await store.run(summaryRaw) }))
    cases.append(AsyncCase(name: "count: search \"walnut\" (cap 1000)", target: 20,
                           ours: { try await store.countItems(id, search: "walnut", filter: ItemFilter(), cap: 1000).count }, raw: nil))
    cases.append(AsyncCase(name: "chart: value by category", target: 50, ours: { try await store.valueByCategory(id).count }, raw: nil))
    cases.append(AsyncCase(name: "chart: items by room", target: 50, ours: { try await store.itemsByRoom(id).count }, raw: nil))

    var rows = [Int](repeating: 0, count: cases.count)
    for (index, c) in cases.enumerated() {
        rows[index] = try await c.ours()
        try await c.raw?()
    }
    let results = try await measureRounds(cases.map { ($0.name, $0.target) }, rows: rows, runs: options.runs, rounds: options.rounds) { index, bare in
        if bare {
            guard let body = cases[index].raw else { return nil }
            return try await asyncMilliseconds { try await body() }
        }
        return try await asyncMilliseconds { _ = try await cases[index].ours() }
    }
    print("PostgreSQL \(try await store.serverVersion()): \(summary.itemCount) items in one household; \(options.rounds) rounds of \(max(1, options.runs / options.rounds))")
    print("runs each, ours and the same statements bare (rows read, not decoded) interleaved run by run; p50 and p95 are the")
    print("medians of the rounds' figures; page size 50")
    print("")
    printTable(results)
    await store.close()
}

struct AsyncCase {
    let name: String
    let target: Double
    let ours: @Sendable () async throws -> Int
    let raw: (@Sendable () async throws -> Void)?
}

func asyncMilliseconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}
