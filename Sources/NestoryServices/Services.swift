import Foundation
import Logging
import NestoryBackup
import NestoryDomain
import NestoryImaging
import NestoryJobs
import NestoryReceipts
import NestoryReports
import NestoryStore

/// Every use-case service and the job runner that does their background work, built once from the live
/// implementations the bootstrap chose (or a test's doubles). The web app and the command line take
/// their services from here.
public struct Services: Sendable {
    public let accounts: AccountService
    public let items: ItemsService
    public let places: PlacesService
    public let reports: ReportsService
    public let backups: BackupService
    public let receipts: ReceiptsService
    public let data: DataService
    /// The API's idempotency keys: what was answered, for replays.
    public let idempotency: IdempotencyService
    /// The capture screen's daily counters.
    public let captureCounters: CaptureCountersService
    /// Runs the jobs; a service beside the HTTP server (`ServiceGroup`).
    public let runner: JobRunner
    public let blocking: BlockingPool

    /// How many jobs of each kind may run at once.
    public struct Concurrency: Sendable {
        public var reports = 1
        public var receipts = 1

        public init(reports: Int = 1, receipts: Int = 1) {
            self.reports = reports
            self.receipts = receipts
        }
    }

    public init(database: AppDatabase, passwordHasher: any PasswordHasher, imaging: any ImageProcessing, reportMaker: any ReportMaking,
                backupMaker: any BackupMaking, receiptReader: ReceiptReader?, maxPhotoBytes: Int64,
                signInLimits: SignInLimits = SignInLimits(), blocking: BlockingPool = BlockingPool(),
                concurrency: Concurrency = Concurrency(), drainTimeout: Duration = .seconds(25), idempotencyWindow: TimeInterval = 86_400,
                logger: Logger = Logger(label: "nestory.jobs"), now: @escaping @Sendable () -> Date = Date.init) {
        var handlers: [any JobHandler] = [
            ReportJobHandler(reports: reportMaker, database: database, blocking: blocking, concurrency: concurrency.reports, now: now),
            BackupJobHandler(backups: backupMaker, database: database, blocking: blocking, now: now),
        ]
        if let receiptReader {
            handlers.append(ReceiptJobHandler(reader: receiptReader, database: database, concurrency: concurrency.receipts))
        }
        let foreground = DataService(database: database, blocking: blocking, now: now)
        handlers += [RestoreJobHandler(data: foreground), ImportJobHandler(data: foreground)]
        runner = JobRunner(database: database, handlers: handlers, logger: logger, drainTimeout: drainTimeout, now: now)
        let queue = runner.queue
        self.blocking = blocking
        accounts = AccountService(database: database, passwordHasher: passwordHasher, blocking: blocking, limits: signInLimits, now: now)
        items = ItemsService(database: database, imaging: imaging, blocking: blocking, maxBytes: maxPhotoBytes, now: now)
        places = PlacesService(database: database, blocking: blocking, now: now)
        reports = ReportsService(queue: queue, maker: reportMaker, database: database, blocking: blocking)
        backups = BackupService(queue: queue)
        data = DataService(database: database, blocking: blocking, queue: queue, now: now)
        receipts = ReceiptsService(database: database, queue: queue, blocking: blocking, reads: receiptReader != nil, now: now)
        idempotency = IdempotencyService(database: database, blocking: blocking, window: idempotencyWindow, now: now)
        captureCounters = CaptureCountersService(database: database, blocking: blocking, now: now)
    }
}
