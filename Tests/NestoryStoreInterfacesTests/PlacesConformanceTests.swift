import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// Rooms and categories as the item store keeps them (added, renamed, reordered, deleted keeping their items), and
/// the household's items by barcode, the same on every engine. Each test states its expected answers.
@Suite struct PlacesConformanceTests {
    static let start = Date(millis: 1_763_800_000_000)

    func at(_ seconds: Int) -> Date { Self.start.addingTimeInterval(Double(seconds)) }

    @Test(arguments: Engine.available)
    func roomsAreAddedRenamedAndReorderedWithUniqueNames(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let items = stores.items
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
            let other = try await stores.accounts.createHousehold(name: "Other", currency: .usd, now: Self.start)
            // A new room goes at the end, after the twelve a household starts with; its name is trimmed.
            let sauna = try await items.createRoom(home.id, name: "  Sauna ")
            #expect(sauna.name == "Sauna" && sauna.sortOrder == Defaults.rooms.count && sauna.householdID == home.id)
            #expect(try await items.rooms(home.id).map(\.name) == Defaults.rooms + ["Sauna"])
            // Names are unique in the household, letters, case and accents folded; another household may have the same.
            await #expect(throws: DomainError.invalid(field: "name", message: "There is already a room called sauna.")) {
                try await items.createRoom(home.id, name: "sauna")
            }
            let emile = try await items.createRoom(home.id, name: "Émile's den")
            await #expect(throws: DomainError.invalid(field: "name", message: "There is already a room called EMILE'S DEN.")) {
                try await items.createRoom(home.id, name: "EMILE'S DEN")
            }
            #expect(try await items.createRoom(other.id, name: "Sauna").sortOrder == Defaults.rooms.count)
            await #expect(throws: DomainError.invalid(field: "name", message: "Enter a name.")) { try await items.createRoom(home.id, name: "  ") }
            await #expect(throws: DomainError.notFound("The household")) { try await items.createRoom(HouseholdID(), name: "Loft") }

            // A rename may change a room's own spelling, not take another's name.
            try await items.renameRoom(home.id, sauna.id, to: "SAUNA")
            await #expect(throws: DomainError.invalid(field: "name", message: "There is already a room called emile's den.")) {
                try await items.renameRoom(home.id, sauna.id, to: "emile's den")
            }
            try await items.renameRoom(home.id, sauna.id, to: "Steam Room")
            await #expect(throws: DomainError.notFound("The room")) { try await items.renameRoom(other.id, sauna.id, to: "Mine now") }
            await #expect(throws: DomainError.notFound("The room")) { try await items.renameRoom(home.id, RoomID(), to: "Nowhere") }
            #expect(try await items.rooms(home.id).suffix(2).map(\.name) == ["Steam Room", "Émile's den"])
            #expect(try await items.rooms(other.id).map(\.name) == Defaults.rooms + ["Sauna"])

            // An order lists every room of the household exactly once.
            let rooms = try await items.rooms(home.id)
            let reversed = Array(rooms.map(\.id).reversed())
            try await items.reorderRooms(home.id, reversed)
            #expect(try await items.rooms(home.id).map(\.id) == reversed)
            #expect(try await items.rooms(home.id).map(\.sortOrder) == Array(0..<rooms.count))
            let everyOnce = DomainError.invalid(field: "order", message: "List every room exactly once.")
            await #expect(throws: everyOnce) { try await items.reorderRooms(home.id, Array(reversed.dropLast())) }
            await #expect(throws: everyOnce) { try await items.reorderRooms(home.id, Array(reversed.dropLast()) + [reversed[0]]) }
            let otherRoom = try await items.rooms(other.id)[0].id
            await #expect(throws: everyOnce) { try await items.reorderRooms(home.id, Array(reversed.dropLast()) + [otherRoom]) }
            #expect(try await items.rooms(home.id).map(\.id) == reversed)
            _ = emile
        }
    }

    @Test(arguments: Engine.available)
    func deletingARoomKeepsItsItemsWithoutIt(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let items = stores.items
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
            let other = try await stores.accounts.createHousehold(name: "Other", currency: .usd, now: Self.start)
            let sauna = try await items.createRoom(home.id, name: "Sauna")
            let kitchen = try await items.rooms(home.id)[1]
            let furniture = try await items.categories(home.id)[1]
            let price = try Money(minorUnits: 5_000, currency: .usd)
            // The bench is documented (a photo, a price, a category and a room); the others are not.
            let bench = try await items.createItem(home.id, ItemDraft(name: "Bench", purchasePrice: price, currency: .usd, categoryID: furniture.id,
                                                                      roomID: sauna.id),
                                                   now: at(1), today: nil, plan: nil)
            _ = try await stores.attachments.addPhoto(home.id, to: bench.id, staged: try stores.blobs!.stage(Data([1, 2, 3])),
                                                      contentType: "image/png", now: at(1))
            let bucket = try await items.createItem(home.id, ItemDraft(name: "Bucket", currency: .usd, roomID: sauna.id),
                                                    now: at(2), today: nil, plan: nil)
            let kettle = try await items.createItem(home.id, ItemDraft(name: "Kettle", currency: .usd, roomID: kitchen.id),
                                                    now: at(3), today: nil, plan: nil)
            #expect(try await items.summary(home.id).roomsInUse == 2)
            #expect(try await items.summary(home.id).score == DocumentationScore(documented: 1, total: 3))
            let version = try await items.itemContentVersion(home.id)

            // Another household cannot delete it; then it goes, and says two items were in it.
            await #expect(throws: DomainError.notFound("The room")) { try await items.deleteRoom(other.id, sauna.id, now: at(9)) }
            #expect(try await items.deleteRoom(home.id, sauna.id, now: at(10)) == 2)
            #expect(!(try await items.rooms(home.id).contains { $0.id == sauna.id }))
            // Its items stay, without a room, changed when it was deleted; the others are untouched.
            for item in [bench, bucket] {
                let kept = try await items.item(home.id, item.id)
                #expect(kept.roomID == nil && kept.updatedAt == at(10) && kept.name == item.name)
            }
            #expect(try await items.item(home.id, kettle.id).updatedAt == at(3))
            #expect(try await items.item(home.id, kettle.id).roomID == kitchen.id)
            // The figures follow: one room in use, the two counted as without a room; the list moved on.
            #expect(try await items.summary(home.id).roomsInUse == 1)
            // Without its room the bench is no longer documented; the value and the category chart are unchanged.
            let summary = try await items.summary(home.id)
            #expect(summary.score == DocumentationScore(documented: 0, total: 3) && summary.itemCount == 3 && summary.estimatedValue == [price])
            #expect(summary.needsPhoto == 2 && summary.needsValue == 2)
            #expect(try await items.valueByCategory(home.id).map(\.categoryID) == [furniture.id])
            #expect(try await items.itemsByRoom(home.id) == [
                RoomCount(roomID: nil, name: RoomCount.unassignedName, itemCount: 2),
                RoomCount(roomID: kitchen.id, name: kitchen.name, itemCount: 1),
            ])
            #expect(try await items.itemContentVersion(home.id) > version)
            #expect(try await items.items(home.id, ItemQuery(filter: ItemFilter(roomID: sauna.id))).elements.isEmpty)
            #expect(try await items.countItems(home.id, search: "", filter: ItemFilter(roomID: sauna.id), cap: 100) == (0, true))
            // An empty room deletes with no items; one already gone is not found.
            #expect(try await items.deleteRoom(home.id, try await items.createRoom(home.id, name: "Loft").id, now: at(11)) == 0)
            await #expect(throws: DomainError.notFound("The room")) { try await items.deleteRoom(home.id, sauna.id, now: at(12)) }
            // A new room of the same name starts empty.
            let again = try await items.createRoom(home.id, name: "Sauna")
            #expect(try await items.itemsByRoom(home.id).contains { $0.roomID == again.id } == false)
        }
    }

    @Test(arguments: Engine.available)
    func aRoomOfManyItemsIsDeletedWithItsFiguresRight(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let items = stores.items
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
            let attic = try await items.createRoom(home.id, name: "Loft")
            let boxes = try await items.categories(home.id)[7]
            let count = 3_000
            // Every third item priced at $2; loaded in bulk, each engine its own way.
            let drafts = (0..<count).map { index in
                ItemDraft(name: "Box \(index)", purchasePrice: index % 3 == 0 ? try! Money(minorUnits: 200, currency: .usd) : nil, currency: .usd,
                          categoryID: boxes.id, roomID: attic.id)
            }
            if let postgres = items as? PostgresStore {
                try await postgres.insertItems(home.id, drafts.map { Item(householdID: home.id, draft: $0, createdAt: Self.start) })
            } else {
                let database = try #require((items as? SQLiteItemStore)?.database)
                _ = try database.importItems(home.id, drafts.map { NamedPlaceDraft(draft: $0, roomName: "Loft", categoryName: boxes.name) },
                                             now: Self.start, today: CalendarDate(Self.start, in: .current))
            }
            let kept = try await items.createItem(home.id, ItemDraft(name: "Chest", currency: .usd, roomID: nil),
                                                  now: Self.start, today: nil, plan: nil)
            #expect(try await items.itemsByRoom(home.id) == [
                RoomCount(roomID: attic.id, name: "Loft", itemCount: count), RoomCount(roomID: nil, name: RoomCount.unassignedName, itemCount: 1),
            ])
            let version = try await items.itemContentVersion(home.id)
            let clock = ContinuousClock()
            let started = clock.now
            #expect(try await items.deleteRoom(home.id, attic.id, now: at(60)) == count)
            let took = clock.now - started
            #expect(try await items.itemsByRoom(home.id) == [RoomCount(roomID: nil, name: RoomCount.unassignedName, itemCount: count + 1)])
            let summary = try await items.summary(home.id)
            #expect(summary.itemCount == count + 1 && summary.roomsInUse == 0 && summary.needsValue == count - count / 3 + 1)
            #expect(summary.estimatedValue == [try Money(minorUnits: 200 * Int64(count / 3), currency: .usd)])
            #expect(try await items.itemContentVersion(home.id) > version)
            #expect(try await items.countItems(home.id, search: "", filter: ItemFilter(roomID: attic.id), cap: 10_000) == (0, true))
            let listed = try await items.items(home.id, ItemQuery(sort: .newest, limit: 5))
            #expect(listed.elements.allSatisfy { $0.item.roomID == nil })
            #expect(try await items.item(home.id, kept.id).updatedAt == Self.start)
            // Then the category: its items uncategorised, its values under "Uncategorized".
            #expect(try await items.deleteCategory(home.id, boxes.id, now: at(61)) == count)
            #expect(try await items.itemCountsByCategory(home.id) == [:])
            #expect(try await items.valueByCategory(home.id) == [
                CategoryValue(categoryID: nil, name: CategoryValue.uncategorizedName, colorHex: CategoryValue.uncategorizedColor,
                              value: try Money(minorUnits: 200 * Int64(count / 3), currency: .usd), itemCount: count / 3),
            ])
            print("deleteRoom of \(count) items on \(engine): \(took)")
        }
    }

    @Test(arguments: Engine.available)
    func categoriesAreKeptAsRoomsAreWithTheirColours(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let items = stores.items
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
            let other = try await stores.accounts.createHousehold(name: "Other", currency: .usd, now: Self.start)
            // Added at the end, made by the household, its colour upper-cased.
            let cameras = try await items.createCategory(home.id, name: "Cameras", colorHex: "#11aa33", icon: "camera")
            #expect(cameras.isCustom && cameras.colorHex == "#11AA33" && cameras.icon == "camera" && cameras.sortOrder == Defaults.categories.count)
            let listed = try await items.categories(home.id)
            #expect(listed.map(\.name) == Defaults.categories.map(\.name) + ["Cameras"])
            #expect(listed.last == cameras)
            #expect(listed.filter(\.isCustom) == [cameras])
            await #expect(throws: DomainError.invalid(field: "name", message: "There is already a category called FURNITURE.")) {
                try await items.createCategory(home.id, name: "FURNITURE", colorHex: "#000000", icon: "box")
            }
            await #expect(throws: DomainError.invalid(field: "colorHex", message: "Use a colour such as #3B82F6.")) {
                try await items.createCategory(home.id, name: "Lenses", colorHex: "blue", icon: "box")
            }
            // Renamed and recoloured; another household's is not found.
            try await items.updateCategory(home.id, cameras.id, name: "Film Cameras", colorHex: "#445566")
            #expect(try await items.categories(home.id).last.map { [$0.name, $0.colorHex] } == ["Film Cameras", "#445566"])
            await #expect(throws: DomainError.notFound("The category")) {
                try await items.updateCategory(other.id, cameras.id, name: "X", colorHex: "#000000")
            }
            await #expect(throws: DomainError.invalid(field: "name", message: "There is already a category called furniture.")) {
                try await items.updateCategory(home.id, cameras.id, name: "furniture", colorHex: "#000000")
            }
            // Reordered: every one once.
            let order = Array(try await items.categories(home.id).map(\.id).reversed())
            try await items.reorderCategories(home.id, order)
            #expect(try await items.categories(home.id).map(\.id) == order)
            await #expect(throws: DomainError.invalid(field: "order", message: "List every category exactly once.")) {
                try await items.reorderCategories(home.id, Array(order.dropFirst()))
            }

            // Deleted: its items stay, uncategorised; the charts follow.
            let price = try Money(minorUnits: 120_000, currency: .usd)
            let study = try await items.rooms(home.id)[6]
            let leica = try await items.createItem(home.id, ItemDraft(name: "Leica", purchasePrice: price, currency: .usd, categoryID: cameras.id,
                                                                      roomID: study.id),
                                                   now: at(1), today: nil, plan: nil)
            _ = try await stores.attachments.addPhoto(home.id, to: leica.id, staged: try stores.blobs!.stage(Data([4, 5, 6])),
                                                      contentType: "image/png", now: at(1))
            let euro = try Money(minorUnits: 30_000, currency: try CurrencyCode("EUR"))
            let lens = try await items.createItem(home.id, ItemDraft(name: "Lens", purchasePrice: euro, currency: euro.currency, categoryID: cameras.id),
                                                  now: at(2), today: nil, plan: nil)
            _ = try await items.createItem(home.id, ItemDraft(name: "Strap", currency: .usd, categoryID: cameras.id), now: at(3), today: nil, plan: nil)
            // Already uncategorised: the category's dollars join its.
            let fifty = try Money(minorUnits: 5_000, currency: .usd)
            _ = try await items.createItem(home.id, ItemDraft(name: "Tripod", purchasePrice: fifty, currency: .usd), now: at(4), today: nil, plan: nil)
            #expect(try await items.summary(home.id).score == DocumentationScore(documented: 1, total: 4))
            #expect(try await items.itemCountsByCategory(home.id) == [cameras.id: 3])
            #expect(try await items.valueByCategory(home.id).map(\.categoryID) == [cameras.id, cameras.id, nil])
            await #expect(throws: DomainError.notFound("The category")) { try await items.deleteCategory(other.id, cameras.id, now: at(5)) }
            #expect(try await items.deleteCategory(home.id, cameras.id, now: at(5)) == 3)
            let kept = try await items.item(home.id, leica.id)
            #expect(kept.categoryID == nil && kept.updatedAt == at(5) && kept.roomID == study.id)
            #expect(try await items.item(home.id, lens.id).updatedAt == at(5))
            #expect(try await items.itemCountsByCategory(home.id) == [:])
            // The values move to "Uncategorized", each currency its own; the leica is no longer documented.
            #expect(try await items.valueByCategory(home.id) == [
                CategoryValue(categoryID: nil, name: CategoryValue.uncategorizedName, colorHex: CategoryValue.uncategorizedColor,
                              value: try Money(minorUnits: 125_000, currency: .usd), itemCount: 2),
                CategoryValue(categoryID: nil, name: CategoryValue.uncategorizedName, colorHex: CategoryValue.uncategorizedColor, value: euro,
                              itemCount: 1),
            ])
            let summary = try await items.summary(home.id)
            #expect(try summary.score == DocumentationScore(documented: 0, total: 4) && summary.roomsInUse == 1
                        && summary.estimatedValue == [try Money(minorUnits: 125_000, currency: .usd), euro])
            #expect(try await items.categories(home.id).count == Defaults.categories.count)
            await #expect(throws: DomainError.notFound("The category")) { try await items.deleteCategory(home.id, cameras.id, now: at(6)) }
        }
    }

    @Test(arguments: Engine.available)
    func itemsByBarcodeAreTheHouseholdsMostRecentlyChangedFirst(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let items = stores.items
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
            let other = try await stores.accounts.createHousehold(name: "Other", currency: .usd, now: Self.start)
            func make(_ household: HouseholdID, _ name: String, _ barcode: String?, _ seconds: Int) async throws -> Item {
                try await items.createItem(household, ItemDraft(name: name, currency: .usd, barcode: barcode), now: at(seconds), today: nil, plan: nil)
            }
            // Two spellings of one GTIN (UPC-A, EAN-13), another code, none; the other household's item with the code.
            let a = try await make(home.id, "Cola pack", "012345000065", 1)
            let b = try await make(home.id, "Cola crate", "0012345000065", 2)
            let c = try await make(home.id, "Cola fridge", "012345000065", 3)
            _ = try await make(home.id, "Water", "5000112548167", 4)
            _ = try await make(home.id, "Plain", nil, 5)
            _ = try await make(other.id, "Their cola", "012345000065", 6)
            let codes = ["012345000065", "0012345000065"]
            #expect(try await items.items(home.id, barcodes: codes, limit: 5).map(\.id) == [c.id, b.id, a.id])
            // A change moves an item first; the limit keeps the newest.
            var draft = a.draft
            draft.notes = "Diet"
            _ = try await items.updateItem(home.id, a.id, draft, now: at(10), today: nil)
            #expect(try await items.items(home.id, barcodes: codes, limit: 2).map(\.id) == [a.id, c.id])
            #expect(try await items.items(home.id, barcodes: ["012345000065"], limit: 5).map(\.name) == ["Cola pack", "Cola fridge"])
            #expect(try await items.items(home.id, barcodes: ["999"], limit: 5).isEmpty)
            #expect(try await items.items(home.id, barcodes: [], limit: 5).isEmpty)
            #expect(try await items.items(other.id, barcodes: codes, limit: 5).map(\.name) == ["Their cola"])
        }
    }
}
