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
        return try await reviewPage(viewer, try await dependencies.services.receipts.receipt(viewer.household.id, id),
                                    search: request.query["q"]?.trimmingCharacters(in: .whitespaces) ?? "", notice: request.notice)
    }

    /// The review page; `edit` and `newItem` are its two forms as posted, when one comes back with what to fix.
    private func reviewPage(_ viewer: Viewer, _ listing: ReceiptListing, search: String = "", notice: String? = nil,
                            edit: ReceiptViews.FieldsForm? = nil, newItem: ReceiptViews.NewItemForm? = nil,
                            status: HTTPResponse.Status = .ok) async throws -> Response {
        let id = listing.receipt.id
        let matches = search.isEmpty ? [] : try await dependencies.items.search(viewer.household.id, ItemQuery(search: search, limit: 10)).elements.map(\.item)
        return HTMLResponse.page(ReceiptViews.review(
            viewer: viewer, listing: listing, state: reading(try await dependencies.services.receipts.reading(viewer.household.id, id)),
            search: search, matches: matches, rooms: try await dependencies.places.rooms(viewer.household.id), notice: notice,
            edit: edit, newItem: newItem), status: status)
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
                                                                    today: dependencies.today(viewer.household))
        return EditedResponse(status: .created, response: UploadedJSON(id: receipt.id.description, next: "/receipts/\(receipt.id)"))
    }

    /// A receipt through the API: what it says (`ReceiptJSON`), where its reading stands and how sure it was.
    struct StatusJSON: ResponseEncodable {
        let receipt: ReceiptJSON
        let state: String
        let message: String?
        /// The reading's job (`GET /api/v1/jobs/{id}`), if it was read in the background.
        let job: String?

        init(_ receipt: Receipt, state: String, message: String?, job: String?) {
            (self.receipt, self.state, self.message, self.job) = (ReceiptJSON(receipt), state, message, job)
        }

        private enum CodingKeys: String, CodingKey { case state, message, job, confidence }

        func encode(to encoder: any Encoder) throws {
            try receipt.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(state, forKey: .state)
            try container.encodeIfPresent(message, forKey: .message)
            try container.encodeIfPresent(job, forKey: .job)
            // 0...1, how sure the reading was; absent when nothing was read.
            try container.encodeIfPresent(receipt.receipt.confidence, forKey: .confidence)
        }
    }

    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> StatusJSON {
        let viewer = try context.requireViewer()
        let id = try receiptID(context)
        let receipt = try await dependencies.services.receipts.receipt(viewer.household.id, id).receipt
        let job = try await dependencies.services.receipts.reading(viewer.household.id, id)
        let (state, message): (String, String?) = switch reading(job) {
        case .reading: ("reading", nil)
        case .failed(let message): ("failed", message)
        case .done: ("done", nil)
        }
        return StatusJSON(receipt, state: state, message: message, job: job?.id.description)
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

    /// Saves the fields as checked. What someone else saved meanwhile in fields left alone here is kept; where both
    /// changed a field, the form comes back (409) with these values, the field marked and the receipt as it is now as
    /// its base, so saving again replaces theirs knowingly. A field that does not read comes back marked (422).
    @Sendable func saveFields(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try receiptID(context)
        let form = try await Form.read(request, context: context)
        let values = ReceiptFormValues(form: form)
        let base = ReceiptFormValues(encoded: form["base"])
        let receipts = dependencies.services.receipts
        do {
            try await receipts.save(viewer.household.id, id, values: values, base: base, defaultCurrency: viewer.household.currency)
            return .redirect(to: "/receipts/\(id)", notice: "Saved.")
        } catch let conflict as ReceiptEditConflict {
            return try await reviewPage(viewer, conflict.current, edit: ReceiptViews.FieldsForm(
                values: conflict.proposed, base: ReceiptFormValues(receipt: conflict.current.receipt), errors: Self.conflictErrors(conflict)),
                status: .conflict)
        } catch let error as DomainError {
            let listing = try await receipts.receipt(viewer.household.id, id)
            return try await reviewPage(viewer, listing, edit: ReceiptViews.FieldsForm(
                values: values, base: base ?? ReceiptFormValues(receipt: listing.receipt), errors: FieldErrors.fields(of: error)),
                status: .unprocessableContent)
        }
    }

    /// What the review form says when the receipt was saved meanwhile in the fields this edit changed.
    static func conflictErrors(_ conflict: ReceiptEditConflict) -> [FieldError] {
        guard !conflict.fields.isEmpty else {
            return [FieldError(field: "edit", message: "This receipt kept changing while you saved it, so nothing was saved. Check the form and save again.")]
        }
        let saved = ReceiptFormValues(receipt: conflict.current.receipt)
        return [FieldError(field: "edit", message: "Someone saved this receipt while you were checking it; yours is not saved yet. "
                           + "Their changes to fields you left alone are in the form. Where you both changed a field, yours is shown: "
                           + "check it and save again.")]
            + conflict.fields.map { field in
                let now = saved[field]
                let shown = now.isEmpty ? "(empty)" : String(now.prefix(80)) + (now.count > 80 ? "…" : "")
                return FieldError(field: field, message: "\(ReceiptViews.fieldNames[field] ?? field) was changed meanwhile to “\(shown)”. Saving replaces it with yours.")
            }
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
        let listing = try await dependencies.services.receipts.receipt(viewer.household.id, id)
        let values = ItemFormValues(form: try await Form.read(request, context: context))
        let item: Item
        do {
            let today = dependencies.today(viewer.household)
            let draft = try values.draft(defaultCurrency: viewer.household.currency, today: today).get()
            item = try await dependencies.items.create(viewer.household.id, draft, today: today)
        } catch let error as DomainError {
            let errors = FieldErrors.fields(of: error)
            return try await reviewPage(viewer, listing, newItem: ReceiptViews.NewItemForm(values: values, errors: errors),
                                        status: errors.first?.field == "plan" ? .paymentRequired : .unprocessableContent)
        }
        try await dependencies.services.receipts.link(viewer.household.id, id, to: item.id)
        return .redirect(to: "/items/\(item.id)", notice: "Item added from the receipt, which is linked to it.")
    }
}
