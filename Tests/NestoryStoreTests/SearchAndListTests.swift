import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import Testing
@testable import NestoryStore

@Suite struct SearchAndListTests {
    @Test func searchStemsFoldsAccentsAndMatchesPrefixes() throws {
        let store = try TestStore()
        let home = try store.household()
        try store.item(home, "Crème brûlée torches", brand: "Bonjour")
        try store.item(home, "Running shoes", brand: "ASICS", notes: "Bought for the marathon")
        try store.item(home, "Samsung Galaxy", serial: "R58M-123")
        try store.item(home, "Wedding ring", tags: ["Heirloom"])
        #expect(try store.names(home, ItemQuery(search: "creme brulee")) == ["Crème brûlée torches"])
        #expect(try store.names(home, ItemQuery(search: "torch")) == ["Crème brûlée torches"])  // stemming
        #expect(try store.names(home, ItemQuery(search: "run shoe")) == ["Running shoes"])
        #expect(try store.names(home, ItemQuery(search: "MARATHONS")) == ["Running shoes"])  // notes, plural
        #expect(try store.names(home, ItemQuery(search: "sams")) == ["Samsung Galaxy"])  // prefix while typing
        #expect(try store.names(home, ItemQuery(search: "r58m")) == ["Samsung Galaxy"])  // serial
        #expect(try store.names(home, ItemQuery(search: "heirloom")) == ["Wedding ring"])  // tags
        #expect(try store.names(home, ItemQuery(search: "asics shoes")) == ["Running shoes"])  // brand + name
        #expect(try store.names(home, ItemQuery(search: "asics ring")).isEmpty)  // all words must match
    }

    /// Letters Unicode does not decompose (ø, æ, ß, ł, đ, þ) are found typed without the key, and as written.
    @Test func lettersWithoutADecompositionAreFoldedBothWays() throws {
        let store = try TestStore()
        let home = try store.household()
        try store.item(home, "Søren's armchair")
        try store.item(home, "Æsop fables, first edition")
        try store.item(home, "Straßenschild", notes: "from Łódź")
        try store.item(home, "Þórr figurine", brand: "Đorđević")
        #expect(try store.names(home, ItemQuery(search: "soren")) == ["Søren's armchair"])
        #expect(try store.names(home, ItemQuery(search: "Søren")) == ["Søren's armchair"])
        #expect(try store.names(home, ItemQuery(search: "aesop")) == ["Æsop fables, first edition"])
        #expect(try store.names(home, ItemQuery(search: "strassensch")) == ["Straßenschild"])  // a prefix while typing
        #expect(try store.names(home, ItemQuery(search: "lodz")) == ["Straßenschild"])
        #expect(try store.names(home, ItemQuery(search: "thorr djordjevic")).isEmpty)  // đ is d, not dj
        #expect(try store.names(home, ItemQuery(search: "thorr dordevic")) == ["Þórr figurine"])
        #expect(Text.searchFold("plain ascii") == "plain ascii")
    }

    @Test(arguments: ["\"", "\"\"", "*", "NEAR(", "NEAR(a b)", "-", "- shoes", "OR", "AND", "NOT", "shoes OR ring",
                      "name:shoes", "^shoes", "(", ")", "'", "\\", "%", "_", "shoes*", "{brand}: x", "\u{0}", "😀", "ring\"",
                      String(repeating: "a ", count: 500)])
    func hostileQueriesJustWork(_ query: String) throws {
        let store = try TestStore()
        let home = try store.household()
        try store.item(home, "Running shoes")
        try store.item(home, "Wedding ring")
        // No error, and never more than what plain words would match.
        let names = try store.names(home, ItemQuery(search: query))
        #expect(names.count <= 2)
        #expect(try store.database.countItems(home.id, search: query, filter: ItemFilter()).count == names.count)
    }

