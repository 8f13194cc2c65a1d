import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain
import NestoryServices
import NestoryImaging
import NestoryReceipts
import NestoryStore

/// Receipts in the web app: capture (the Capture tab's receipt mode, or "Add receipt" on an item),
/// reading in the background, the review screen (fields beside the image, marked by confidence),
/// linking to an item or creating one from the receipt, and the receipts list.
///
/// The image is stored the moment it arrives, before any reading: a receipt that cannot be read
/// (blank, not a receipt, damaged) is still kept, for typing its fields by hand.
struct ReceiptsController {
    let dependencies: WebDependencies

    func addRoutes(to router: Router<AppRequestContext>, api: RouterGroup<AppRequestContext>) {
        router.get("capture/receipt", use: capturePage)
        router.get("receipts", use: list)
        router.get("receipts/:id", use: review)
        router.post("receipts/:id", use: saveFields)
        router.post("receipts/:id/link", use: link)
        router.post("receipts/:id/item", use: createItem)
        api.post("receipts", use: upload)
        api.get("receipts/:id", use: status)
    }

    private func receiptID(_ context: AppRequestContext) throws -> ReceiptID {
        guard let id = context.parameters.get("id").flatMap(ReceiptID.init(string:)) else { throw DomainError.notFound("The receipt") }
        return id
    }

