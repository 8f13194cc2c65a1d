import Foundation
import GRDB
import NestoryDomain
import Testing
@testable import NestoryStore

@Suite struct ItemStoreTests {
    @Test func createReadUpdateDelete() throws {
        let store = try TestStore()
        let home = try store.household()
        let tv = try store.item(home, "OLED TV", price: "1999.99", brand: "LG", serial: "X1", tags: ["insured", "Gift"],
                                room: "Living Room", category: "Electronics")
        var details = try store.database.item(home.id, tv.id)
        #expect(details.item.name == "OLED TV")
        #expect(details.item.purchasePrice?.minorUnits == 199_999)
        #expect(details.item.tags == ["insured", "Gift"])
        #expect(details.documentation.missing == [.photo, .receipt])

        var draft = tv.draft
        draft.name = "OLED TV 65\""
        draft.tags = ["insured"]
        draft.roomID = nil
        let updated = try store.database.updateItem(home.id, tv.id, draft, now: store.now.addingTimeInterval(60), today: store.today)
        #expect(updated.name == "OLED TV 65\"")
        #expect(updated.tags == ["insured"])
        #expect(updated.roomID == nil)
        #expect(updated.updatedAt > updated.createdAt)
        details = try store.database.item(home.id, tv.id)
        #expect(details.item == updated)
        #expect(try store.database.items(home.id, ItemQuery(filter: ItemFilter(tag: "gift"))).elements.isEmpty)

        try store.database.deleteItem(home.id, tv.id)
        #expect(throws: DomainError.notFound("The item")) { try store.database.item(home.id, tv.id) }
        #expect(try store.database.items(home.id, ItemQuery(search: "oled")).elements.isEmpty)
    }

