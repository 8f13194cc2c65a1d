import Foundation
import Hummingbird
import NestoryDomain
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces
import NestoryValuation

/// Valuations in the web app: the offline estimate and a value entered by hand from an item's page, and the
/// household's history by day. The rules are ValuationService's; this parses and renders.
struct ValuationController {
    let dependencies: WebDependencies
    var valuations: ValuationService { dependencies.services.valuations }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("items/:id/valuations/offline", use: estimateOffline)
        router.post("items/:id/valuations", use: enter)
        router.get("valuations", use: history)
        router.post("settings/valuation", use: saveProviders)
        router.get("settings/valuation/depreciation", use: depreciation)
        router.post("settings/valuation/depreciation", use: saveDepreciation)
        router.post("settings/valuation/depreciation/reset", use: resetDepreciation)
        router.get("valuations/batches/new", use: newBatch)
        router.post("valuations/batches", use: startBatch)
        router.get("valuations/batches/:job", use: batch)
        router.post("valuations/batches/:job/items/:id", use: review)
        router.post("valuations/batches/:job/photos/:photo", use: reviewPhoto)
        router.get("valuations/photos", use: photosPage)
        router.post("valuations/batches/:job/retry", use: retry)
        router.post("valuations/batches/:job/save-all", use: saveAll)
        router.post("valuations/batches/:job/cancel", use: cancel)
    }

    // MARK: - The depreciation table

    @Sendable func depreciation(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        return HTMLResponse.page(ValuationViews.depreciation(viewer: viewer, table: try await valuations.depreciationTable(viewer.household.id), form: [:],
                                                             errors: [], notice: request.notice))
    }

    @Sendable func saveDepreciation(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        var values: [String: String] = [:]
        let table = try await valuations.depreciationTable(viewer.household.id)
        for key in (0..<table.rules.count).map({ "life-\($0)" }) + ["life-other", "floor"] + ItemCondition.allCases.map({ "condition-\($0.rawValue)" }) {
            values[key] = form[key] ?? ""
        }
        var conditions: [ItemCondition: String] = [:]
        for condition in ItemCondition.allCases { conditions[condition] = values["condition-\(condition.rawValue)"] }
        do {
            try await valuations.saveDepreciationTable(viewer.household.id, by: viewer.role, lives: values, floor: values["floor"]!, conditions: conditions)
            return .redirect(to: "/settings/valuation/depreciation", notice: "Depreciation table saved: new offline estimates use it.")
        } catch let error as DomainError {
            guard case .validation = error else { throw error }
            return HTMLResponse.page(ValuationViews.depreciation(viewer: viewer, table: table, form: values, errors: FieldErrors.fields(of: error), notice: nil),
                                     status: .unprocessableContent)
        }
    }

    @Sendable func resetDepreciation(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        try await valuations.saveDepreciationTable(viewer.household.id, by: viewer.role, lives: nil)
        return .redirect(to: "/settings/valuation/depreciation", notice: "The standard table is back.")
    }

    // MARK: - Batches

    /// The items a batch would value: those without a value, or those of an inventory search and its filters.
    private func selection(_ viewer: Viewer, _ query: [String: String]) async throws -> [ItemListing] {
        try await valuations.batchSelection(viewer.household.id, missing: query["missing"] == "1", query: InventoryState(query: query).itemQuery,
                                            items: dependencies.items)
    }

    @Sendable func newBatch(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let query = request.query.first
        return HTMLResponse.page(ValuationViews.newBatch(viewer: viewer, query: query, items: try await selection(viewer, query),
                                                         providers: try await valuations.providerSettings(viewer.household.id)))
    }

    /// Value new things from photos: the photos go up one by one (script), then one batch values them all.
    @Sendable func photosPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        return HTMLResponse.page(ValuationViews.photos(viewer: viewer, providers: try await valuations.providerSettings(viewer.household.id)))
    }

    @Sendable func startBatch(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        let photos = form.all("photo").compactMap(UUID.init(uuidString:))
        if !photos.isEmpty {
            let job = try await valuations.startBatch(viewer.household.id, items: [], photos: photos, queue: dependencies.services.queue)
            return .redirect(to: "/valuations/batches/\(job.id)")
        }
        var query: [String: String] = [:]
        for key in ["missing", "q", "filter", "room", "category", "tag"] { if let value = form[key], !value.isEmpty { query[key] = value } }
        let items = try await selection(viewer, query)
        let job = try await valuations.startBatch(viewer.household.id, items: items.map(\.item.id), queue: dependencies.services.queue)
        return .redirect(to: "/valuations/batches/\(job.id)")
    }

    @Sendable func batch(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        return try await batchPage(viewer, try jobID(context), notice: request.notice)
    }

    /// `editing` is the entry whose review came back refused: an item's id, or `photo-` and a photo's id.
    func batchPage(_ viewer: Viewer, _ id: JobID, notice: String? = nil, editing: String? = nil, form: [String: String] = [:],
                   errors: [FieldError] = []) async throws -> Response {
        let (job, entries) = try await valuations.batch(viewer.household.id, id)
        let names = Dictionary(try await dependencies.items.listings(viewer.household.id, ids: entries.map(\.id)).map { ($0.item.id, $0) },
                               uniquingKeysWith: { a, _ in a })
        var photos: [(id: UUID, photo: IntakePhoto?, outcome: ValuationBatchItem?)] = []
        for entry in try valuations.photoEntries(job) {
            photos.append((id: entry.id, photo: try? await valuations.intakePhoto(viewer.household.id, entry.id), outcome: entry.outcome))
        }
        return HTMLResponse.page(ValuationViews.batch(viewer: viewer, job: job, entries: entries, photos: photos, listings: names, notice: notice,
                                                      editing: editing, form: form, errors: errors),
                                 status: errors.isEmpty ? .ok : .unprocessableContent)
    }

    /// Save or recalculate a photo's proposal: saving makes the item (within the household's plan).
    @Sendable func reviewPhoto(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let job = try jobID(context)
        guard let photo = context.parameters.get("photo").flatMap(UUID.init(uuidString:)) else { throw DomainError.notFound("The photo") }
        let (recalculate, values, review) = try await Self.review(request, context: context)
        let key = "photo-\(photo.uuidString.lowercased())"
        do {
            if recalculate {
                _ = try await valuations.recalculatePhoto(viewer.household.id, batch: job, photo: photo, review)
                return .redirect(to: "/valuations/batches/\(job)#\(key)", notice: "Recalculated with the fields as edited.")
            }
            let item = try await valuations.savePhoto(viewer.household.id, batch: job, photo: photo, review, items: dependencies.items)
            return .redirect(to: "/valuations/batches/\(job)#\(key)", notice: "“\(item.name)” added to your inventory.")
        } catch let error as DomainError {
            if case .forbidden = error { throw error }
            if case .notFound = error { throw error }
            return try await batchPage(viewer, job, editing: key, form: values, errors: FieldErrors.fields(of: error))
        } catch let error as ProviderError {
            return try await batchPage(viewer, job, editing: key, form: values, errors: [FieldError(field: "form", message: error.description)])
        }
    }

    /// The review form: which button was pressed (Recalculate or Save) and the fields as typed.
    static func review(_ request: Request, context: AppRequestContext) async throws -> (recalculate: Bool, values: [String: String], review: ValuationReview) {
        let form = try await Form.read(request, context: context)
        var values: [String: String] = [:]
        for key in ["brand", "productName", "model", "condition", "replacementCost", "actualCashValue"] { values[key] = form[key] ?? "" }
        return (form["action"] == "recalculate", values, ValuationReview(brand: values["brand"]!, productName: values["productName"]!, model: values["model"]!,
                                        condition: values["condition"]!, replacementCost: values["replacementCost"]!,
                                        actualCashValue: values["actualCashValue"]!))
    }

    /// Save or recalculate one proposal (the button pressed says which); a refusal comes back with what was typed.
    @Sendable func review(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let (job, id) = (try jobID(context), try context.itemID())
        let (recalculate, values, review) = try await Self.review(request, context: context)
        do {
            if recalculate {
                _ = try await valuations.recalculate(viewer.household.id, batch: job, item: id, review)
                return .redirect(to: "/valuations/batches/\(job)#item-\(id)", notice: "Recalculated with the fields as edited.")
            }
            _ = try await valuations.save(viewer.household.id, batch: job, item: id, review)
            return .redirect(to: "/valuations/batches/\(job)#item-\(id)", notice: "Saved to the item’s values.")
        } catch let error as DomainError {
            guard case .validation = error else { throw error }
            return try await batchPage(viewer, job, editing: id.description, form: values, errors: FieldErrors.fields(of: error))
        } catch let error as ProviderError {
            return try await batchPage(viewer, job, editing: id.description, form: values, errors: [FieldError(field: "form", message: error.description)])
        }
    }

    /// Save all as proposed: every item's proposal not yet saved, kept as it stands.
    @Sendable func saveAll(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let job = try jobID(context)
        let saved = try await valuations.saveProposed(viewer.household.id, batch: job)
        return .redirect(to: "/valuations/batches/\(job)", notice: "Saved \(saved) value\(saved == 1 ? "" : "s") to the items’ histories.")
    }

    @Sendable func retry(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let job = try await valuations.retryFailed(viewer.household.id, try jobID(context), queue: dependencies.services.queue)
        return .redirect(to: "/valuations/batches/\(job.id)", notice: "Trying the failed items again.")
    }

    @Sendable func cancel(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try jobID(context)
        _ = try await dependencies.services.jobs.cancel(viewer.household.id, id, kinds: [JobKind.valuation], notFound: "The batch")
        return .redirect(to: "/valuations/batches/\(id)", notice: "Cancelling: items already valued stay on this page.")
    }

    private func jobID(_ context: AppRequestContext) throws -> JobID {
        guard let id = context.parameters.get("job").flatMap(JobID.init(string:)) else { throw DomainError.notFound("The batch") }
        return id
    }

    /// Settings → Valuation (the owner): the providers; a refused form comes back with what was typed, keys excepted.
    @Sendable func saveProviders(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        let provider = ValuationProviderForm(analysisBaseURL: form["analysisBaseURL"] ?? "", analysisModel: form["analysisModel"] ?? "",
                                             analysisKey: form["analysisKey"] ?? "", removeAnalysisKey: form["removeAnalysisKey"] == "1",
                                             searchKey: form["searchKey"] ?? "", removeSearchKey: form["removeSearchKey"] == "1",
                                             searchCountry: form["searchCountry"] ?? "", exchangeRates: form["exchangeRates"] ?? "")
        do {
            try await valuations.saveProviders(viewer.household.id, by: viewer.role, provider)
            return .redirect(to: "/settings#valuation", notice: "Valuation providers saved.")
        } catch let error as DomainError {
            guard case .validation = error else { throw error }
            let kept = ["analysisBaseURL": provider.analysisBaseURL, "analysisModel": provider.analysisModel, "searchCountry": provider.searchCountry,
                        "exchangeRates": provider.exchangeRates]
            return try await AccountController(dependencies: dependencies).settings(viewer, valuationForm: kept, valuationErrors: FieldErrors.fields(of: error))
        }
    }

    @Sendable func estimateOffline(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try context.itemID()
        do {
            let valuation = try await valuations.estimateOffline(viewer.household.id, item: id)
            let figure = valuation.actualCashValue.map { " Actual cash value: \($0.value.formatted)." } ?? ""
            return .redirect(to: "/items/\(id)#value", notice: "Estimated offline.\(figure)")
        } catch let error as DomainError {
            guard case .validation = error else { throw error }
            return try await InventoryController(dependencies: dependencies)
                .detailPage(viewer, id, valueErrors: [FieldError(field: "estimate", message: error.message)])
        }
    }

    @Sendable func enter(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try context.itemID()
        let form = try await Form.read(request, context: context)
        var values: [String: String] = [:]
        for key in ["replacementCost", "actualCashValue", "date", "note"] { values[key] = form[key] ?? "" }
        do {
            try await valuations.enter(viewer.household.id, item: id, replacementCost: values["replacementCost"]!,
                                       actualCashValue: values["actualCashValue"]!, on: values["date"]!, note: values["note"]!)
            return .redirect(to: "/items/\(id)#value", notice: "Value saved. The purchase price is unchanged.")
        } catch let error as DomainError {
            guard case .validation = error else { throw error }
            return try await InventoryController(dependencies: dependencies).detailPage(viewer, id, valueForm: values, valueErrors: FieldErrors.fields(of: error))
        }
    }

    @Sendable func history(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        if let text = request.query["day"] {
            guard let day = try? CalendarDate(iso: text) else { throw DomainError.invalid(field: "day", message: "Choose a day as YYYY-MM-DD.") }
            return HTMLResponse.page(ValuationViews.day(viewer: viewer, day: day, entries: try await valuations.day(viewer.household.id, day)))
        }
        return HTMLResponse.page(ValuationViews.history(viewer: viewer, days: try await valuations.householdHistory(viewer.household.id),
                                                        notice: request.notice))
    }

}
