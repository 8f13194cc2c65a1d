import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain
import NestoryServices
import NestoryImaging
import NestoryStore
import NestoryStoreInterfaces

/// The JSON API under `/api/v1`: everything the pages do. Described by `openapi.json`.
struct APIController {
    let dependencies: WebDependencies
    var items: ItemsService { dependencies.items }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: OpenAPI.document)))
        }
        group.get("summary", use: summary)
        group.get("plan", use: plan)
        group.get("charts", use: charts)
        group.get("items", use: list)
        group.post("items", use: create)
        group.get("items/:id", use: show)
        group.put("items/:id", use: update)
        group.delete("items/:id", use: delete)
        group.post("items/:id/photos", use: addPhoto)
        group.delete("items/:id/photos/:photoID", use: removePhoto)
        group.post("items/:id/photos/:photoID/main", use: makeMainPhoto)
        group.put("items/:id/photos/order", use: reorderPhotos)
    }

    @Sendable func plan(_ request: Request, context: AppRequestContext) async throws -> PlanJSON {
        let viewer = try context.requireViewer()
        let overview = try await dependencies.services.plan.overview(viewer.household.id)
        return PlanJSON(overview)
    }

    @Sendable func summary(_ request: Request, context: AppRequestContext) async throws -> SummaryJSON {
        let viewer = try context.requireViewer()
        return SummaryJSON(try await items.summary(viewer.household.id))
    }

    @Sendable func charts(_ request: Request, context: AppRequestContext) async throws -> ChartsJSON {
        let viewer = try context.requireViewer()
        let charts = try await items.charts(viewer.household.id)
        return ChartsJSON(valueByCategory: charts.valueByCategory.map(ChartsJSON.Slice.init), itemsByRoom: charts.itemsByRoom.map(ChartsJSON.Bar.init))
    }

    /// Answered from the answers kept (ItemPageCache) while the household's items are unchanged.
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let key = ItemPageCache.Key(household: viewer.household.id, query: try Self.itemQuery(request.query.first))
        let items = items
        let dataVersion = items.dataVersion()
        if let kept = try await dependencies.itemPages.answer(key, dataVersion: dataVersion,
                                                              contentVersion: { try await items.contentVersion(key.household) }) {
            return JSONWriter.response(kept)
        }
        let (page, version) = try await items.versionedPage(key.household, key.query)
        let answer = PageJSON(items: page.elements.map(ItemJSON.init), nextCursor: page.nextCursor?.rawValue)
        var json = JSONWriter(capacity: answer.jsonCapacity)
        answer.write(to: &json)
        let bytes = json.buffer
        dependencies.itemPages.keep(bytes, for: key, version: version, dataVersion: dataVersion)
        return JSONWriter.response(bytes)
    }

    /// `GET /api/v1/items`' parameters (see openapi.json): ItemQueryParameters, shared with MCP's search.
    static func itemQuery(_ parameters: [String: String]) throws(DomainError) -> ItemQuery {
        try ItemQueryParameters.parse(parameters)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ItemJSON> {
        let viewer = try context.requireViewer()
        let draft = try await decodeDraft(request, context: context, viewer: viewer)
        let item = try await dependencies.items.create(viewer.household.id, draft, today: dependencies.today(viewer.household))
        return EditedResponse(status: .created, headers: [.location: "/api/v1/items/\(item.id)"],
                              response: ItemJSON(try await items.details(viewer.household.id, item.id)))
    }

    /// The item, with its version as the ETag (an `If-Match` for a PUT made on it).
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ItemJSON> {
        let viewer = try context.requireViewer()
        let details = try await items.details(viewer.household.id, try context.itemID())
        return EditedResponse(headers: Self.version(details.item), response: ItemJSON(details))
    }

    /// Replaces the item's fields; with `If-Match`, only while the item is still the version read (else 412), so a
    /// script or a device that was offline never overwrites a change it has not seen.
    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ItemJSON> {
        let viewer = try context.requireViewer()
        let id = try context.itemID()
        let expected = try Self.expectedVersion(request)
        let draft = try await decodeDraft(request, context: context, viewer: viewer)
        _ = try await dependencies.items.update(viewer.household.id, id, draft, today: dependencies.today(viewer.household), expected: expected)
        let details = try await items.details(viewer.household.id, id)
        return EditedResponse(headers: Self.version(details.item), response: ItemJSON(details))
    }

    /// An item's version as an entity tag: its `updatedAt` in milliseconds, quoted.
    static func version(_ item: Item) -> HTTPFields { [.eTag: "\"\(item.updatedAt.millis)\""] }

    /// The version `If-Match` names (an ETag this API gave); nil when there is none or it is `*` (any version).
    static func expectedVersion(_ request: Request) throws -> Date? {
        guard let raw = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces), raw != "*" else { return nil }
        let tag = raw.hasPrefix("W/") ? raw.dropFirst(2) : raw[...]
        guard tag.count > 2, tag.first == "\"", tag.last == "\"", let millis = Int64(tag.dropFirst().dropLast()) else {
            throw WebError.badRequest("If-Match must be the ETag a GET of the item answered, e.g. \"1764325000000\".")
        }
        return Date(millis: millis)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        try await dependencies.items.delete(viewer.household.id, try context.itemID())
        return Response(status: .noContent)
    }

    /// The body is the image itself (`Content-Type: image/...`), streamed to disk within the limit: 201 and the photo, or
    /// 200 and the item's photo with the same bytes (nothing added).
    @Sendable func addPhoto(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<PhotoJSON> {
        let viewer = try context.requireViewer()
        let upload = try await dependencies.items.addPhoto(viewer.household.id, to: try context.itemID(),
                                                            declaredLength: request.headers[.contentLength].flatMap(Int64.init)) { upload in
            for try await buffer in request.body {
                try buffer.withUnsafeReadableBytes { try upload.append($0) }
            }
        }
        return EditedResponse(status: upload.isNew ? .created : .ok, response: PhotoJSON(upload.photo))
    }

    @Sendable func removePhoto(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        try await dependencies.items.removePhoto(viewer.household.id, try context.itemID(), try InventoryController.photoID(context))
        return Response(status: .noContent)
    }

    @Sendable func makeMainPhoto(_ request: Request, context: AppRequestContext) async throws -> ItemJSON {
        let viewer = try context.requireViewer()
        let id = try context.itemID()
        try await dependencies.items.makeMainPhoto(viewer.household.id, id, try InventoryController.photoID(context))
        return ItemJSON(try await items.details(viewer.household.id, id))
    }

    /// The body names every photo of the item once, in the new order: `{"photoIDs": [...]}`.
    @Sendable func reorderPhotos(_ request: Request, context: AppRequestContext) async throws -> ItemJSON {
        struct Order: Decodable { let photoIDs: [String] }
        let viewer = try context.requireViewer()
        let id = try context.itemID()
        let order: Order
        do { order = try await request.decode(as: Order.self, context: context) } catch {
            throw WebError.badRequest("The body must be {\"photoIDs\": [...]}, every photo of the item once, in order.")
        }
        let ids = try order.photoIDs.map { raw in
            guard let photo = PhotoID(string: raw) else { throw DomainError.invalid(field: "photoIDs", message: "“\(raw.prefix(60))” is not a photo id.") }
            return photo
        }
        try await dependencies.items.reorderPhotos(viewer.household.id, id, ids)
        return ItemJSON(try await items.details(viewer.household.id, id))
    }

    private func decodeDraft(_ request: Request, context: AppRequestContext, viewer: Viewer) async throws -> ItemDraft {
        let fields: [String: JSONField]
        do {
            fields = try await request.decode(as: [String: JSONField].self, context: context)
        } catch {
            throw WebError.badRequest("The body must be a JSON object with the item’s fields (see /api/v1/openapi.json).")
        }
        // A PUT replaces the item: a field left out is emptied, as on the form.
        return try ItemFormValues.reading(fields, over: ItemFormValues(), ignoring: ItemJSON.answeredOnly).get()
            .draft(defaultCurrency: viewer.household.currency, today: dependencies.today(viewer.household)).get()
    }

}