    @Test func validationErrorsComeBackPerField() throws {
        let store = try TestStore()
        let home = try store.household()
        let error = #expect(throws: DomainError.self) {
            try store.database.createItem(home.id, ItemDraft(name: "", currency: .usd, quantity: -1), now: store.now, today: store.today)
        }
        guard case .validation(let fields) = error else { Issue.record("expected validation"); return }
        #expect(Set(fields.map(\.field)) == ["name", "quantity"])
        #expect(try store.database.summary(home.id).itemCount == 0)
    }

    @Test func roomsAndCategoriesCanBeEditedReorderedAndDeleted() throws {
        let store = try TestStore()
        let home = try store.household()
        let sauna = try store.database.createRoom(home.id, name: "Sauna")
        #expect(try store.database.rooms(home.id).last == sauna)
        #expect(throws: DomainError.self) { try store.database.createRoom(home.id, name: "  sauna ") }
        try store.database.renameRoom(home.id, sauna.id, to: "Steam Room")
        var ids = try store.database.rooms(home.id).map(\.id)
        ids.reverse()
        try store.database.reorderRooms(home.id, ids)
        #expect(try store.database.rooms(home.id).map(\.id) == ids)
        #expect(throws: DomainError.self) { try store.database.reorderRooms(home.id, Array(ids.dropLast())) }

        let item = try store.item(home, "Bench", price: "80", room: "Steam Room", category: "Furniture")
        #expect(try store.database.itemCount(home.id, room: sauna.id) == 1)
        #expect(try store.database.deleteRoom(home.id, sauna.id, now: store.now) == 1)
        let kept = try store.database.item(home.id, item.id).item
        #expect(kept.roomID == nil)  // the item stays, without a room

        let custom = try store.database.createCategory(home.id, name: "Cameras", colorHex: "#112233")
        #expect(custom.isCustom)
        try store.database.updateCategory(home.id, custom.id, name: "Film Cameras", colorHex: "#445566")
        #expect(try store.database.categories(home.id).last?.name == "Film Cameras")
        let furniture = try store.database.categories(home.id).first { $0.name == "Furniture" }!
        #expect(try store.database.deleteCategory(home.id, furniture.id, now: store.now) == 1)
        #expect(try store.database.item(home.id, item.id).item.categoryID == nil)
    }

    @Test func summaryFiguresFollowTheSpec() throws {
        let store = try TestStore()
        let home = try store.household()
        let documented = try store.item(home, "Guitar", price: "1500", room: "Bedroom", category: "Musical Instruments")
        _ = try store.database.addPhoto(home.id, to: documented.id, data: fakeImage(1), contentType: "image/jpeg", now: store.now)
        let chairs = try store.item(home, "Chair", price: "300", room: "Dining Room", category: "Furniture", quantity: 4)
        _ = try store.database.addPhoto(home.id, to: chairs.id, data: fakeImage(2), contentType: "image/jpeg", now: store.now)
        _ = try store.database.addReceipt(home.id, itemID: chairs.id, data: fakeImage(3), contentType: "image/jpeg", now: store.now)
        try store.item(home, "Mystery box")  // nothing at all
        try store.item(home, "Painting", price: "999.99", room: "Living Room")  // no photo, no category
        // An item in another currency is totalled separately.
        var euroDraft = ItemDraft(name: "Espresso machine", purchasePrice: try Money.parse("700", currency: .eur), currency: .eur)
        euroDraft.roomID = try store.database.rooms(home.id).first { $0.name == "Kitchen" }!.id
        _ = try store.database.createItem(home.id, euroDraft, now: store.now, today: store.today)

        let s = try store.database.summary(home.id)
        #expect(s.itemCount == 5)
        #expect(s.roomsInUse == 4)
        #expect(s.estimatedValue.map(\.formatted) == ["$3,699.99", "€700.00"])  // 1500 + 4×300 + 999.99
        #expect(s.score == DocumentationScore(documented: 2, total: 5))
        #expect(s.score.percent == 40)
        #expect(s.needsPhoto == 3)
        #expect(s.needsReceipt == 4)
        #expect(s.needsValue == 1)
        #expect(s.highValueCount == 2)  // guitar 1500 and chairs 4×300 = 1200; painting 999.99 is not over 1000

        let byCategory = try store.database.valueByCategory(home.id)
        #expect(byCategory.first?.name == "Musical Instruments")
        #expect(byCategory.contains { $0.name == CategoryValue.uncategorizedName && $0.value.currency == .usd && $0.value.minorUnits == 99_999 })
        let byRoom = try store.database.itemsByRoom(home.id)
        #expect(byRoom.map(\.itemCount) == byRoom.map(\.itemCount).sorted(by: >))
        #expect(byRoom.reduce(0) { $0 + $1.itemCount } == 5)
        #expect(byRoom.contains { $0.roomID == nil && $0.name == RoomCount.unassignedName })
    }

    @Test func anEmptyHouseholdHasNoScore() throws {
        let store = try TestStore()
        let home = try store.household()
        let s = try store.database.summary(home.id)
        #expect(s.itemCount == 0 && s.score.percent == nil && s.estimatedValue.isEmpty)
    }

    @Test func receiptsLinkAndUnlinkAndSurviveTheirItem() throws {
        let store = try TestStore()
        let home = try store.household()
        let mixer = try store.item(home, "Stand mixer", price: "450")
        let receipt = try store.database.addReceipt(home.id, itemID: nil, data: fakeImage(9), contentType: "image/jpeg",
                                                    fields: ReceiptFields(vendor: "Kitchen Shop", total: try Money.parse("450", currency: .usd),
                                                                          rawText: "KITCHEN SHOP\nKitchenAid Artisan 450.00"),
                                                    now: store.now)
        #expect(try store.database.items(home.id, ItemQuery(search: "artisan")).elements.isEmpty)
        try store.database.linkReceipt(home.id, receipt.id, to: mixer.id)
        #expect(try store.names(home, ItemQuery(search: "artisan")) == ["Stand mixer"])
        #expect(try store.database.items(home.id, ItemQuery(filter: ItemFilter(needsReceipt: true))).elements.isEmpty)
        try store.database.deleteItem(home.id, mixer.id)
        // The receipt and its image are still there, unlinked.
        #expect(try store.database.attachmentData(home.id, sha256: receipt.attachment.sha256).0 == fakeImage(9))
    }
}

