import Foundation
import NestoryDomain

/// An item to insert in bulk (demo data, imports): fields, times and already stored photos.
public struct NewItem: Sendable {
    public var id: ItemID
    public var draft: ItemDraft
    public var createdAt: Date
    public var photos: [Attachment]
    public var receipts: [StoredReceipt]

    public init(id: ItemID = ItemID(), draft: ItemDraft, createdAt: Date, photos: [Attachment] = [], receipts: [StoredReceipt] = []) {
        self.id = id
        self.draft = draft
        self.createdAt = createdAt
        self.photos = photos
        self.receipts = receipts
    }
}

/// A receipt whose image is already stored, with its fields, for bulk inserts.
public struct StoredReceipt: Sendable {
    public var attachment: Attachment
    public var fields: ReceiptFields

    public init(attachment: Attachment, fields: ReceiptFields) {
        self.attachment = attachment
        self.fields = fields
    }
}