    @Test func operatorsAreSearchedAsWords() throws {
        let store = try TestStore()
        let home = try store.household()
        try store.item(home, "Running shoes")
        try store.item(home, "Wedding ring")
        // "shoes OR ring" means all three words, so nothing has them all; FTS would have found both.
        #expect(try store.names(home, ItemQuery(search: "shoes OR ring")).isEmpty)
        #expect(try store.names(home, ItemQuery(search: "- shoes")) == ["Running shoes"])
        #expect(try store.names(home, ItemQuery(search: "shoes\"")) == ["Running shoes"])
        #expect(try store.names(home, ItemQuery(search: "\"")).count == 2)  // nothing to search for: everything
    }

    @Test func filtersComposeWithSearchAndEachOther() throws {
        let store = try TestStore()
        let home = try store.household()
        let a = try store.item(home, "Laptop pro", price: "2500", tags: ["work"], room: "Office", category: "Electronics")
        _ = try store.database.addPhoto(home.id, to: a.id, data: fakeImage(1), contentType: "image/jpeg", now: store.now)
        try store.item(home, "Laptop old", price: "300", room: "Office", category: "Electronics")
        try store.item(home, "Laptop bag", tags: ["Work"], room: "Bedroom")
        let q = { (filter: ItemFilter) in try store.names(home, ItemQuery(search: "laptop", filter: filter)) }
        let office = try store.database.rooms(home.id).first { $0.name == "Office" }!.id
        let electronics = try store.database.categories(home.id).first { $0.name == "Electronics" }!.id
        #expect(try q(ItemFilter(needsPhoto: true)) == ["Laptop bag", "Laptop old"])
        #expect(try q(ItemFilter(needsReceipt: true)).count == 3)
        #expect(try q(ItemFilter(needsValue: true)) == ["Laptop bag"])
        #expect(try q(ItemFilter(highValue: true)) == ["Laptop pro"])
        #expect(try q(ItemFilter(roomID: office)) == ["Laptop old", "Laptop pro"])
        #expect(try q(ItemFilter(categoryID: electronics, tag: "WORK")) == ["Laptop pro"])
        #expect(try q(ItemFilter(needsPhoto: true, roomID: office)) == ["Laptop old"])
        #expect(try q(ItemFilter(tag: "work")) == ["Laptop bag", "Laptop pro"])
        #expect(try store.database.countItems(home.id, search: "", filter: ItemFilter(needsPhoto: true)) == (2, true))
        #expect(try store.database.countItems(home.id, search: "laptop", filter: ItemFilter(roomID: office)) == (2, true))
        #expect(try store.database.countItems(home.id, search: "laptop", filter: ItemFilter(), cap: 2) == (2, false))
    }

    @Test func highValueOnlyComparesTheHouseholdCurrency() throws {
        let store = try TestStore()
        let home = try store.household()
        _ = try store.database.createItem(home.id, ItemDraft(name: "Yen vase", purchasePrice: try Money.parse("500000", currency: .jpy),
                                                             currency: .jpy), now: store.now, today: store.today)
        try store.item(home, "Dollar vase", price: "1000.01")
        #expect(try store.names(home, ItemQuery(filter: ItemFilter(highValue: true))) == ["Dollar vase"])
        #expect(try store.database.summary(home.id).highValueCount == 1)
    }

