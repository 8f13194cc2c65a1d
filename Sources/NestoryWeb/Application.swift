import Foundation
import NestoryBarcodes
import NestoryProducts
import NestoryReceipts
import Hummingbird
import Logging
import NestoryDomain
import NestoryImaging
import NestoryServices
import NestoryStore

/// Where the server listens.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Idle and half-sent connections are closed after this.
    public var idleTimeout: Duration

    public init(host: String = "127.0.0.1", port: Int = 8080, idleTimeout: Duration = .seconds(60)) {
        self.host = host
        self.port = port
        self.idleTimeout = idleTimeout
    }
}

/// Sizes the server refuses beyond, with a clear message.
public struct Limits: Sendable {
    /// Largest photo upload, checked while it streams in, before any decoding.
    public var maxPhotoBytes: Int64 = 40_000_000
    /// Largest backup archive to restore (streamed to disk, then checked entry by entry).
    public var maxArchiveBytes: Int64 = 64_000_000_000
    /// Largest CSV file to import (read whole to preview it).
    public var maxCSVBytes: Int64 = 50_000_000
    /// Largest picture to search for a barcode (a camera frame is far smaller).
    public var maxScanBytes: Int64 = 15_000_000
    /// Photos with a longer side are downsized in the browser before upload, to JPEG at this quality (%).
    public var photoLongSide = 2560
    public var photoQuality = 85

    public init(maxPhotoBytes: Int64 = 40_000_000, maxArchiveBytes: Int64 = 64_000_000_000, maxCSVBytes: Int64 = 50_000_000) {
        self.maxPhotoBytes = maxPhotoBytes
        self.maxArchiveBytes = maxArchiveBytes
        self.maxCSVBytes = maxCSVBytes
    }
}

/// The live dependencies the web module is given (by the bootstrap, or by tests).
public struct WebDependencies: Sendable {
    public let cookies: CookiePolicy
    public let now: @Sendable () -> Date
    /// The use cases: accounts, items, places, reports, backups, receipts (and their job runner).
    public let services: Services
    public var blocking: BlockingPool { services.blocking }
    public var accounts: AccountService { services.accounts }
    public var items: ItemsService { services.items }
    public var places: PlacesService { services.places }
    public let limits: Limits
    /// Checks uploads and makes thumbnails and display sizes (libvips in production).
    public let imaging: any ImageProcessing
    /// Uploads waiting for the person's next choice (an archive to restore, a CSV to map).
    public let transfers = DataTransfers()
    /// The JSON item list's recent answers, kept while the household's items are unchanged.
    let itemPages = ItemPageCache()
    /// Finds barcodes in pictures (zbar in production); nil where scanning is not offered.
    public let barcodes: (any BarcodeDecoding)?
    /// Product lookup by barcode: the household's items, the catalogue, online providers.
    public let products: ProductLookup
    /// /metrics and /health/ready.
    public let operations: Operations
    /// The access log and anything a request reports.
    public let logger: Logger
    /// The operator's switch for barcode scanning (`capture.scanning`); the owner's is the household's.
    public let scanning: Bool
    /// How often due reminders are looked for and queued for webhooks.
    public var remindersInterval: Duration = .seconds(3600)
    /// Runs once the port is bound and requests are answered (start-up work that must not delay that).
    public var onServerRunning: @Sendable () -> Void = {}
    /// The app lock's and passkeys' settings.
    public var security = SecuritySettings()
    /// The hosts and origins the MCP endpoint accepts beside this machine's.
    public var mcp = MCPSettings()

    public init(services: Services, imaging: any ImageProcessing, cookies: CookiePolicy = CookiePolicy(),
                limits: Limits = Limits(), barcodes: (any BarcodeDecoding)? = nil, productProviders: [any ProductProvider],
                operations: Operations = Operations(), logger: Logger = Logger(label: "nestory.http"), scanning: Bool = true,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.scanning = scanning
        self.operations = operations
        self.logger = logger
        self.services = services
        self.barcodes = barcodes
        self.products = ProductLookup(items: services.stores.items, store: services.stores.products, providers: productProviders)
        self.limits = limits
        self.imaging = imaging
        self.cookies = cookies
        self.now = now
    }

    /// Whether this household's Capture tab scans barcodes: the operator's switch and the owner's, both on.
    /// Asked on every scan request, so turning it off takes effect at a scanner's next frame.
    func scanningEnabled(_ household: HouseholdID) async throws -> Bool {
        guard scanning else { return false }
        return try await products.store.scanningEnabled(household)
    }

    /// The household's calendar day now (on its clock: `Household.clock`): the bound for "not in the future" checks, and
    /// the day of what it makes today.
    func today(_ household: Household) -> CalendarDate {
        household.day(at: now())
    }
}

