import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import Testing

/// Photos, stored files and receipts behave the same on every engine. Each test states what it expects (orders, the
/// main photo, what a search finds, figures, which files are kept) and holds each engine to it.
@Suite struct AttachmentStoreConformanceTests {
    static let start = Date(millis: 1_763_800_000_000)

    func usd(_ minor: Int64) -> Money { try! Money(minorUnits: minor, currency: .usd) }
    func at(_ seconds: Int) -> Date { Self.start.addingTimeInterval(Double(seconds)) }

    /// Two households; `home` has a desk and a lamp, `other` a chair.
    struct Fixture {
        let stores: Stores
        let home: Household
        let other: Household
        let desk: Item
        let lamp: Item
        let chair: Item

        var files: any AttachmentStore { stores.attachments }
        var blobs: any BlobFiles { stores.blobs! }

        /// `count` bytes of `byte`, staged.
        func staged(_ byte: UInt8, _ count: Int = 100) throws -> StagedBlob { try blobs.stage(Data(repeating: byte, count: count)) }

        /// The home list's entry for an item (its counts and main photo).
        func listing(_ item: Item, household: HouseholdID? = nil) async throws -> ItemListing? {
            try await stores.items.items(household ?? home.id, ItemQuery(limit: 50)).elements.first { $0.item.id == item.id }
        }

        func search(_ text: String, household: HouseholdID? = nil) async throws -> [String] {
            try await stores.items.items(household ?? home.id, ItemQuery(search: text, limit: 50)).elements.map(\.item.name)
        }
    }

