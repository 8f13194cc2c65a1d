import Foundation
import HTTPTypes
import Hummingbird
import NestoryBackup
import NestoryDomain
import NestoryServices
import NestoryImport
import NestoryStore

/// Settings → Your data: export a backup (in the background, with progress, then a download),
/// restore one (upload, check, choose replace or merge, summary), and import a CSV or Homebox export
/// (upload, preview with column mapping, import, summary). Owners only: a backup holds everything.
struct DataController {
    let dependencies: WebDependencies
    var transfers: DataTransfers { dependencies.transfers }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("settings/data", use: page)
        router.post("settings/data/export", use: startExport)
        router.get("settings/data/export/:id/download", use: download)
        router.post("settings/data/restore", use: uploadArchive)
        router.get("settings/data/restore/:token", use: restorePage)
        router.post("settings/data/restore/:token", use: restore)
        router.post("settings/data/csv", use: uploadCSV)
        router.get("settings/data/csv/:token", use: csvPage)
        router.post("settings/data/csv/:token", use: importCSV)
        router.get("settings/data/jobs/:id", use: jobPage)
        router.post("settings/data/delete", use: deleteHousehold)
    }

    /// The API's side: `POST /api/v1/backups` starts an export (the owner's), answered with its job; once made, the
    /// job's `links.download` gives the archive (a token may fetch it there, as it may the photos).
    func addAPIRoutes(to api: RouterGroup<AppRequestContext>) {
        api.post("backups", use: startExportFromAPI)
    }

    @Sendable func startExportFromAPI(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<JobJSON> {
        let viewer = try owner(context)
        let body = try await request.body.collect(upTo: 4096)
        var keys = false
        if body.readableBytes > 0 {
            let fields: [String: JSONField]
            do { fields = try JSONDecoder().decode([String: JSONField].self, from: Data(body.readableBytesView)) } catch {
                throw WebError.badRequest("The body must be empty or a JSON object: {\"providerKeys\": true} puts the valuation providers’ keys in the archive.")
            }
            var errors = fields.keys.sorted().filter { $0 != "providerKeys" }.map { JSONFields.unknown($0, of: "a backup", fields: ["providerKeys"]) }
            switch fields["providerKeys"] {
            case nil, .null?: break
            case .bool(let value)?: keys = value
            default: errors.append(FieldError(field: "providerKeys", message: "Give providerKeys as true or false."))
            }
            if !errors.isEmpty { throw DomainError.validation(errors) }
        }
        let job = try await dependencies.services.backups.startExport(viewer.household, now: dependencies.now(), includeProviderKeys: keys)
        return EditedResponse(status: .accepted, response: JobJSON(job))
    }

    private func owner(_ context: AppRequestContext) throws -> Viewer {
        let viewer = try context.requireViewer()
        guard viewer.role == .owner else { throw WebError.forbidden("Only the household’s owner can export or import its data.") }
        return viewer
    }

    @Sendable func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await page(try owner(context), notice: request.notice)
    }

    /// The page, with the delete form's values and errors when it comes back (422).
    func page(_ viewer: Viewer, notice: String? = nil, deleteForm: [String: String] = [:], deleteErrors: [FieldError] = []) async throws -> Response {
        let recent = try await dependencies.services.jobs.recent(viewer.household.id, kind: JobKind.backup, within: BackupService.lifetime)
        let storage = try await dependencies.services.data.storage(viewer.household.id)
        return HTMLResponse.page(DataViews.page(viewer: viewer, jobs: recent, storage: storage, notice: notice, deleteForm: deleteForm,
                                                deleteErrors: deleteErrors), status: deleteErrors.isEmpty ? .ok : .unprocessableContent)
    }

    // MARK: - Delete the household

    /// The household and everything in it go (AccountService.deleteHousehold). A person left with no household is
    /// signed out and told what was deleted; one who is in another household goes on there.
    @Sendable func deleteHousehold(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try owner(context)
        let form = try await Form.read(request, context: context)
        let removed: [UserID]
        do {
            removed = try await dependencies.accounts.deleteHousehold(viewer.household, by: viewer.user, role: viewer.role,
                                                                      typedName: form["confirmName"] ?? "", password: form["password"] ?? "",
                                                                      client: context.clientKey)
        } catch DomainError.validation(let errors) {
            return try await page(viewer, deleteForm: ["confirmName": form["confirmName"] ?? ""], deleteErrors: errors)
        }
        // For whoever runs the server: which household went, by whom (ids only, as every log line here).
        dependencies.logger.notice("household deleted by its owner", metadata: [
            "household": .string(viewer.household.id.description), "user": .string(viewer.user.id.description),
            "accounts_deleted": .stringConvertible(removed.count), "request_id": .string(context.requestID)])
        let name = viewer.household.name
        guard removed.contains(viewer.user.id) else {
            return .redirect(to: "/", notice: "\(name) and everything in it were deleted.")
        }
        var response = HTMLResponse.page(AccountViews.householdDeleted(name: name, accounts: removed.count))
        response.setCookie(dependencies.cookies.expiredSession())
        // The pages this device kept to show offline, and captures waiting in its queue, were the household's too.
        response.headers[HTTPField.Name("Clear-Site-Data")!] = "\"cache\", \"storage\""
        return response
    }

    // MARK: - Export

    @Sendable func startExport(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try owner(context)
        let keys = try await Form.read(request, context: context)["providerKeys"] == "1"
        let job = try await dependencies.services.backups.startExport(viewer.household, now: dependencies.now(), includeProviderKeys: keys)
        return .redirect(to: "/settings/data?export=\(job.id)")
    }

    @Sendable func download(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try owner(context)
        let gone = "The export (backups can be downloaded for an hour; make a new one)"
        guard let id = context.parameters.get("id").flatMap(JobID.init(string:)) else { throw DomainError.notFound(gone) }
        let job = try await dependencies.services.jobs.job(viewer.household.id, id, kinds: [JobKind.backup], notFound: gone)
        guard job.state == .succeeded, let made = job.decodedResult(as: BackupService.Made.self),
              dependencies.now().timeIntervalSince(job.createdAt) < BackupService.lifetime else {
            throw DomainError.notFound(gone)
        }
        let file = try dependencies.services.backups.file(made.file)
        let body = try await FileIO().loadFile(path: file.path, context: context)
        var headers = HTTPFields()
        headers[.contentType] = "application/zip"
        headers[.contentLength] = String(made.bytes)
        headers[.contentDisposition] = "attachment; filename=\"\(made.downloadName)\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: body)
    }

    // MARK: - Restore

    /// Streams the upload to a file (nothing held in memory), then checks the whole archive.
    private func receive(_ request: Request, context: AppRequestContext, viewer: Viewer, ext: String, limit: Int64) async throws -> DataTransfers.Upload {
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > limit {
            throw StoreError.tooLarge(limit: limit)
        }
        let token = DataTransfers.token()
        let file = try dependencies.services.backups.file("upload-\(token).\(ext)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
            throw StoreError.io("cannot create \(file.path)")
        }
        var written: Int64 = 0
        do {
            for try await buffer in request.body {
                written += Int64(buffer.readableBytes)
                guard written <= limit else { throw StoreError.tooLarge(limit: limit) }
                try buffer.withUnsafeReadableBytes { try handle.write(contentsOf: Data($0)) }
            }
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: file)
            throw StoreError.writing(file.path, error)
        }
        let name = request.headers[HTTPField.Name("X-File-Name")!].flatMap { $0.removingPercentEncoding } ?? "upload.\(ext)"
        let upload = DataTransfers.Upload(token: token, householdID: viewer.household.id, userID: viewer.user.id, file: file,
                                          originalName: String(name.prefix(200)), createdAt: dependencies.now())
        transfers.addUpload(upload)
        return upload
    }

    struct NextJSON: ResponseEncodable {
        let next: String
    }

    @Sendable func uploadArchive(_ request: Request, context: AppRequestContext) async throws -> NextJSON {
        let viewer = try owner(context)
        let upload = try await receive(request, context: context, viewer: viewer, ext: "zip", limit: dependencies.limits.maxArchiveBytes)
        do {
            let manifest = try await dependencies.services.data.checkArchive(upload.file)
            transfers.setManifest(manifest, for: upload.token)
        } catch {
            transfers.removeUpload(upload.token)
            throw error
        }
        return NextJSON(next: "/settings/data/restore/\(upload.token)")
    }

    @Sendable func restorePage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try owner(context)
        let upload = try pending(context, viewer)
        // Checked when it was uploaded; the restore itself checks it again as it applies it.
        guard let manifest = upload.manifest else { throw DomainError.notFound("The checked backup (upload it again)") }
        return HTMLResponse.page(DataViews.confirmRestore(viewer: viewer, token: upload.token, name: upload.originalName, manifest: manifest))
    }

    @Sendable func restore(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try owner(context)
        let upload = try pending(context, viewer)
        let form = try await Form.read(request, context: context)
        guard let mode = form["mode"].flatMap(RestoreMode.init(rawValue:)) else {
            throw WebError.badRequest("Choose whether to replace your data or merge the backup into it.")
        }
        // Checked when it was uploaded; the job checks it again as it applies it, in the background.
        let job = try await dependencies.services.data.startRestore(viewer.household.id, file: upload.file, mode: mode)
        transfers.handOver(upload.token)
        return .redirect(to: "/settings/data/jobs/\(job.id)")
    }

    private func pending(_ context: AppRequestContext, _ viewer: Viewer) throws -> DataTransfers.Upload {
        guard let token = context.parameters.get("token"),
              let upload = transfers.upload(token, household: viewer.household.id, user: viewer.user.id) else {
            throw DomainError.notFound("The uploaded file (it may have expired; upload it again)")
        }
        return upload
    }

    // MARK: - CSV

    @Sendable func uploadCSV(_ request: Request, context: AppRequestContext) async throws -> NextJSON {
        let viewer = try owner(context)
        let upload = try await receive(request, context: context, viewer: viewer, ext: "csv", limit: dependencies.limits.maxCSVBytes)
        do {
            _ = try CSV.preview(upload.file)
        } catch {
            transfers.removeUpload(upload.token)
            throw error
        }
        return NextJSON(next: "/settings/data/csv/\(upload.token)")
    }

    @Sendable func csvPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try owner(context)
        let upload = try pending(context, viewer)
        let table = try CSV.preview(upload.file)
        return HTMLResponse.page(DataViews.csvPreview(viewer: viewer, token: upload.token, name: upload.originalName, table: table,
                                                      mapping: ColumnMapping.guess(header: table.header), dateOrder: .mdy, errors: []))
    }

    @Sendable func importCSV(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try owner(context)
        let upload = try pending(context, viewer)
        let form = try await Form.read(request, context: context)
        let table = try CSV.preview(upload.file)
        var mapping = ColumnMapping()
        for field in ImportField.allCases {
            if let raw = form["map_\(field.rawValue)"], let index = Int(raw), table.header.indices.contains(index) {
                mapping.columns[field] = index
            }
        }
        let order = form["date_order"].flatMap(ImportOptions.DateOrder.init(rawValue:)) ?? .mdy
        let options = ImportOptions(currency: viewer.household.currency, dateOrder: order, today: dependencies.today(viewer.household))
        do {
            // Every row is checked now, so problems show on this page; the import itself runs in the background.
            _ = try await dependencies.services.data.checkImport(upload.file, mapping: mapping, options: options)
            let job = try await dependencies.services.data.startImport(viewer.household.id, file: upload.file, mapping: mapping, options: options)
            transfers.handOver(upload.token)
            return .redirect(to: "/settings/data/jobs/\(job.id)")
        } catch let error as ImportError {
            let rows: [RowError]
            switch error {
            case .rows(let list): rows = list
            default: rows = [RowError(line: 1, column: nil, message: error.description)]
            }
            return HTMLResponse.page(DataViews.csvPreview(viewer: viewer, token: upload.token, name: upload.originalName, table: table,
                                                          mapping: mapping, dateOrder: order, errors: rows),
                                     status: .unprocessableContent)
        }
    }

    // MARK: - Restores and imports in the background

    /// A restore or import: its progress while it runs, then what it did.
    @Sendable func jobPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try owner(context)
        guard let id = context.parameters.get("id").flatMap(JobID.init(string:)) else { throw DomainError.notFound("The restore or import") }
        let job = try await dependencies.services.jobs.job(viewer.household.id, id, kinds: [JobKind.restore, JobKind.import],
                                                           notFound: "The restore or import")
        switch job.state {
        case .succeeded:
            if job.kind == JobKind.restore, let restored = job.decodedResult(as: DataService.Restored.self) {
                return HTMLResponse.page(DataViews.restored(viewer: viewer, manifest: restored.manifest, mode: restored.mode, summary: restored.summary))
            }
            if let summary = job.decodedResult(as: ImportSummary.self) {
                return HTMLResponse.page(DataViews.imported(viewer: viewer, summary: summary))
            }
            throw DomainError.notFound("The outcome")
        default:
            return HTMLResponse.page(DataViews.working(viewer: viewer, job: job))
        }
    }
}
