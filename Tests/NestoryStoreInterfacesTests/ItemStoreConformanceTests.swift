import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// Items, the list, search and the summary behave the same on every engine. Each test states what it expects
/// (orders, matches, figures) and holds each engine to it, so the engines agree because both are right.
@Suite struct ItemStoreConformanceTests {
    static let start = Date(millis: 1_763_800_000_000)
    static let eur = try! CurrencyCode("EUR")

    func usd(_ minor: Int64) -> Money { try! Money(minorUnits: minor, currency: .usd) }

    /// One household (USD, threshold $1,000) with items made in this order; another household with an item that
    /// shares words with them. `made[i]` is the i-th item made.
    struct Fixture {
        let stores: Stores
        let home: Household
        let other: Household
        let rooms: [Room]
        let categories: [NestoryDomain.Category]
        var made: [Item]
        let otherItem: Item

        var items: any ItemStore { stores.items }
        func names(_ indexes: [Int]) -> [String] { indexes.map { made[$0].name } }
    }

    /// (name, brand, model, serial, notes, tags, price in cents, quantity, currency, room, category, seconds after start)
    typealias Row = (String, String?, String?, String?, String?, [String], Int64?, Int, CurrencyCode, Int?, Int?, Int)

    static let rows: [Row] = [
        ("Samsung TV", "Samsung", "QN65", nil, nil, ["electronics", "living"], 129_999, 1, .usd, 0, 0, 0),      // 0
        ("Émile's lamp", "Acme", nil, nil, "Bought at the flea market", ["Lighting"], 4_500, 1, .usd, 1, 1, 1), // 1
        ("emile chair", nil, nil, nil, nil, [], nil, 1, .usd, 1, nil, 1),                                     // 2
        ("Zebra rug", nil, nil, nil, nil, ["Living"], 30_000, 2, .usd, 0, 1, 2),                              // 3
        ("apple crate", nil, nil, "SN-0042", nil, [], 500, 1, .usd, nil, 2, 3),                               // 4
        ("Äpfel basket", nil, nil, nil, nil, [], 500, 1, .usd, nil, 2, 3),                                    // 5
        ("Straße sign", nil, nil, nil, "Søren made it", ["living"], nil, 1, .usd, 2, nil, 4),                 // 6
        ("Running shoes", "Nike", "SM-G991B", nil, nil, ["Sport"], 12_000, 1, .usd, 2, 3, 5),                 // 7
        ("Reading light", nil, nil, nil, "a lamp acme makes", [], 999_999, 1, eur, 0, 0, 6),                 // 8
        ("Widget \"Pro\" -X* OR NEAR(2)", nil, nil, nil, nil, [], 150_000, 1, .usd, nil, nil, 7),             // 9
    ]

    func fixture(_ stores: Stores) async throws -> Fixture {
        let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
        let other = try await stores.accounts.createHousehold(name: "Other", currency: .usd, now: Self.start)
        let home2 = try await stores.accounts.updateHousehold(home.id, name: "Home", currency: .usd, highValueThreshold: usd(100_000), timeZone: nil)
        let rooms = try await stores.items.rooms(home.id)
        let categories = try await stores.items.categories(home.id)
        var made: [Item] = []
        for row in Self.rows {
            let price = try row.6.map { try Money(minorUnits: $0, currency: row.8) }
            let draft = ItemDraft(name: row.0, brand: row.1, modelNumber: row.2, serialNumber: row.3, purchasePrice: price, currency: row.8,
                                  categoryID: row.10.map { categories[$0].id }, roomID: row.9.map { rooms[$0].id }, tags: row.5,
                                  notes: row.4, quantity: row.7)
            made.append(try await stores.items.createItem(home.id, draft, now: Self.start.addingTimeInterval(Double(row.11)),
                                                          today: nil, plan: nil))
        }
        let otherItem = try await stores.items.createItem(other.id, ItemDraft(name: "Samsung phone", brand: "Samsung", currency: .usd,
                                                                              tags: ["living"]),
                                                          now: Self.start, today: nil, plan: nil)
        return Fixture(stores: stores, home: home2, other: other, rooms: rooms, categories: categories, made: made, otherItem: otherItem)
    }

    typealias Lister = (HouseholdID, ItemQuery) async throws -> Page<ItemListing>

    /// The ways an engine may list a search: its own choice, and on PostgreSQL each plan forced (a walk of one or
    /// three items before the index's matches, the matches first, the sort order first), which must all agree.
    func listers(_ items: any ItemStore) -> [(String, Lister)] {
        var listers: [(String, Lister)] = [("items", { try await items.items($0, $1) })]
        if let store = items as? PostgresStore {
            listers += [
                ("the words' items, then the walk", { try await store.items($0, $1, walkBudget: 4_000, wordBudget: 1_000) }),
                ("1 word's item, then a walk of 1", { try await store.items($0, $1, walkBudget: 1, wordBudget: 1) }),
                ("2 words' items, then a walk of 3", { try await store.items($0, $1, walkBudget: 3, wordBudget: 2) }),
                ("no words, a walk of 1, then the matches", { try await store.items($0, $1, walkBudget: 1, wordBudget: 0) }),
                ("no words, a walk of 3, then the matches", { try await store.items($0, $1, walkBudget: 3, wordBudget: 0) }),
                ("the matches first", { try await store.items($0, $1, plan: .searchFirst) }),
                ("the sort order first", { try await store.items($0, $1, plan: .sortOrder) }),
            ]
        }
        return listers
    }

