import Foundation
import Synchronization
import NestoryBackup
import NestoryDomain
import NestoryImport
import NestoryJobs
import NestoryStore
import NestoryStoreInterfaces

/// Moving data in: checking and restoring backups, importing spreadsheets (and Homebox exports). The web
/// app's Settings → Your data and `nestory restore` / `nestory import csv` share these rules; the work runs
/// on the blocking pool.
public struct DataService: Sendable {
    /// Backups' rows, restores and imports, on whichever engine the bootstrap chose.
    let archive: any ArchiveStore
    /// Photos, receipts and their files: for the storage figures.
    let attachments: any AttachmentStore
    /// Reads and restores archives (the archive store, the valuation settings, the stored files, the data folder).
    let reader: BackupReader
    /// The data folder's tmp/, where uploads wait (tmp/web/).
    let tmp: URL
    let blocking: BlockingPool
    /// Nil where no job runner is there (the command line works in the foreground).
    let queue: JobQueue?
    let plan: PlanService
    let now: @Sendable () -> Date

    /// `blobs`: where the archive's files are staged and kept; `folder`: the data folder (tmp/, the key that seals
    /// the valuation providers' keys).
    public init(stores: Stores, blobs: any BlobFiles, folder: DataFolder, secrets: SecretKeys? = nil, blocking: BlockingPool, queue: JobQueue? = nil,
                plan: PlanService, now: @escaping @Sendable () -> Date = Date.init) {
        archive = stores.archive
        attachments = stores.attachments
        reader = BackupReader(archive: stores.archive, valuations: stores.valuations, blobs: blobs, folder: folder, secrets: secrets)
        tmp = folder.tmpURL
        self.blocking = blocking
        self.queue = queue
        self.plan = plan
        self.now = now
    }

    /// Settings → Your data: what the household keeps, the database's size and the free space.
    public func storage(_ household: HouseholdID) async throws -> StorageSummary {
        try await attachments.storageSummary(household)
    }

    // MARK: - In the background (the web app)

    /// A restore to run as a job: the uploaded archive (its name in tmp/web/) and how to apply it.
    public struct RestoreRequest: Codable, Sendable {
        public let file: String
        public let mode: RestoreMode
    }

    /// An import to run as a job: the uploaded file, the columns chosen, how to read it.
    public struct ImportRequest: Codable, Sendable {
        public let file: String
        public let columns: [String: Int]
        public let dateOrder: String
        public let currency: String
        public let today: String
    }

    public struct Restored: Codable, Sendable {
        public let manifest: BackupManifest
        public let mode: RestoreMode
        public let summary: RestoreSummary
    }

