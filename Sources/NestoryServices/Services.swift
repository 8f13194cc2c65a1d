import Foundation
import Logging
import NestoryBackup
import NestoryDomain
import NestoryHTTP
import NestoryImaging
import NestoryJobs
import NestoryReceipts
import NestoryReminders
import NestoryReports
import NestoryStore
import NestoryStoreInterfaces

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
    /// The pages' error reports, limited per session.
    public let clientErrors: ClientErrorsService
    /// Warranty reminders, the weekly nudge, the calendar feed and the household's webhook.
    public let reminders: RemindersService
    /// What items are worth: the offline estimate, values entered by hand, the history.
    public let valuations: ValuationService
    /// Free or Pro, and licence keys.
    public let plan: PlanService
    /// The app lock, signed-in sessions and passkeys.
    public let security: SecurityService
    /// Personal API tokens (bearer authentication for the API and MCP).
    public let tokens: TokenService
    /// Runs the jobs; a service beside the HTTP server (`ServiceGroup`).
    public let runner: JobRunner
    /// A household's jobs as its pages ask about them: one, the recent ones of a kind, cancelling.
    public let jobs: JobsService
    /// Where services put jobs (on SQLite, in their own transactions); it wakes the runner.
    public let queue: JobQueue
    public let blocking: BlockingPool
    /// The engine's stores, for what runs beside the services (housekeeping, health, product lookup).
    public let stores: Stores
    /// This server's thumbnails (`renditions/` in its data folder), which the housekeeping sweeps.
    public let renditions: RenditionCache

    /// How many jobs of each kind may run at once.
    public struct Concurrency: Sendable {
        public var reports = 1
        public var receipts = 1

        public init(reports: Int = 1, receipts: Int = 1) {
            self.reports = reports
            self.receipts = receipts
        }
    }

    /// Where webhooks go out: the sender (the live one, or a test's) and whether private addresses are allowed.
    public struct Webhooks: Sendable {
        public var sender: any WebhookSending
        public var allowPrivateAddresses: Bool
        /// The first retry's longest wait (doubling each time, up to an hour).
        public var retryDelay: TimeInterval

        public init(sender: any WebhookSending, allowPrivateAddresses: Bool = false, retryDelay: TimeInterval = 30) {
            self.sender = sender
            self.allowPrivateAddresses = allowPrivateAddresses
            self.retryDelay = retryDelay
        }

        /// For tests that do not send webhooks: a delivery fails loudly.
        public static let unavailable = Webhooks(sender: UnavailableWebhookSender())
    }

    /// `stores`: the engine the bootstrap picked, with its stored files. `folder`: this server's data folder, for its
    /// temporary files, its thumbnails (`renditions/`, a cache of its own) and, unless `secrets` is given, the key that
    /// seals providers' keys (`secrets.key`).
    public init(stores: Stores, folder: DataFolder, secrets: SecretKeys? = nil,
                passwordHasher: any PasswordHasher, imaging: any ImageProcessing, reportMaker: any ReportMaking,
                backupMaker: any BackupMaking, receiptReader: ReceiptReader?, maxPhotoBytes: Int64, plan: PlanService, webhooks: Webhooks = .unavailable,
                valuationProviders: any ValuationProviderMaking = UnavailableValuationProviders(), valuationDefaults: ValuationDefaults = ValuationDefaults(),
                valuationAllowPrivateEndpoints: Bool = false, valuationRequestsPerMinute: Int = 60, valuationConcurrency: Int = 8,
                tokenRequestsPerMinute: Int = 600,
                signInLimits: SignInLimits = SignInLimits(), blocking: BlockingPool = BlockingPool(),
                concurrency: Concurrency = Concurrency(), drainTimeout: Duration = .seconds(25), jobLease: Duration = .seconds(30), idempotencyWindow: TimeInterval = 86_400,
                logger: Logger = Logger(label: "nestory.jobs"), now: @escaping @Sendable () -> Date = Date.init) {
        self.stores = stores
        renditions = RenditionCache(folder: folder)
        var handlers: [any JobHandler] = [
            ReportJobHandler(reports: reportMaker, store: stores.reports, tmp: folder.tmpURL, blocking: blocking, concurrency: concurrency.reports,
                             now: now),
            BackupJobHandler(backups: backupMaker, tmp: folder.tmpURL, now: now),
        ]
        if let receiptReader {
            handlers.append(ReceiptJobHandler(reader: receiptReader, receipts: stores.attachments, concurrency: concurrency.receipts))
        }
        let foreground = DataService(stores: stores, blobs: stores.files, folder: folder, secrets: secrets, blocking: blocking, plan: plan, now: now)
        handlers += [RestoreJobHandler(data: foreground), ImportJobHandler(data: foreground)]
        let itemStore = stores.items
        let attachmentStore = stores.attachments
        let items = ItemsService(items: itemStore, attachments: attachmentStore, accounts: stores.accounts, reminders: stores.reminders,
                                 files: stores.files, renditions: renditions, imaging: imaging,
                                 blocking: blocking, maxBytes: maxPhotoBytes, plan: plan, now: now)
        let valuations = ValuationService(store: stores.valuations, items: itemStore, accounts: stores.accounts, jobs: stores.jobs,
                                          attachments: attachmentStore, secrets: secrets ?? .folder(folder), providers: valuationProviders,
                                          defaults: valuationDefaults, endpoints: .valuationEndpoints(allowPrivate: valuationAllowPrivateEndpoints),
                                          blocking: blocking, now: now)
        handlers.append(ValuationJobHandler(valuations: valuations, items: items, pacer: ProviderPacer(requestsPerMinute: valuationRequestsPerMinute),
                                            width: valuationConcurrency))
        let addressGuard = PublicAddressGuard.webhooks(allowPrivate: webhooks.allowPrivateAddresses)
        let reminderStore = stores.reminders
        handlers.append(WebhookJobHandler(store: reminderStore, sender: webhooks.sender, addressGuard: addressGuard,
                                          retryDelay: webhooks.retryDelay, now: now))
        let jobStore = stores.jobs
        jobs = JobsService(store: jobStore, now: now)
        runner = JobRunner(jobs: jobStore, handlers: handlers, lease: jobLease, logger: logger, drainTimeout: drainTimeout, now: now)
        let queue = runner.queue()
        self.queue = queue
        self.blocking = blocking
        accounts = AccountService(stores: stores, passwordHasher: passwordHasher, blocking: blocking, limits: signInLimits, now: now,
                                  tmp: folder.tmpURL)
        self.plan = plan
        self.items = items
        places = PlacesService(items: itemStore, now: now)
        reports = ReportsService(queue: queue, maker: reportMaker, store: stores.reports, tmp: folder.tmpURL, blocking: blocking, plan: plan,
                                 items: itemStore)
        backups = BackupService(queue: queue, tmp: folder.tmpURL)
        data = DataService(stores: stores, blobs: stores.files, folder: folder, secrets: secrets, blocking: blocking, queue: queue, plan: plan, now: now)
        receipts = ReceiptsService(receipts: stores.attachments, files: stores.files, jobs: stores.jobs, queue: queue, blocking: blocking,
                                   reads: receiptReader != nil, now: now)
        idempotency = IdempotencyService(store: stores.idempotency, window: idempotencyWindow, now: now)
        captureCounters = CaptureCountersService(store: stores.captureCounters, now: now)
        clientErrors = ClientErrorsService(budget: stores.requestBudget, now: now)
        self.valuations = valuations
        reminders = RemindersService(store: reminderStore, blocking: blocking, queue: queue, addressGuard: addressGuard, now: now)
        security = SecurityService(accounts: accounts, now: now)
        tokens = TokenService(store: stores.tokens, accounts: accounts.accounts, budget: stores.requestBudget, requestsPerMinute: tokenRequestsPerMinute, now: now)
    }
}

/// The webhook sender of a test that does not expect webhooks: any delivery is a loud failure.
struct UnavailableWebhookSender: WebhookSending {
    func post(_ url: URL, connectingTo address: String?, body: Data, headers: [String: String]) async throws -> Int {
        throw JobFailure(code: "no_sender", message: "No webhook sender was given to Services (a test double was expected).")
    }
}