    /// Every item of a query, page after page of `limit`, with the cursor each page gave.
    func all(_ f: Fixture, _ query: ItemQuery, household: HouseholdID? = nil, lister: Lister? = nil) async throws -> [String] {
        var query = query
        var names: [String] = []
        var pages = 0
        while true {
            let page = try await (lister ?? { try await f.items.items($0, $1) })(household ?? f.home.id, query)
            names += page.elements.map(\.item.name)
            pages += 1
            #expect(page.elements.count <= query.limit)
            guard let next = page.nextCursor else { break }
            #expect(page.elements.count == query.limit, "a page before the last is full")
            query.after = next
            if pages > 50 { Issue.record("paging did not end"); break }
        }
        return names
    }

    @Test(arguments: Engine.available)
    func anItemReadsBackChangesAndGoesAwayOnlyInItsHousehold(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let lamp = f.made[1]
            let read = try await f.items.item(f.home.id, lamp.id)
            #expect(read == lamp)
            #expect(read.tags == ["Lighting"])
            #expect(read.roomID == f.rooms[1].id)
            #expect(read.purchasePrice == usd(4_500))

            // Another household sees nothing of it.
            await #expect(throws: DomainError.notFound("The item")) { try await f.items.item(f.other.id, lamp.id) }
            await #expect(throws: DomainError.notFound("The item")) {
                try await f.items.updateItem(f.other.id, lamp.id, lamp.draft, now: Self.start, today: nil)
            }
            await #expect(throws: DomainError.notFound("The item")) { try await f.items.deleteItem(f.other.id, lamp.id) }
            // Nor may an item name another household's room or category.
            let otherRoom = try await f.items.rooms(f.other.id)[0]
            let otherCategory = try await f.items.categories(f.other.id)[0]
            var foreign = lamp.draft
            foreign.roomID = otherRoom.id
            foreign.categoryID = otherCategory.id
            await #expect(throws: DomainError.validation([FieldError(field: "roomID", message: "Choose one of your rooms."),
                                                          FieldError(field: "categoryID", message: "Choose one of your categories.")])) {
                try await f.items.updateItem(f.home.id, lamp.id, foreign, now: Self.start, today: nil)
            }
            await #expect(throws: DomainError.self) {
                try await f.items.createItem(f.home.id, foreign, now: Self.start, today: nil, plan: nil)
            }

            var draft = lamp.draft
            draft.name = "Brass lamp"
            draft.tags = ["brass", "Lighting"]
            draft.purchasePrice = usd(1_000_000)
            draft.quantity = 2
            draft.roomID = nil
            let later = Self.start.addingTimeInterval(60)
            let updated = try await f.items.updateItem(f.home.id, lamp.id, draft, now: later, today: nil)
            #expect(updated.name == "Brass lamp")
            #expect(updated.tags == ["brass", "Lighting"])
            #expect(updated.roomID == nil)
            #expect(updated.createdAt == lamp.createdAt)
            #expect(updated.updatedAt == later)
            #expect(try await f.items.item(f.home.id, lamp.id) == updated)
            // The search follows the change: the old name's words are gone, the new tag is found.
            #expect(try await all(f, ItemQuery(search: "emile")) == ["emile chair"])
            #expect(try await all(f, ItemQuery(search: "brass")) == ["Brass lamp"])
            // Its new value sorts it, whichever way the search is listed (PostgreSQL's index keeps a copy of the sort keys).
            for (plan, lister) in listers(f.items) {
                #expect(try await all(f, ItemQuery(search: "lamp", sort: .value, limit: 1), lister: lister) == ["Brass lamp", "Reading light"],
                        "\(plan)")
            }

            try await f.items.deleteItem(f.home.id, lamp.id)
            await #expect(throws: DomainError.notFound("The item")) { try await f.items.item(f.home.id, lamp.id) }
            await #expect(throws: DomainError.notFound("The item")) { try await f.items.deleteItem(f.home.id, lamp.id) }
            #expect(try await all(f, ItemQuery(search: "lamp")) == ["Reading light"])
            #expect(try await f.items.item(f.other.id, f.otherItem.id) == f.otherItem)
        }
    }

    @Test(arguments: Engine.available)
    func theFreePlanStopsTheItemPastItsLimit(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
            for index in 0..<PlanLimits.freeItems {
                _ = try await stores.items.createItem(home.id, ItemDraft(name: "Thing \(index)", currency: .usd), now: Self.start,
                                                      today: nil, plan: .free)
            }
            await #expect(throws: DomainError.self) {
                try await stores.items.createItem(home.id, ItemDraft(name: "One more", currency: .usd), now: Self.start, today: nil, plan: .free)
            }
            _ = try await stores.items.createItem(home.id, ItemDraft(name: "One more", currency: .usd), now: Self.start, today: nil,
                                                  plan: .everything)
            #expect(try await stores.items.countItems(home.id, search: "", filter: ItemFilter(), cap: 1000) == (PlanLimits.freeItems + 1, true))
        }
    }

    @Test(arguments: Engine.available)
    func countersHoldUnderSimultaneousWrites(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
            let rooms = try await stores.items.rooms(home.id)
            // Four writers at once: 25 items each, 13 in one room and 12 in another, one in five without a price.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for index in 0..<25 {
                            let price = index % 5 == 0 ? nil : try Money(minorUnits: 1_000, currency: .usd)
                            _ = try await stores.items.createItem(home.id, ItemDraft(name: "Thing \(writer)-\(index)", purchasePrice: price,
                                                                                     currency: .usd, roomID: rooms[index % 2].id),
                                                                  now: Self.start, today: nil, plan: nil)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let summary = try await stores.items.summary(home.id)
            #expect(summary.itemCount == 100)
            #expect(summary.needsValue == 20)
            #expect(summary.estimatedValue == [usd(80 * 1_000)])
            #expect(summary.roomsInUse == 2)
            #expect(try await stores.items.itemsByRoom(home.id).map(\.itemCount) == [52, 48])
            #expect(try await all(Fixture(stores: stores, home: home, other: home, rooms: rooms, categories: [], made: [],
                                          otherItem: Item(householdID: home.id, draft: ItemDraft(name: "-", currency: .usd), createdAt: Self.start)),
                                  ItemQuery(search: "thing", limit: 30)).count == 100)
        }
    }

    @Test(arguments: Engine.available)
    func everySortPagesThroughEveryItemInItsOrder(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            // Name: folded keys compared as bytes ("Äpfel" folds to "apfel", before "apple"; "emile chair" before
            // "emile's lamp", as a space is before an apostrophe).
            let byName = f.names([5, 4, 2, 1, 8, 7, 0, 6, 9, 3])
            // Value high → low (no value last); equal values: the later made first.
            let byValue = f.names([8, 9, 0, 3, 7, 1, 5, 4, 6, 2])
            // Newest first; the same time: the later made first.
            let byNewest = f.names([9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
            for limit in [1, 3, 4, 10, 50] {
                #expect(try await all(f, ItemQuery(sort: .name, limit: limit)) == byName, "name, pages of \(limit)")
                #expect(try await all(f, ItemQuery(sort: .value, limit: limit)) == byValue, "value, pages of \(limit)")
                #expect(try await all(f, ItemQuery(sort: .newest, limit: limit)) == byNewest, "newest, pages of \(limit)")
            }
            #expect(try await all(f, ItemQuery(), household: f.other.id) == ["Samsung phone"])

            // A cursor of another sort, or not a cursor, is refused.
            let first = try await f.items.items(f.home.id, ItemQuery(sort: .name, limit: 2))
            let cursor = try #require(first.nextCursor)
            await #expect(throws: DomainError.self) { try await f.items.items(f.home.id, ItemQuery(sort: .value, after: cursor)) }
            await #expect(throws: DomainError.self) {
                try await f.items.items(f.home.id, ItemQuery(after: PageCursor(rawValue: "name.!!.x")))
            }
        }
    }

    @Test(arguments: Engine.available)
    func tiesKeepTheOrderItemsWereMade(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
            // The same folded name, value and time: the name sort keeps the order they were made, the others reverse it.
            var made: [String] = []
            for name in ["Cup", "cup", "CUP", "Cúp", "ｃup", "cup "] {
                let item = try await stores.items.createItem(home.id, ItemDraft(name: name, purchasePrice: usd(300), currency: .usd),
                                                             now: Self.start, today: nil, plan: nil)
                made.append(item.name)
            }
            let f = Fixture(stores: stores, home: home, other: home, rooms: [], categories: [], made: [], otherItem: Item(
                householdID: home.id, draft: ItemDraft(name: "-", currency: .usd), createdAt: Self.start))
            for limit in [1, 2, 4] {
                #expect(try await all(f, ItemQuery(sort: .name, limit: limit)) == made, "name, pages of \(limit)")
                #expect(try await all(f, ItemQuery(sort: .value, limit: limit)) == made.reversed(), "value, pages of \(limit)")
                #expect(try await all(f, ItemQuery(sort: .newest, limit: limit)) == made.reversed(), "newest, pages of \(limit)")
                // Width is not folded by the search (as FTS5's unicode61): the full-width ｃ is another letter.
                for (plan, lister) in listers(stores.items) {
                    for sort in ItemSort.allCases {
                        let expected = made.filter { $0 != "ｃup" }
                        #expect(try await all(f, ItemQuery(search: "cu", sort: sort, limit: limit), lister: lister)
                                == (sort == .name ? expected : expected.reversed()), "search by \(sort), pages of \(limit), \(plan)")
                    }
                }
            }
        }
    }

    @Test(arguments: Engine.available)
    func filtersComposeWithSortsAndPages(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let cases: [(ItemFilter, ItemSort, [Int])] = [
                (ItemFilter(needsValue: true), .name, [2, 6]),
                // Above $1,000 in the household's currency: the EUR item is not comparable.
                (ItemFilter(highValue: true), .value, [9, 0]),
                (ItemFilter(roomID: f.rooms[0].id), .newest, [8, 3, 0]),
                (ItemFilter(categoryID: f.categories[2].id), .name, [5, 4]),
                (ItemFilter(tag: "  LIVING "), .name, [0, 6, 3]),
                (ItemFilter(tag: "living"), .value, [0, 3, 6]),
                (ItemFilter(tag: "living"), .newest, [6, 3, 0]),
                (ItemFilter(needsPhoto: true, roomID: f.rooms[0].id, tag: "living"), .name, [0, 3]),
                (ItemFilter(needsPhoto: true, roomID: f.rooms[1].id), .value, [1, 2]),
                (ItemFilter(needsReceipt: true, needsValue: true, tag: "living"), .name, [6]),
                (ItemFilter(highValue: true, categoryID: f.categories[1].id), .name, []),
            ]
            for (filter, sort, expected) in cases {
                for limit in [1, 2, 50] {
                    #expect(try await all(f, ItemQuery(filter: filter, sort: sort, limit: limit)) == f.names(expected),
                            "\(filter) by \(sort), pages of \(limit)")
                }
                let count = try await f.items.countItems(f.home.id, search: "", filter: filter, cap: 1000)
                #expect(count == (expected.count, true), "count of \(filter)")
            }
            // Filters and search compose, in every plan (on PostgreSQL a room or category steps between the word's items and
            // the place's), a page of one at a time and whole.
            let searches: [(String, ItemFilter, [String])] = [
                ("lamp", ItemFilter(roomID: f.rooms[0].id), ["Reading light"]),
                ("living", ItemFilter(roomID: f.rooms[0].id), ["Samsung TV", "Zebra rug"]),
                ("living", ItemFilter(categoryID: f.categories[1].id), ["Zebra rug"]),
                ("a", ItemFilter(categoryID: f.categories[2].id), ["Äpfel basket", "apple crate"]),
                ("samsung", ItemFilter(roomID: f.rooms[1].id), []),
                ("living", ItemFilter(needsValue: true, roomID: f.rooms[2].id), ["Straße sign"]),
                // A tag steps along the word's items too, or gives its items in order for a first keystroke's walk.
                ("samsung", ItemFilter(tag: "living"), ["Samsung TV"]),
                ("living", ItemFilter(tag: "LIVING"), ["Samsung TV", "Straße sign", "Zebra rug"]),
                ("s", ItemFilter(tag: "living"), ["Samsung TV", "Straße sign"]),
                ("sign", ItemFilter(needsValue: true, tag: "living"), ["Straße sign"]),
                ("zebra", ItemFilter(needsValue: true, tag: "living"), []),
                ("lamp", ItemFilter(tag: "living"), []),
            ]
            for (search, filter, expected) in searches {
                for (plan, lister) in listers(f.items) {
                    for limit in [1, 50] {
                        #expect(try await all(f, ItemQuery(search: search, filter: filter, sort: .name, limit: limit), lister: lister) == expected,
                                "\(search), \(filter), \(plan), pages of \(limit)")
                    }
                }
            }
            for (plan, lister) in listers(f.items) {
                #expect(try await all(f, ItemQuery(search: "s", filter: ItemFilter(tag: "living"), sort: .value, limit: 1), lister: lister)
                        == ["Samsung TV", "Straße sign"], "\(plan)")
                #expect(try await all(f, ItemQuery(search: "s", filter: ItemFilter(tag: "living"), sort: .newest, limit: 1), lister: lister)
                        == ["Straße sign", "Samsung TV"], "\(plan)")
            }
            // A tag's lists follow a rename and a new price of one of its items.
            var rug = f.made[3].draft
            rug.name = "Aardvark rug"
            rug.purchasePrice = usd(200_000)
            _ = try await f.items.updateItem(f.home.id, f.made[3].id, rug, now: Self.start, today: nil)
            #expect(try await all(f, ItemQuery(filter: ItemFilter(tag: "living"), sort: .name, limit: 1)) == ["Aardvark rug", "Samsung TV", "Straße sign"])
            #expect(try await all(f, ItemQuery(filter: ItemFilter(tag: "living"), sort: .value, limit: 2)) == ["Aardvark rug", "Samsung TV", "Straße sign"])
            for (plan, lister) in listers(f.items) {
                #expect(try await all(f, ItemQuery(search: "rug", filter: ItemFilter(tag: "living"), sort: .name), lister: lister) == ["Aardvark rug"],
                        "\(plan)")
                #expect(try await all(f, ItemQuery(search: "zebra", filter: ItemFilter(tag: "living"), sort: .name), lister: lister) == [], "\(plan)")
            }
        }
    }

    @Test(arguments: Engine.available)
    func searchFoldsStemsAndTakesTheLastWordAsAPrefix(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let cases: [(String, [Int])] = [
                // Accents and letters Unicode does not decompose, both ways.
                ("emile", [1, 2]), ("ÉMILE", [1, 2]), ("soren", [6]), ("Søren", [6]), ("strasse", [6]), ("Straße", [6]),
                ("apfel", [5]), ("Äpfel", [5]),
                // The last word is a prefix; the others are whole words.
                ("sams", [0]), ("samsung t", [0]), ("sams tv", []), ("cra", [4]),
                // Stemming (Porter): the forms of a word find each other, in the prefix too.
                ("running", [7]), ("runs", [7]), ("run", [7]), ("shoe", [7]), ("lighting", [1, 8]), ("makes", [8]),
                // Every field: brand, model, serial, notes, tags.
                ("nike", [7]), ("qn65", [0]), ("sn-0042", [4]), ("flea market", [1]), ("sport", [7]), ("electronics", [0]),
                // A word's tokens are a phrase within one field: "lamp acme" is in 8's notes; 1 has lamp in its name and Acme
                // as its brand, which two words find but one word does not.
                ("sm-g991b", [7]), ("SM-G99", [7]), ("lamp-acme", [8]), ("lamp acme", [1, 8]), ("acme-lamp", []),
                // Words in any order, all needed.
                ("rug zebra", [3]), ("zebra chair", []),
            ]
            for (search, expected) in cases {
                for (plan, lister) in listers(f.items) {
                    #expect(try await all(f, ItemQuery(search: search, limit: 2), lister: lister).sorted() == f.names(expected).sorted(),
                            "search \(search), \(plan)")
                }
                let count = try await f.items.countItems(f.home.id, search: search, filter: ItemFilter(), cap: 1000)
                #expect(count == (expected.count, true), "count of \(search)")
            }
            // A search's matches come in the sort's order, page by page.
            for (plan, lister) in listers(f.items) {
                #expect(try await all(f, ItemQuery(search: "living", sort: .value, limit: 1), lister: lister) == f.names([0, 3, 6]), "\(plan)")
                #expect(try await all(f, ItemQuery(search: "li", sort: .value, limit: 1), lister: lister) == f.names([8, 0, 3, 1, 6]), "\(plan)")
                #expect(try await all(f, ItemQuery(search: "li", sort: .name, limit: 2), lister: lister) == f.names([1, 8, 0, 6, 3]), "\(plan)")
                #expect(try await all(f, ItemQuery(search: "li", sort: .newest, limit: 2), lister: lister) == f.names([8, 6, 3, 1, 0]), "\(plan)")
                #expect(try await all(f, ItemQuery(search: "li", filter: ItemFilter(roomID: f.rooms[0].id), sort: .newest, limit: 1),
                                      lister: lister) == f.names([8, 3, 0]), "\(plan)")
            }
            // Another household's items are never found.
            #expect(try await all(f, ItemQuery(search: "samsung")) == ["Samsung TV"])
            #expect(try await all(f, ItemQuery(search: "samsung"), household: f.other.id) == ["Samsung phone"])
        }
    }

    @Test(arguments: Engine.available)
    func stemsFollowFTS5sPorterToo(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
            _ = try await stores.items.createItem(home.id, ItemDraft(name: "Mythology textbook", currency: .usd), now: Self.start, today: nil, plan: nil)
            let f = Fixture(stores: stores, home: home, other: home, rooms: [], categories: [], made: [], otherItem: Item(
                householdID: home.id, draft: ItemDraft(name: "-", currency: .usd), createdAt: Self.start))
            // FTS5's porter stems "mythology" and "mythologic" alike (its "-logi" → "-log" rule), here a whole word
            // before the last; "biology" keeps its i (too short a stem before "logi").
            #expect(try await all(f, ItemQuery(search: "mythologic textbook")) == ["Mythology textbook"])
            #expect(try await all(f, ItemQuery(search: "mythologies textbooks")) == ["Mythology textbook"])
        }
    }

    @Test(arguments: Engine.available)
    func nothingTypedIsSearchSyntax(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let everything = f.names(Array(0..<10)).sorted()
            let cases: [(String, [String])] = [
                // No word at all: no search.
                ("\"", everything), ("*", everything), ("-", everything), ("\"\" * - ( ) :", everything), ("", everything),
                // Operators are words like any other.
                ("OR", f.names([9])), ("NEAR(", f.names([9])), ("near(2)", f.names([9])), ("\"Pro\"", f.names([9])),
                ("-X*", f.names([9])), ("widget OR", f.names([9])), ("lamp OR chair", []), ("NOT lamp", []), ("lamp AND acme", []),
                ("\"lamp", f.names([1, 8]).sorted()), ("lamp -acme", f.names([1, 8]).sorted()), ("NEAR(lamp, acme)", []),
                ("name:lamp", []), ("lamp*", f.names([1, 8]).sorted()), ("'lamp'", f.names([1, 8]).sorted()), ("lamp:*", f.names([1, 8]).sorted()),
                ("lamp & !acme", f.names([1, 8]).sorted()), ("lamp | chair", []), ("lamp <-> acme", f.names([1, 8]).sorted()),
                ("\\'", everything), ("a\u{0}lamp", f.names([8])),
            ]
            for (search, expected) in cases {
                for (plan, lister) in listers(f.items) {
                    #expect(try await all(f, ItemQuery(search: search, limit: 3), lister: lister).sorted() == expected,
                            "search \(search.debugDescription), \(plan)")
                }
            }
        }
    }

    @Test(arguments: Engine.available)
    func countsStopAtTheirCap(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            #expect(try await f.items.countItems(f.home.id, search: "li", filter: ItemFilter(), cap: 3) == (3, false))
            #expect(try await f.items.countItems(f.home.id, search: "li", filter: ItemFilter(), cap: 5) == (5, true))
            #expect(try await f.items.countItems(f.home.id, search: "", filter: ItemFilter(tag: "living"), cap: 2) == (2, false))
            // One word (on PostgreSQL, counted from its items in `item_word`), two, none.
            #expect(try await f.items.countItems(f.home.id, search: "lamp", filter: ItemFilter(), cap: 1000) == (2, true))
            #expect(try await f.items.countItems(f.home.id, search: "lamp", filter: ItemFilter(), cap: 1) == (1, false))
            #expect(try await f.items.countItems(f.home.id, search: "acme lamp", filter: ItemFilter(), cap: 1000) == (2, true))
            #expect(try await f.items.countItems(f.home.id, search: "zzyzx", filter: ItemFilter(), cap: 1000) == (0, true))
            #expect(try await f.items.countItems(f.other.id, search: "lamp", filter: ItemFilter(), cap: 1000) == (0, true))
            #expect(try await f.items.countItems(f.home.id, search: "", filter: ItemFilter(), cap: 1000) == (10, true))
            #expect(try await f.items.countItems(f.other.id, search: "", filter: ItemFilter(), cap: 1000) == (1, true))
        }
    }

    /// An update told the version it was made on is written only while the item is still that version: after another
    /// change it is refused and writes nothing, so an edit never overwrites a change it did not see.
    @Test(arguments: Engine.available)
    func anUpdateMadeOnAnOlderVersionIsRefused(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let lamp = f.made[1]
            var theirs = lamp.draft
            theirs.purchasePrice = usd(5_000)
            let changed = try await f.items.updateItem(f.home.id, lamp.id, theirs, now: Self.start.addingTimeInterval(60), today: nil, expected: lamp.updatedAt)
            #expect(changed.updatedAt == Self.start.addingTimeInterval(60) && changed.purchasePrice == usd(5_000))
            var mine = lamp.draft
            mine.notes = "Rewired"
            await #expect(throws: ItemChanged()) {
                try await f.items.updateItem(f.home.id, lamp.id, mine, now: Self.start.addingTimeInterval(120), today: nil, expected: lamp.updatedAt)
            }
            #expect(try await f.items.item(f.home.id, lamp.id) == changed)
            // On the version it now is, the same update is written.
            mine.purchasePrice = usd(5_000)
            let saved = try await f.items.updateItem(f.home.id, lamp.id, mine, now: Self.start.addingTimeInterval(120), today: nil, expected: changed.updatedAt)
            #expect(saved.notes == "Rewired" && saved.purchasePrice == usd(5_000))
        }
    }

    @Test(arguments: Engine.available)
    func theSummaryAndChartsFollowEveryChange(engine: Engine) async throws {
        try await withStores(engine) { stores in
            var f = try await fixture(stores)
            var summary = try await f.items.summary(f.home.id)
            #expect(summary.itemCount == 10)
            #expect(summary.roomsInUse == 3)
            #expect(summary.estimatedValue == [usd(129_999 + 4_500 + 60_000 + 500 + 500 + 12_000 + 150_000), try Money(minorUnits: 999_999, currency: Self.eur)])
            #expect(summary.needsPhoto == 10)
            #expect(summary.needsReceipt == 10)
            #expect(summary.needsValue == 2)
            #expect(summary.highValueCount == 2)
            #expect(summary.highValueThreshold == usd(100_000))
            #expect(summary.score == DocumentationScore(documented: 0, total: 10))

            let rooms = try await f.items.itemsByRoom(f.home.id)
            // Most items first; the same count: "No room" first, then the rooms' order.
            #expect(rooms.map(\.name) == ["No room", f.rooms[0].name, f.rooms[1].name, f.rooms[2].name])
            #expect(rooms.map(\.itemCount) == [3, 3, 2, 2])
            #expect(rooms.map(\.roomID) == [nil, f.rooms[0].id, f.rooms[1].id, f.rooms[2].id])
            let values = try await f.items.valueByCategory(f.home.id)
            #expect(values.map(\.value) == [try Money(minorUnits: 999_999, currency: Self.eur), usd(150_000), usd(129_999), usd(64_500),
                                            usd(12_000), usd(1_000)])
            #expect(values.map(\.categoryID) == [f.categories[0].id, nil, f.categories[0].id, f.categories[1].id, f.categories[3].id,
                                                 f.categories[2].id])
            #expect(values.map(\.itemCount) == [1, 1, 1, 2, 1, 2])
            #expect(values[1].name == CategoryValue.uncategorizedName)
            let tags = try await f.items.tags(f.home.id)
            // Most used first, then by folded tag; each shown as its least spelling in byte order.
            #expect(tags.map(\.tag) == ["Living", "electronics", "Lighting", "Sport"])
            #expect(tags.map(\.count) == [3, 1, 1, 1])

            // A change of price, quantity, room and category moves every figure; a deletion takes the item out.
            var draft = f.made[2].draft
            draft.purchasePrice = usd(200_000)
            draft.roomID = f.rooms[0].id
            draft.categoryID = f.categories[1].id
            f.made[2] = try await f.items.updateItem(f.home.id, f.made[2].id, draft, now: Self.start, today: nil)
            try await f.items.deleteItem(f.home.id, f.made[9].id)
            summary = try await f.items.summary(f.home.id)
            #expect(summary.itemCount == 9)
            #expect(summary.needsValue == 1)
            #expect(summary.highValueCount == 2)
            #expect(summary.estimatedValue.first == usd(129_999 + 4_500 + 60_000 + 500 + 500 + 12_000 + 200_000))
            #expect(try await f.items.itemsByRoom(f.home.id).map(\.itemCount) == [4, 2, 2, 1])
            #expect(try await f.items.countItems(f.home.id, search: "", filter: ItemFilter(highValue: true), cap: 1000) == (2, true))

            // A new threshold counts the high-value items again.
            _ = try await stores.accounts.updateHousehold(f.home.id, name: "Home", currency: .usd, highValueThreshold: usd(10_000), timeZone: nil)
            summary = try await f.items.summary(f.home.id)
            #expect(summary.highValueCount == 4)
            #expect(try await all(f, ItemQuery(filter: ItemFilter(highValue: true), sort: .value)) == f.names([2, 0, 3, 7]))
            // The other household's figures never moved.
            let other = try await f.items.summary(f.other.id)
            #expect(other.itemCount == 1)
            #expect(other.roomsInUse == 0)
            #expect(try await f.items.tags(f.other.id).map(\.tag) == ["living"])
        }
    }
}

