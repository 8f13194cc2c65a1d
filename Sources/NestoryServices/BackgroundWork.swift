import Foundation
import NestoryBackup
import NestoryDomain
import NestoryJobs
import NestoryReceipts
import NestoryReports
import NestoryStore
import NestoryStoreInterfaces

// The long use cases: each enqueues a job (the request returns at once) and provides the handler that
// the job runner calls. The live report maker and backup writer are chosen by the bootstrap and reached
// through their interfaces (ReportMaking, BackupMaking).

/// The kinds of job, as stored.
public enum JobKind {
    public static let report = "report"
    public static let backup = "backup"
    public static let receipt = "receipt"
    public static let restore = "restore"
    public static let `import` = "import"
    public static let webhook = "webhook"
    public static let valuation = "valuation"
}

// MARK: - Reports

/// The inventory and loss-list PDFs, made in the background with progress.
public struct ReportsService: Sendable {
    /// The household's generated reports, newest first (the Reports tab's history).
    public func history(_ household: HouseholdID, limit: Int = 200) async throws -> [StoredReport] {
        try await store.reports(household, limit: limit)
    }

    /// One report of the household and where its file is (for its download).
    public func report(_ household: HouseholdID, _ id: UUID) async throws -> (report: StoredReport, file: URL) {
        try await store.report(household, id)
    }

    /// Removes a report from the history (its file goes with it).
    public func delete(_ household: HouseholdID, _ report: UUID) async throws {
        try await store.deleteReport(household, report)
    }

    let queue: JobQueue
    let maker: any ReportMaking
    /// The export history, on whichever engine the bootstrap chose.
    let store: any ReportStore
    /// This server's temporary folder (the data folder's `tmp/`), where exports are written before they are sent.
    let tmp: URL
    let blocking: BlockingPool
    let plan: PlanService
    /// Where a loss list's items are looked up (only the household's are listed).
    let items: any ItemStore

    public init(queue: JobQueue, maker: any ReportMaking, store: any ReportStore, tmp: URL, blocking: BlockingPool, plan: PlanService,
                items: any ItemStore) {
        self.queue = queue
        self.items = items
        self.maker = maker
        self.store = store
        self.tmp = tmp
        self.blocking = blocking
        self.plan = plan
    }

    public enum ExportFormat: Sendable { case csv, json }

    /// The inventory as CSV or JSON (streamed to a temporary file off the event loop, then read whole).
    public func export(_ household: HouseholdID, as format: ExportFormat, now: Date) async throws -> Data {
        if format == .csv { try await plan.entitlement(household).checkCSVExport() }
        let (maker, url) = (maker, tmp.appendingPathComponent("export-\(UUID().uuidString.lowercased())"))
        return try await blocking.run {
            defer { try? FileManager.default.removeItem(at: url) }
            switch format {
            case .csv: _ = try maker.exportCSV(household, to: url)
            case .json: _ = try maker.exportJSON(household, to: url, now: now)
            }
            return try Data(contentsOf: url)
        }
    }

    /// Whether a report has photos unless asked otherwise, as its form's box is ticked: a loss list always, the
    /// inventory when the household's plan has them (the box cannot be ticked on Free).
    public func photosByDefault(_ household: HouseholdID, for kind: ReportKind) async throws -> Bool {
        kind == .lossList ? true : try await plan.entitlement(household).allows(.reportPhotos)
    }

    /// Queues a report (within the household's plan); its job's result names the report once it is in the history.
    /// A loss list lists the household's items among those chosen (each once, others' ids left out), and at least one.
    public func start(_ household: HouseholdID, _ request: ReportRequest) async throws -> Job {
        let entitlement = try await plan.entitlement(household)
        var request = request
        switch request {
        case .inventory(let options): try entitlement.checkReportPhotos(options.includePhotos)
        case .lossList(var options):
            var seen = Set<ItemID>()
            let chosen = options.itemIDs.filter { seen.insert($0).inserted }
            let owned = Set(try await items.items(household, ids: chosen).map(\.item.id))
            options.itemIDs = chosen.filter(owned.contains)
            guard !options.itemIDs.isEmpty else { throw DomainError.notFound("The items") }
            try entitlement.checkLossList(count: options.itemIDs.count)
            request = .lossList(options)
        }
        return try await queue.enqueue(household, kind: JobKind.report, payload: request)
    }