    /// The high-value count is a counter kept by triggers: it must equal a plain count after every kind of change.
    @Test func theHighValueCounterFollowsEditsAndTheThreshold() throws {
        let store = try TestStore()
        let home = try store.household()
        let other = try store.household("Other")
        func check(_ expected: Int, _ note: Comment) throws {
            let listed = try store.names(home, ItemQuery(filter: ItemFilter(highValue: true))).count
            #expect(try store.database.summary(home.id).highValueCount == expected, note)
            #expect(listed == expected, note)
            #expect(try store.database.countItems(home.id, search: "", filter: ItemFilter(highValue: true)) == (expected, true), note)
        }
        try check(0, "empty")
        let tv = try store.item(home, "TV", price: "1200")
        let chair = try store.item(home, "Chair", price: "300", quantity: 2)
        try store.item(home, "Lamp", price: "1000")  // not above 1000
        try store.item(other, "Other's piano", price: "9000")
        try check(1, "inserted")
        var draft = ItemDraft(name: "Chair", purchasePrice: try Money.parse("300", currency: .usd), currency: .usd)
        draft.quantity = 4
        _ = try store.database.updateItem(home.id, chair.id, draft, now: store.now)
        try check(2, "quantity raised above the threshold")
        _ = try store.database.updateItem(home.id, tv.id, ItemDraft(name: "TV", purchasePrice: try Money.parse("1200", currency: .eur), currency: .eur),
                                          now: store.now)
        try check(1, "currency changed away from the threshold's")
        let household = try store.database.household(home.id)
        _ = try store.database.updateHousehold(home.id, name: household.name, currency: .usd, highValueThreshold: try Money.parse("999", currency: .usd), timeZone: nil)
        try check(2, "threshold lowered: the lamp now counts")
        _ = try store.database.updateHousehold(home.id, name: household.name, currency: .eur, highValueThreshold: try Money.parse("1000", currency: .eur), timeZone: nil)
        try check(1, "household currency changed: only the TV in euros counts")
        try store.database.deleteItem(home.id, tv.id)
        try check(0, "deleted")
        #expect(try store.database.summary(other.id).highValueCount == 1)
    }

    @Test(arguments: ItemSort.allCases)
    func keysetPagesCoverEveryItemOnceInOrder(_ sort: ItemSort) throws {
        let store = try TestStore()
        let home = try store.household()
        // Ties on purpose: equal names, equal prices, equal creation times.
        var expected: [Item] = []
        for i in 0..<57 {
            let price: String? = i % 7 == 0 ? nil : "\((i * 37) % 11 * 100)"
            expected.append(try store.item(home, ["Émile", "emile", "Zebra", "apple", "Apple"][i % 5] + (i % 3 == 0 ? "" : " \(i % 4)"),
                                           price: price, createdOffset: Double(i / 3)))
        }
        let pages = try store.allPages(home, ItemQuery(sort: sort, limit: 5))
        #expect(pages.count == 57)
        #expect(Set(pages.map(\.id)).count == 57)
        let order = pages.map(\.item)
        switch sort {
        case .name:
            let keys = order.map { Text.foldKey($0.name) }
            #expect(keys == keys.sorted())
        case .value:
            let values = order.map { $0.totalValue?.minorUnits ?? -1 }
            #expect(values == values.sorted(by: >))
            #expect(order.suffix(9).allSatisfy { $0.purchasePrice == nil })  // no value last
        case .newest:
            let created = order.map(\.createdAt)
            #expect(created == created.sorted(by: >))
        }
    }

