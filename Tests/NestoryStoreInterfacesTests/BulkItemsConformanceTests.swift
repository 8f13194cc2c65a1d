import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import Testing

/// `ArchiveStore.storeAttachment` and `insertItemsInBulk` (the demo's household on either engine): the same rows,
/// photos, receipts, figures and search on every engine, and all or nothing.
extension ArchiveStoreConformanceTests {
    @Test(arguments: Engine.available)
    func bulkInsertAddsItemsWithTheirPhotosAndReceiptsInOneGo(_ engine: Engine) async throws {
        try await withArchive(engine) { f in
            let s = f.stores
            let home = try await s.accounts.createHousehold(name: "Bulk", currency: .usd, now: at(0))
            let rooms = try await s.items.rooms(home.id)
            let photoBytes = Data("a shared demo photo".utf8), receiptBytes = Data("a demo receipt".utf8)
            let photo = try await s.archive.storeAttachment(photoBytes, contentType: "image/png", now: at(1))
            let receiptImage = try await s.archive.storeAttachment(receiptBytes, contentType: "image/jpeg", now: at(1))
            #expect(photo == Attachment(sha256: "7f1f15b3e7a775518d18fb96eb1598d24b971441477da8e4e51f4d30cf3fd394", contentType: "image/png", byteCount: 19))
            #expect(try f.blobs.read(receiptImage.sha256) == receiptBytes)

            let desk = NewItem(draft: ItemDraft(name: "Desk", purchasePrice: usd(12_999), currency: .usd, roomID: rooms[0].id, tags: ["wood"]),
                               createdAt: at(10), photos: [photo, photo])
            let kettle = NewItem(draft: ItemDraft(name: "Kettle", currency: .usd), createdAt: at(11),
                                 receipts: [StoredReceipt(attachment: receiptImage,
                                                          fields: ReceiptFields(vendor: "Argos", total: usd(1_999), rawText: "KETTLE DELUXE 19.99"))])
            let lamp = NewItem(draft: ItemDraft(name: "Lamp", currency: .usd), createdAt: at(12))
            let batches = Batches([[desk, kettle], [lamp]])
            try await s.archive.insertItemsInBulk(home.id, count: 3, today: try CalendarDate(iso: "2025-11-22")) { batches.next() }

            let listed = try await s.items.items(home.id, ItemQuery(limit: 10)).elements.map(\.item.name)
            #expect(Set(listed) == ["Desk", "Kettle", "Lamp"])
            let deskPhotos = try await s.attachments.photos(home.id, of: desk.id)
            #expect(deskPhotos.map(\.position) == [0, 1])
            #expect(deskPhotos.map(\.isPrimary) == [true, false])
            #expect(deskPhotos.allSatisfy { $0.attachment.sha256 == photo.sha256 })
            let receipts = try await s.attachments.receipts(home.id, of: kettle.id)
            #expect(receipts.map(\.vendor) == ["Argos"])
            #expect(receipts.first?.total == usd(1_999))
            // The receipt's text is searched with its item.
            #expect(try await s.items.items(home.id, ItemQuery(search: "deluxe", limit: 10)).elements.map(\.item.id) == [kettle.id])
            let summary = try await s.items.summary(home.id)
            #expect(summary.itemCount == 3)
            #expect(summary.needsPhoto == 2)
            #expect(summary.needsReceipt == 2)
        }
    }

    @Test(arguments: Engine.available)
    func bulkInsertIsAllOrNothing(_ engine: Engine) async throws {
        try await withArchive(engine) { f in
            let s = f.stores
            let home = try await s.accounts.createHousehold(name: "Bulk", currency: .usd, now: at(0))
            let other = try await s.accounts.createHousehold(name: "Other", currency: .usd, now: at(0))
            let today = try CalendarDate(iso: "2025-11-22")
            let good = (0..<3).map { NewItem(draft: ItemDraft(name: "Box \($0)", currency: .usd), createdAt: at($0)) }
            // A nameless item in the second batch: the first batch is not kept either.
            let nameless = Batches([good, [NewItem(draft: ItemDraft(name: "  ", currency: .usd), createdAt: at(5))]])
            await #expect(throws: DomainError.self) {
                try await s.archive.insertItemsInBulk(home.id, count: 4, today: today) { nameless.next() }
            }
            // Another household's room.
            let theirs = try await s.items.rooms(other.id)[0]
            let elsewhere = Batches([[NewItem(draft: ItemDraft(name: "Chair", currency: .usd, roomID: theirs.id), createdAt: at(6))]])
            await #expect(throws: DomainError.self) {
                try await s.archive.insertItemsInBulk(home.id, count: 1, today: today) { elsewhere.next() }
            }
            // A photo whose file was never stored.
            let missing = Attachment(sha256: String(repeating: "ab", count: 32), contentType: "image/png", byteCount: 3)
            let unstored = Batches([[NewItem(draft: ItemDraft(name: "Vase", currency: .usd), createdAt: at(7), photos: [missing])]])
            await #expect(throws: (any Error).self) {
                try await s.archive.insertItemsInBulk(home.id, count: 1, today: today) { unstored.next() }
            }
            #expect(try await s.items.summary(home.id).itemCount == 0)
            #expect(try await s.items.items(home.id, ItemQuery(limit: 10)).elements.isEmpty)
        }
    }
}

/// Batches handed out one a call, as a bulk insert asks for them.
private final class Batches: @unchecked Sendable {
    private var left: [[NewItem]]
    init(_ batches: [[NewItem]]) { left = batches }
    func next() -> [NewItem]? { left.isEmpty ? nil : left.removeFirst() }
}
