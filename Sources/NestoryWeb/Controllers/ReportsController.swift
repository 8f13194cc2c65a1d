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

    /// `/api/v1/reports`: start either report, read the history, delete from it. The PDF is at the job's and the
    /// history's `links.download` (which a token may read).
    func addAPIRoutes(to api: RouterGroup<AppRequestContext>) {
        api.post("reports", use: startFromAPI)
        api.get("reports", use: historyForAPI)
        // The Reports tab's exports, for a script (CSV within the plan, as there).
        api.get("export.csv", use: exportCSV)
        api.get("export.json", use: exportJSON)
        api.delete("reports/:id") { _, context -> Response in
            let viewer = try context.requireViewer()
            try await dependencies.services.reports.delete(viewer.household.id, try reportID(context))
            return Response(status: .noContent)
        }
    }

    /// What a report request may carry: the inventory's options, or a loss list's items, incident and options.
    static let inventoryFields = ["kind", "grouping", "includePhotos", "includeUndocumented", "paper"]
    static let lossListFields = ["kind", "itemIDs", "incidentDate", "incidentType", "description", "policyNumber", "claimNumber",
                                 "includePhotos", "paper"]

    /// Reads the body by the forms' rules (a choice left out is the form's default; photos as the form ticks them) and
    /// queues the report: 202 with its job. A misspelt key or a value of the wrong kind is refused by name.
    @Sendable func startFromAPI(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<JobJSON> {
        let viewer = try context.requireViewer()
        let household = viewer.household
        let body: [String: JSONField]
        do { body = try await request.decode(as: [String: JSONField].self, context: context) } catch {
            throw WebError.badRequest("The body must be a JSON object: {\"kind\": \"inventory\"} or {\"kind\": \"lossList\", \"itemIDs\": [...], \"incidentDate\": \"YYYY-MM-DD\"} (see /api/v1/openapi.json).")
        }
        var problems = FieldErrors()
        var texts: [String: String] = [:], flags: [String: Bool] = [:], itemIDs: [ItemID] = []
        let kind = body["kind"].flatMap { if case .text(let text) = $0 { ReportKind.api(text) } else { nil } }
        if body["kind"] != nil, kind == nil { problems.append(FieldError(field: "kind", message: "Give kind as \"inventory\" or \"lossList\".")) }
        let fields = kind == .lossList ? Self.lossListFields : Self.inventoryFields
        for (key, value) in body.sorted(by: { $0.key < $1.key }) where key != "kind" {
            guard fields.contains(key) else {
                problems.append(JSONFields.unknown(key, of: kind == .lossList ? "a loss list" : "an inventory report", fields: fields))
                continue
            }
            switch (key, value) {
            case (_, .null): continue
            case ("includePhotos", .bool(let flag)), ("includeUndocumented", .bool(let flag)): flags[key] = flag
            case ("includePhotos", _), ("includeUndocumented", _): problems.append(FieldError(field: key, message: "Give \(key) as true or false."))
            case ("itemIDs", .list(let ids)):
                for id in ids {
                    guard case .text(let raw) = id, let item = ItemID(string: raw) else {
                        problems.append(FieldError(field: "itemIDs", message: "Give itemIDs as a list of item ids."))
                        break
                    }
                    itemIDs.append(item)
                }
            case ("itemIDs", _): problems.append(FieldError(field: "itemIDs", message: "Give itemIDs as a list of item ids."))
            case (_, .text(let text)): texts[key] = text
            default: problems.append(JSONFields.wrongKind(key, numeric: false))
            }
        }
        if kind == .lossList, itemIDs.isEmpty, !problems.fields.contains(where: { $0.field == "itemIDs" }) {
            problems.append(FieldError(field: "itemIDs", message: "Choose the items the loss list is for."))
        }
        let paper = problems.collect { try PaperSize.chosen(texts["paper"], default: .usual(for: household.currency), field: "paper") }
        let incident = kind != .lossList ? nil : problems.collect {
            try Incident.reading(date: texts["incidentDate"] ?? "", type: texts["incidentType"], description: texts["description"] ?? "",
                                 policyNumber: texts["policyNumber"], claimNumber: texts["claimNumber"],
                                 today: dependencies.today(household), typeField: "incidentType")
        }
        let grouping = kind == .lossList ? nil : problems.collect { try ReportGrouping.chosen(texts["grouping"], default: .room, field: "grouping") }
        guard problems.isEmpty, let paper else { throw DomainError.validation(problems.fields) }
        let reports = dependencies.services.reports
        var photos = flags["includePhotos"]
        if photos == nil { photos = try await reports.photosByDefault(household.id, for: kind ?? .inventory) }
        let report: ReportRequest
        if let incident {
            report = .lossList(LossListOptions(incident: incident, itemIDs: itemIDs, includePhotos: photos ?? true, paper: paper))
        } else {
            report = .inventory(InventoryReportOptions(grouping: grouping ?? .room, includePhotos: photos ?? false,
                                                       includeUndocumented: flags["includeUndocumented"] ?? true, paper: paper))
        }
        let job = try await reports.start(household.id, report)
        return EditedResponse(status: .accepted, headers: [.location: "/api/v1/jobs/\(job.id)"], response: JobJSON(job))
    }

    @Sendable func historyForAPI(_ request: Request, context: AppRequestContext) async throws -> ListJSON<ReportJSON> {
        let viewer = try context.requireViewer()
        return ListJSON(items: try await dependencies.services.reports.history(viewer.household.id).map(ReportJSON.init))
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
            grouping: try ReportGrouping.chosen(form["group"], default: .room, field: "group"), includePhotos: form["photos"] == "1",
            includeUndocumented: form["undocumented"] == "1",
            paper: try PaperSize.chosen(form["paper"], default: .usual(for: viewer.household.currency), field: "paper"))
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
            let incident = try Incident.reading(date: values["incidentDate"] ?? "", type: values["type"], description: values["description"] ?? "",
                                                policyNumber: values["policyNumber"], claimNumber: values["claimNumber"],
                                                today: dependencies.today(viewer.household))
            let options = LossListOptions(incident: incident, itemIDs: ids, includePhotos: values["photos"] == "1",
                                          paper: try PaperSize.chosen(values["paper"], default: .usual(for: viewer.household.currency), field: "paper"))
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

    func reportID(_ context: AppRequestContext) throws -> UUID {
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

extension ReportKind {
    /// The kind as the API names it (`lossList`; the history's own name, `loss`, is read too).
    var apiName: String { self == .lossList ? "lossList" : rawValue }

    static func api(_ text: String) -> ReportKind? {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        return allCases.first { $0.apiName.lowercased() == text || $0.rawValue == text }
    }
}

/// A report in the history, as the API answers it.
struct ReportJSON: Encodable, Sendable {
    struct Links: Encodable, Sendable { let download: String }

    let id: String
    let kind: String
    let createdAt: String
    let byteCount: Int64
    /// The options it was made with, as the Reports tab lists them ("Grouped by room · with photos · all items · A4").
    let summary: String
    let links: Links

    init(_ report: StoredReport) {
        id = report.id.uuidString.lowercased()
        kind = ReportKind(rawValue: report.kind)?.apiName ?? report.kind
        createdAt = ISO8601DateFormatter().string(from: report.createdAt)
        byteCount = report.byteCount
        summary = ReportViews.optionsSummary(report)
        links = Links(download: "/reports/\(id)/download")
    }
}
