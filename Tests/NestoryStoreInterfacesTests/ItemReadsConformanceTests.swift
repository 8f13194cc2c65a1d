import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import Testing

/// The inventory's reads the web app and the API make beside the list (ItemStoreConformanceTests' fixture): the page
/// with its count, items by id, counts by category, and the household's item content version that the JSON list's
/// kept answers are checked against. Each test states its expected answers and holds each engine to them.
extension ItemStoreConformanceTests {
    @Test(arguments: Engine.available)
    func aPageAndItsMatchingCountAreReadTogether(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            // Room 0 holds the TV, the rug and the reading light (made 0, 3, 8); by name, two to a page.
            let inRoom = ItemQuery(filter: ItemFilter(roomID: f.rooms[0].id), limit: 2)
            let room = try await f.items.itemsAndCount(f.home.id, inRoom, cap: 1000)
            #expect(room.page.elements.map(\.item.name) == f.names([8, 0]))
            #expect(room.page.nextCursor != nil)
            #expect(room.matching == (3, true))
            // "lamp": the lamp by its name, the reading light by its notes; never the other household's items.
            let lamp = try await f.items.itemsAndCount(f.home.id, ItemQuery(search: "lamp", limit: 50), cap: 1000)
            #expect(lamp.page.elements.map(\.item.name) == f.names([1, 8]))
            #expect(lamp.page.nextCursor == nil)
            #expect(lamp.matching == (2, true))
            // A filtered count stops at its cap; the page does not. The whole household is counted by its counters, exactly.
            let capped = try await f.items.itemsAndCount(f.home.id, ItemQuery(filter: ItemFilter(roomID: f.rooms[0].id), limit: 50), cap: 2)
            #expect(capped.page.elements.map(\.item.name) == f.names([8, 0, 3]))
            #expect(capped.matching == (2, false))
            #expect(try await f.items.itemsAndCount(f.home.id, ItemQuery(limit: 5), cap: 4).matching == (10, true))
            let other = try await f.items.itemsAndCount(f.other.id, ItemQuery(search: "lamp", limit: 50), cap: 1000)
            #expect(other.page.elements.isEmpty && other.matching == (0, true))
        }
    }

    @Test(arguments: Engine.available)
    func categoriesCountTheirItems(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let c = f.categories.map(\.id)
            // Categories 0: TV, light; 1: lamp, rug; 2: crate, basket; 3: shoes. Items without one are not counted.
            #expect(try await f.items.itemCountsByCategory(f.home.id) == [c[0]: 2, c[1]: 2, c[2]: 2, c[3]: 1])
            try await f.items.deleteItem(f.home.id, f.made[7].id)
            _ = try await f.items.updateItem(f.home.id, f.made[0].id, ItemDraft(name: "Samsung TV", currency: .usd, categoryID: c[2]),
                                             now: Self.start, today: nil)
            #expect(try await f.items.itemCountsByCategory(f.home.id) == [c[0]: 1, c[1]: 2, c[2]: 3])
            #expect(try await f.items.itemCountsByCategory(f.other.id) == [:])
        }
    }

    @Test(arguments: Engine.available)
    func itemsByIdAreTheHouseholdsInNameOrder(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let photo = try await stores.attachments.addPhoto(f.home.id, to: f.made[3].id, staged: try stores.blobs!.stage(Data([1, 2, 3])),
                                                              contentType: "image/png", now: Self.start)
            // Asked out of order, twice over, with another household's item and an id of nothing; by folded name
            // ("Äpfel basket" as "apfel basket").
            let found = try await f.items.items(f.home.id, ids: [f.made[3].id, f.made[0].id, f.otherItem.id, ItemID(), f.made[0].id, f.made[5].id])
            #expect(found.map(\.item.name) == f.names([5, 0, 3]))
            #expect(found.map(\.photoCount) == [0, 0, 1])
            #expect(found[2].primaryPhoto?.sha256 == photo.attachment.sha256)
            #expect(try await f.items.items(f.home.id, ids: []).isEmpty)
            #expect(try await f.items.items(f.other.id, ids: f.made.map(\.id)).isEmpty)
        }
    }

    /// The number moves with every change the list shows (an item, its tags, its photos and their order, its receipts'
    /// count), only for its household; a page read with it is no newer than the number says.
    @Test(arguments: Engine.available)
    func theContentVersionMovesWithEveryChangeTheListShows(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let items = f.items
            let empty = try await stores.accounts.createHousehold(name: "Empty", currency: .usd, now: Self.start)
            #expect(try await items.itemContentVersion(empty.id) == 0)
            var last = try await items.itemContentVersion(f.home.id)
            #expect(last > 0)
            var moves: [String] = []
            func check(_ change: String) async throws {
                let now = try await items.itemContentVersion(f.home.id)
                if now > last { moves.append(change) }
                last = now
            }
            let tv = f.made[0]
            var draft = ItemDraft(name: tv.name, brand: tv.brand, modelNumber: tv.modelNumber, purchasePrice: tv.purchasePrice, currency: tv.currency,
                                  categoryID: tv.categoryID, roomID: tv.roomID, tags: tv.tags, quantity: tv.quantity)
            draft.notes = "On the wall"
            _ = try await items.updateItem(f.home.id, tv.id, draft, now: Self.start, today: nil)
            try await check("update")
            draft.tags = ["electronics"]
            _ = try await items.updateItem(f.home.id, tv.id, draft, now: Self.start, today: nil)
            try await check("tags")
            let first = try await stores.attachments.addPhoto(f.home.id, to: tv.id, staged: try stores.blobs!.stage(Data([1])),
                                                              contentType: "image/png", now: Self.start)
            let second = try await stores.attachments.addPhoto(f.home.id, to: tv.id, staged: try stores.blobs!.stage(Data([2])),
                                                               contentType: "image/png", now: Self.start)
            try await check("photos")
            try await stores.attachments.setPrimaryPhoto(f.home.id, second.id)
            try await check("main photo")
            try await stores.attachments.setPhotoOrder(f.home.id, tv.id, [first.id, second.id], now: Self.start)
            try await check("photo order")
            try await stores.attachments.removePhoto(f.home.id, second.id, now: Self.start)
            try await check("photo removed")
            let receipt = try await stores.attachments.addReceipt(f.home.id, itemID: nil, staged: try stores.blobs!.stage(Data([3])),
                                                                  contentType: "image/png", fields: ReceiptFields(vendor: "Shop"), now: Self.start)
            try await check("unlinked receipt")
            try await stores.attachments.linkReceipt(f.home.id, receipt.id, to: tv.id)
            try await check("receipt linked")
            // Another household's changes leave this one's number alone.
            _ = try await items.createItem(f.other.id, ItemDraft(name: "Stool", currency: .usd), now: Self.start, today: nil, plan: nil)
            try await items.deleteItem(f.other.id, f.otherItem.id)
            try await check("other household")
            _ = try await items.createItem(f.home.id, ItemDraft(name: "Stool", currency: .usd), now: Self.start, today: nil, plan: nil)
            try await check("create")
            try await items.deleteItem(f.home.id, f.made[9].id)
            try await check("delete")
            #expect(moves == ["update", "tags", "photos", "main photo", "photo order", "photo removed", "receipt linked", "create", "delete"])

            // A versioned page is the list's page, with the number as it stands while nothing changes.
            let (page, version) = try await items.itemsVersioned(f.home.id, ItemQuery(limit: 3))
            #expect(version == last)
            #expect(page.elements.map(\.item.id) == (try await items.items(f.home.id, ItemQuery(limit: 3))).elements.map(\.item.id))
        }
    }

    /// SQLite's item store counts commits (`CommitCounter`): the count changes with any commit and holds while nothing
    /// is committed; PostgreSQL's has no such counter.
    @Test(arguments: Engine.available)
    func sqlitesItemStoreCountsCommits(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let counter = f.items as? any CommitCounter
            switch engine {
            case .postgres:
                #expect(counter == nil)
            case .sqlite:
                let commits = try #require(counter)
                let before = try commits.commitCount()
                #expect(try commits.commitCount() == before)
                _ = try await f.items.createItem(f.other.id, ItemDraft(name: "Stool", currency: .usd), now: Self.start, today: nil, plan: nil)
                #expect(try commits.commitCount() != before)
            }
        }
    }
}
