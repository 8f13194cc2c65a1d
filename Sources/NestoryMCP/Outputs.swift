import Foundation
import NestoryDomain
import NestoryServices

/// What the tools answer, as JSON text (for any assistant) with stable names.
struct MoneyOut: Encodable {
    let amount: String
    let currency: String
    init(_ money: Money) { (amount, currency) = (money.plainAmount, money.currency.code) }
}

struct ItemOut: Encodable {
    let id: String
    let name: String
    var brand: String?
    var modelNumber: String?
    var serialNumber: String?
    var price: MoneyOut?
    var purchaseDate: String?
    var roomID: String?
    var categoryID: String?
    let condition: String
    var warrantyExpiry: String?
    let tags: [String]
    var notes: String?
    let quantity: Int
    var photoCount: Int
    var receiptCount: Int
    /// Links to the photos (display size), when the item was read whole.
    var photos: [String]?
    var mainPhoto: String?
    /// Its receipts (what each says, and a link to its photo), when the item was read whole.
    var receipts: [ReceiptOut]?

    /// What an item is answered with besides its fields (and its `id`, which names it): accepted in a tool's arguments
    /// and ignored, so an item read can be sent back changed.
    static let answeredOnly: Set<String> = ["id", "photoCount", "receiptCount", "photos", "mainPhoto", "receipts"]

    init(item: Item, photoCount: Int, receiptCount: Int) {
        id = item.id.description
        name = item.name
        brand = item.brand
        modelNumber = item.modelNumber
        serialNumber = item.serialNumber
        price = item.purchasePrice.map(MoneyOut.init)
        purchaseDate = item.purchaseDate?.iso
        roomID = item.roomID?.description
        categoryID = item.categoryID?.description
        condition = item.condition.rawValue
        warrantyExpiry = item.warrantyExpiry?.iso
        tags = item.tags
        notes = item.notes
        quantity = item.quantity
        self.photoCount = photoCount
        self.receiptCount = receiptCount
    }

    init(_ listing: ItemListing, origin: String?) {
        self.init(item: listing.item, photoCount: listing.photoCount, receiptCount: listing.receiptCount)
        mainPhoto = listing.primaryPhoto.map { Self.link($0, origin: origin) }
    }

    init(_ details: ItemDetails, origin: String?) {
        self.init(item: details.item, photoCount: details.photos.count, receiptCount: details.receipts.count)
        photos = details.photos.map { Self.link($0.attachment, origin: origin) }
        mainPhoto = details.photos.first(where: \.isPrimary).map { Self.link($0.attachment, origin: origin) }
        receipts = details.receipts.map { ReceiptOut($0, origin: origin) }
    }

    static func link(_ attachment: Attachment, origin: String?) -> String {
        (origin ?? "") + "/files/\(attachment.sha256)?size=display"
    }
}

struct ReceiptOut: Encodable {
    let id: String
    var vendor: String?
    var purchaseDate: String?
    var total: MoneyOut?
    var tax: MoneyOut?
    /// The photo as uploaded.
    let file: String

    init(_ receipt: Receipt, origin: String?) {
        id = receipt.id.description
        vendor = receipt.vendor
        purchaseDate = receipt.purchaseDate?.iso
        total = receipt.total.map(MoneyOut.init)
        tax = receipt.tax.map(MoneyOut.init)
        file = (origin ?? "") + "/files/\(receipt.attachment.sha256)?size=original"
    }
}

struct SearchOut: Encodable {
    let items: [ItemOut]
    /// More items match than were returned (ask with a larger limit or narrower words).
    let more: Bool
}

struct SummaryOut: Encodable {
    let itemCount: Int
    let roomsInUse: Int
    let estimatedValue: [MoneyOut]
    let documentedCount: Int
    let documentationScorePercent: Int?
    let needsPhoto: Int
    let needsReceipt: Int
    let needsValue: Int
    let highValueCount: Int

    init(_ s: InventorySummary) {
        itemCount = s.itemCount
        roomsInUse = s.roomsInUse
        estimatedValue = s.estimatedValue.map(MoneyOut.init)
        documentedCount = s.score.documented
        documentationScorePercent = s.score.percent
        needsPhoto = s.needsPhoto
        needsReceipt = s.needsReceipt
        needsValue = s.needsValue
        highValueCount = s.highValueCount
    }
}

struct RoomOut: Encodable {
    let id: String
    let name: String
    init(_ room: Room) { (id, name) = (room.id.description, room.name) }
}

struct CategoryOut: Encodable {
    let id: String
    let name: String
    init(_ category: NestoryDomain.Category) { (id, name) = (category.id.description, category.name) }
}

/// A room or a category with how many items it holds (list_rooms_and_categories).
struct PlaceOut: Encodable {
    let id: String
    let name: String
    let itemCount: Int
    init(_ place: PlacesService.Counted) { (id, name, itemCount) = (place.id, place.name, place.items) }
}

struct PlacesOut: Encodable {
    let rooms: [PlaceOut]
    let categories: [PlaceOut]
}

/// A receipt in the list: what was read or typed, and the item it is linked to (none: not yet).
struct ReceiptListingOut: Encodable {
    let receipt: ReceiptOut
    let itemID: String?
    let itemName: String?

    init(_ listing: ReceiptListing, origin: String?) {
        receipt = ReceiptOut(listing.receipt, origin: origin)
        (itemID, itemName) = (listing.receipt.itemID?.description, listing.itemName)
    }

    private enum CodingKeys: String, CodingKey { case itemID, itemName }

    func encode(to encoder: any Encoder) throws {
        try receipt.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(itemID, forKey: .itemID)
        try container.encode(itemName, forKey: .itemName)
    }
}

struct ReceiptsOut: Encodable {
    let receipts: [ReceiptListingOut]
    /// Where the next page starts (pass it as `after`); null on the last page.
    let nextCursor: String?

    private enum CodingKeys: String, CodingKey { case receipts, nextCursor }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(receipts, forKey: .receipts)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}

struct WarrantyOut: Encodable {
    let itemID: String
    let name: String
    let warrantyExpiry: String
    let daysLeft: Int
    init(_ reminder: WarrantyReminder) {
        (itemID, name, warrantyExpiry, daysLeft) = (reminder.itemID.description, reminder.itemName, reminder.expiry.iso, reminder.daysLeft)
    }
}

struct WarrantiesOut: Encodable {
    let items: [WarrantyOut]
}

struct ReportOut: Encodable {
    let jobID: String
    /// The page that follows the report and offers it once made.
    let page: String
    /// The job's status as JSON (with the download link once made), with the same token.
    let status: String
}

struct ValuationOut: Encodable {
    struct Range: Encodable {
        let value: MoneyOut
        let low: MoneyOut
        let high: MoneyOut
        init(_ range: ValueRange) { (value, low, high) = (MoneyOut(range.value), MoneyOut(range.low), MoneyOut(range.high)) }
    }
    let itemID: String
    let method: String
    let confidence: String
    let valuedOn: String
    var replacementCost: Range?
    var actualCashValue: Range?
    var explanation: String?

    init(_ valuation: Valuation) {
        itemID = valuation.itemID.description
        method = valuation.method.rawValue
        confidence = valuation.confidence.rawValue
        valuedOn = valuation.valuedOn.iso
        replacementCost = valuation.replacementCost.map(Range.init)
        actualCashValue = valuation.actualCashValue.map(Range.init)
        explanation = valuation.explanation
    }
}