@Suite struct SummaryCounterTests {
    /// The trigger-kept counters must equal a full recount after any mix of writes.
    @Test func countersMatchAFullRecountAfterRandomWrites() throws {
        let store = try TestStore()
        let home = try store.household()
        let other = try store.household("Other")
        let rooms = try store.database.rooms(home.id)
        let categories = try store.database.categories(home.id)
        var rng = SystemRandomNumberGenerator()
        var items: [Item] = []
        var receipts: [ReceiptID] = []
        for step in 0..<250 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0...3 where true:
                var draft = ItemDraft(name: "Thing \(step)", currency: Bool.random(using: &rng) ? .usd : .eur, quantity: Int.random(in: 1...3, using: &rng))
                if Bool.random(using: &rng) { draft.purchasePrice = try Money(minorUnits: Int64.random(in: 0...300_000, using: &rng), currency: draft.currency) }
                if Bool.random(using: &rng) { draft.roomID = rooms.randomElement(using: &rng)!.id }
                if Bool.random(using: &rng) { draft.categoryID = categories.randomElement(using: &rng)!.id }
                items.append(try store.database.createItem(home.id, draft, now: store.now, today: store.today))
            case 4 where !items.isEmpty:
                let item = items.randomElement(using: &rng)!
                _ = try store.database.addPhoto(home.id, to: item.id, data: fakeImage(step), contentType: "image/jpeg", now: store.now)
            case 5 where !items.isEmpty:
                let item = items.randomElement(using: &rng)!
                var draft = item.draft
                draft.purchasePrice = Bool.random(using: &rng) ? nil : try Money(minorUnits: 150_000, currency: draft.currency)
                draft.roomID = Bool.random(using: &rng) ? nil : rooms[0].id
                draft.quantity = Int.random(in: 1...5, using: &rng)
                let updated = try store.database.updateItem(home.id, item.id, draft, now: store.now, today: store.today)
                items[items.firstIndex { $0.id == item.id }!] = updated
            case 6 where !items.isEmpty:
                let index = Int.random(in: 0..<items.count, using: &rng)
                try store.database.deleteItem(home.id, items.remove(at: index).id)
            case 7:
                let target = items.isEmpty || Bool.random(using: &rng) ? nil : items.randomElement(using: &rng)!.id
                receipts.append(try store.database.addReceipt(home.id, itemID: target, data: fakeImage(1000 + step), contentType: "image/jpeg", now: store.now).id)
            case 8 where !receipts.isEmpty && !items.isEmpty:
                try store.database.linkReceipt(home.id, receipts.randomElement(using: &rng)!, to: Bool.random(using: &rng) ? nil : items.randomElement(using: &rng)!.id)
            case 9:
                try store.database.deleteRoom(home.id, try store.database.createRoom(home.id, name: "Temp \(step)").id, now: store.now)
            default:
                try store.item(other, "Noise \(step)", price: "5")
            }
        }
        let s = try store.database.summary(home.id)
        let recount = try store.database.unsafeRawRead { db in
            try Row.fetchOne(db, sql: """
                SELECT COUNT(*), SUM(photo_count > 0 AND price_minor IS NOT NULL AND category_id IS NOT NULL AND room_id IS NOT NULL),
                       SUM(photo_count = 0), SUM(receipt_count = 0), SUM(price_minor IS NULL),
                       (SELECT COUNT(*) FROM item_photo p JOIN item i ON i.seq = p.item_seq WHERE i.household_id = ?) -
                       (SELECT SUM(photo_count) FROM item WHERE household_id = ?),
                       (SELECT COUNT(*) FROM receipt r WHERE r.household_id = ? AND r.item_seq IS NOT NULL) -
                       (SELECT SUM(receipt_count) FROM item WHERE household_id = ?)
                FROM item WHERE household_id = ?
                """, arguments: StatementArguments(Array(repeating: home.id.description, count: 5)))!
        }
        #expect(s.itemCount == items.count)
        #expect(s.itemCount == recount[0] as Int)
        #expect(s.score.documented == (recount[1] as Int? ?? 0))
        #expect(s.needsPhoto == (recount[2] as Int? ?? 0))
        #expect(s.needsReceipt == (recount[3] as Int? ?? 0))
        #expect(s.needsValue == (recount[4] as Int? ?? 0))
        #expect((recount[5] as Int? ?? 0) == 0 && (recount[6] as Int? ?? 0) == 0)  // photo and receipt counters exact
        var expected = MoneyTotals()
        for item in items { if let value = item.totalValue { try expected.add(value) } }
        #expect(s.estimatedValue == expected.amounts(preferred: .usd))
        // The chart counters too.
        let fresh = try store.database.itemsByRoom(home.id)
        var byRoom: [RoomID?: Int] = [:]
        for item in items { byRoom[item.roomID, default: 0] += 1 }
        #expect(Dictionary(uniqueKeysWithValues: fresh.map { ($0.roomID, $0.itemCount) }) == byRoom)
        #expect(s.roomsInUse == byRoom.keys.compactMap { $0 }.count)
        var byCategory: [String: Int64] = [:]
        for item in items { if let value = item.totalValue { byCategory["\(item.categoryID?.description ?? "-")|\(value.currency)", default: 0] += value.minorUnits } }
        let slices = try store.database.valueByCategory(home.id)
        #expect(Dictionary(uniqueKeysWithValues: slices.map { ("\($0.categoryID?.description ?? "-")|\($0.value.currency)", $0.value.minorUnits) }) == byCategory)
    }
}