// MARK: - JSON shapes

/// Money in JSON: the exact amount as text, the currency, and the integer minor units.
public struct MoneyJSON: Encodable, Sendable {
    public let amount: String
    public let currency: String
    public let minorUnits: Int64
    public init(_ money: Money) {
        amount = money.plainAmount
        currency = money.currency.code
        minorUnits = money.minorUnits
    }

    /// What `MoneyJSON(money)` encodes to, written without making its texts first.
    static func write(_ money: Money, to json: inout JSONWriter) {
        json.beginObject()
        json.key("amount")
        json.plainAmount(money)
        json.field("currency", money.currency.code)
        json.field("minorUnits", money.minorUnits)
        json.endObject()
    }
}

/// An item in JSON. Written from the item itself (identifiers, amounts and days straight into the
/// bytes, no text made for them first); its `Encodable` form, which means the same, spells out
/// each field.
struct ItemJSON: Encodable, Sendable, JSONWritable {
    let item: Item
    let documentation: DocumentationStatus
    let photos: [PhotoJSON]?
    /// The item's receipts, when the item was read whole.
    var receipts: [ReceiptJSON]?
    /// The primary photo's attachment; sent as its URL.
    let primary: Attachment?

    init(_ item: Item, status: DocumentationStatus, photos: [PhotoJSON]?, primary: Attachment?) {
        self.item = item
        documentation = status
        self.photos = photos
        self.primary = primary
    }

