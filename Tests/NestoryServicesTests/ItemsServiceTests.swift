import Foundation
import NestoryChildProcess
import NestoryDomain
import NestoryImaging
import NestoryImagingLive
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces
import Testing

@Suite struct ItemsServiceTests {
    final class Fixture: @unchecked Sendable {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-photos-\(UUID())").path)
        let database: AppDatabase
        let service: ItemsService
        let household: Household
        let item: Item

        init(maxBytes: Int64 = 5_000_000) throws {
            database = try AppDatabase.open(folder)
            service = ItemsService.sqlite(database, imaging: try LibvipsImageProcessor(), blocking: BlockingPool(width: 2), maxBytes: maxBytes,
                                   plan: PlanService(licences: SQLiteLicenceStore(database), instancePro: true))
            household = try database.createHousehold(name: "Smiths", currency: .usd, now: Date())
            item = try database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date(),
                                           today: try CalendarDate(year: 2026, month: 1, day: 1))
        }

        deinit {
            try? database.close()
            try? FileManager.default.removeItem(atPath: folder.path)
        }

        /// Files left in tmp/ (staged uploads that were neither kept nor removed).
        var leftovers: [String] { (try? FileManager.default.contentsOfDirectory(atPath: folder.tmpURL.path)) ?? [] }

