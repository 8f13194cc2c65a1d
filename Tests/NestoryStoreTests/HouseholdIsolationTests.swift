import Foundation
import NestoryDomain
import Testing
@testable import NestoryStore

/// Household B must never see or change anything of household A's.
@Suite struct HouseholdIsolationTests {
    @Test func anotherHouseholdSeesNothing() throws {
        let store = try TestStore()
        let a = try store.household("A")
        let b = try store.household("B")
        let lamp = try store.item(a, "Brass lamp", price: "120", serial: "SN-A-1", notes: "from grandma", tags: ["heirloom"],
                                  room: "Office", category: "Art & Decor")
        let photo = try store.database.addPhoto(a.id, to: lamp.id, data: fakeImage(1), contentType: "image/jpeg", now: store.now)
        let receipt = try store.database.addReceipt(a.id, itemID: lamp.id, data: fakeImage(2), contentType: "image/jpeg",
                                                    fields: ReceiptFields(vendor: "Lampworks", rawText: "LAMPWORKS TOTAL 120.00"),
                                                    now: store.now)

        // Reads.
        #expect(throws: DomainError.notFound("The item")) { try store.database.item(b.id, lamp.id) }
        #expect(try store.database.items(b.id, ItemQuery()).elements.isEmpty)
        for word in ["brass", "lamp", "SN-A-1", "grandma", "heirloom", "lampworks"] {
            #expect(try store.database.items(b.id, ItemQuery(search: word)).elements.isEmpty, "B found A's item by \(word)")
            #expect(try store.database.items(a.id, ItemQuery(search: word)).elements.count == 1, "A did not find \(word)")
        }
        #expect(try store.database.items(b.id, ItemQuery(filter: ItemFilter(tag: "heirloom"))).elements.isEmpty)
        #expect(try store.database.summary(b.id).itemCount == 0)
        #expect(try store.database.valueByCategory(b.id).isEmpty)
        #expect(try store.database.itemsByRoom(b.id).isEmpty)
        #expect(try store.database.tags(b.id).isEmpty)
        #expect(throws: DomainError.self) { try store.database.attachmentData(b.id, sha256: photo.attachment.sha256) }
        #expect(throws: DomainError.self) { try store.database.attachmentData(b.id, sha256: receipt.attachment.sha256) }
        #expect(try store.database.attachmentData(a.id, sha256: photo.attachment.sha256).0 == fakeImage(1))
        let aRooms = Set(try store.database.rooms(a.id).map(\.id))
        #expect(aRooms.isDisjoint(with: try store.database.rooms(b.id).map(\.id)))

        // Writes.
        let draft = lamp.draft
        #expect(throws: DomainError.notFound("The item")) { try store.database.updateItem(b.id, lamp.id, draft, now: store.now) }
        #expect(throws: DomainError.notFound("The item")) { try store.database.deleteItem(b.id, lamp.id) }
        #expect(throws: DomainError.self) {
            try store.database.addPhoto(b.id, to: lamp.id, data: fakeImage(3), contentType: "image/jpeg", now: store.now)
        }
        #expect(throws: DomainError.notFound("The photo")) { try store.database.removePhoto(b.id, photo.id, now: store.now) }
        #expect(throws: DomainError.notFound("The photo")) { try store.database.setPrimaryPhoto(b.id, photo.id) }
        #expect(throws: DomainError.notFound("The receipt")) { try store.database.linkReceipt(b.id, receipt.id, to: nil) }
        let aRoom = try store.database.rooms(a.id)[0]
        #expect(throws: DomainError.notFound("The room")) { try store.database.renameRoom(b.id, aRoom.id, to: "Mine now") }
        #expect(throws: DomainError.notFound("The room")) { try store.database.deleteRoom(b.id, aRoom.id, now: store.now) }
        let aCategory = try store.database.categories(a.id)[0]
        #expect(throws: DomainError.notFound("The category")) {
            try store.database.updateCategory(b.id, aCategory.id, name: "X", colorHex: "#000000")
        }
        #expect(throws: DomainError.notFound("The category")) { try store.database.deleteCategory(b.id, aCategory.id, now: store.now) }
        // B cannot file its item under A's room or category.
        #expect(throws: DomainError.self) {
            try store.database.createItem(b.id, ItemDraft(name: "Sneaky", currency: .usd, roomID: aRoom.id), now: store.now)
        }
        #expect(throws: DomainError.self) {
            try store.database.createItem(b.id, ItemDraft(name: "Sneaky", currency: .usd, categoryID: aCategory.id), now: store.now)
        }
        // B cannot attach A's item to its receipt.
        let bReceipt = try store.database.addReceipt(b.id, itemID: nil, data: fakeImage(4), contentType: "image/jpeg", now: store.now)
        #expect(throws: DomainError.notFound("The item")) { try store.database.linkReceipt(b.id, bReceipt.id, to: lamp.id) }

        // A's data is exactly as it was.
        let details = try store.database.item(a.id, lamp.id)
        #expect(details.item == lamp)
        #expect(details.photos.map(\.id) == [photo.id])
        #expect(details.receipts.map(\.id) == [receipt.id])
        #expect(try store.database.rooms(a.id).count == Defaults.rooms.count)
    }

    @Test func theSchemaRefusesCrossHouseholdPlacesEvenWithoutTheFacade() throws {
        let store = try TestStore()
        let a = try store.household("A")
        let b = try store.household("B")
        let aRoom = try store.database.rooms(a.id)[0]
        let item = try store.item(b, "Chair")
        #expect(throws: (any Error).self) {
            try store.database.writer.write { db in
                try db.execute(sql: "UPDATE item SET room_id = ? WHERE id = ?", arguments: [aRoom.id.description, item.id.description])
            }
        }
    }
}