    init(_ listing: ItemListing) {
        self.init(listing.item, status: listing.documentation, photos: nil, primary: listing.primaryPhoto)
    }

    init(_ details: ItemDetails) {
        self.init(details.item, status: details.documentation, photos: details.photos.map(PhotoJSON.init),
                  primary: details.photos.first { $0.isPrimary }?.attachment)
        receipts = details.receipts.map(ReceiptJSON.init)
    }

    var primaryPhoto: String? { primary.map { "/files/\($0.sha256)" } }

    /// What an item is answered with besides its fields: accepted in a body and ignored, so an item read can be sent
    /// back changed.
    static let answeredOnly = Set(CodingKeys.allCases.map(\.rawValue)).subtracting(ItemFormValues.fields)

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, brand, modelNumber, serialNumber, price, totalValue, currency, quantity, purchaseDate, roomID, categoryID,
             condition, conditionNotes, barcode, warrantyExpiry, tags, notes, createdAt, updatedAt, documentation, documented,
             photos, primaryPhoto, receipts
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(item.id.description, forKey: .id)
        try container.encode(item.name, forKey: .name)
        try container.encodeIfPresent(item.brand, forKey: .brand)
        try container.encodeIfPresent(item.modelNumber, forKey: .modelNumber)
        try container.encodeIfPresent(item.serialNumber, forKey: .serialNumber)
        try container.encodeIfPresent(item.purchasePrice.map(MoneyJSON.init), forKey: .price)
        try container.encodeIfPresent(item.totalValue.map(MoneyJSON.init), forKey: .totalValue)
        try container.encode(item.currency.code, forKey: .currency)
        try container.encode(item.quantity, forKey: .quantity)
        try container.encodeIfPresent(item.purchaseDate?.iso, forKey: .purchaseDate)
        try container.encodeIfPresent(item.roomID?.description, forKey: .roomID)
        try container.encodeIfPresent(item.categoryID?.description, forKey: .categoryID)
        try container.encode(item.condition.rawValue, forKey: .condition)
        try container.encodeIfPresent(item.conditionNotes, forKey: .conditionNotes)
        try container.encodeIfPresent(item.barcode, forKey: .barcode)
        try container.encodeIfPresent(item.warrantyExpiry?.iso, forKey: .warrantyExpiry)
        try container.encode(item.tags, forKey: .tags)
        try container.encodeIfPresent(item.notes, forKey: .notes)
        try container.encode(item.createdAt, forKey: .createdAt)
        try container.encode(item.updatedAt, forKey: .updatedAt)
        try container.encode(documentation, forKey: .documentation)
        try container.encode(documentation.isDocumented, forKey: .documented)
        try container.encodeIfPresent(photos, forKey: .photos)
        try container.encodeIfPresent(primaryPhoto, forKey: .primaryPhoto)
        try container.encodeIfPresent(receipts, forKey: .receipts)
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("id", item.id)
        json.field("name", item.name)
        json.field("brand", item.brand)
        json.field("modelNumber", item.modelNumber)
        json.field("serialNumber", item.serialNumber)
        if let price = item.purchasePrice {
            json.key("price")
            MoneyJSON.write(price, to: &json)
        }
        if let totalValue = item.totalValue {
            json.key("totalValue")
            MoneyJSON.write(totalValue, to: &json)
        }
        json.field("currency", item.currency.code)
        json.field("quantity", item.quantity)
        json.field("purchaseDate", item.purchaseDate)
        json.field("roomID", item.roomID)
        json.field("categoryID", item.categoryID)
        json.field("condition", item.condition.rawValue)
        json.field("conditionNotes", item.conditionNotes)
        json.field("barcode", item.barcode)
        json.field("warrantyExpiry", item.warrantyExpiry)
        json.field("tags", item.tags)
        json.field("notes", item.notes)
        json.field("createdAt", item.createdAt)
        json.field("updatedAt", item.updatedAt)
        json.key("documentation")
        json.beginObject()
        json.field("hasPhoto", documentation.hasPhoto)
        json.field("hasReceipt", documentation.hasReceipt)
        json.field("hasValue", documentation.hasValue)
        json.field("hasSerial", documentation.hasSerial)
        json.field("hasRoom", documentation.hasRoom)
        json.field("hasCategory", documentation.hasCategory)
        json.endObject()
        json.field("documented", documentation.isDocumented)
        if let photos {
            json.key("photos")
            json.beginArray()
            for photo in photos { photo.write(to: &json) }
            json.endArray()
        }
        if let primary {
            json.key("primaryPhoto")
            json.string(prefix: "/files/", primary.sha256)
        }
        if let receipts {
            json.key("receipts")
            json.beginArray()
            for receipt in receipts { receipt.write(to: &json) }
            json.endArray()
        }
        json.endObject()
    }
}

