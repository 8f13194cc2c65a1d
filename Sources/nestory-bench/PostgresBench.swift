import Foundation
import NestoryDemo
import NestoryDomain
import NestoryStoreInterfaces
import NestoryStorePostgres

// nestory-bench postgres --url postgres://… [--items N] [--households H] [--runs N] [--rounds R] [--only TEXT]
// Loads N demo items into each of H households (one by default) of a schema of their own (`bench_items_N`, or
// `bench_hH_iN` for several households; kept for the next run), then times the store's lists, searches and summary in
// the middle household beside the same statements run bare on one connection (rows read, not decoded), interleaved
// run by run, in R rounds; prints the median over the rounds of each round's p50 and p95.
// `--only TEXT` measures only the queries whose name contains TEXT and prints PostgreSQL's plan of each.

func runPostgres(_ options: Options) async throws {
    guard let url = options.url else { fatalError("nestory-bench postgres needs --url postgres://…") }
    let schema = options.households == 1 ? "bench_items_\(options.items)" : "bench_h\(options.households)_i\(options.items)"
    let store = try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: schema, maximumConnections: 4))
    var households = try await store.allHouseholds().sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    let loading = ContinuousClock.now
    var loaded = 0
    while households.count < options.households {
        households.append(try await store.createHousehold(name: "Bench \(households.count + 1)", currency: .usd, now: Date()))
    }
    // Two households at a time (each one transaction per batch of 1,000), each from its own seed.
    try await withThrowingTaskGroup(of: Int.self) { group in
        var next = households.startIndex
        func start() {
            guard next < households.endIndex else { return }
            let (household, seed) = (households[next], 42 + UInt64(next))
            next += 1
            group.addTask { try await load(store, household, items: options.items, seed: seed) }
        }
        start()
        start()
        while let added = try await group.next() {
            loaded += added
            start()
        }
    }
    if loaded > 0 {
        print("loaded \(loaded) items in \(options.households) household\(options.households == 1 ? "" : "s") in \(ContinuousClock.now - loading)")
        try await store.analyze()
    }
    let household = households[options.households / 2]
    try await measure(store, household, options)
    await store.close()
}

/// Fills a household with demo items up to `items`; how many it added.
func load(_ store: PostgresStore, _ household: Household, items count: Int, seed: UInt64) async throws -> Int {
    let have = try await store.countItems(household.id, search: "", filter: ItemFilter(), cap: .max - 1).count
    if have < count {
        let generator = DemoGenerator(seed: seed, currency: .usd, today: CalendarDate(Date(), in: .current),
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
                    while first < count {
                        let today = CalendarDate(Date(), in: .current)
                        let items = try (first..<min(first + batch, count)).map { index in
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
        if count >= 100_000 { print("loaded \(count - have) items in \(ContinuousClock.now - loading) (batches of \(batch), \(workers) at a time)") }
    }
    return max(0, count - have)
}

func measure(_ store: PostgresStore, _ household: Household, _ options: Options) async throws {
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
    let where_ = options.households == 1 ? "in one household" : "in each of \(options.households) households (measured in \(household.name))"
    print("PostgreSQL \(try await store.serverVersion()): \(summary.itemCount) items \(where_); \(options.rounds) rounds of \(max(1, options.runs / options.rounds))")
    print("runs each, ours and the same statements bare (rows read, not decoded) interleaved run by run; p50 and p95 are the")
    print("medians of the rounds' figures; page size 50")
    print("")
    printTable(results)
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
