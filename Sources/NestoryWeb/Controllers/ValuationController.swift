import Foundation
import Hummingbird
import NestoryDomain
import NestoryServices
import NestoryStore

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
    }

    /// Settings → Valuation (the owner): the providers; a refused form comes back with what was typed, keys excepted.
    @Sendable func saveProviders(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        let provider = ValuationProviderForm(analysisBaseURL: form["analysisBaseURL"] ?? "", analysisModel: form["analysisModel"] ?? "",
                                             analysisKey: form["analysisKey"] ?? "", removeAnalysisKey: form["removeAnalysisKey"] == "1",
                                             searchKey: form["searchKey"] ?? "", removeSearchKey: form["removeSearchKey"] == "1",
                                             searchCountry: form["searchCountry"] ?? "")
        do {
            try await valuations.saveProviders(viewer.household.id, by: viewer.role, provider)
            return .redirect(to: "/settings#valuation", notice: "Valuation providers saved.")
        } catch let error as DomainError {
            guard case .validation = error else { throw error }
            let kept = ["analysisBaseURL": provider.analysisBaseURL, "analysisModel": provider.analysisModel, "searchCountry": provider.searchCountry]
            return try AccountController(dependencies: dependencies).settings(viewer, valuationForm: kept, valuationErrors: FieldErrors.fields(of: error))
        }
    }

    @Sendable func estimateOffline(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try itemID(context)
        do {
            let valuation = try await valuations.estimateOffline(viewer.household.id, item: id)
            let figure = valuation.actualCashValue.map { " Actual cash value: \($0.value.formatted)." } ?? ""
            return .redirect(to: "/items/\(id)#value", notice: "Estimated offline.\(figure)")
        } catch let error as DomainError {
            guard case .validation = error else { throw error }
            return try InventoryController(dependencies: dependencies)
                .detailPage(viewer, id, valueErrors: [FieldError(field: "estimate", message: error.message)])
        }
    }

    @Sendable func enter(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = try itemID(context)
        let form = try await Form.read(request, context: context)
        var values: [String: String] = [:]
        for key in ["replacementCost", "actualCashValue", "date", "note"] { values[key] = form[key] ?? "" }
        do {
            try await valuations.enter(viewer.household.id, item: id, replacementCost: values["replacementCost"]!,
                                       actualCashValue: values["actualCashValue"]!, on: values["date"]!, note: values["note"]!)
            return .redirect(to: "/items/\(id)#value", notice: "Value saved. The purchase price is unchanged.")
        } catch let error as DomainError {
            guard case .validation = error else { throw error }
            return try InventoryController(dependencies: dependencies).detailPage(viewer, id, valueForm: values, valueErrors: FieldErrors.fields(of: error))
        }
    }

    @Sendable func history(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        if let text = request.query["day"] {
            guard let day = try? CalendarDate(iso: text) else { throw DomainError.invalid(field: "day", message: "Choose a day as YYYY-MM-DD.") }
            return HTMLResponse.page(ValuationViews.day(viewer: viewer, day: day, entries: try valuations.day(viewer.household.id, day)))
        }
        return HTMLResponse.page(ValuationViews.history(viewer: viewer, days: try valuations.householdHistory(viewer.household.id),
                                                        notice: request.query["notice"]))
    }

    private func itemID(_ context: AppRequestContext) throws -> ItemID {
        guard let id = context.parameters.get("id").flatMap(ItemID.init(string:)) else { throw DomainError.notFound("The item") }
        return id
    }
}