/// A receipt in JSON: what it says (as read, or as corrected since) and its photo, byte-exact.
struct ReceiptJSON: Encodable, Sendable, JSONWritable {
    let receipt: Receipt

    init(_ receipt: Receipt) { self.receipt = receipt }

    var file: String { "/files/\(receipt.attachment.sha256)?size=original" }

    private enum CodingKeys: String, CodingKey { case id, itemID, vendor, purchaseDate, total, tax, file, createdAt }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(receipt.id.description, forKey: .id)
        try container.encodeIfPresent(receipt.itemID?.description, forKey: .itemID)
        try container.encodeIfPresent(receipt.vendor, forKey: .vendor)
        try container.encodeIfPresent(receipt.purchaseDate?.iso, forKey: .purchaseDate)
        try container.encodeIfPresent(receipt.total.map(MoneyJSON.init), forKey: .total)
        try container.encodeIfPresent(receipt.tax.map(MoneyJSON.init), forKey: .tax)
        try container.encode(file, forKey: .file)
        try container.encode(receipt.createdAt, forKey: .createdAt)
    }

    var jsonCapacity: Int { 384 }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("id", receipt.id)
        json.field("itemID", receipt.itemID)
        json.field("vendor", receipt.vendor)
        json.field("purchaseDate", receipt.purchaseDate)
        for (name, money) in [("total", receipt.total), ("tax", receipt.tax)] as [(StaticString, Money?)] {
            guard let money else { continue }
            json.key(name)
            MoneyJSON.write(money, to: &json)
        }
        json.field("file", file)
        json.field("createdAt", receipt.createdAt)
        json.endObject()
    }
}

struct PhotoJSON: Encodable, Sendable, JSONWritable {
    let id: String
    let url: String
    let contentType: String
    let byteCount: Int64
    let isPrimary: Bool
    init(_ photo: ItemPhoto) {
        id = photo.id.description
        url = "/files/\(photo.attachment.sha256)?size=display"
        contentType = photo.attachment.contentType
        byteCount = photo.attachment.byteCount
        isPrimary = photo.isPrimary
    }

