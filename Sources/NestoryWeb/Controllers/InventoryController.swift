import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain
import NestoryServices
import NestoryStore

/// The Inventory tab: the list with summary and charts, item detail, add/edit/delete, files.
struct InventoryController {
    let dependencies: WebDependencies
    var items: ItemsService { dependencies.items }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/", use: inventory)
        router.get("items/new", use: newItem)
        router.get("items/quick", use: quickAdd)
        router.post("items", use: create)
        router.get("items/:id", use: show)
        router.get("items/:id/edit", use: edit)
        router.post("items/:id", use: update)
        router.post("items/:id/delete", use: delete)
        router.get("files/:sha", use: file)
        router.post("items/:id/photos/:photoID/remove", use: removePhoto)
        router.post("items/:id/photos/:photoID/main", use: makeMainPhoto)
        router.post("items/:id/photos/:photoID/move", use: movePhoto)
    }

    @Sendable func inventory(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let viewer = context.viewer else {
            return .redirect(to: try await dependencies.accounts.needsSetup() ? "/setup" : "/signin")
        }
        let query = request.query.first
        let state = InventoryState(query: query)
        let overview = try await items.overview(viewer.household.id, state.itemQuery)
        var model = InventoryPage(
            viewer: viewer, state: state, summary: overview.summary,
            valueByCategory: overview.valueByCategory, itemsByRoom: overview.itemsByRoom,
            page: overview.page, matching: overview.matching,
            rooms: Dictionary(uniqueKeysWithValues: overview.rooms.map { ($0.id, $0) }),
            categories: Dictionary(uniqueKeysWithValues: overview.categories.map { ($0.id, $0) }),
            notice: request.notice)
        if state.chip == .receipt, model.matching.count > 0 {
            model.looseReceipts = !(try await dependencies.services.receipts.list(viewer.household.id, limit: 1, unlinkedOnly: true).elements.isEmpty)
        }
        if query["fragment"] == "1" { return HTMLResponse.page(InventoryViews.items(model)) }
        return HTMLResponse.page(InventoryViews.page(model))
    }

    @Sendable func newItem(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        var values = ItemFormValues(["currency": viewer.household.currency.code, "quantity": "1", "condition": "good"])
        values.values["roomID"] = request.query["room"] ?? ""
        return HTMLResponse.page(try await form(viewer, values: values, item: nil, base: nil, errors: []))
    }

    @Sendable func quickAdd(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let places = try await items.places(viewer.household.id)
        return HTMLResponse.page(ItemViews.quickAdd(viewer: viewer, rooms: places.rooms, categories: places.categories, today: dependencies.today(viewer.household)))
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let values = ItemFormValues(form: try await Form.read(request, context: context))
        do {
            let today = dependencies.today(viewer.household)
            let draft = try values.draft(defaultCurrency: viewer.household.currency, today: today).get()
            let item = try await dependencies.items.create(viewer.household.id, draft, today: today)
            return .redirect(to: "/items/\(item.id)", notice: "Item added.")
        } catch let error as DomainError {
            return HTMLResponse.page(try await form(viewer, values: values, item: nil, base: nil, errors: FieldErrors.fields(of: error)),
                                     status: .unprocessableContent)
        }
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await detailPage(try context.requireViewer(), try context.itemID(), notice: request.notice)
    }

    /// The item's page; `valueForm` and `valueErrors` are its Value card's when a valuation came back refused (422).
    func detailPage(_ viewer: Viewer, _ id: ItemID, notice: String? = nil, valueForm: [String: String] = [:],
                    valueErrors: [FieldError] = []) async throws -> Response {
        let (items, valuations, household) = (items, dependencies.services.valuations, viewer.household.id)
        async let read = items.details(household, id)
        async let places = items.places(household)
        async let history = valuations.history(household, item: id)
        let (details, (rooms, categories)) = (try await read, try await places)
        let value = ValuationViews.itemSection(viewer: viewer, item: details.item, valuations: try await history,
                                               form: valueForm, errors: valueErrors)
        return HTMLResponse.page(ItemViews.detail(viewer: viewer, details: details,
                                                  room: rooms.first { $0.id == details.item.roomID },
                                                  category: categories.first { $0.id == details.item.categoryID },
                                                  notice: notice, today: dependencies.today(viewer.household), value: value),
                                 status: valueErrors.isEmpty ? .ok : .unprocessableContent)
    }

    @Sendable func edit(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let item = try await items.item(viewer.household.id, try context.itemID())
        return HTMLResponse.page(try await form(viewer, values: ItemFormValues(item: item), item: item, base: ItemFormBase(item: item), errors: []))
    }

    /// Saves the edit form. Changes saved while it was open are kept (ItemsService merges the edit onto them); where
    /// both changed a field, the form comes back with the edit's values, the fields marked, and the new version as its
    /// base, so saving again is a choice made knowing the other change.
    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try context.itemID()
        let posted = try await Form.read(request, context: context)
        let values = ItemFormValues(form: posted)
        // A form without its base (a page from before this version) is saved as the whole item.
        let base: ItemFormBase
        if let shown = ItemFormBase(encoded: posted["base"], version: posted["baseVersion"]) { base = shown } else {
            base = ItemFormBase(item: try await items.item(viewer.household.id, id))
        }
        do {
            _ = try await dependencies.items.update(viewer.household.id, id, values: values, base: base, defaultCurrency: viewer.household.currency,
                                                    today: dependencies.today(viewer.household))
            return .redirect(to: "/items/\(id)", notice: "Changes saved.")
        } catch let conflict as ItemEditConflict {
            return HTMLResponse.page(try await form(viewer, values: conflict.proposed, item: conflict.current, base: ItemFormBase(item: conflict.current),
                                                    errors: try await conflictErrors(viewer, conflict)), status: .conflict)
        } catch let error as DomainError {
            let existing = try await items.item(viewer.household.id, id)
            return HTMLResponse.page(try await form(viewer, values: values, item: existing, base: base, errors: FieldErrors.fields(of: error)),
                                     status: .unprocessableContent)
        }
    }

    /// What the edit form says when a change saved meanwhile touched the fields this edit changed.
    private func conflictErrors(_ viewer: Viewer, _ conflict: ItemEditConflict) async throws -> [FieldError] {
        guard !conflict.fields.isEmpty else {
            return [FieldError(field: "edit", message: "This item kept changing while you saved it, so nothing was saved. Check the form and save again.")]
        }
        let places = try await items.places(viewer.household.id)
        let saved = ItemFormValues(item: conflict.current)
        var errors = [FieldError(field: "edit", message: "Someone saved changes to this item while you were editing it; yours are not saved yet. "
                                 + "Their changes to fields you left alone are in the form. Where you both changed a field, yours is shown: check it and save again.")]
        for field in conflict.fields {
            let now = saved[field]
            let shown: String
            switch field {
            case "roomID": shown = places.rooms.first { $0.id.description == now }?.name ?? "No room"
            case "categoryID": shown = places.categories.first { $0.id.description == now }?.name ?? "No category"
            case "condition": shown = ItemCondition(rawValue: now)?.label ?? now
            default: shown = now.isEmpty ? "(empty)" : String(now.prefix(80)) + (now.count > 80 ? "…" : "")
            }
            errors.append(FieldError(field: field, message: "\(ItemViews.fieldNames[field] ?? field) was changed meanwhile to “\(shown)”. Saving replaces it with yours."))
        }
        return errors
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let deleted = try await dependencies.items.delete(viewer.household.id, try context.itemID())
        return .redirect(to: "/", notice: "“\(deleted.name)” deleted.")
    }

    @Sendable func removePhoto(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try context.itemID()
        try await dependencies.items.removePhoto(viewer.household.id, id, try Self.photoID(context))
        return .redirect(to: "/items/\(id)", notice: "Photo removed.")
    }

    @Sendable func makeMainPhoto(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try context.itemID()
        try await dependencies.items.makeMainPhoto(viewer.household.id, id, try Self.photoID(context))
        return .redirect(to: "/items/\(id)", notice: "Main photo changed.")
    }

    /// "Move earlier" or "Move later" on the item page's photo list.
    @Sendable func movePhoto(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try context.itemID()
        let form = try await Form.read(request, context: context)
        let earlier = form["direction"] == "earlier"
        try await dependencies.items.movePhoto(viewer.household.id, id, try Self.photoID(context), by: earlier ? -1 : 1)
        return .redirect(to: "/items/\(id)", notice: earlier ? "Photo moved earlier." : "Photo moved later.")
    }

    static func photoID(_ context: AppRequestContext) throws -> PhotoID {
        guard let id = context.parameters.get("photoID").flatMap(PhotoID.init(string:)) else { throw DomainError.notFound("The photo") }
        return id
    }

    /// A stored photo or receipt image, only for the household that owns a row pointing at it.
    /// `size=thumb` and `size=display` (the default for images) are renditions without metadata;
    /// `size=original` is the file byte-exact, as uploaded.
    @Sendable func file(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        guard let sha = context.parameters.get("sha"), sha.count == 64, sha.allSatisfy(\.isHexDigit) else {
            throw DomainError.notFound("The file")
        }
        let size = request.query["size"] ?? "display"
        let file = try await items.file(viewer.household.id, sha256: sha, size: size)
        var headers = HTTPFields()
        headers[.contentType] = file.contentType
        headers[.cacheControl] = "private, max-age=31536000, immutable"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
        if size == "original" { headers[.contentDisposition] = "attachment" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.data)))
    }

    // MARK: - Helpers

    private func form(_ viewer: Viewer, values: ItemFormValues, item: Item?, base: ItemFormBase?, errors: [FieldError]) async throws -> HTML {
        let places = try await items.places(viewer.household.id)
        return ItemViews.form(viewer: viewer, values: values, item: item, base: base, rooms: places.rooms, categories: places.categories, errors: errors,
                              today: dependencies.today(viewer.household))
    }


}
