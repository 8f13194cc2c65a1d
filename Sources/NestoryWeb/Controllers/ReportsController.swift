import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain
import NestoryServices
import NestoryReports

/// The Reports tab: the full inventory and loss-list PDFs (generated in the background with
/// progress), the export history, and CSV/JSON exports.
struct ReportsController {
    let dependencies: WebDependencies
    var items: ItemsService { dependencies.services.items }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("reports", use: index)
        router.get("reports/inventory", use: inventoryOptions)
        router.post("reports/inventory", use: startInventory)
        router.get("reports/loss", use: lossSelect)
        router.get("reports/loss/confirm", use: lossConfirm)
        router.post("reports/loss", use: startLossList)
        router.get("reports/jobs/:id", use: job)
        router.get("reports/export.csv", use: exportCSV)
        router.get("reports/export.json", use: exportJSON)
        router.get("reports/:id/download", use: download)
        router.post("reports/:id/delete", use: delete)
    }

    @Sendable func index(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let id = viewer.household.id
        return HTMLResponse.page(ReportViews.index(viewer: viewer, plan: try await dependencies.services.plan.entitlement(id),
                                                   summary: try await items.summary(id), history: try await dependencies.services.reports.history(id),
                                                   running: try await dependencies.services.jobs.recent(id, kind: JobKind.report, within: 86_400)
                                                       .filter { !$0.state.isFinished }.reversed(),
                                                   notice: request.notice))
    }

    @Sendable func inventoryOptions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        return HTMLResponse.page(ReportViews.inventoryOptions(viewer: viewer, plan: try await dependencies.services.plan.entitlement(viewer.household.id),
                                                              summary: try await items.summary(viewer.household.id)))
    }

    @Sendable func startInventory(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        let options = InventoryReportOptions(
            grouping: form["group"].flatMap(ReportGrouping.init(rawValue:)) ?? .room, includePhotos: form["photos"] == "1",
            includeUndocumented: form["undocumented"] == "1",
            paper: form["paper"].flatMap(PaperSize.init(rawValue:)) ?? ReportViews.defaultPaper(viewer.household))
        let job = try await dependencies.services.reports.start(viewer.household.id, .inventory(options))
        return .redirect(to: "/reports/jobs/\(job.id)")
    }

    // MARK: - Loss list

    @Sendable func lossSelect(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let params = request.query
        let query = params.first
        let state = InventoryState(query: query)
        let page = try await items.search(viewer.household.id, ItemQuery(search: state.search, filter: state.itemQuery.filter, sort: .name,
                                                                     limit: ItemQuery.maxLimit))
        var selected = Self.ids(params.all("item"))
        if query["all"] == "1" {
            let known = Set(selected)
            selected += page.elements.map(\.item.id).filter { !known.contains($0) }
        }
        let places = try await items.places(viewer.household.id)
        return HTMLResponse.page(ReportViews.lossSelect(viewer: viewer, state: state, selected: selected, page: page,
                                                        rooms: places.rooms, categories: places.categories,
                                                        threshold: viewer.household.highValueThreshold))
    }

    @Sendable func lossConfirm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let ids = Self.ids(request.query.all("item"))
        guard !ids.isEmpty else { return .redirect(to: "/reports/loss") }
        let values = ["incidentDate": dependencies.today(viewer.household).iso, "type": IncidentType.fire.rawValue]
        // Say Free's limit before the details are typed, not after.
        var errors = FieldErrors()
        let entitlement = try await dependencies.services.plan.entitlement(viewer.household.id)
        errors.collect { try entitlement.checkLossList(count: ids.count) }
        return try await confirmPage(viewer, ids: ids, values: values, errors: errors.fields, status: .ok)
    }

    @Sendable func startLossList(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        let ids = Self.ids(form.all("item"))
        var values: [String: String] = [:]
        for key in ["incidentDate", "type", "description", "policyNumber", "claimNumber", "paper"] { values[key] = form[key] ?? "" }
        values["photos"] = form["photos"] == "1" ? "1" : "0"
        guard !ids.isEmpty else { return .redirect(to: "/reports/loss") }
        do {
            let date: CalendarDate
            do { date = try CalendarDate(iso: values["incidentDate"] ?? "") } catch {
                throw DomainError.validation([FieldError(field: "incidentDate", message: "Enter the date of the loss.")])
            }
            let incident = try Incident(date: date, type: values["type"].flatMap(IncidentType.init(rawValue:)) ?? .other,
                                        description: values["description"] ?? "", policyNumber: values["policyNumber"],
                                        claimNumber: values["claimNumber"]).validated(today: dependencies.today(viewer.household))
            let owned = try await items.listings(viewer.household.id, ids: ids).map(\.item.id)
            guard !owned.isEmpty else { throw DomainError.notFound("The items") }
            let options = LossListOptions(incident: incident, itemIDs: owned, includePhotos: values["photos"] == "1",
                                          paper: values["paper"].flatMap(PaperSize.init(rawValue:)) ?? ReportViews.defaultPaper(viewer.household))
            let job = try await dependencies.services.reports.start(viewer.household.id, .lossList(options))
            return .redirect(to: "/reports/jobs/\(job.id)")
        } catch let error as DomainError {
            switch error {
            case .validation(let fields): return try await confirmPage(viewer, ids: ids, values: values, errors: fields, status: .unprocessableContent)
            // Over Free's loss-list size: the same page, with what was typed, saying the limit.
            case .proRequired: return try await confirmPage(viewer, ids: ids, values: values, errors: FieldErrors.fields(of: error), status: .paymentRequired)
            default: throw error
            }
        }
    }

    private func confirmPage(_ viewer: Viewer, ids: [ItemID], values: [String: String], errors: [FieldError],
                             status: HTTPResponse.Status) async throws -> Response {
        let listed = try await items.listings(viewer.household.id, ids: ids)
        guard !listed.isEmpty else { throw DomainError.notFound("The items") }
        var total = MoneyTotals()
        for listing in listed { if let value = listing.item.totalValue { try total.add(value) } }
        return HTMLResponse.page(ReportViews.lossConfirm(viewer: viewer, items: listed, total: total, values: values, errors: errors),
                                 status: status)
    }

    static func ids(_ values: [String]) -> [ItemID] {
        var seen = Set<ItemID>()
        return values.compactMap(ItemID.init(string:)).filter { seen.insert($0).inserted }
    }

    // MARK: - Jobs

    @Sendable func job(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        guard let id = context.parameters.get("id").flatMap(JobID.init(string:)) else { throw DomainError.notFound("The report") }
        let job = try await dependencies.services.jobs.job(viewer.household.id, id, kinds: [JobKind.report], notFound: "The report")
        return HTMLResponse.page(ReportViews.job(viewer: viewer, job: job))
    }

    // MARK: - History

    @Sendable func download(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let (report, url) = try await dependencies.services.reports.report(viewer.household.id, try reportID(context))
        let kind = ReportKind(rawValue: report.kind) == .lossList ? "loss-list" : "inventory"
        let day = viewer.household.day(at: report.createdAt).iso
        // Streamed from disk in chunks: a report with thousands of photos is hundreds of megabytes.
        let body = try await FileIO().loadFile(path: url.path, context: context)
        var headers = Self.downloadHeaders(type: "application/pdf", name: "nestory-\(kind)-\(day).pdf")
        headers[.contentLength] = String(report.byteCount)
        return Response(status: .ok, headers: headers, body: body)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        try await dependencies.services.reports.delete(viewer.household.id, try reportID(context))
        return .redirect(to: "/reports", notice: "Report deleted.")
    }

    private func reportID(_ context: AppRequestContext) throws -> UUID {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw DomainError.notFound("The report") }
        return id
    }

    // MARK: - Exports

    @Sendable func exportCSV(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let data = try await dependencies.services.reports.export(viewer.household.id, as: .csv, now: dependencies.now())
        return Self.file(data, type: "text/csv; charset=utf-8", name: "nestory-inventory-\(dependencies.today(viewer.household).iso).csv")
    }

    @Sendable func exportJSON(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let data = try await dependencies.services.reports.export(viewer.household.id, as: .json, now: dependencies.now())
        return Self.file(data, type: "application/json", name: "nestory-inventory-\(dependencies.today(viewer.household).iso).json")
    }

    static func file(_ data: Data, type: String, name: String) -> Response {
        Response(status: .ok, headers: downloadHeaders(type: type, name: name), body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func downloadHeaders(type: String, name: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        headers[.cacheControl] = "private, no-store"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return headers
    }
}