    var jsonCapacity: Int { 256 }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("id", id)
        json.field("url", url)
        json.field("contentType", contentType)
        json.field("byteCount", byteCount)
        json.field("isPrimary", isPrimary)
        json.endObject()
    }
}

struct PageJSON: Encodable, Sendable, JSONWritable {
    let items: [ItemJSON]
    let nextCursor: String?

    var jsonCapacity: Int { 256 + items.count * 900 }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("items")
        json.beginArray()
        for item in items { item.write(to: &json) }
        json.endArray()
        json.field("nextCursor", nextCursor)
        json.endObject()
    }
}

struct ListJSON<T: Encodable & Sendable>: ResponseEncodable {
    let items: [T]
}

/// A page of a list that goes on (`nextCursor`, left out on the last page), as the items' pages are written.
struct CursorPageJSON<T: Encodable & Sendable>: ResponseEncodable {
    let items: [T]
    let nextCursor: String?
}

/// The household's plan: Free or Pro, where Pro comes from, what is unlocked, the Free limits and the item count.
struct PlanJSON: ResponseEncodable, Sendable {
    struct Licence: Encodable, Sendable {
        let licensee: String
        let scope: String
        let issued: String
        let expires: String?
    }

    struct Limits: Encodable, Sendable {
        let items: Int?
        let lossListItems: Int?
        let reportPhotos: Bool
        let csvExport: Bool
    }

    let plan: String
    let source: String
    let features: [String]
    let itemCount: Int
    let limits: Limits
    let licence: Licence?

    init(_ overview: PlanService.Overview) {
        let entitlement = overview.entitlement
        plan = entitlement.plan.rawValue
        features = ProFeature.allCases.filter(entitlement.allows).map(\.rawValue)
        itemCount = overview.itemCount
        limits = Limits(items: entitlement.maxItems, lossListItems: entitlement.allows(.unlimitedLossList) ? nil : PlanLimits.freeLossListItems,
                        reportPhotos: entitlement.allows(.reportPhotos), csvExport: entitlement.allows(.csvExport))
        switch entitlement.source {
        case .free:
            source = "free"
            licence = nil
        case .instanceSetting:
            source = "instance_setting"
            licence = nil
        case .licence(let summary):
            source = "licence"
            let scope = if case .household = summary.scope { "household" } else { "instance" }
            licence = Licence(licensee: summary.licensee, scope: scope, issued: summary.issued.iso, expires: summary.expires?.iso)
        }
    }
}

/// The summary figures in JSON, for the API and `nestory stats --json`.
public struct SummaryJSON: ResponseEncodable, Sendable {
    public let itemCount: Int
    public let roomsInUse: Int
    public let estimatedValue: [MoneyJSON]
    public let documentedCount: Int
    public let documentationScorePercent: Int?
    public let needsPhoto: Int
    public let needsReceipt: Int
    public let needsValue: Int
    public let highValueCount: Int
    public let highValueThreshold: MoneyJSON

    public init(_ s: InventorySummary) {
        itemCount = s.itemCount
        roomsInUse = s.roomsInUse
        estimatedValue = s.estimatedValue.map(MoneyJSON.init)
        documentedCount = s.score.documented
        documentationScorePercent = s.score.percent
        needsPhoto = s.needsPhoto
        needsReceipt = s.needsReceipt
        needsValue = s.needsValue
        highValueCount = s.highValueCount
        highValueThreshold = MoneyJSON(s.highValueThreshold)
    }
}

struct ChartsJSON: ResponseEncodable {
    struct Slice: Encodable {
        let categoryID: String?
        let name: String
        let colorHex: String
        let value: MoneyJSON
        let itemCount: Int
        init(_ v: CategoryValue) {
            categoryID = v.categoryID?.description
            name = v.name
            colorHex = v.colorHex
            value = MoneyJSON(v.value)
            itemCount = v.itemCount
        }
    }
    struct Bar: Encodable {
        let roomID: String?
        let name: String
        let itemCount: Int
        init(_ r: RoomCount) {
            roomID = r.roomID?.description
            name = r.name
            itemCount = r.itemCount
        }
    }
    let valueByCategory: [Slice]
    let itemsByRoom: [Bar]
}