        func jpeg(width: Int = 640, height: Int = 480) throws -> Data {
            let ppm = folder.tmpURL.appendingPathComponent("source.ppm")
            var data = Data("P6\n\(width) \(height)\n255\n".utf8)
            for y in 0..<height { for x in 0..<width { data += [UInt8(x & 255), UInt8(y & 255), UInt8((x * y) & 255)] } }
            try data.write(to: ppm)
            let out = folder.tmpURL.appendingPathComponent("photo.jpg")
            try ChildProcess.run("/usr/bin/vips", ["copy", ppm.path, out.path + "[Q=85]"])
            defer { try? FileManager.default.removeItem(at: ppm); try? FileManager.default.removeItem(at: out) }
            return try Data(contentsOf: out)
        }
    }

    static func send(_ data: Data, chunk: Int = 10_000) -> (ItemsService.Upload) async throws -> Void {
        { upload in
            for start in stride(from: 0, to: data.count, by: chunk) {
                try data[start..<min(start + chunk, data.count)].withUnsafeBytes { try upload.append($0) }
            }
        }
    }

    @Test func aPhotoIsStagedCheckedRecordedAndGetsItsRenditions() async throws {
        let fixture = try Fixture()
        let jpeg = try fixture.jpeg()
        let upload = try await fixture.service.addPhoto(fixture.household.id, to: fixture.item.id, receive: Self.send(jpeg))
        let photo = upload.photo
        #expect(upload.isNew && photo.attachment.contentType == "image/jpeg" && photo.attachment.byteCount == jpeg.count)
        #expect(try fixture.database.item(fixture.household.id, fixture.item.id).photos.map(\.id) == [photo.id])
        #expect(fixture.database.renditions.read(photo.attachment.sha256, .thumbnail) != nil)
        #expect(fixture.leftovers.isEmpty, "\(fixture.leftovers)")
    }

    /// The same file sent again for the same item adds nothing: the answer is the photo it has (its upload leaves no
    /// file behind). Another item may have it too.
    @Test func theSamePictureTwiceIsOnePhoto() async throws {
        let fixture = try Fixture()
        let jpeg = try fixture.jpeg()
        let first = try await fixture.service.addPhoto(fixture.household.id, to: fixture.item.id, receive: Self.send(jpeg))
        let again = try await fixture.service.addPhoto(fixture.household.id, to: fixture.item.id, receive: Self.send(jpeg))
        #expect(first.isNew && !again.isNew && again.photo.id == first.photo.id)
        #expect(try fixture.database.item(fixture.household.id, fixture.item.id).photos.map(\.id) == [first.photo.id])
        #expect(fixture.leftovers.isEmpty, "\(fixture.leftovers)")
        let other = try fixture.database.createItem(fixture.household.id, ItemDraft(name: "Other", currency: .usd), now: Date())
        #expect(try await fixture.service.addPhoto(fixture.household.id, to: other.id, receive: Self.send(jpeg)).isNew)
    }

    @Test func someoneElsesItemIsNotFoundBeforeAByteIsRead() async throws {
        let fixture = try Fixture()
        let other = try fixture.database.createHousehold(name: "Joneses", currency: .usd, now: Date())
        await #expect(throws: DomainError.self) {
            try await fixture.service.addPhoto(other.id, to: fixture.item.id) { _ in Issue.record("the upload was read") }
        }
        await #expect(throws: StoreError.tooLarge(limit: 5_000_000)) {
            try await fixture.service.addPhoto(fixture.household.id, to: fixture.item.id, declaredLength: 5_000_001) { _ in
                Issue.record("the upload was read")
            }
        }
    }

    @Test func aDamagedOrOversizedUploadLeavesNothingBehind() async throws {
        let fixture = try Fixture(maxBytes: 50_000)
        let jpeg = try fixture.jpeg()
        await #expect(throws: ImagingError.self) {
            try await fixture.service.addPhoto(fixture.household.id, to: fixture.item.id, receive: Self.send(Data(jpeg.prefix(jpeg.count / 2))))
        }
        await #expect(throws: StoreError.tooLarge(limit: 50_000)) {
            try await fixture.service.addPhoto(fixture.household.id, to: fixture.item.id, receive: Self.send(jpeg + Data(count: 60_000)))
        }
        #expect(try fixture.database.item(fixture.household.id, fixture.item.id).photos.isEmpty)
        #expect(fixture.leftovers.isEmpty, "\(fixture.leftovers)")
    }

    /// Records the item writes it is asked for and hands them to the SQLite store; any other call fails the test.
    final class RecordingItems: ItemStore, @unchecked Sendable {
        let store: SQLiteItemStore
        var calls: [String] = []
        var plans: [Entitlement?] = []
        init(_ database: AppDatabase) { store = SQLiteItemStore(database) }

        func createItem(_ householdID: HouseholdID, _ draft: ItemDraft, now: Date, today: CalendarDate?, plan: Entitlement?) async throws -> Item {
            calls.append("create")
            plans.append(plan)
            return try await store.createItem(householdID, draft, now: now, today: today, plan: plan)
        }
        func updateItem(_ householdID: HouseholdID, _ id: ItemID, _ draft: ItemDraft, now: Date, today: CalendarDate?, expected: Date?) async throws -> Item {
            calls.append("update")
            return try await store.updateItem(householdID, id, draft, now: now, today: today, expected: expected)
        }
        func deleteItem(_ householdID: HouseholdID, _ id: ItemID) async throws {
            calls.append("delete")
            try await store.deleteItem(householdID, id)
        }
        func item(_ householdID: HouseholdID, _ id: ItemID) async throws -> Item {
            calls.append("item")
            return try await store.item(householdID, id)
        }
        func unexpected(_ call: String = #function) -> Never { fatalError("ItemsService called ItemStore.\(call), which this double does not expect") }
        func rooms(_ householdID: HouseholdID) async throws -> [Room] { unexpected() }
        func categories(_ householdID: HouseholdID) async throws -> [NestoryDomain.Category] { unexpected() }
        func createRoom(_ householdID: HouseholdID, name: String) async throws -> Room { unexpected() }
        func renameRoom(_ householdID: HouseholdID, _ id: RoomID, to name: String) async throws { unexpected() }
        func reorderRooms(_ householdID: HouseholdID, _ ids: [RoomID]) async throws { unexpected() }
        func deleteRoom(_ householdID: HouseholdID, _ id: RoomID, now: Date) async throws -> Int { unexpected() }
        func createCategory(_ householdID: HouseholdID, name: String, colorHex: String, icon: String) async throws -> NestoryDomain.Category { unexpected() }
        func updateCategory(_ householdID: HouseholdID, _ id: CategoryID, name: String, colorHex: String) async throws { unexpected() }
        func reorderCategories(_ householdID: HouseholdID, _ ids: [CategoryID]) async throws { unexpected() }
        func deleteCategory(_ householdID: HouseholdID, _ id: CategoryID, now: Date) async throws -> Int { unexpected() }
        func items(_ householdID: HouseholdID, barcodes codes: [String], limit: Int) async throws -> [Item] { unexpected() }
        func items(_ householdID: HouseholdID, _ query: ItemQuery) async throws -> Page<ItemListing> { unexpected() }
        func countItems(_ householdID: HouseholdID, search: String, filter: ItemFilter, cap: Int) async throws -> (count: Int, exact: Bool) { unexpected() }
        func summary(_ householdID: HouseholdID) async throws -> InventorySummary { unexpected() }
        func valueByCategory(_ householdID: HouseholdID) async throws -> [CategoryValue] { unexpected() }
        func itemsByRoom(_ householdID: HouseholdID) async throws -> [RoomCount] { unexpected() }
        func tags(_ householdID: HouseholdID) async throws -> [(tag: String, count: Int)] { unexpected() }
        func itemsAndCount(_ householdID: HouseholdID, _ query: ItemQuery, cap: Int) async throws
            -> (page: Page<ItemListing>, matching: (count: Int, exact: Bool)) { unexpected() }
        func itemCountsByCategory(_ householdID: HouseholdID) async throws -> [CategoryID: Int] { unexpected() }
        func items(_ householdID: HouseholdID, ids: [ItemID]) async throws -> [ItemListing] { unexpected() }
        func itemContentVersion(_ householdID: HouseholdID) async throws -> Int64 { unexpected() }
        func itemsVersioned(_ householdID: HouseholdID, _ query: ItemQuery) async throws -> (page: Page<ItemListing>, version: Int64) { unexpected() }
        func reportItems(_ householdID: HouseholdID, groupBy column: ReportGroupColumn, groupID: String?, documentedOnly: Bool, allPhotos: Bool,
                         receipts: Bool, after: ReportCursor?, limit: Int) async throws -> (items: [ReportItemRecord], next: ReportCursor?) { unexpected() }
        func reportItems(_ householdID: HouseholdID, ids: [ItemID], allPhotos: Bool) async throws -> [ReportItemRecord] { unexpected() }
    }

    @Test func itemsAreCreatedChangedAndDeletedThroughTheItemStore() async throws {
        let fixture = try Fixture()
        let recorder = RecordingItems(fixture.database)
        let service = ItemsService.sqlite(fixture.database, items: recorder, imaging: try LibvipsImageProcessor(), blocking: BlockingPool(width: 2),
                                   maxBytes: 1_000_000, plan: PlanService(licences: SQLiteLicenceStore(fixture.database), instancePro: false))
        let today = try CalendarDate(year: 2026, month: 1, day: 1)
        let made = try await service.create(fixture.household.id, ItemDraft(name: "Desk", currency: .usd), today: today)
        _ = try await service.update(fixture.household.id, made.id, ItemDraft(name: "Oak desk", currency: .usd), today: today)
        let deleted = try await service.delete(fixture.household.id, made.id)
        #expect(deleted.name == "Oak desk")
        #expect(recorder.calls == ["create", "update", "item", "delete"])
        // The household's plan goes with the creation (Free here: the store checks its item limit in the same transaction).
        #expect(recorder.plans.count == 1 && recorder.plans[0] != nil)
        #expect(throws: DomainError.self) { try fixture.database.item(fixture.household.id, made.id) }
    }

    /// Tags given as a list (the API, MCP, an import) are the tags the edit form shows and saves again: an item saved
    /// unchanged from its form kept a tag "Smith, John" as two tags, "Smith" and "John".
    @Test func anItemSavedUnchangedFromItsFormKeepsItsTags() async throws {
        let fixture = try Fixture()
        let today = try CalendarDate(year: 2026, month: 1, day: 1)
        let made = try await fixture.service.create(fixture.household.id, ItemDraft(name: "Desk", currency: .usd,
                                                                                     tags: ["Smith, John", "garage|shed; loft", "insured"]), today: today)
        #expect(made.tags == ["Smith", "John", "garage", "shed", "loft", "insured"])
        let again = try ItemFormValues(item: made).draft(defaultCurrency: .usd, today: today).get()
        #expect(again.tags == made.tags)
    }

    /// An edit saved on the form of an older version keeps what was saved meanwhile, and where both changed a field
    /// nothing is saved and the conflict says which field and what the form should show.
    @Test func anEditIsMergedOntoChangesSavedMeanwhile() async throws {
        let fixture = try Fixture()
        let today = try CalendarDate(year: 2026, month: 1, day: 1)
        let household = fixture.household.id
        // Made a minute ago: the versions are the items' times in milliseconds.
        let piano = try fixture.database.createItem(household, ItemDraft(name: "Piano", purchasePrice: try Money.parse("400", currency: .usd),
                                                                           currency: .usd), now: Date(timeIntervalSinceNow: -60), today: today)
        let opened = ItemFormBase(item: piano)
        var theirs = piano.draft
        theirs.brand = "Yamaha"
        theirs.purchasePrice = try Money.parse("450", currency: .usd)
        _ = try await fixture.service.update(household, piano.id, theirs, today: today)
        var mine = opened.values
        mine.values["notes"] = "Tuned in 2025"
        let merged = try await fixture.service.update(household, piano.id, values: mine, base: opened, defaultCurrency: .usd, today: today)
        let price450 = try Money.parse("450", currency: .usd)
        #expect(merged.brand == "Yamaha" && merged.purchasePrice == price450 && merged.notes == "Tuned in 2025")

        mine.values["price"] = "425"
        await #expect {
            try await fixture.service.update(household, piano.id, values: mine, base: opened, defaultCurrency: .usd, today: today)
        } throws: { error in
            guard let conflict = error as? ItemEditConflict else { return false }
            return conflict.fields == ["price"] && conflict.current == merged && conflict.proposed["price"] == "425"
                && conflict.proposed["brand"] == "Yamaha" && conflict.proposed["notes"] == "Tuned in 2025"
        }
        #expect(try fixture.database.item(household, piano.id).item == merged)
    }
}