    public struct Made: Codable, Sendable {
        public let reportID: UUID
    }
}

public struct ReportJobHandler: JobHandler {
    let reports: any ReportMaking
    /// The export history the made report is kept in.
    let store: any ReportStore
    /// Where reports are rendered before they are kept (on the same disk as the reports folder).
    let tmp: URL
    let blocking: BlockingPool
    let now: @Sendable () -> Date
    public let kind = JobKind.report
    public let concurrency: Int
    /// A report interrupted by a stop is made again from the start at the next start.
    public let retry = RetryPolicy(maxAttempts: 2, resumesAfterStop: true)

    /// `tmp`: this server's temporary folder (the data folder's `tmp/`).
    public init(reports: any ReportMaking, store: any ReportStore, tmp: URL, blocking: BlockingPool, concurrency: Int = 1,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.reports = reports
        self.store = store
        self.tmp = tmp
        self.blocking = blocking
        self.concurrency = concurrency
        self.now = now
    }

    public func run(_ job: Job, context: JobContext) async throws -> String {
        let request = try job.decodedPayload(as: ReportRequest.self)
        let (reports, at) = (reports, now())
        let file = tmp.appendingPathComponent("report-\(UUID().uuidString.lowercased()).pdf")
        defer { try? FileManager.default.removeItem(at: file) }  // gone already once kept
        do {
            let options = try await blocking.run {
                try reports.generate(job.householdID, request: request, to: file, now: at) { done, total in
                    try? context.progress(done: Int64(done), total: Int64(total))
                }
            }
            let report = try await store.recordReport(job.householdID, kind: request.kind.rawValue, options: options, file: file, now: at)
            return try JSONEncoder.jobText(ReportsService.Made(reportID: report.id))
        } catch let error as DomainError {
            throw JobFailure(code: "invalid_request", message: error.message)
        } catch is PDFFileCheck.Incomplete {
            throw JobFailure(code: "report_incomplete",
                             message: "The report could not be written completely (is the server’s disk full?). Nothing was kept; try again.")
        }
    }

    /// The report is in the history and its file is a whole PDF.
    public func verify(_ job: Job, result: String) async throws {
        guard let made = try? JSONDecoder().decode(ReportsService.Made.self, from: Data(result.utf8)),
              let (_, url) = try? await store.report(job.householdID, made.reportID) else {
            throw JobFailure(code: "report_missing", message: "The report was not kept. Try again.")
        }
        do { try PDFFileCheck.check(url) } catch {
            throw JobFailure(code: "report_incomplete",
                             message: "The report could not be written completely (is the server’s disk full?). Try again.")
        }
    }
}

// MARK: - Backups

/// Backups written in the background into the data folder's temporary files, downloaded when done,
/// removed by the temporary-file sweep after `BackupService.lifetime`.
public struct BackupService: Sendable {
    let queue: JobQueue
    /// This server's temporary folder (the data folder's `tmp/`).
    let tmp: URL

    public init(queue: JobQueue, tmp: URL) {
        self.queue = queue
        self.tmp = tmp
    }

    /// A file of this name in the folder archives are written to and uploads kept in (`tmp/web/`).
    public func file(_ name: String) throws -> URL {
        try Self.folder(tmp: tmp).appendingPathComponent(name)
    }

    /// How long a finished archive is kept for download.
    public static let lifetime: TimeInterval = 3600

    public struct Request: Codable, Sendable {
        public let downloadName: String
        /// The owner asked for the valuation providers' keys to be in the archive (in clear).
        public var includeProviderKeys: Bool?
    }

    public struct Made: Codable, Sendable {
        /// The archive's name in the data folder's `tmp/web/`.
        public let file: String
        public let bytes: Int64
        public let downloadName: String

        public init(file: String, bytes: Int64, downloadName: String) {
            self.file = file
            self.bytes = bytes
            self.downloadName = downloadName
        }
    }