    @Sendable func capturePage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        var item: Item?
        if let id = try optionalID(request.query["item"], field: "item", what: "The item", ItemID.init(string:)) {
            item = try await dependencies.items.item(viewer.household.id, id)
        }
        return HTMLResponse.page(ReceiptViews.capture(viewer: viewer, item: item,
                                                      recent: item == nil ? try await CaptureController.recentCaptures(dependencies, viewer) : []))
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        return HTMLResponse.page(ReceiptViews.list(viewer: viewer, receipts: try await dependencies.services.receipts.list(viewer.household.id)))
    }

    @Sendable func review(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try receiptID(context)
        let listing = try await dependencies.services.receipts.receipt(viewer.household.id, id)
        let search = request.query["q"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let matches = search.isEmpty ? [] : try await dependencies.items.search(viewer.household.id, ItemQuery(search: search, limit: 10)).elements.map(\.item)
        return HTMLResponse.page(ReceiptViews.review(
            viewer: viewer, listing: listing, state: reading(try await dependencies.services.receipts.reading(viewer.household.id, id)),
            search: search, matches: matches,
            rooms: try await dependencies.places.rooms(viewer.household.id), notice: request.query["notice"],
            error: request.query["error"]))
    }

    // MARK: - Capture

    struct UploadedJSON: ResponseEncodable {
        let id: String
        let next: String
    }

    /// The body is the photo of the receipt. Stored at once; read in the background.
    @Sendable func upload(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<UploadedJSON> {
        let viewer = try context.requireViewer()
        let limit = dependencies.limits.maxPhotoBytes
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > limit { throw StoreError.tooLarge(limit: limit) }
        var itemID: ItemID?
        if let id = try optionalID(request.query["item"], field: "item", what: "The item", ItemID.init(string:)) {
            itemID = try await dependencies.items.item(viewer.household.id, id).id
        }
        let body = try await request.body.collect(upTo: Int(limit))
        let data = Data(buffer: body)
        guard !data.isEmpty else { throw WebError.unprocessable("The file is empty: take or choose a photo of the receipt.") }
        guard let format = ImageFormat.sniff(data) else {
            throw WebError.unprocessable("The file is not an image (a photo of the receipt, JPEG, PNG or HEIC, is needed).")
        }
        let receipt = try await dependencies.services.receipts.add(viewer.household, item: itemID, data: data, contentType: format.mimeType,
                                                                    today: dependencies.today())
        return EditedResponse(status: .created, response: UploadedJSON(id: receipt.id.description, next: "/receipts/\(receipt.id)"))
    }

    struct StatusJSON: ResponseEncodable {
        let id: String
        let state: String
        let message: String?
        /// The reading's job (`GET /api/v1/jobs/{id}`), if it was read in the background.
        let job: String?
    }

    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> StatusJSON {
        let viewer = try context.requireViewer()
        let id = try receiptID(context)
        _ = try await dependencies.services.receipts.receipt(viewer.household.id, id)
        let job = try await dependencies.services.receipts.reading(viewer.household.id, id)
        switch reading(job) {
        case .reading: return StatusJSON(id: id.description, state: "reading", message: nil, job: job?.id.description)
        case .failed(let message): return StatusJSON(id: id.description, state: "failed", message: message, job: job?.id.description)
        case .done: return StatusJSON(id: id.description, state: "done", message: nil, job: job?.id.description)
        }
    }

    /// Where the reading of a receipt stands, from its job.
    enum Reading: Equatable {
        case reading(JobID)
        case failed(String)
        case done
    }

    func reading(_ job: Job?) -> Reading {
        guard let job else {
            return dependencies.services.receipts.reads ? .done
                : .failed("Reading receipts is not available on this server: type the fields below.")
        }
        switch job.state {
        case .queued, .running: return .reading(job.id)
        case .succeeded: return JobJSON(job).message.map(Reading.failed) ?? .done
        case .failed, .cancelled, .interrupted: return .failed(job.message ?? "The receipt could not be read. The image is kept: type the fields below.")
        }
    }

    // MARK: - Review

    @Sendable func saveFields(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try receiptID(context)
        let listing = try await dependencies.services.receipts.receipt(viewer.household.id, id)
        let form = try await Form.read(request, context: context)
        let currency = viewer.household.currency
        var errors: [FieldError] = []
        func money(_ field: String) -> Money? {
            guard let raw = form[field]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            do { return try Money.parse(raw, currency: currency) } catch {
                errors.append(FieldError(field: field, message: error.message))
                return nil
            }
        }
        var fields = ReceiptFields(vendor: form["vendor"].flatMap(Text.clean), total: money("total"), tax: money("tax"),
                                   rawText: listing.receipt.rawText, confidence: 1)
        if let raw = form["purchaseDate"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty {
            do { fields.purchaseDate = try CalendarDate(iso: raw) } catch { errors.append(FieldError(field: "purchaseDate", message: "Use a date such as 2024-03-31.")) }
        }
        guard errors.isEmpty else {
            return .redirect(to: "/receipts/\(id)" + queryString([("error", errors.map(\.message).joined(separator: " "))]))
        }
        try await dependencies.services.receipts.save(viewer.household.id, id, fields)
        return .redirect(to: "/receipts/\(id)", notice: "Saved.")
    }

    @Sendable func link(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try receiptID(context)
        let form = try await Form.read(request, context: context)
        let itemID = try optionalID(form["item"], field: "item", what: "The item", ItemID.init(string:))
        try await dependencies.services.receipts.link(viewer.household.id, id, to: itemID)
        if let itemID { return .redirect(to: "/items/\(itemID)", notice: "Receipt linked to this item.") }
        return .redirect(to: "/receipts/\(id)", notice: "Unlinked.")
    }

    /// A new item from the receipt: its purchase date and price prefilled from what was read.
    @Sendable func createItem(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try receiptID(context)
        _ = try await dependencies.services.receipts.receipt(viewer.household.id, id)
        let values = ItemFormValues(form: try await Form.read(request, context: context))
        let item: Item
        do {
            let draft = try values.draft(defaultCurrency: viewer.household.currency, today: dependencies.today()).get()
            item = try await dependencies.items.create(viewer.household.id, draft, today: dependencies.today())
        } catch let error as DomainError {
            let message: String
            if case .validation(let fields) = error { message = fields.map(\.message).joined(separator: " ") } else { message = error.message }
            return .redirect(to: "/receipts/\(id)" + queryString([("error", message)]))
        }
        try await dependencies.services.receipts.link(viewer.household.id, id, to: item.id)
        return .redirect(to: "/items/\(item.id)", notice: "Item added from the receipt, which is linked to it.")
    }
}