/// A bulk write at least as large as what the server holds drops the item table's indexes for the load and builds
/// them again: they must come back exactly as the schema had them, the items be found through them, and a failure
/// half-way leave nothing written and the indexes in place.
@Suite struct BulkWriteTests {
    func triggers(_ database: AppDatabase) throws -> [String] {
        try database.unsafeRawRead { db in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name") }
    }

    func indexes(_ database: AppDatabase) throws -> [String] {
        try database.unsafeRawRead { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'item' AND sql IS NOT NULL ORDER BY name")
        }
    }

    /// Calls after `close` (a job or a background read still going while the server stops) are refused with a clear
    /// error, not run on freed connections.
    @Test func aClosedStoreRefusesCallsClearly() throws {
        let store = try TestStore()
        let home = try store.household()
        try store.database.close()
        #expect {
            _ = try store.database.items(home.id, ItemQuery())
        } throws: { error in
            if case StoreError.closed = error { return true }
            return false
        }
        #expect(throws: StoreError.self) { try store.database.claimJob(kind: "report", holder: "h", leaseUntil: store.now, now: store.now) }
    }

    @Test func aLargeLoadRebuildsTheIndexesAsTheyWere() throws {
        let store = try TestStore()
        let home = try store.household()
        let before = try indexes(store.database)
        #expect(before.count >= 10)
        let triggersBefore = try triggers(store.database)
        #expect(triggersBefore.count >= 7)
        try store.item(home, "Lamp")
        try store.database.warmListKeys(home.id)
        #expect(try store.database.listKeysAreCurrent(home.id))
        let content = try store.database.itemContentVersion(home.id)
        var batches = 0
        try store.database.insertItemsInBulk(home.id, count: 300, today: store.today, rebuildMinimum: 100) {
            guard batches < 3 else { return nil }
            batches += 1
            return (0..<100).map { i in
                NewItem(draft: ItemDraft(name: "Box \(batches)-\(i)", purchasePrice: try? Money.parse("\(i + 1)", currency: .usd), currency: .usd),
                        createdAt: store.now)
            }
        }
        #expect(try indexes(store.database) == before)
        // The list-version triggers left for the load are back as they were, and the household's keys are stale.
        #expect(try triggers(store.database) == triggersBefore)
        #expect(try !store.database.listKeysAreCurrent(home.id))
        #expect(try store.database.itemContentVersion(home.id) > content)
        #expect(try store.database.summary(home.id).itemCount == 301)
        #expect(try store.database.items(home.id, ItemQuery(search: "box", sort: .value, limit: 3)).elements.map(\.item.name)
                == ["Box 3-99", "Box 2-99", "Box 1-99"])
        let plan = try store.database.unsafeRawRead { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT seq FROM item WHERE household_id = ? ORDER BY name_key, seq LIMIT 5",
                             arguments: [home.id.description]).map { $0["detail"] as String }.joined()
        }
        #expect(plan.contains("item_by_name"), "\(plan)")
    }

    @Test func aFailureHalfWayLeavesNothingAndTheIndexes() throws {
        let store = try TestStore()
        let home = try store.household()
        let before = try indexes(store.database)
        var batches = 0
        #expect(throws: (any Error).self) {
            try store.database.insertItemsInBulk(home.id, count: 300, today: store.today, rebuildMinimum: 100) {
                batches += 1
                if batches == 3 { return [NewItem(draft: ItemDraft(name: "   ", currency: .usd), createdAt: store.now)] }  // no name: refused
                return (0..<100).map { NewItem(draft: ItemDraft(name: "Box \($0)", currency: .usd), createdAt: store.now) }
            }
        }
        #expect(try indexes(store.database) == before)
        #expect(try store.database.summary(home.id).itemCount == 0)
        #expect(try store.database.items(home.id, ItemQuery(search: "box")).elements.isEmpty)
    }
}
