import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import Testing

/// The items reports and exports read (ItemStoreConformanceTests' fixture): a room's or category's items page by page
/// in name order, the items without one, only the documented ones, chosen items, each with its room's and category's
/// names, its photos (the main one, or all) and its receipts. Each test states its expected answers.
extension ItemStoreConformanceTests {
    typealias ReportPage = (items: [ReportItemRecord], next: ReportCursor?)

    /// Every page of a group, `limit` at a time: the names on each page.
    func reportPages(_ f: Fixture, household: HouseholdID? = nil, _ column: ReportGroupColumn, _ groupID: String?, documentedOnly: Bool = false,
                     limit: Int) async throws -> [[String]] {
        var pages: [[String]] = []
        var cursor: ReportCursor?
        repeat {
            let page = try await f.items.reportItems(household ?? f.home.id, groupBy: column, groupID: groupID, documentedOnly: documentedOnly,
                                                     allPhotos: false, receipts: false, after: cursor, limit: limit)
            pages.append(page.items.map(\.listing.item.name))
            cursor = page.next
            if pages.count > 20 { Issue.record("the pages do not end"); break }
        } while cursor != nil
        return pages
    }

    @Test(arguments: Engine.available)
    func aReportReadsAGroupsItemsPageByPageInNameOrder(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let room0 = f.rooms[0].id.description
            // Room 0 holds the TV, the rug and the reading light; by folded name, two to a page, then the last one alone.
            #expect(try await reportPages(f, .room, room0, limit: 2) == [f.names([8, 0]), f.names([3])])
            // A full last page still names a next one, which is empty and ends.
            #expect(try await reportPages(f, .room, room0, limit: 3) == [f.names([8, 0, 3]), []])
            #expect(try await reportPages(f, .room, room0, limit: 200) == [f.names([8, 0, 3])])
            // Without a room: "Äpfel basket" (as "apfel basket"), "apple crate", the widget.
            #expect(try await reportPages(f, .room, nil, limit: 1) == [f.names([5]), f.names([4]), f.names([9]), []])
            #expect(try await reportPages(f, .category, f.categories[1].id.description, limit: 200) == [f.names([1, 3])])
            #expect(try await reportPages(f, .category, f.categories[2].id.description, limit: 200) == [f.names([5, 4])])
            #expect(try await reportPages(f, .category, nil, limit: 200) == [f.names([2, 6, 9])])
            // The other household's items are its own: none in this household's room, its own without a room; an id of
            // nothing has no items.
            #expect(try await reportPages(f, household: f.other.id, .room, room0, limit: 200) == [[]])
            #expect(try await reportPages(f, household: f.other.id, .room, nil, limit: 200) == [[f.otherItem.name]])
            #expect(try await reportPages(f, .room, "not-an-id", limit: 200) == [[]])
            #expect(try await reportPages(f, .room, RoomID().description, limit: 200) == [[]])
            // Each record names its room and category, and carries the item as the list shows it.
            let page = try await f.items.reportItems(f.home.id, groupBy: .room, groupID: room0, documentedOnly: false, allPhotos: false,
                                                     receipts: false, after: nil, limit: 200)
            #expect(page.items.map(\.roomName) == Array(repeating: f.rooms[0].name, count: 3))
            #expect(page.items.map(\.categoryName) == [f.categories[0].name, f.categories[0].name, f.categories[1].name])
            #expect(page.items.map(\.listing.item) == [f.made[8], f.made[0], f.made[3]])
            let none = try await f.items.reportItems(f.home.id, groupBy: .category, groupID: nil, documentedOnly: false, allPhotos: false,
                                                     receipts: false, after: nil, limit: 200)
            #expect(none.items.map(\.roomName) == [f.rooms[1].name, f.rooms[2].name, nil])
            #expect(none.items.map(\.categoryName) == [nil, nil, nil])
        }
    }

    @Test(arguments: Engine.available)
    func aReportReadsPhotosReceiptsAndOnlyDocumentedItemsWhenAsked(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let blobs = try #require(stores.blobs)
            func photo(_ item: Int, _ byte: UInt8, _ second: Int) async throws -> ItemPhoto {
                try await stores.attachments.addPhoto(f.home.id, to: f.made[item].id, staged: try blobs.stage(Data(repeating: byte, count: 64)),
                                                      contentType: "image/jpeg", now: Self.start.addingTimeInterval(Double(100 + second)))
            }
            // The TV and the rug have photos; the rug's second one is made its main photo. The chair has one but no price.
            let tv = try await photo(0, 1, 0)
            let rug1 = try await photo(3, 2, 1)
            let rug2 = try await photo(3, 3, 2)
            try await stores.attachments.setPrimaryPhoto(f.home.id, rug2.id)
            _ = try await photo(2, 4, 3)
            // Two receipts for the TV (added in this order), one unlinked.
            var receipts: [Receipt] = []
            for (byte, vendor) in [(UInt8(5), "Best Buy"), (6, "Costco")] {
                receipts.append(try await stores.attachments.addReceipt(f.home.id, itemID: f.made[0].id, staged: try blobs.stage(Data(repeating: byte, count: 64)),
                                                                        contentType: "image/png", fields: ReceiptFields(vendor: vendor),
                                                                        now: Self.start.addingTimeInterval(Double(200 + byte))))
            }
            _ = try await stores.attachments.addReceipt(f.home.id, itemID: nil, staged: try blobs.stage(Data(repeating: 7, count: 64)),
                                                        contentType: "image/png", fields: ReceiptFields(vendor: "Loose"), now: Self.start)
            let room0 = f.rooms[0].id.description
            // Documented: a photo, a price, a category and a room. In room 0, the TV and the rug; the reading light has no photo.
            #expect(try await reportPages(f, .room, room0, documentedOnly: true, limit: 200) == [f.names([0, 3])])
            #expect(try await reportPages(f, .room, room0, documentedOnly: true, limit: 1) == [f.names([0]), f.names([3]), []])
            #expect(try await reportPages(f, .room, f.rooms[1].id.description, documentedOnly: true, limit: 200) == [[]])
            #expect(try await reportPages(f, .room, nil, documentedOnly: true, limit: 200) == [[]])

            // The main photo alone, without receipts; or every photo (main first, then in order) and the receipts, oldest first.
            let plain = try await f.items.reportItems(f.home.id, groupBy: .room, groupID: room0, documentedOnly: false, allPhotos: false,
                                                      receipts: false, after: nil, limit: 200)
            #expect(plain.items.map { $0.photos.map(\.sha256) } == [[], [tv.attachment.sha256], [rug2.attachment.sha256]])
            #expect(plain.items.map(\.listing.photoCount) == [0, 1, 2])
            #expect(plain.items.map(\.listing.receiptCount) == [0, 2, 0])
            #expect(plain.items.map(\.listing.primaryPhoto?.sha256) == [nil, tv.attachment.sha256, rug2.attachment.sha256])
            #expect(plain.items.allSatisfy { $0.receipts.isEmpty })
            let full = try await f.items.reportItems(f.home.id, groupBy: .room, groupID: room0, documentedOnly: false, allPhotos: true,
                                                     receipts: true, after: nil, limit: 200)
            #expect(full.items.map { $0.photos.map(\.sha256) } == [[], [tv.attachment.sha256], [rug2.attachment.sha256, rug1.attachment.sha256]])
            #expect(full.items[2].photos.first == Attachment(sha256: rug2.attachment.sha256, contentType: "image/jpeg", byteCount: 64))
            #expect(full.items.map { $0.receipts.map(\.vendor) } == [[], ["Best Buy", "Costco"], []])
            #expect(full.items[1].receipts.map(\.id) == receipts.map(\.id))
            #expect(full.items[1].receipts.allSatisfy { $0.itemID == f.made[0].id && $0.householdID == f.home.id })
        }
    }

    @Test(arguments: Engine.available)
    func aLossListReadsTheChosenItemsOfItsHouseholdInNameOrder(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let f = try await fixture(stores)
            let blobs = try #require(stores.blobs)
            let first = try await stores.attachments.addPhoto(f.home.id, to: f.made[3].id, staged: try blobs.stage(Data(repeating: 1, count: 10)),
                                                              contentType: "image/jpeg", now: Self.start)
            let second = try await stores.attachments.addPhoto(f.home.id, to: f.made[3].id, staged: try blobs.stage(Data(repeating: 2, count: 10)),
                                                               contentType: "image/png", now: Self.start.addingTimeInterval(1))
            _ = try await stores.attachments.addReceipt(f.home.id, itemID: f.made[3].id, staged: try blobs.stage(Data(repeating: 3, count: 10)),
                                                        contentType: "image/png", fields: ReceiptFields(vendor: "Rugs"), now: Self.start)
            // Asked out of order, twice over, with another household's item and an id of nothing.
            let ids = [f.made[3].id, f.made[0].id, f.otherItem.id, ItemID(), f.made[5].id, f.made[0].id]
            let all = try await f.items.reportItems(f.home.id, ids: ids, allPhotos: true)
            #expect(all.map(\.listing.item.name) == f.names([5, 0, 3]))
            #expect(all.map(\.roomName) == [nil, f.rooms[0].name, f.rooms[0].name])
            #expect(all.map(\.categoryName) == [f.categories[2].name, f.categories[0].name, f.categories[1].name])
            #expect(all[2].photos.map(\.sha256) == [first.attachment.sha256, second.attachment.sha256])
            // Receipts are not read for a loss list; the count is.
            #expect(all[2].receipts.isEmpty && all[2].listing.receiptCount == 1)
            let main = try await f.items.reportItems(f.home.id, ids: ids, allPhotos: false)
            #expect(main.map { $0.photos.map(\.sha256) } == [[], [], [first.attachment.sha256]])
            #expect(try await f.items.reportItems(f.home.id, ids: [], allPhotos: true).isEmpty)
            #expect(try await f.items.reportItems(f.other.id, ids: f.made.map(\.id), allPhotos: true).isEmpty)
            #expect(try await f.items.reportItems(f.other.id, ids: ids, allPhotos: true).map(\.listing.item.id) == [f.otherItem.id])
        }
    }
}