/// The app lock's and passkeys' settings (`appLock.secondsPerMinute`, `passkeys.rpID`, `passkeys.origin`).
public struct SecuritySettings: Sendable {
    /// How long one minute of a lock timeout lasts, in seconds: 60, except in tests that cannot wait minutes.
    public var secondsPerMinute: TimeInterval
    /// The WebAuthn relying party id passkeys are made for; nil: the host each request reached.
    public var rpID: String?
    /// The origin browsers must report for passkeys; nil: the request's host, over https with secure cookies.
    public var origin: String?

    public init(secondsPerMinute: TimeInterval = 60, rpID: String? = nil, origin: String? = nil) {
        (self.secondsPerMinute, self.rpID, self.origin) = (secondsPerMinute, rpID, origin)
    }
}

/// The router, apart from the server, so tests can drive it directly.
public func buildRouter(_ dependencies: WebDependencies) -> Router<AppRequestContext> {
    // HEAD is answered wherever GET is (headers, no body): uptime checks and `curl -I` ask with it, and RFC 9110
    // has every general-purpose server support it (it was 404 everywhere, /health included).
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: RequestLogMiddleware(logger: dependencies.logger))
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ErrorMiddleware())
    HealthController(database: dependencies.services.stores.status, operations: dependencies.operations).addRoutes(to: router)
    AssetsController().addRoutes(to: router)
    router.add(middleware: SessionMiddleware(accounts: dependencies.accounts.store, cookies: dependencies.cookies, now: dependencies.now,
                                             photos: PhotoHints(dependencies.limits), tokens: dependencies.services.tokens))
    // The app lock: a locked session reaches only unlocking and signing out (see AppLockMiddleware).
    router.add(middleware: AppLockMiddleware(security: dependencies.services.security, secondsPerMinute: dependencies.security.secondsPerMinute,
                                             now: dependencies.now))
    router.add(middleware: ViewerPreferencesMiddleware(reminders: dependencies.services.reminders,
                                                       secure: dependencies.cookies.secure))
    RemindersController(dependencies: dependencies).addRoutes(to: router)
    TipsController(dependencies: dependencies).addRoutes(to: router)
    InventoryController(dependencies: dependencies).addRoutes(to: router)
    PlacesController(dependencies: dependencies).addRoutes(to: router)
    DataController(dependencies: dependencies).addRoutes(to: router)
    // Every POST of the API honours Idempotency-Key (the offline queue's replays).
    let api = router.group("api/v1").add(middleware: IdempotencyMiddleware(
        idempotency: dependencies.services.idempotency,
        maxBodyBytes: max(dependencies.limits.maxPhotoBytes, dependencies.limits.maxScanBytes)))
    AccountController(dependencies: dependencies).addRoutes(to: router, api: api)
    SecurityController(dependencies: dependencies).addRoutes(to: router, api: api)
    TokensController(dependencies: dependencies).addRoutes(to: router, api: api, settings: AccountController(dependencies: dependencies))
    CaptureController(dependencies: dependencies).addRoutes(to: router, api: api)
    ReceiptsController(dependencies: dependencies).addRoutes(to: router, api: api)
    ReportsController(dependencies: dependencies).addRoutes(to: router)
    ValuationController(dependencies: dependencies).addRoutes(to: router)
    APIController(dependencies: dependencies).addRoutes(to: api)
    PlacesController(dependencies: dependencies).addAPIRoutes(to: api)
    ReportsController(dependencies: dependencies).addAPIRoutes(to: api)
    ValuationAPIController(dependencies: dependencies).addRoutes(to: api)
    JobsController(dependencies: dependencies).addRoutes(to: api)
    DataController(dependencies: dependencies).addAPIRoutes(to: api)
    ClientReportsController(dependencies: dependencies).addRoutes(to: api)
    MCPController(dependencies: dependencies).addRoutes(to: router)
    return router
}

/// The whole application: the router served on the configured address.
public func buildApplication(_ dependencies: WebDependencies, configuration: ServerConfiguration,
                             logger: Logger = Logger(label: "nestory")) -> some ApplicationProtocol {
    // The job runner and the housekeeping (temporary files, unused stored files) are services beside the
    // server: on SIGTERM the server stops taking requests first, then running jobs drain.
    Application(
        router: buildRouter(dependencies),
        server: .http1OnEventLoops(configuration: .init(idleTimeout: .nanoseconds(Int64(configuration.idleTimeout.components.seconds) * 1_000_000_000))),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Nestory"),
        services: [dependencies.services.runner,
                   Housekeeping(stores: dependencies.services.stores, renditions: dependencies.services.renditions, idempotencyWindow: dependencies.services.idempotency.window,
                                pendingUploads: { dependencies.transfers.pendingFiles() }),
                   ReminderDispatcher(reminders: dependencies.services.reminders, interval: dependencies.remindersInterval)],
        onServerRunning: { _ in dependencies.onServerRunning() },
        logger: logger
    )
}