@Suite struct PlacesServiceTests {
    @Test func roomsMoveRenameAndDeleteKeepingTheirItems() async throws {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-places-\(UUID())").path)
        let database = try AppDatabase.open(folder)
        defer { try? database.close(); try? FileManager.default.removeItem(atPath: folder.path) }
        let places = PlacesService(items: SQLiteItemStore(database))
        let household = try database.createHousehold(name: "Smiths", currency: .usd, now: Date())
        try await places.add(.rooms, to: household.id, name: "Workshop", colorHex: nil)
        let rooms = try database.rooms(household.id)
        let workshop = try #require(rooms.last)
        try await places.move(.rooms, workshop.id.description, in: household.id, .up)
        #expect(try database.rooms(household.id).map(\.name).suffix(2).first == "Workshop")
        try await places.move(.rooms, rooms[0].id.description, in: household.id, .up)  // already first: nothing changes
        #expect(try database.rooms(household.id).first?.id == rooms[0].id)
        try await places.rename(.rooms, workshop.id.description, in: household.id, to: "Shed", colorHex: nil)
        _ = try database.createItem(household.id, ItemDraft(name: "Saw", currency: .usd, roomID: workshop.id), now: Date())
        #expect(try await places.delete(.rooms, workshop.id.description, in: household.id) == 1)
        #expect(!(try database.rooms(household.id).map(\.name).contains("Shed")))
        await #expect(throws: DomainError.notFound("That room")) { try await places.delete(.rooms, "not-an-id", in: household.id) }
        let other = try database.createHousehold(name: "Joneses", currency: .usd, now: Date())
        await #expect(throws: DomainError.self) {
            try await places.move(.rooms, rooms[1].id.description, in: other.id, .down)
        }
    }
}