    func fixture(_ stores: Stores) async throws -> Fixture {
        let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: Self.start)
        let other = try await stores.accounts.createHousehold(name: "Other", currency: .usd, now: Self.start)
        let desk = try await stores.items.createItem(home.id, ItemDraft(name: "Desk", currency: .usd), now: at(0), today: nil, plan: nil)
        let lamp = try await stores.items.createItem(home.id, ItemDraft(name: "Lamp", currency: .usd), now: at(1), today: nil, plan: nil)
        let chair = try await stores.items.createItem(other.id, ItemDraft(name: "Chair", currency: .usd), now: at(0), today: nil, plan: nil)
        return Fixture(stores: stores, home: home, other: other, desk: desk, lamp: lamp, chair: chair)
    }

    // MARK: - Photos

    @Test(arguments: Engine.available)
    func photosKeepTheirOrderAndOneMainPhotoWhichTheListShows(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            #expect(try await f.stores.items.summary(f.home.id).needsPhoto == 2)
            let p1 = try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: try f.staged(1), contentType: "image/jpeg", now: at(10))
            let p2 = try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: try f.staged(2), contentType: "image/png", now: at(11))
            let p3 = try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: try f.staged(3), contentType: "image/jpeg", now: at(12))
            // The first is the main photo; positions follow the order they were added.
            #expect([p1.isPrimary, p2.isPrimary, p3.isPrimary] == [true, false, false])
            #expect([p1.position, p2.position, p3.position] == [0, 1, 2] as [Int])
            #expect(p2.attachment == Attachment(sha256: try f.staged(2).sha256, contentType: "image/png", byteCount: 100))
            #expect(try await f.files.photos(f.home.id, of: f.desk.id).map(\.id) == [p1.id, p2.id, p3.id])
            #expect(try await f.files.photos(f.home.id, of: f.desk.id) == [p1, p2, p3])
            var desk = try #require(try await f.listing(f.desk))
            #expect(desk.photoCount == 3)
            #expect(desk.primaryPhoto == p1.attachment)
            #expect(try await f.listing(f.lamp)?.primaryPhoto == nil)
            #expect(try await f.stores.items.summary(f.home.id).needsPhoto == 1)
            #expect(try await f.stores.items.countItems(f.home.id, search: "", filter: ItemFilter(needsPhoto: true), cap: 10) == (1, true))
            // Adding a photo marks the item changed.
            #expect(try await f.stores.items.item(f.home.id, f.desk.id).updatedAt == at(12))

            // Another main photo: it is listed first, the others keep their order.
            try await f.files.setPrimaryPhoto(f.home.id, p3.id)
            #expect(try await f.files.photos(f.home.id, of: f.desk.id).map(\.id) == [p3.id, p1.id, p2.id])
            #expect(try await f.files.photos(f.home.id, of: f.desk.id).map(\.isPrimary) == [true, false, false])
            #expect(try await f.listing(f.desk)?.primaryPhoto == p3.attachment)

            // A new order: the first named becomes the main photo.
            try await f.files.setPhotoOrder(f.home.id, f.desk.id, [p2.id, p3.id, p1.id], now: at(20))
            let ordered = try await f.files.photos(f.home.id, of: f.desk.id)
            #expect(ordered.map(\.id) == [p2.id, p3.id, p1.id])
            #expect(ordered.map(\.position) == [0, 1, 2] as [Int])
            #expect(ordered.map(\.isPrimary) == [true, false, false])
            #expect(try await f.listing(f.desk)?.primaryPhoto == p2.attachment)
            #expect(try await f.stores.items.item(f.home.id, f.desk.id).updatedAt == at(20))
            // An order must name each photo exactly once; nothing changes otherwise.
            let refused = DomainError.invalid(field: "photoIDs", message: "List each of the item's 3 photos exactly once.")
            await #expect(throws: refused) { try await f.files.setPhotoOrder(f.home.id, f.desk.id, [p2.id, p3.id], now: at(21)) }
            await #expect(throws: refused) { try await f.files.setPhotoOrder(f.home.id, f.desk.id, [p2.id, p3.id, p3.id], now: at(21)) }
            #expect(try await f.files.photos(f.home.id, of: f.desk.id).map(\.id) == [p2.id, p3.id, p1.id])

            // Removing the main photo makes the next in order the main one.
            try await f.files.removePhoto(f.home.id, p2.id, now: at(30))
            #expect(try await f.files.photos(f.home.id, of: f.desk.id).map(\.id) == [p3.id, p1.id])
            desk = try #require(try await f.listing(f.desk))
            #expect(desk.photoCount == 2)
            #expect(desk.primaryPhoto == p3.attachment)
            // Removing one that is not the main photo leaves the main one.
            try await f.files.removePhoto(f.home.id, p1.id, now: at(31))
            #expect(try await f.files.photos(f.home.id, of: f.desk.id).map(\.isPrimary) == [true])
            try await f.files.removePhoto(f.home.id, p3.id, now: at(32))
            desk = try #require(try await f.listing(f.desk))
            #expect(desk.photoCount == 0)
            #expect(desk.primaryPhoto == nil)
            #expect(try await f.stores.items.summary(f.home.id).needsPhoto == 2)
            // The next photo added is the main one again.
            let p4 = try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: try f.staged(4), contentType: "image/jpeg", now: at(40))
            #expect(p4.isPrimary)
            #expect(try await f.listing(f.desk)?.primaryPhoto == p4.attachment)
        }
    }

    @Test(arguments: Engine.available)
    func photosAddedAtOnceTakeOnePrimaryAndDistinctPositions(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let staged = try (0..<8).map { try f.staged(UInt8(100 + $0)) }
            let added = try await withThrowingTaskGroup(of: ItemPhoto.self) { group in
                for (index, file) in staged.enumerated() {
                    group.addTask { try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: file, contentType: "image/jpeg", now: self.at(index)) }
                }
                return try await group.reduce(into: [ItemPhoto]()) { $0.append($1) }
            }
            #expect(added.filter(\.isPrimary).count == 1)
            #expect(Set(added.map(\.position)) == Set(0..<8))
            let photos = try await f.files.photos(f.home.id, of: f.desk.id)
            #expect(photos.count == 8)
            #expect(photos.map(\.isPrimary) == [true] + Array(repeating: false, count: 7))
            #expect(try await f.listing(f.desk)?.photoCount == 8)
        }
    }

    @Test(arguments: Engine.available)
    func aPhotoCompletesAnItemsDocumentationInTheSummary(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let room = try await f.stores.items.rooms(f.home.id)[0]
            let category = try await f.stores.items.categories(f.home.id)[0]
            let tv = try await f.stores.items.createItem(f.home.id, ItemDraft(name: "TV", purchasePrice: usd(50_000), currency: .usd,
                                                                             categoryID: category.id, roomID: room.id),
                                                         now: at(5), today: nil, plan: nil)
            // Price, category and room, but no photo: not yet documented.
            #expect(try await f.stores.items.summary(f.home.id).score == DocumentationScore(documented: 0, total: 3))
            let photo = try await f.files.addPhoto(f.home.id, to: tv.id, staged: try f.staged(60), contentType: "image/jpeg", now: at(6))
            #expect(try await f.stores.items.summary(f.home.id).score == DocumentationScore(documented: 1, total: 3))
            #expect(try await f.stores.items.summary(f.home.id).needsPhoto == 2)
            try await f.files.removePhoto(f.home.id, photo.id, now: at(7))
            #expect(try await f.stores.items.summary(f.home.id).score == DocumentationScore(documented: 0, total: 3))
            #expect(try await f.stores.items.summary(f.home.id).needsPhoto == 3)
        }
    }

    @Test(arguments: Engine.available)
    func anotherHouseholdsPhotosAndFilesAreNotFound(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let photo = try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: try f.staged(7), contentType: "image/jpeg", now: at(10))
            let sha = photo.attachment.sha256
            let notFoundPhoto = DomainError.notFound("The photo")
            await #expect(throws: notFoundPhoto) { try await f.files.removePhoto(f.other.id, photo.id, now: at(11)) }
            await #expect(throws: notFoundPhoto) { try await f.files.setPrimaryPhoto(f.other.id, photo.id) }
            await #expect(throws: DomainError.notFound("The item")) { try await f.files.photos(f.other.id, of: f.desk.id) }
            await #expect(throws: DomainError.notFound("The item")) {
                try await f.files.setPhotoOrder(f.other.id, f.desk.id, [photo.id], now: at(11))
            }
            await #expect(throws: DomainError.notFound("The item")) {
                try await f.files.addPhoto(f.other.id, to: f.desk.id, staged: try f.staged(8), contentType: "image/jpeg", now: at(11))
            }
            await #expect(throws: DomainError.notFound("The file")) { try await f.files.attachment(f.other.id, sha256: sha) }
            await #expect(throws: DomainError.notFound("The file")) { try await f.files.attachmentData(f.other.id, sha256: sha) }
            // Its own household reads it, bytes and all; nothing of it changed.
            #expect(try await f.files.attachment(f.home.id, sha256: sha) == photo.attachment)
            let (bytes, attachment) = try await f.files.attachmentData(f.home.id, sha256: sha)
            #expect(bytes == Data(repeating: 7, count: 100))
            #expect(attachment == photo.attachment)
            #expect(try await f.files.photos(f.home.id, of: f.desk.id) == [photo])
            // Files no row of the household uses are not found either.
            await #expect(throws: DomainError.notFound("The file")) { try await f.files.attachment(f.home.id, sha256: String(repeating: "0", count: 64)) }
        }
    }

    /// What a server's thumbnail sweep asks: which of these stored files are still recorded.
    @Test(arguments: Engine.available)
    func recordedFilesAreThoseARowStillUses(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let kept = try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: try f.staged(41), contentType: "image/jpeg", now: at(10))
            let gone = try await f.files.addPhoto(f.home.id, to: f.lamp.id, staged: try f.staged(42), contentType: "image/jpeg", now: at(11))
            let receipt = try await f.files.addReceipt(f.other.id, itemID: nil, staged: try f.staged(43), contentType: "image/jpeg",
                                                       fields: ReceiptFields(), now: at(12))
            let unknown = String(repeating: "ab", count: 32)
            let asked = [kept.attachment.sha256, gone.attachment.sha256, receipt.attachment.sha256, unknown]
            #expect(try await f.files.recordedFiles(among: asked) == Set(asked.dropLast()))
            try await f.files.removePhoto(f.home.id, gone.id, now: at(20))
            #expect(try await f.files.recordedFiles(among: asked) == [kept.attachment.sha256, receipt.attachment.sha256])
            #expect(try await f.files.recordedFiles(among: []) == [])
        }
    }

    // MARK: - Receipts

    @Test(arguments: Engine.available)
    func receiptsReadBackListNewestFirstLinkAndDeleteOnlyInTheirHousehold(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let fields = ReceiptFields(vendor: "Hardware Co", total: usd(12_345), tax: usd(1_000),
                                       purchaseDate: try CalendarDate(iso: "2025-03-04"), rawText: "HARDWARE CO\nTOTAL 123.45", confidence: 0.75)
            let r1 = try await f.files.addReceipt(f.home.id, itemID: nil, staged: try f.staged(21), contentType: "image/jpeg", fields: fields,
                                                  now: at(10))
            let r2 = try await f.files.addReceipt(f.home.id, itemID: f.desk.id, staged: try f.staged(22), contentType: "image/png",
                                                  fields: ReceiptFields(), now: at(11))
            let r3 = try await f.files.addReceipt(f.home.id, itemID: nil, staged: try f.staged(23), contentType: "image/jpeg",
                                                  fields: ReceiptFields(vendor: "Third"), now: at(12))
            let theirs = try await f.files.addReceipt(f.other.id, itemID: f.chair.id, staged: try f.staged(24), contentType: "image/jpeg",
                                                      fields: ReceiptFields(vendor: "Theirs"), now: at(13))

            // Reads back as written.
            let read = try await f.files.receipt(f.home.id, r1.id)
            #expect(read.receipt == r1)
            #expect(read.itemName == nil)
            #expect(read.receipt.vendor == "Hardware Co")
            #expect(read.receipt.total == usd(12_345))
            #expect(read.receipt.tax == usd(1_000))
            #expect(read.receipt.purchaseDate == (try CalendarDate(iso: "2025-03-04")))
            #expect(read.receipt.rawText == "HARDWARE CO\nTOTAL 123.45")
            #expect(read.receipt.confidence == 0.75)
            #expect(read.receipt.attachment == Attachment(sha256: try f.staged(21).sha256, contentType: "image/jpeg", byteCount: 100))
            #expect(try await f.files.receipt(f.home.id, r2.id).itemName == "Desk")
            #expect(try await f.files.receipt(f.home.id, r2.id).receipt.itemID == f.desk.id)
            // Newest first, within the limit, this household's only.
            #expect(try await f.files.receipts(f.home.id, limit: 200, after: nil).elements.map(\.receipt.id) == [r3.id, r2.id, r1.id])
            #expect(try await f.files.receipts(f.home.id, limit: 2, after: nil).elements.map(\.receipt.id) == [r3.id, r2.id])
            #expect(try await f.files.receipts(f.other.id, limit: 200, after: nil).elements.map(\.receipt.id) == [theirs.id])
            // Those linked to no item, a page at a time (r2 is the desk's).
            let loose = try await f.files.receipts(f.home.id, limit: 1, after: nil, unlinkedOnly: true)
            #expect(loose.elements.map(\.receipt.id) == [r3.id])
            let rest = try await f.files.receipts(f.home.id, limit: 1, after: try #require(loose.nextCursor), unlinkedOnly: true)
            #expect(rest.elements.map(\.receipt.id) == [r1.id] && rest.nextCursor == nil)
            // Page by page: receipts added in the same millisecond are in id order, and each page starts where the last
            // ended (none twice, none missed); the last page has no cursor, even when it is full.
            var twins: [ReceiptID] = []
            for n: UInt8 in [26, 27] {
                twins.append(try await f.files.addReceipt(f.home.id, itemID: nil, staged: try f.staged(n), contentType: "image/jpeg",
                                                          fields: ReceiptFields(vendor: "Twin"), now: at(12)).id)
            }
            var (seen, cursor, pages): ([ReceiptID], PageCursor?, Int) = ([], nil, 0)
            repeat {
                let page = try await f.files.receipts(f.home.id, limit: 2, after: cursor)
                seen += page.elements.map(\.receipt.id)
                (cursor, pages) = (page.nextCursor, pages + 1)
            } while cursor != nil && pages < 10
            #expect(pages == 3 && seen == [r3.id, twins[0], twins[1]].sorted { $0.description < $1.description } + [r2.id, r1.id], "\(seen)")
            #expect(try await f.files.receipts(f.home.id, limit: 5, after: nil).nextCursor == nil)
            #expect(try await f.files.receipts(f.home.id, limit: 4, after: nil).nextCursor != nil)
            await #expect(throws: ReceiptPageCursor.outOfDate) { try await f.files.receipts(f.home.id, limit: 2, after: PageCursor(rawValue: "name.x.1")) }
            #expect(try await f.files.receipts(f.other.id, limit: 2, after: ReceiptPageCursor.make(after: r3)).elements.isEmpty)  // theirs is older
            for twin in twins { try await f.files.deleteReceipt(f.home.id, twin) }
            #expect(try await f.files.receipts(f.home.id, of: f.desk.id) == [r2])
            #expect(try await f.listing(f.desk)?.receiptCount == 1)
            #expect(try await f.stores.items.summary(f.home.id).needsReceipt == 1)

            // Another household's receipt is not found, and a receipt links only to an item of its household.
            let notFound = DomainError.notFound("The receipt")
            await #expect(throws: notFound) { try await f.files.receipt(f.other.id, r1.id) }
            await #expect(throws: notFound) { try await f.files.updateReceipt(f.other.id, r1.id, ReceiptFields(vendor: "x")) }
            await #expect(throws: notFound) { try await f.files.linkReceipt(f.other.id, r1.id, to: f.chair.id) }
            await #expect(throws: notFound) { try await f.files.linkReceipt(f.home.id, theirs.id, to: f.desk.id) }
            await #expect(throws: notFound) { try await f.files.deleteReceipt(f.other.id, r1.id) }
            await #expect(throws: DomainError.notFound("The item")) { try await f.files.linkReceipt(f.home.id, r1.id, to: f.chair.id) }
            await #expect(throws: DomainError.notFound("The item")) {
                try await f.files.addReceipt(f.home.id, itemID: f.chair.id, staged: try f.staged(25), contentType: "image/jpeg",
                                             fields: ReceiptFields(), now: at(14))
            }
            await #expect(throws: DomainError.notFound("The item")) { try await f.files.receipts(f.other.id, of: f.desk.id) }
            #expect(try await f.files.receipt(f.home.id, r1.id).receipt == r1)
            #expect(try await f.files.receipt(f.other.id, theirs.id).receipt.itemID == f.chair.id)

            // Linking moves the counts; fields are replaced.
            try await f.files.linkReceipt(f.home.id, r1.id, to: f.lamp.id)
            #expect(try await f.files.receipt(f.home.id, r1.id).itemName == "Lamp")
            #expect(try await f.listing(f.lamp)?.receiptCount == 1)
            #expect(try await f.stores.items.summary(f.home.id).needsReceipt == 0)
            try await f.files.linkReceipt(f.home.id, r1.id, to: f.desk.id)
            #expect(try await f.listing(f.lamp)?.receiptCount == 0)
            #expect(try await f.listing(f.desk)?.receiptCount == 2)
            #expect(try await f.files.receipts(f.home.id, of: f.desk.id).map(\.id) == [r1.id, r2.id])
            let changed = ReceiptFields(vendor: "Other Co", total: try Money(minorUnits: 500, currency: try CurrencyCode("EUR")),
                                        rawText: "typed", confidence: nil)
            try await f.files.updateReceipt(f.home.id, r1.id, changed)
            let updated = try await f.files.receipt(f.home.id, r1.id).receipt
            #expect(updated.vendor == "Other Co")
            #expect(updated.total == (try Money(minorUnits: 500, currency: try CurrencyCode("EUR"))))
            #expect(updated.tax == nil)
            #expect(updated.purchaseDate == nil)
            #expect(updated.rawText == "typed")
            #expect(updated.confidence == nil)
            #expect(updated.attachment == r1.attachment)
            try await f.files.linkReceipt(f.home.id, r1.id, to: nil)
            #expect(try await f.files.receipt(f.home.id, r1.id).itemName == nil)
            #expect(try await f.listing(f.desk)?.receiptCount == 1)

            // Deleting a receipt: gone from the list and the item's count.
            try await f.files.deleteReceipt(f.home.id, r2.id)
            await #expect(throws: notFound) { try await f.files.receipt(f.home.id, r2.id) }
            #expect(try await f.files.receipts(f.home.id, limit: 200, after: nil).elements.map(\.receipt.id) == [r3.id, r1.id])
            #expect(try await f.listing(f.desk)?.receiptCount == 0)
            #expect(try await f.stores.items.summary(f.home.id).needsReceipt == 2)

            // Deleting an item keeps its receipts, unlinked.
            try await f.files.linkReceipt(f.home.id, r3.id, to: f.lamp.id)
            try await f.stores.items.deleteItem(f.home.id, f.lamp.id)
            let kept = try await f.files.receipt(f.home.id, r3.id)
            #expect(kept.receipt.itemID == nil)
            #expect(kept.itemName == nil)
            #expect(try await f.stores.items.summary(f.home.id).needsReceipt == 1)
        }
    }

    /// A change made on what a receipt held is written only while it still holds exactly that (the review form's save
    /// and the reading job rely on it); otherwise `ReceiptChanged` and nothing is written.
    @Test(arguments: Engine.available)
    func aReceiptIsUpdatedOnlyWhileItHoldsWhatTheChangeWasMadeOn(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let read = ReceiptFields(vendor: "Hardware Co", total: usd(12_345), tax: usd(1_000), purchaseDate: try CalendarDate(iso: "2025-03-04"),
                                     rawText: "HARDWARE CO\nTOTAL 123.45", confidence: 0.6180339887)
            let receipt = try await f.files.addReceipt(f.home.id, itemID: nil, staged: try f.staged(31), contentType: "image/jpeg", fields: read,
                                                       now: at(10))
            #expect(receipt.fields == read)
            var checked = read
            checked.vendor = "Hardware Company"
            checked.confidence = 1
            try await f.files.updateReceipt(f.home.id, receipt.id, checked, expected: read)
            #expect(try await f.files.receipt(f.home.id, receipt.id).receipt.fields == checked)

            var stale = read
            stale.total = usd(99)
            await #expect(throws: ReceiptChanged()) { try await f.files.updateReceipt(f.home.id, receipt.id, stale, expected: read) }
            #expect(try await f.files.receipt(f.home.id, receipt.id).receipt.fields == checked)
            // Nothing read yet (every field nil) is a state to expect too.
            let empty = try await f.files.addReceipt(f.home.id, itemID: nil, staged: try f.staged(32), contentType: "image/png",
                                                     fields: ReceiptFields(), now: at(11))
            try await f.files.updateReceipt(f.home.id, empty.id, read, expected: ReceiptFields())
            await #expect(throws: ReceiptChanged()) { try await f.files.updateReceipt(f.home.id, empty.id, checked, expected: ReceiptFields()) }
            #expect(try await f.files.receipt(f.home.id, empty.id).receipt.fields == read)
            await #expect(throws: DomainError.notFound("The receipt")) {
                try await f.files.updateReceipt(f.other.id, receipt.id, read, expected: checked)
            }
        }
    }

    @Test(arguments: Engine.available)
    func aLinkedReceiptsTextFindsItsItemUntilUnlinkedOrDeleted(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            // The other household's chair has the same words in a receipt of its own: never found from home.
            _ = try await f.files.addReceipt(f.other.id, itemID: f.chair.id, staged: try f.staged(30), contentType: "image/jpeg",
                                             fields: ReceiptFields(vendor: "Fjordhaus", rawText: "zanzibar walnut"), now: at(9))
            #expect(try await f.search("zanzibar", household: f.other.id) == ["Chair"])
            #expect(try await f.search("zanzibar") == [])

            let receipt = try await f.files.addReceipt(f.home.id, itemID: f.desk.id, staged: try f.staged(31), contentType: "image/jpeg",
                                                       fields: ReceiptFields(vendor: "Fjordhaus", rawText: "Invoice 12\nZanzibar walnut veneer"),
                                                       now: at(10))
            // The vendor and every word of the text, stemmed and as a prefix; two words of the text as a phrase.
            #expect(try await f.search("zanzibar") == ["Desk"])
            #expect(try await f.search("fjordhaus") == ["Desk"])
            #expect(try await f.search("veneers") == ["Desk"])
            #expect(try await f.search("zanzi") == ["Desk"])
            #expect(try await f.search("desk walnut") == ["Desk"])
            #expect(try await f.search("lamp walnut") == [])
            #expect(try await f.stores.items.countItems(f.home.id, search: "walnut", filter: ItemFilter(), cap: 10) == (1, true))

            // Editing the item keeps its receipt's words.
            var draft = f.desk.draft
            draft.name = "Writing desk"
            _ = try await f.stores.items.updateItem(f.home.id, f.desk.id, draft, now: at(11), today: nil)
            #expect(try await f.search("zanzibar") == ["Writing desk"])

            // New fields replace the old words.
            try await f.files.updateReceipt(f.home.id, receipt.id, ReceiptFields(vendor: "Eikholt", rawText: "oak"))
            #expect(try await f.search("zanzibar") == [])
            #expect(try await f.search("fjordhaus") == [])
            #expect(try await f.search("eikholt oak") == ["Writing desk"])

            // Moved to the lamp: the lamp is found, the desk no more; unlinked: neither.
            try await f.files.linkReceipt(f.home.id, receipt.id, to: f.lamp.id)
            #expect(try await f.search("oak") == ["Lamp"])
            try await f.files.linkReceipt(f.home.id, receipt.id, to: nil)
            #expect(try await f.search("oak") == [])
            #expect(try await f.search("eikholt") == [])

            // Linked again, then deleted: found, then not.
            try await f.files.linkReceipt(f.home.id, receipt.id, to: f.desk.id)
            #expect(try await f.search("oak") == ["Writing desk"])
            try await f.files.deleteReceipt(f.home.id, receipt.id)
            #expect(try await f.search("oak") == [])
            #expect(try await f.search("writing") == ["Writing desk"])
            // The other household's receipt was never touched.
            #expect(try await f.search("zanzibar", household: f.other.id) == ["Chair"])
        }
    }

    // MARK: - Storage and stored files

    @Test(arguments: Engine.available)
    func theStorageSummaryCountsEachHouseholdsFilesOncePerKind(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let empty = try await f.files.storageSummary(f.home.id)
            #expect(empty.items == 2)
            #expect(empty.photos == .init(count: 0, bytes: 0))
            #expect(empty.receipts == .init(count: 0, bytes: 0))
            #expect(empty.reports == .init(count: 0, bytes: 0))

            // The same 100 bytes on two items: two photos, 100 bytes. Another 50: three photos, 150 bytes.
            _ = try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: try f.staged(1, 100), contentType: "image/jpeg", now: at(1))
            _ = try await f.files.addPhoto(f.home.id, to: f.lamp.id, staged: try f.staged(1, 100), contentType: "image/jpeg", now: at(2))
            _ = try await f.files.addPhoto(f.home.id, to: f.lamp.id, staged: try f.staged(2, 50), contentType: "image/jpeg", now: at(3))
            // Receipts count apart: one of 70 bytes, and one with the photos' 100 bytes.
            _ = try await f.files.addReceipt(f.home.id, itemID: nil, staged: try f.staged(3, 70), contentType: "image/jpeg",
                                             fields: ReceiptFields(), now: at(4))
            _ = try await f.files.addReceipt(f.home.id, itemID: f.desk.id, staged: try f.staged(1, 100), contentType: "image/jpeg",
                                             fields: ReceiptFields(), now: at(5))
            // Another household's files are not this one's.
            _ = try await f.files.addPhoto(f.other.id, to: f.chair.id, staged: try f.staged(9, 1_000), contentType: "image/jpeg", now: at(6))

            let summary = try await f.files.storageSummary(f.home.id)
            #expect(summary.items == 2)
            #expect(summary.photos == .init(count: 3, bytes: 150))
            #expect(summary.receipts == .init(count: 2, bytes: 170))
            #expect(summary.reports == .init(count: 0, bytes: 0))
            #expect(summary.householdBytes == 320)
            #expect(summary.databaseBytes > 0)
            let theirs = try await f.files.storageSummary(f.other.id)
            #expect(theirs.items == 1)
            #expect(theirs.photos == .init(count: 1, bytes: 1_000))
            #expect(theirs.receipts == .init(count: 0, bytes: 0))
        }
    }

    @Test(arguments: Engine.available)
    func aStoredFileIsKeptWhileAnyRowUsesItAndRemovedWhenNone(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let bytes = Data(repeating: 42, count: 300)
            // The file is in place once the row is written, kept once for three rows in two households.
            let mine = try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: try f.blobs.stage(bytes), contentType: "image/jpeg", now: at(1))
            let sha = mine.attachment.sha256
            #expect(try f.blobs.exists(sha))
            #expect(try f.blobs.read(sha) == bytes)
            let theirs = try await f.files.addPhoto(f.other.id, to: f.chair.id, staged: try f.blobs.stage(bytes), contentType: "image/png",
                                                    now: at(2))
            // The first content type recorded for the bytes stays theirs too.
            #expect(theirs.attachment == mine.attachment)
            let receipt = try await f.files.addReceipt(f.home.id, itemID: nil, staged: try f.blobs.stage(bytes), contentType: "image/jpeg",
                                                       fields: ReceiptFields(), now: at(3))

            // Each removal leaves the file while another row uses it.
            try await f.files.removePhoto(f.home.id, mine.id, now: at(4))
            #expect(try f.blobs.exists(sha))
            #expect(try await f.files.attachment(f.home.id, sha256: sha) == mine.attachment)
            try await f.files.deleteReceipt(f.home.id, receipt.id)
            #expect(try f.blobs.exists(sha))
            await #expect(throws: DomainError.notFound("The file")) { try await f.files.attachment(f.home.id, sha256: sha) }
            #expect(try await f.files.attachmentData(f.other.id, sha256: sha).0 == bytes)
            #expect(try await f.files.collectGarbage(now: at(5)) == 0)
            #expect(try f.blobs.exists(sha))

            // The last row goes with its item: so does the file.
            try await f.stores.items.deleteItem(f.other.id, f.chair.id)
            #expect(try !f.blobs.exists(sha))
            await #expect(throws: DomainError.notFound("The file")) { try await f.files.attachment(f.other.id, sha256: sha) }

            // The same bytes stored again: the file is put back, under the new content type.
            let again = try await f.files.addPhoto(f.home.id, to: f.lamp.id, staged: try f.blobs.stage(bytes), contentType: "image/webp", now: at(6))
            #expect(again.attachment == Attachment(sha256: sha, contentType: "image/webp", byteCount: 300))
            #expect(try await f.files.attachmentData(f.home.id, sha256: sha).0 == bytes)

            // A receipt alone keeps a file a removed photo shared with it.
            let shared = Data(repeating: 43, count: 200)
            let photo = try await f.files.addPhoto(f.home.id, to: f.desk.id, staged: try f.blobs.stage(shared), contentType: "image/jpeg", now: at(6))
            _ = try await f.files.addReceipt(f.home.id, itemID: nil, staged: try f.blobs.stage(shared), contentType: "image/jpeg",
                                             fields: ReceiptFields(), now: at(6))
            try await f.files.removePhoto(f.home.id, photo.id, now: at(6))
            #expect(try f.blobs.exists(photo.attachment.sha256))
            #expect(try await f.files.attachmentData(f.home.id, sha256: photo.attachment.sha256).0 == shared)

            // A receipt's own file goes with it.
            let alone = try await f.files.addReceipt(f.home.id, itemID: f.desk.id, staged: try f.staged(44, 10), contentType: "image/jpeg",
                                                     fields: ReceiptFields(), now: at(6))
            #expect(try f.blobs.exists(alone.attachment.sha256))
            try await f.files.deleteReceipt(f.home.id, alone.id)
            #expect(try !f.blobs.exists(alone.attachment.sha256))

            // While a backup holds its pin, a removed photo's row goes but its file stays; the sweep takes it after.
            let backup = try #require(f.blobs as? BlobStore).pinForBackup()
            try await f.files.removePhoto(f.home.id, again.id, now: at(7))
            #expect(try f.blobs.exists(sha))
            #expect(try await f.files.collectGarbage(now: at(8)) == 0)
            #expect(try f.blobs.exists(sha))
            backup.release()
            #expect(try await f.files.collectGarbage(now: at(9)) == 1)
            #expect(try !f.blobs.exists(sha))
        }
    }
}