    /// An upload a queued job reads (in tmp/web/), or a failure saying it is gone.
    func upload(_ name: String) throws -> URL {
        let file = try BackupService.folder(tmp: tmp).appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw JobFailure(code: "upload_missing", message: "The uploaded file is no longer on the server: upload it again.")
        }
        return file
    }

    /// Queues the restore of an uploaded archive (already checked once) into the household.
    public func startRestore(_ household: HouseholdID, file: URL, mode: RestoreMode) async throws -> Job {
        guard let queue else { preconditionFailure("restores run in the background only where a job runner is") }
        return try await queue.enqueue(household, kind: JobKind.restore, payload: RestoreRequest(file: file.lastPathComponent, mode: mode))
    }

    /// Queues the import of an uploaded table, once its rows have been checked (`checkImport`).
    public func startImport(_ household: HouseholdID, file: URL, mapping: ColumnMapping, options: ImportOptions) async throws -> Job {
        guard let queue else { preconditionFailure("imports run in the background only where a job runner is") }
        let columns = Dictionary(uniqueKeysWithValues: mapping.columns.map { ($0.key.rawValue, $0.value) })
        return try await queue.enqueue(household, kind: JobKind.import, payload: ImportRequest(
            file: file.lastPathComponent, columns: columns, dateOrder: options.dateOrder.rawValue, currency: options.currency.code,
            today: options.today.iso))
    }

    /// Checks a whole archive (every file against its checksum) and says what it holds; changes nothing.
    public func checkArchive(_ url: URL) async throws -> BackupManifest {
        let reader = reader
        return try await blocking.run {
            let checked = try reader.validate(url)
            defer { checked.discard() }
            return checked.manifest
        }
    }

    /// Restores an archive, all or nothing. Without a mode, restoring over a household that exists here is
    /// refused: the person must say whether to replace its data or merge into it.
    public func restore(_ url: URL, into target: HouseholdID?, mode: RestoreMode?) async throws -> (manifest: BackupManifest, summary: RestoreSummary) {
        let reader = reader
        let checked = try await blocking.run { try reader.validate(url) }
        defer { checked.discard() }
        if mode == nil, try await target != nil ? true : archive.householdExists(checked.manifest.household.id) {
            throw DomainError.conflict("This server already has the household \(checked.manifest.household.name): choose to replace its data with the archive's, or to merge the archive into it. Nothing was changed.")
        }
        // The plan of the household the rows go into (the archive's own when restoring it whole: a licence for
        // it may be installed before it exists here).
        let household = target ?? HouseholdID(string: checked.manifest.household.id)
        let entitlement = if let household { try await plan.entitlement(household) } else { Entitlement.free }
        return (checked.manifest, try await reader.apply(checked, into: target, mode: mode ?? .replace, plan: entitlement))
    }

    /// Checks every row of a file with these columns, reading it one record at a time: how many items it would
    /// become, or its rows' problems with their lines.
    public func checkImport(_ file: URL, mapping: ColumnMapping, options: ImportOptions) async throws -> Int {
        try await blocking.run {
            var source = try ImportSource(file, mapping: { _ in mapping }, options: options)
            return try ItemImport.check(&source)
        }
    }

    /// Imports a CSV file's rows as items in one transaction (all or nothing), creating the rooms and categories they
    /// name. The file is read one record at a time, twice: every row is checked first (nothing is imported when any
    /// has a problem), then the rows are stored in batches on the bulk insert path, so memory stays flat whatever the
    /// file's size. `mapping` makes the column mapping from the header (nil: guessed from it).
    public func importItems(_ household: HouseholdID, file: URL, mapping: (@Sendable ([String]) throws(ImportError) -> ColumnMapping)? = nil,
                            options: ImportOptions) async throws -> ImportSummary {
        let at = now()
        let entitlement = try await plan.entitlement(household)
        let (count, source) = try await blocking.run {
            var first = try ImportSource(file, mapping: mapping, options: options)
            let count = try ItemImport.check(&first)
            return (count, ImportSourceBox(try first.reopened()))
        }
        // The second reading runs a few batches ahead of the store, on a thread of its own.
        let batches = ReadAhead {
            try source.nextBatch()?.map { NamedPlaceDraft(draft: $0.draft, roomName: $0.roomName, categoryName: $0.categoryName) }
        }
        defer { batches.finish() }
        let read = Mutex(0)
        return try await archive.importItemsInBulk(household, count: count, now: at, today: options.today, plan: entitlement) {
            guard let batch = try batches.next() else { return nil }
            guard read.withLock({ $0 += batch.count; return $0 }) <= count else {
                throw DomainError.conflict("The file changed while it was being imported; nothing was imported.")
            }
            return batch
        }
    }
}

/// The second reading of an import's file, read by one thread at a time (the read-ahead's).
private final class ImportSourceBox: @unchecked Sendable {
    private let lock = NSLock()
    private var source: ImportSource

    init(_ source: ImportSource) { self.source = source }

    func nextBatch() throws -> [ImportedItem]? {
        try lock.withLock { try source.nextBatch() }
    }
}

/// Restores an uploaded archive into the job's household; the upload is removed once done.
public struct RestoreJobHandler: JobHandler {
    let data: DataService
    public let kind = JobKind.restore
    public let concurrency = 1
    /// A restore is one transaction: run again from the start after a stop.
    public let retry = RetryPolicy(maxAttempts: 2, resumesAfterStop: true)

    public init(data: DataService) { self.data = data }

    public func run(_ job: Job, context: JobContext) async throws -> String {
        let request = try job.decodedPayload(as: DataService.RestoreRequest.self)
        let file = try data.upload(request.file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (manifest, summary) = try await data.restore(file, into: job.householdID, mode: request.mode)
        return try JSONEncoder.jobText(DataService.Restored(manifest: manifest, mode: request.mode, summary: summary))
    }
}

/// Imports an uploaded table into the job's household; the upload is removed once done.
public struct ImportJobHandler: JobHandler {
    let data: DataService
    public let kind = JobKind.import
    public let concurrency = 1
    /// An import is one transaction: run again from the start after a stop.
    public let retry = RetryPolicy(maxAttempts: 2, resumesAfterStop: true)

    public init(data: DataService) { self.data = data }

    public func run(_ job: Job, context: JobContext) async throws -> String {
        let request = try job.decodedPayload(as: DataService.ImportRequest.self)
        let file = try data.upload(request.file)
        defer { try? FileManager.default.removeItem(at: file) }
        var mapping = ColumnMapping()
        for (field, column) in request.columns { if let field = ImportField(rawValue: field) { mapping.columns[field] = column } }
        let options = ImportOptions(currency: try CurrencyCode(request.currency), dateOrder: ImportOptions.DateOrder(rawValue: request.dateOrder) ?? .mdy,
                                    today: try CalendarDate(iso: request.today))
        do {
            return try JSONEncoder.jobText(try await data.importItems(job.householdID, file: file, mapping: { [mapping] _ in mapping }, options: options))
        } catch let error as ImportError {
            throw JobFailure(code: "invalid_csv", message: error.description)
        }
    }
}