    /// Queues an export of the household; one already queued or being made with the same choice of keys is answered
    /// instead of a second (asking again, from the page or the API, does not pile up archives on the disk).
    public func startExport(_ household: Household, now: Date, includeProviderKeys: Bool = false) async throws -> Job {
        if let making = try await queue.unfinished(household.id, kind: JobKind.backup),
           (try? making.decodedPayload(as: Request.self).includeProviderKeys ?? false) == includeProviderKeys {
            return making
        }
        let day = household.day(at: now).iso
        let safeName = household.name.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? String($0) : "-" }.joined()
        return try await queue.enqueue(household.id, kind: JobKind.backup, payload: Request(downloadName: "nestory-\(safeName.prefix(40))-\(day).zip",
                                                                                includeProviderKeys: includeProviderKeys ? true : nil))
    }

    /// The folder backups and uploads wait in (inside the data folder's tmp/).
    public static func folder(_ database: AppDatabase) throws -> URL {
        try folder(tmp: database.folder.tmpURL)
    }

    static func folder(tmp: URL) throws -> URL {
        let url = tmp.appendingPathComponent("web", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

public struct BackupJobHandler: JobHandler {
    let backups: any BackupMaking
    /// The data folder's tmp/, where finished backups wait (tmp/web/).
    let tmp: URL
    let now: @Sendable () -> Date
    public let kind = JobKind.backup
    /// One at a time: backups are disk-bound, several at once only slow each other.
    public let concurrency = 1
    public let retry = RetryPolicy(maxAttempts: 2, resumesAfterStop: true)

    public init(backups: any BackupMaking, tmp: URL, now: @escaping @Sendable () -> Date = Date.init) {
        self.backups = backups
        self.tmp = tmp
        self.now = now
    }

    public func run(_ job: Job, context: JobContext) async throws -> String {
        let request = try job.decodedPayload(as: BackupService.Request.self)
        let name = Self.archiveName(job)
        let file = try BackupService.folder(tmp: tmp).appendingPathComponent(name)
        do {
            // The writer reads the rows through the store and writes the archive on a thread of its own.
            let bytes = try await backups.writeBackup(household: job.householdID, to: file, now: now(),
                                                      includeProviderKeys: request.includeProviderKeys ?? false) { done, total in
                try? context.progress(done: done, total: total)
            }
            return try JSONEncoder.jobText(BackupService.Made(file: name, bytes: bytes, downloadName: request.downloadName))
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }

    /// The name of a backup job's archive in the temporary folder.
    static func archiveName(_ job: Job) -> String { "export-\(job.id).zip" }

    /// The archive is there, of the size written, and ends with a ZIP end-of-central-directory record.
    public func verify(_ job: Job, result: String) throws {
        let failure = JobFailure(code: "backup_incomplete",
                                 message: "The backup could not be written completely (is the server’s disk full?). Try again.")
        guard let made = try? JSONDecoder().decode(BackupService.Made.self, from: Data(result.utf8)),
              let folder = try? BackupService.folder(tmp: tmp),
              let handle = try? FileHandle(forReadingFrom: folder.appendingPathComponent(made.file)) else { throw failure }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        guard size == UInt64(made.bytes), size >= 22 else { throw failure }
        let tail = min(size, 65_557)
        try? handle.seek(toOffset: size - tail)
        guard let bytes = try? handle.read(upToCount: Int(tail)), bytes.range(of: Data([0x50, 0x4B, 0x05, 0x06])) != nil else { throw failure }
    }
}

// MARK: - Receipts

/// Receipts: the image is kept the moment it arrives, then read in the background.
public struct ReceiptsService: Sendable {
    /// Receipts and their files, on whichever engine the bootstrap chose.
    let receipts: any AttachmentStore
    /// Where an upload is staged before the store keeps it.
    let files: any BlobFiles
    /// The readings' jobs.
    let jobs: any JobStore
    let queue: JobQueue
    let blocking: BlockingPool
    /// Whether a reader is configured (else the fields are typed by hand).
    public let reads: Bool
    let now: @Sendable () -> Date

    public init(receipts: any AttachmentStore, files: any BlobFiles, jobs: any JobStore, queue: JobQueue,
                blocking: BlockingPool, reads: Bool, now: @escaping @Sendable () -> Date = Date.init) {
        self.receipts = receipts
        self.files = files
        self.jobs = jobs
        self.queue = queue
        self.blocking = blocking
        self.reads = reads
        self.now = now
    }

    public struct Request: Codable, Sendable {
        public let receiptID: ReceiptID
        public let currency: String
        public let capturedOn: String
    }

    /// Keeps the receipt's image (linked to `item` if given), then queues its reading.
    public func add(_ household: Household, item: ItemID?, data: Data, contentType: String, today: CalendarDate) async throws -> Receipt {
        let (files, at) = (files, now())
        let staged = try await blocking.run { try files.stage(data) }
        let receipt = try await receipts.addReceipt(household.id, itemID: item, staged: staged, contentType: contentType,
                                                    fields: ReceiptFields(), now: at)
        if reads {
            try await queue.enqueue(household.id, kind: JobKind.receipt, subject: receipt.id.description,
                              payload: Request(receiptID: receipt.id, currency: household.currency.code, capturedOn: today.iso))
        }
        return receipt
    }

    /// The household's receipts (or those linked to no item yet), newest first, a page at a time (the receipts list,
    /// recent captures, the API, MCP).
    public func list(_ household: HouseholdID, limit: Int = ReceiptPageCursor.maxLimit, after: PageCursor? = nil,
                     unlinkedOnly: Bool = false) async throws -> Page<ReceiptListing> {
        try await receipts.receipts(household, limit: limit, after: after, unlinkedOnly: unlinkedOnly)
    }

    /// The page the parameters ask for (`ReceiptListParameters`).
    public func list(_ household: HouseholdID, _ parameters: ReceiptListParameters) async throws -> Page<ReceiptListing> {
        try await list(household, limit: parameters.limit, after: parameters.after, unlinkedOnly: parameters.unlinkedOnly)
    }

    /// One receipt of the household, with the item it is linked to.
    public func receipt(_ household: HouseholdID, _ receipt: ReceiptID) async throws -> ReceiptListing {
        try await receipts.receipt(household, receipt)
    }

    /// Saves the fields as the person checked or typed them (amounts in the form's currency, else `defaultCurrency`),
    /// from a form that showed `base` (nil: the receipt as it is now). A field the form did not send is left as it is.
    /// What was saved meanwhile in fields this edit left alone is kept; where both changed a field, `ReceiptEditConflict`
    /// and nothing is saved. A field that does not read is a `DomainError.validation` naming it.
    public func save(_ household: HouseholdID, _ receipt: ReceiptID, values: ReceiptFormValues, base: ReceiptFormValues?,
                     defaultCurrency: CurrencyCode) async throws {
        if case .failure(let error) = values.fields(defaultCurrency: defaultCurrency, rawText: nil) { throw error }
        for _ in 0..<3 {
            let current = try await receipts.receipt(household, receipt)
            let saved = ReceiptFormValues(receipt: current.receipt)
            let merge = values.merged(base: base ?? saved, saved: saved)
            guard merge.conflicts.isEmpty else {
                // Theirs where only they changed a field, this edit's where both did.
                var proposed = merge.values
                for field in merge.conflicts { proposed.values[field] = values[field] }
                throw ReceiptEditConflict(current: current, fields: merge.conflicts, proposed: proposed)
            }
            let fields = try merge.values.fields(defaultCurrency: defaultCurrency, rawText: current.receipt.rawText).get()
            do {
                try await receipts.updateReceipt(household, receipt, fields, expected: current.receipt.fields)
                return
            } catch is ReceiptChanged {
                continue  // saved again between the read and the write: merge onto that
            }
        }
        throw ReceiptEditConflict(current: try await receipts.receipt(household, receipt), fields: [], proposed: values)
    }

    /// Links the receipt to an item of the household (nil unlinks it).
    public func link(_ household: HouseholdID, _ receipt: ReceiptID, to item: ItemID?) async throws {
        try await receipts.linkReceipt(household, receipt, to: item)
    }

    /// Deletes a receipt (a wrong photo, the same receipt twice): the item it was linked to loses it, its photo goes
    /// once nothing else uses it, and a reading still waiting or under way is cancelled. Answers the item it was on.
    @discardableResult
    public func delete(_ household: HouseholdID, _ receipt: ReceiptID) async throws -> ItemID? {
        let item = try await receipts.receipt(household, receipt).receipt.itemID
        if let job = try await reading(household, receipt), !job.state.isFinished {
            _ = try? await jobs.cancelJob(household, job.id, now: now())
        }
        try await receipts.deleteReceipt(household, receipt)
        return item
    }

    /// The reading of a receipt: its latest job, if it was ever queued.
    public func reading(_ household: HouseholdID, _ receipt: ReceiptID) async throws -> Job? {
        try await jobs.latestJob(household, kind: JobKind.receipt, subject: receipt.description)
    }
}

public struct ReceiptJobHandler: JobHandler {
    let reader: ReceiptReader
    /// The receipts, their files' bytes and what was read, on whichever engine the bootstrap chose.
    let receipts: any AttachmentStore
    public let kind = JobKind.receipt
    public let concurrency: Int
    /// The reader may be busy (its queue full): try again a little later; reading twice is harmless.
    public let retry = RetryPolicy(maxAttempts: 4, baseDelay: 5, maxDelay: 120, resumesAfterStop: true)

    /// The image is read by the store off the job's own thread (an object store's GET included: every engine reads
    /// files on threads of its own).
    public init(reader: ReceiptReader, receipts: any AttachmentStore, concurrency: Int = 1) {
        self.reader = reader
        self.receipts = receipts
        self.concurrency = concurrency
    }

    public struct Read: Codable, Sendable {
        /// Nil when fields were found; else what to tell the person (the image is kept for typing).
        public let message: String?
    }

    public func run(_ job: Job, context: JobContext) async throws -> String {
        let request = try job.decodedPayload(as: ReceiptsService.Request.self)
        let listing: ReceiptListing
        do { listing = try await receipts.receipt(job.householdID, request.receiptID) } catch DomainError.notFound { throw Self.deleted }
        let (data, _) = try await receipts.attachmentData(job.householdID, sha256: listing.receipt.attachment.sha256)
        let hints = ReceiptHints(currency: try? CurrencyCode(request.currency), capturedOn: try? CalendarDate(iso: request.capturedOn))
        let reading: ReceiptReading
        do {
            reading = try await reader.read(imageData: data, hints: hints)
        } catch {
            throw Self.failure(error)
        }
        let read = ReceiptFields(vendor: reading.vendor?.value, total: reading.total?.value, tax: reading.tax?.value,
                                 purchaseDate: reading.purchaseDate?.value, rawText: reading.rawText, confidence: reading.overallConfidence)
        do {
            // Only over what the receipt held when the reading began: fields a person saved since stay theirs.
            try await receipts.updateReceipt(job.householdID, request.receiptID, read, expected: listing.receipt.fields)
        } catch DomainError.notFound {
            throw Self.deleted
        } catch is ReceiptChanged {
            let now = try await receipts.receipt(job.householdID, request.receiptID).receipt.fields
            if now.rawText == nil, reading.rawText != nil {
                var kept = now
                kept.rawText = reading.rawText  // the text still makes the receipt searchable
                try? await receipts.updateReceipt(job.householdID, request.receiptID, kept, expected: now)
            }
        }
        let nothing = reading.vendor == nil && reading.total == nil && reading.purchaseDate == nil
        return try JSONEncoder.jobText(Read(message: nothing
            ? "No receipt text could be read in this picture (blank, dark, or not a receipt?). The image is kept: type the fields below."
            : nil))
    }

    /// The receipt was deleted before its reading was kept.
    static let deleted = JobFailure(code: "receipt_deleted", message: "The receipt was deleted before it was read.")

    static func failure(_ error: RecognitionError) -> JobFailure {
        switch error {
        case .unreadableImage:
            return JobFailure(code: "image_unreadable",
                              message: "The image is damaged or is not a picture Nestory can read. It is kept: type the fields below.")
        case .imageTooLarge:
            return JobFailure(code: "image_too_large",
                              message: "The picture is too large to read. It is kept: type the fields below, or take a smaller photo.")
        case .engineUnavailable:
            return JobFailure(code: "reader_unavailable", message: "Reading receipts is not available on this server right now: type the fields below.")
        case .recognitionFailed:
            return JobFailure(code: "reader_busy",
                              message: "The server is busy reading other receipts; it will try again shortly. The image is kept: you can type the fields below.",
                              retryable: true)
        }
    }
}