/// Two PostgreSQL stores on one schema and one place for files, as two servers: one removes the last photo of some
/// bytes while the other adds the same bytes again. Whichever goes first, the new photo's file is there when its row
/// is, and the file goes once neither uses it.
@Suite(.enabled(if: Engine.available.contains(.postgres)))
struct AttachmentsAcrossServersTests {
    @Test func addingBytesWhileAnotherServerRemovesTheirLastUseNeverLosesTheFile() async throws {
        let folder = try blobFolder()
        defer { try? FileManager.default.removeItem(at: folder.url) }
        let blobs = BlobStore(folder: folder)
        let now = Date(millis: 1_763_800_000_000)
        try await withTwoPostgresStores(blobs: blobs) { first, second in
            let home = try await first.createHousehold(name: "Home", currency: .usd, now: now)
            let desk = try await first.createItem(home.id, ItemDraft(name: "Desk", currency: .usd), now: now, today: nil, plan: nil)
            let lamp = try await first.createItem(home.id, ItemDraft(name: "Lamp", currency: .usd), now: now, today: nil, plan: nil)
            for round in 0..<40 {
                let bytes = Data(repeating: UInt8(round % 3), count: 64 + round % 2)
                let old = try await first.addPhoto(home.id, to: lamp.id, staged: try blobs.stage(bytes), contentType: "image/jpeg", now: now)
                let sha = old.attachment.sha256
                // Started in turns, so each goes first in some rounds.
                async let removed: Void = round % 2 == 0 ? second.removePhoto(home.id, old.id, now: now) : first.removePhoto(home.id, old.id, now: now)
                async let added = (round % 2 == 0 ? first : second).addPhoto(home.id, to: desk.id, staged: try blobs.stage(bytes),
                                                                              contentType: "image/jpeg", now: now)
                try await removed
                let photo = try await added
                #expect(try blobs.exists(sha), "round \(round)")
                #expect(try await second.attachmentData(home.id, sha256: sha).0 == bytes, "round \(round)")
                try await second.removePhoto(home.id, photo.id, now: now)
                #expect(try !blobs.exists(sha), "round \(round)")
            }
            #expect(try await first.photos(home.id, of: desk.id).isEmpty)
        }
    }
}