    @Test func aStaleOrForeignCursorIsRefusedClearly() throws {
        let store = try TestStore()
        let home = try store.household()
        for i in 0..<3 { try store.item(home, "Item \(i)") }
        let first = try store.database.items(home.id, ItemQuery(sort: .name, limit: 1))
        let cursor = try #require(first.nextCursor)
        #expect(throws: ItemPageCursor.outOfDate) {
            try store.database.items(home.id, ItemQuery(sort: .value, limit: 1, after: cursor))
        }
        #expect(ItemPageCursor.outOfDate == .invalid(field: "after", message: "That page link is out of date; start again from the first page."),
                "named as the API's parameter")
        for junk in ["", "name", "name.!!!.1", "value.x.1", "newest.1.x", "name.\u{0}.1"] {
            #expect(throws: DomainError.self) {
                try store.database.items(home.id, ItemQuery(sort: junk.hasPrefix("value") ? .value : junk.hasPrefix("newest") ? .newest : .name,
                                                            after: PageCursor(rawValue: junk)))
            }
        }
    }

    @Test func listingsCarryThumbnailCountsAndTags() throws {
        let store = try TestStore()
        let home = try store.household()
        let item = try store.item(home, "Camera", tags: ["travel", "insured"])
        let first = try store.database.addPhoto(home.id, to: item.id, data: fakeImage(1), contentType: "image/jpeg", now: store.now)
        let second = try store.database.addPhoto(home.id, to: item.id, data: fakeImage(2), contentType: "image/png", now: store.now)
        var listing = try #require(try store.database.items(home.id, ItemQuery()).elements.first)
        #expect(listing.photoCount == 2)
        #expect(listing.primaryPhoto?.sha256 == first.attachment.sha256)
        #expect(listing.item.tags == ["travel", "insured"])
        try store.database.setPrimaryPhoto(home.id, second.id)
        listing = try #require(try store.database.items(home.id, ItemQuery()).elements.first)
        #expect(listing.primaryPhoto?.sha256 == second.attachment.sha256)
        try store.database.removePhoto(home.id, second.id, now: store.now)
        listing = try #require(try store.database.items(home.id, ItemQuery()).elements.first)
        #expect(listing.primaryPhoto?.sha256 == first.attachment.sha256)  // the next photo becomes primary
        #expect(listing.photoCount == 1)
    }

    /// A search is listed either from its full-text matches or by walking the sort order, depending
    /// on how many match: both must give the same items in the same order, page by page, and the
    /// page with its count must be what the two separate calls give.
    @Test(arguments: ItemSort.allCases)
    func bothSearchPlansGiveTheSamePages(_ sort: ItemSort) throws {
        let store = try TestStore()
        let home = try store.household()
        let other = try store.household("Neighbours")
        for i in 0..<61 {
            let price: String? = i % 7 == 0 ? nil : "\((i * 37) % 11 * 100)"
            try store.item(home, ["Sony TV", "sony tv", "Lamp", "Sony radio", "Émile's Sony"][i % 5] + (i % 3 == 0 ? "" : " \(i % 4)"),
                           price: price, brand: i % 4 == 0 ? "Sony" : nil,
                           notes: ["Running shoes, WH-1000XM4 case", "samples of Samsung's \"Søren\" line", nil, "ran runs running"][i % 4],
                           tags: i % 6 == 0 ? ["gift"] : [], room: i % 2 == 0 ? "Office" : nil, createdOffset: Double(i / 3))
            if i % 3 == 0 { try store.item(other, "Sony \(i)") }
        }
        let office = try store.database.rooms(home.id).first { $0.name == "Office" }!.id
        let searches = ["sony", "so", "s", "sony tv", "lamp", "emile", "émi", "nothing here", "wh-1000", "1000xm", "run", "runn", "sams",
                        "samsung", "soren", "\"søren\"", "tv 2", "sony 3", "running shoe"]
        for search in searches {
            for filter in [ItemFilter(), ItemFilter(needsValue: true), ItemFilter(roomID: office, tag: "gift"), ItemFilter(highValue: true)] {
                var pages: [[String]] = []
                let plans: [ItemListSQL.Plan] = [.sortOrderFirst, .searchFirst, .walkThenSearch(budget: 3), .walkThenSearch(budget: 1000)]
                for plan in plans {
                    var query = ItemQuery(search: search, filter: filter, sort: sort, limit: 4)
                    var names: [String] = []
                    while true {
                        let page = try store.database.items(home.id, query, plan: plan)
                        names += page.elements.map { "\($0.item.id) \($0.item.name)" }
                        guard let next = page.nextCursor else { break }
                        query.after = next
                    }
                    pages.append(names)
                }
                for (plan, names) in zip(plans, pages).dropFirst() { #expect(names == pages[0], "\(search) \(filter) \(plan)") }
                // The same pages chosen by the household's sort keys in memory (from here on current, so the counts
                // below are taken from them too).
                var query = ItemQuery(search: search, filter: filter, sort: sort, limit: 4)
                var names: [String] = []
                while let page = try store.database.itemsFromKeys(home.id, query) {
                    names += page.elements.map { "\($0.item.id) \($0.item.name)" }
                    guard let next = page.nextCursor, names.count <= pages[0].count else { break }
                    query.after = next
                }
                #expect(names == pages[0], "\(search) \(filter) from the keys")
                // And walked in memory: to the end, or for two items then from the keys.
                for budget in [1000, 2] {
                    var query = ItemQuery(search: search, filter: filter, sort: sort, limit: 4)
                    var walked: [String] = []
                    while let page = try store.database.itemsFromKeys(home.id, query, walkBudget: budget) {
                        walked += page.elements.map { "\($0.item.id) \($0.item.name)" }
                        guard let next = page.nextCursor, walked.count <= pages[0].count else { break }
                        query.after = next
                    }
                    #expect(walked == pages[0], "\(search) \(filter) walked in memory, budget \(budget)")
                }
                let first = ItemQuery(search: search, filter: filter, sort: sort, limit: 4)
                for cap in [3, 1000] {
                    let together = try store.database.itemsAndCount(home.id, first, cap: cap)
                    #expect(together.page.elements.map(\.item.id) == (try store.database.items(home.id, first).elements.map(\.item.id)))
                    #expect(together.page.nextCursor == (try store.database.items(home.id, first).nextCursor))
                    let counted = try store.database.countItems(home.id, search: search, filter: filter, cap: cap)
                    #expect(together.matching == counted)
                    #expect(counted.count == min(pages[0].count, cap))
                    #expect(counted.exact == (pages[0].count <= cap))
                }
            }
        }
    }

    /// The keys in memory are used only while current: after each kind of change the lists are still right (from SQL
    /// until the keys are made again), and keys made again give the same pages as SQL.
    @Test func sortKeysInMemoryAreNeverUsedStale() throws {
        let store = try TestStore()
        let home = try store.household()
        var lamps: [Item] = []
        for i in 0..<12 { lamps.append(try store.item(home, "Lamp \(i)", price: "\(i * 10)", room: i % 2 == 0 ? "Office" : nil)) }
        let office = try store.database.rooms(home.id).first { $0.name == "Office" }!.id
        let queries = [ItemQuery(search: "lamp", limit: 5), ItemQuery(search: "lamp", sort: .value, limit: 5),
                       ItemQuery(search: "lamp", filter: ItemFilter(highValue: true), limit: 5),
                       ItemQuery(search: "lamp", filter: ItemFilter(roomID: office), limit: 5),
                       ItemQuery(search: "lamp", filter: ItemFilter(tag: "spare"), limit: 5)]
        func check(_ change: String) throws {
            #expect(try !store.database.listKeysAreCurrent(home.id), "\(change)")
            for query in queries {
                let sql = try store.database.items(home.id, query, plan: .searchFirst).elements.map(\.item.id)
                #expect(try store.database.items(home.id, query).elements.map(\.item.id) == sql, "\(change): \(query)")
                #expect(try store.database.itemsFromKeys(home.id, query)?.elements.map(\.item.id) == sql, "\(change), keys made again: \(query)")
            }
        }
        try check("first")
        #expect(try store.database.listKeysAreCurrent(home.id))
        _ = try store.database.updateItem(home.id, lamps[5].id, lamps[5].draft, now: store.now.addingTimeInterval(1))
        #expect(try store.database.listKeysAreCurrent(home.id))  // saved unchanged: nothing listed moved
        var draft = lamps[3].draft
        draft.name = "Aardvark lamp"
        _ = try store.database.updateItem(home.id, lamps[3].id, draft, now: store.now)
        try check("renamed")
        draft.purchasePrice = try Money.parse("5000", currency: .usd)
        _ = try store.database.updateItem(home.id, lamps[3].id, draft, now: store.now)
        try check("revalued")
        draft.roomID = office
        draft.tags = ["spare"]
        _ = try store.database.updateItem(home.id, lamps[3].id, draft, now: store.now)
        try check("moved and tagged")
        try store.database.deleteItem(home.id, lamps[0].id)
        try check("deleted")
        try store.item(home, "Lamp new", price: "1")
        try check("added")
        _ = try store.database.updateHousehold(home.id, name: "Home", currency: .usd, highValueThreshold: try Money.parse("30", currency: .usd), timeZone: nil)
        try check("threshold")
    }

    /// The item content version (what a kept answer of the JSON list is checked against) moves with every change to
    /// anything the list shows, including those the sort keys ignore, and only for the household changed.
    @Test func theItemContentVersionMovesWithEverythingTheListShows() throws {
        let store = try TestStore()
        let home = try store.household()
        let other = try store.household("Other")
        let database = store.database
        #expect(try database.itemContentVersion(home.id) == 0)
        var seen = [try database.itemContentVersion(home.id)]
        func moved(_ change: String, _ body: () throws -> Void) throws {
            let otherBefore = try database.itemContentVersion(other.id)
            try body()
            let now = try database.itemContentVersion(home.id)
            #expect(now > seen.last!, "\(change)")
            #expect(try database.itemsVersioned(home.id, ItemQuery()).version == now, "\(change)")
            #expect(try database.itemContentVersion(other.id) == otherBefore, "\(change)")
            seen.append(now)
        }
        var lamp = try store.item(home, "Lamp")
        try moved("added") { lamp = try store.item(home, "Desk lamp") }
        try store.item(other, "Chair")
        var draft = lamp.draft
        draft.notes = "Bought in Lisbon"
        try moved("notes edited") { _ = try database.updateItem(home.id, lamp.id, draft, now: store.now.addingTimeInterval(1)) }
        draft.tags = ["desk"]
        try moved("tagged") { _ = try database.updateItem(home.id, lamp.id, draft, now: store.now.addingTimeInterval(2)) }
        let first = try database.addPhoto(home.id, to: lamp.id, data: fakeImage(1), contentType: "image/jpeg", now: store.now)
        let second = try database.addPhoto(home.id, to: lamp.id, data: fakeImage(2), contentType: "image/jpeg", now: store.now)
        try moved("primary photo changed") { try database.setPrimaryPhoto(home.id, second.id) }
        try moved("photo removed") { try database.removePhoto(home.id, first.id, now: store.now) }
        let receipt = try database.addReceipt(home.id, itemID: nil, data: fakeImage(3), contentType: "image/jpeg", now: store.now)
        try moved("receipt linked") { try database.linkReceipt(home.id, receipt.id, to: lamp.id) }
        let room = try database.createRoom(home.id, name: "Study")
        draft.roomID = room.id
        _ = try database.updateItem(home.id, lamp.id, draft, now: store.now.addingTimeInterval(3))
        seen.append(try database.itemContentVersion(home.id))
        try moved("its room deleted") { _ = try database.deleteRoom(home.id, room.id, now: store.now) }
        #expect(try database.item(home.id, lamp.id).item.roomID == nil)
        try moved("deleted") { try database.deleteItem(home.id, lamp.id) }
    }

    /// A search whose matches sit together far down the asked order (the walk finds none of them) is listed from the
    /// keys in memory when they are current, and gives the page the SQL plans give.
    @Test func aCommonWordClusteredInTheOrderIsListedFromTheKeys() throws {
        let store = try TestStore()
        let home = try store.household()
        let count = AppDatabase.walkBudget + 2_100
        try store.database.insertItems(home.id, (0..<count).map { i in
            NewItem(draft: ItemDraft(name: i < AppDatabase.walkBudget ? "Apple \(i)" : "Walnut \(i)", currency: .usd), createdAt: store.now)
        }, today: store.today)
        let query = ItemQuery(search: "walnut", limit: 20)
        let expected = try store.database.items(home.id, query, plan: .searchFirst).elements.map(\.item.name)
        #expect(expected.first == "Walnut \(AppDatabase.walkBudget)")
        #expect(!(try store.database.listStatements(home.id, query).contains { $0.rowLimit != nil }))  // keys not made yet
        try store.database.warmListKeys(home.id)
        #expect(try store.database.listStatements(home.id, query).contains { $0.rowLimit != nil })
        #expect(try store.database.items(home.id, query).elements.map(\.item.name) == expected)
        let counted = try store.database.countItems(home.id, search: "walnut", filter: ItemFilter(), cap: 10_000)
        #expect(counted.count == count - AppDatabase.walkBudget && counted.exact)
        // The page and its count together: the keys count while they place the matches.
        for cap in [10_000, 1_000] {
            let together = try store.database.itemsAndCount(home.id, query, cap: cap)
            #expect(together.page.elements.map(\.item.name) == expected)
            #expect(together.matching.count == min(count - AppDatabase.walkBudget, cap) && together.matching.exact == (cap == 10_000))
        }
        let next = ItemQuery(search: "walnut", limit: 20, after: try store.database.items(home.id, query).nextCursor)
        let second = try store.database.itemsAndCount(home.id, next, cap: 10_000)
        #expect(second.matching.count == count - AppDatabase.walkBudget && second.matching.exact)  // a later page's count is still the whole search's
        #expect(try store.database.matchingCountedByKeys(home.id, query) == count - AppDatabase.walkBudget)
        #expect(try store.database.matchingCountedByKeys(home.id, next) == nil)  // the keys counted only those after the cursor
    }

    /// With the keys current, a word found now and then where the walk starts is walked on while it keeps a pace that
    /// promises a page within `promisingWalkBudget`; a word found nowhere there stops the walk after its first batch, and
    /// its matches are gathered from the index.
    @Test func theWalkGoesOnOnlyWhileItsMatchesAreDenseEnoughForAPage() throws {
        let store = try TestStore()
        let home = try store.household()
        // In name order: "Apple 0000"… with every eighth a "walnut", then "Zebra …" for the clustered word "zebra".
        let count = AppDatabase.walkBudget + 600
        try store.database.insertItems(home.id, (0..<count).map { i in
            let name = i < AppDatabase.walkBudget ? "Apple \(String(format: "%04d", i))\(i % 8 == 0 ? " walnut" : "")" : "Zebra \(i)"
            return NewItem(draft: ItemDraft(name: name, currency: .usd), createdAt: store.now)
        }, today: store.today)
        try store.database.warmListKeys(home.id)
        func batches(_ statements: [AppDatabase.ListStatement]) -> Int { statements.filter { $0.sql.contains("nestory_matches(?, name") }.count }
        func gathered(_ statements: [AppDatabase.ListStatement]) -> Bool { statements.contains { $0.sql.contains(SeqCollector.name) } }
        for (search, walked, gathers) in [("walnut", 5, false), ("zebra", 1, true)] {
            let query = ItemQuery(search: search, limit: 50)
            let expected = try store.database.items(home.id, query, plan: .searchFirst).elements.map(\.item.name)
            #expect(expected.count == 50)
            #expect(try store.database.items(home.id, query).elements.map(\.item.name) == expected, "\(search)")
            let statements = try store.database.listStatements(home.id, query)
            // "walnut": 13 in the first 100 walked, so 51 are expected within about 400 (at most 1,000 are walked); the
            // fifth batch finds the page. "zebra": none in the first 100, so the walk stops there.
            #expect(batches(statements) == walked, "\(search)")
            #expect(gathered(statements) == gathers, "\(search)")
        }
    }

    /// The last word of a search is a prefix; it is searched as a whole word only when no word of the index merely
    /// starts with it (the matches are then the same).
    @Test func theLastWordLosesItsPrefixOnlyWhenNothingLongerStartsWithIt() throws {
        let store = try TestStore()
        let home = try store.household()
        try store.item(home, "Desk lamp")
        try store.item(home, "Lampshade")
        try store.item(home, "Walnut desks")
        let query = { (search: String) in try store.database.unsafeRawRead { db in try ItemListCache.fullTextQuery(db, search) } }
        #expect(try query("lamp") == "\"lamp\"*")  // "lampshad" starts with it
        #expect(try query("lampshade") == "\"lampshade\"")
        #expect(try query("walnut desk") == "\"walnut\" \"desk\"")  // "desks" is indexed as "desk"
        #expect(try query("walnut de") == "\"walnut\" \"de\"*")
        #expect(try query("zebra") == "\"zebra\"")  // nothing matches either way
        #expect(try query("  ") == nil)
    }
}
