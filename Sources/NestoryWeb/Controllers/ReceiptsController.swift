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
        router.post("receipts/:id/delete", use: delete)
        api.post("receipts", use: upload)
        api.get("receipts", use: listForAPI)
        api.get("receipts/:id", use: status)
        api.patch("receipts/:id", use: patch)
        api.delete("receipts/:id") { _, context -> Response in
            let viewer = try context.requireViewer()
            try await dependencies.services.receipts.delete(viewer.household.id, try receiptID(context))
            return Response(status: .noContent)
        }
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

    /// The receipts list: the newest 100, then older ones a page at a time (`after`, the page's cursor); all of them, or
    /// those linked to no item (`filter=unlinked`).
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        var parameters = try ReceiptListParameters.parse(request.query.first)
        parameters.limit = Self.pageSize
        let page = try await dependencies.services.receipts.list(viewer.household.id, parameters)
        return HTMLResponse.page(ReceiptViews.list(viewer: viewer, page: page, isFirstPage: parameters.after == nil, unlinkedOnly: parameters.unlinkedOnly))
    }

    /// How many receipts the list page shows at a time.
    static let pageSize = 100

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

    /// The household's receipts, newest first, a page at a time (`ReceiptListParameters`).
    @Sendable func listForAPI(_ request: Request, context: AppRequestContext) async throws -> CursorPageJSON<ReceiptJSON> {
        let viewer = try context.requireViewer()
        let page = try await dependencies.services.receipts.list(viewer.household.id, try ReceiptListParameters.parse(request.query.first))
        return CursorPageJSON(items: page.elements.map { ReceiptJSON($0.receipt) }, nextCursor: page.nextCursor?.rawValue)
    }

    /// The receipt's fields an API body may change, and what GET answers besides them (ignored when sent back).
    static let apiFields = ["vendor", "purchaseDate", "total", "tax", "currency", "itemID"]
    static let apiAnswered: Set<String> = ["id", "file", "createdAt", "state", "message", "job", "confidence"]

    /// Corrects what was read and links the receipt to an item (`itemID`; null unlinks), as the review screen does: the
    /// fields given change, the others are kept (also what someone saved meanwhile); null empties a field. An amount is
    /// text, a number, or as GET answers it (its currency is the receipt's when none is given beside it). Nothing is
    /// saved when a field does not read (422, naming it) or the item is not the household's (404).
    @Sendable func patch(_ request: Request, context: AppRequestContext) async throws -> StatusJSON {
        let viewer = try context.requireViewer()
        let household = viewer.household.id
        let id = try receiptID(context)
        var body: [String: JSONField]
        do { body = try await request.decode(as: [String: JSONField].self, context: context) } catch {
            throw WebError.badRequest("The body must be a JSON object with the receipt’s fields (see /api/v1/openapi.json).")
        }
        // Amounts as GET answers them carry their currency: the receipt takes it, or one that differs is refused.
        var problems = FieldErrors()
        for key in ["total", "tax"] {
            guard case .object(let money)? = body[key],
                  let read = JSONFields.answeredAmount(money, key: key, in: body, label: "The \(key)", owner: "the receipt’s") else { continue }
            body[key] = .text(read.amount)
            if let problem = read.problem { problems.append(problem) } else if let currency = read.takes { body["currency"] = .text(currency) }
        }
        var texts = problems.collect {
            try JSONFields.texts(body, known: Self.apiFields, numeric: ["total", "tax"], of: "a receipt", ignoring: Self.apiAnswered).get()
        } ?? [:]
        var link: ItemID??
        if let raw = texts.removeValue(forKey: "itemID") {
            if raw.isEmpty { link = .some(nil) } else if let item = ItemID(string: raw) {
                link = .some(try await dependencies.items.item(household, item).id)  // 404 when not the household's
            } else {
                throw DomainError.notFound("The item")
            }
        }
        try problems.throwIfAny()
        let receipts = dependencies.services.receipts
        do {
            try await receipts.save(household, id, values: ReceiptFormValues(texts), base: nil, defaultCurrency: viewer.household.currency)
        } catch is ReceiptEditConflict {
            throw DomainError.conflict("This receipt kept changing while it was saved, so nothing was saved: read it and try again.")
        }
        if let link { try await receipts.link(household, id, to: link) }
        return try await status(request, context: context)
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

    /// Deletes the receipt; back to the item it was on, else to the receipts.
    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let item = try await dependencies.services.receipts.delete(viewer.household.id, try receiptID(context))
        return .redirect(to: item.map { "/items/\($0)" } ?? "/receipts", notice: "Receipt deleted.")
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