/// Items loaded in bulk on PostgreSQL (`insertItems`) read back, list, search and count as items made one at a time.
@Suite(.enabled(if: Engine.available.contains(.postgres)))
struct BulkItemLoadTests {
    @Test func itemsLoadedInBulkAreTheSameAsItemsMadeOneByOne() async throws {
        let store = try await openPostgres()
        do {
            try await compare(store)
            await store.close()
        } catch {
            await store.close()
            throw error
        }
    }

    func compare(_ store: PostgresStore) async throws {
        let start = ItemStoreConformanceTests.start
        let one = try await store.createHousehold(name: "One", currency: .usd, now: start)
        let bulk = try await store.createHousehold(name: "Bulk", currency: .usd, now: start)
        var loaded: [Item] = []
        for (household, inBulk) in [(one, false), (bulk, true)] {
            let rooms = try await store.rooms(household.id)
            let categories = try await store.categories(household.id)
            var items: [Item] = []
            for row in ItemStoreConformanceTests.rows {
                let price = try row.6.map { try Money(minorUnits: $0, currency: row.8) }
                let draft = try ItemDraft(name: row.0, brand: row.1, modelNumber: row.2, serialNumber: row.3, purchasePrice: price, currency: row.8,
                                          categoryID: row.10.map { categories[$0].id }, roomID: row.9.map { rooms[$0].id }, tags: row.5,
                                          notes: row.4, quantity: row.7).validated(today: CalendarDate(start, in: .current))
                let at = start.addingTimeInterval(Double(row.11))
                if inBulk {
                    items.append(Item(householdID: household.id, draft: draft, createdAt: at))
                } else {
                    _ = try await store.createItem(household.id, draft, now: at, today: nil, plan: nil)
                }
            }
            if inBulk {
                try await store.insertItems(household.id, items)
                loaded = items
            }
        }
        for item in loaded { #expect(try await store.item(bulk.id, item.id) == item) }
        func names(_ household: Household, _ query: ItemQuery) async throws -> [String] {
            try await store.items(household.id, query).elements.map(\.item.name)
        }
        let queries = [ItemQuery(), ItemQuery(sort: .value), ItemQuery(sort: .newest), ItemQuery(search: "lamp"), ItemQuery(search: "emile"),
                       ItemQuery(search: "living"), ItemQuery(search: "sn-0042"), ItemQuery(search: "søren"), ItemQuery(search: "\"pro\" -x*"),
                       ItemQuery(filter: ItemFilter(needsValue: true)), ItemQuery(filter: ItemFilter(tag: "LIVING")),
                       ItemQuery(filter: ItemFilter(tag: "living"), sort: .value), ItemQuery(search: "s", filter: ItemFilter(tag: "living")),
                       ItemQuery(search: "a", filter: ItemFilter(highValue: true))]
        for query in queries {
            let expected = try await names(one, query)
            #expect(try await names(bulk, query) == expected, "\(query)")
        }
        #expect(try await names(bulk, ItemQuery(search: "lamp")) == ["Émile's lamp", "Reading light"])
        let summary = try await store.summary(bulk.id)
        #expect(summary == (try await store.summary(one.id)))
        #expect(summary.itemCount == ItemStoreConformanceTests.rows.count)
        #expect(try await store.tags(bulk.id).map(\.tag) == (try await store.tags(one.id)).map(\.tag))
    }
}

/// A search sorted by name on PostgreSQL answered from `item_word` (the words' items in name order): the page it gives is
/// the one the search index gives, and the table follows every write (a new item, a rename, new notes, a bulk load,
/// a removal), so a stale word never lists an item nor misses one.
@Suite(.enabled(if: Engine.available.contains(.postgres)))
struct ItemWordTests {
    @Test func searchesSortedByNameAreAnsweredFromTheWordsAndFollowEveryWrite() async throws {
        try await withStores(.postgres) { stores in
            let store = try #require(stores.items as? PostgresStore)
            let home = try await store.createHousehold(name: "Home", currency: .usd, now: ItemStoreConformanceTests.start)
            let other = try await store.createHousehold(name: "Other", currency: .usd, now: ItemStoreConformanceTests.start)
            let at = ItemStoreConformanceTests.start
            func make(_ household: Household, _ name: String, notes: String? = nil) async throws -> Item {
                try await store.createItem(household.id, ItemDraft(name: name, currency: .usd, notes: notes), now: at, today: nil, plan: nil)
            }
            let desk = try await make(home, "Walnut desk")
            _ = try await make(home, "Armchair", notes: "walnut legs")
            _ = try await make(home, "Walnuts in a jar")
            _ = try await make(home, "Oak table", notes: "wi-fi lamp")
            _ = try await make(home, "Lamp", notes: "wifi")
            _ = try await make(other, "Walnut box")

            // What the words' read alone gives (nil: it gave up), against the search index's own answer.
            func fromWords(_ search: String, budget: Int = 100) async throws -> [String]? {
                try await store.itemsFromWords(home.id, ItemQuery(search: search, sort: .name), budget: budget)?.map(\.item.name)
            }
            func fromIndex(_ search: String) async throws -> [String] {
                try await store.items(home.id, ItemQuery(search: search, sort: .name), plan: .searchFirst).elements.map(\.item.name)
            }
            #expect(try await fromWords("walnut") == ["Armchair", "Walnut desk", "Walnuts in a jar"])
            #expect(try await fromWords("walnut") == (try await fromIndex("walnut")))
            #expect(try await fromWords("walnut desk") == ["Walnut desk"])
            // Two words step along each other's items; a third is tested on what they share.
            #expect(try await fromWords("walnut jar") == ["Walnuts in a jar"])
            #expect(try await fromWords("legs walnut") == ["Armchair"])
            #expect(try await fromWords("walnut legs armchair") == ["Armchair"])
            #expect(try await fromWords("walnut oak") == [])
            #expect(try await fromWords("wi-fi") == ["Oak table"])     // a phrase: "wi" then "fi"
            #expect(try await fromWords("wi") == (try await fromIndex("wi")))
            #expect(try await fromWords("zzyzx") == [])
            // A word too long to be kept whole is still found by a prefix of it, and never by a word it is not.
            let long = String(repeating: "q", count: 300)
            _ = try await make(home, "Scroll", notes: long)
            #expect(try await fromWords("qqqqqq") == ["Scroll"])
            #expect(try await fromWords("qqqqqq") == (try await fromIndex("qqqqqq")))
            #expect(try await fromWords("scroll " + String(repeating: "q", count: 200) + " x") == [])
            #expect(try await fromIndex(String(repeating: "q", count: 250)) == ["Scroll"])
            #expect(try await store.items(home.id, ItemQuery(search: String(repeating: "q", count: 250), sort: .name)).elements.map(\.item.name)
                    == ["Scroll"])
            // A budget too small for the page hands the search on.
            #expect(try await fromWords("walnut", budget: 1) == nil)

            // A rename moves the item in the words' order; new notes give it new words and take the old ones away.
            var draft = desk.draft
            draft.name = "Burr walnut desk"
            draft.notes = "teak inlay"
            _ = try await store.updateItem(home.id, desk.id, draft, now: at, today: nil)
            #expect(try await fromWords("walnut") == ["Armchair", "Burr walnut desk", "Walnuts in a jar"])
            #expect(try await fromWords("teak") == ["Burr walnut desk"])
            #expect(try await fromWords("desk") == ["Burr walnut desk"])
            #expect(try await fromWords("burr walnut") == ["Burr walnut desk"])
            draft.notes = nil
            _ = try await store.updateItem(home.id, desk.id, draft, now: at, today: nil)
            #expect(try await fromWords("teak") == [])

            // Items loaded in bulk have their words; a removed item's words go with it.
            try await store.insertItems(home.id, [Item(householdID: home.id, draft: ItemDraft(name: "Walnut shelf", currency: .usd), createdAt: at)])
            #expect(try await fromWords("walnut") == ["Armchair", "Burr walnut desk", "Walnut shelf", "Walnuts in a jar"])
            try await store.deleteItem(home.id, desk.id)
            #expect(try await fromWords("walnut") == ["Armchair", "Walnut shelf", "Walnuts in a jar"])
            #expect(try await fromWords("walnut") == (try await fromIndex("walnut")))
        }
    }
}
