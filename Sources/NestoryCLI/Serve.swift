import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import NestoryAuth
import NestoryBackup
import NestoryBarcodes
import NestoryBarcodesLive
import NestoryImaging
import NestoryImagingLive
import NestoryOCR
import NestoryProducts
import NestoryReceipts
import NestoryReminders
import NestoryReportsLive
import NestoryServices
import NestoryStore
import NestoryWeb
import Prometheus

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start the web server (migrating the database first).",
        discussion: """
            Settings come from these flags, then the environment (the variable beside each key below), then a JSON \
            settings file (--config or NESTORY_CONFIG; the keys nested, e.g. {"limits": {"maxPhotoBytes": 20000000}}), \
            then the defaults. Any key can be given as a flag with --set KEY=VALUE. The keys, each with its variable and \
            default:

            \(Settings.help())
            """)

    @Option(name: .customLong("data"), help: "The data folder (database and stored files). Also NESTORY_DATA.")
    var dataPath: String?

    @Option(help: "The address to listen on. Use 0.0.0.0 to accept other machines (behind HTTPS). Also NESTORY_HOST.")
    var host: String?

    @Option(help: "The port to listen on. Also NESTORY_PORT.")
    var port: Int?

    @Flag(help: "Mark cookies Secure: use when browsers reach Nestory over HTTPS (behind a proxy). Also NESTORY_SECURE_COOKIES=true.")
    var secureCookies = false

    @Option(help: "trace, debug, info, notice, warning, error or critical. Also NESTORY_LOG_LEVEL.")
    var logLevel: String?

    @Option(name: .customLong("database"), help: "sqlite (the default, in the data folder) or a postgres:// URL. Also NESTORY_DATABASE_URL.")
    var databaseURL: String?

    @Option(name: .customLong("config"), help: "A JSON settings file. Also NESTORY_CONFIG.")
    var configFile: String?

    @Option(name: .customLong("set"), help: "Any setting, as KEY=VALUE (repeatable), e.g. --set ocr.workers=2.")
    var overrides: [String] = []

    /// What the command line said, by settings key.
    func flags() throws -> [String: String] {
        var flags: [String: String] = [:]
        for pair in overrides {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ValidationError("--set takes KEY=VALUE (got \(pair)).")
            }
            flags[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        if let dataPath { flags["data"] = dataPath }
        if let databaseURL { flags["database.url"] = databaseURL }
        if let host { flags["host"] = host }
        if let port { flags["port"] = String(port) }
        if secureCookies { flags["secureCookies"] = "true" }
        if let logLevel { flags["logLevel"] = logLevel }
        if let configFile { flags["config"] = configFile }
        return flags
    }

    func run() async throws {
        let settings: Settings
        do { settings = try await Settings.read(flags: flags()) } catch let error as Settings.Invalid { throw CLIError(error.description) }
        let level = settings.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "nestory")
        logger.info("settings", metadata: settings.logged)
        for warning in Settings.misspeltEnvironment(ProcessInfo.processInfo.environment) { logger.warning("\(warning)") }
        // libvips' own messages (a warning about a damaged picture's tile, before its load fails) join this
        // log rather than standard error as lines of glib's format.
        let libvipsLogger = Logger(label: "nestory.libvips")
        LibvipsMessages.send { level, message in libvipsLogger.log(level: Logger.Level(level), "\(message)") }
        // Each connection is a file descriptor: the usual soft limit of 1,024 would refuse connections (and
        // /health) long before memory runs short. Raise it to the hard limit.
        var files = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur < files.rlim_max {
            files.rlim_cur = files.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
        }

        let folder = DataFolder(path: settings.data)
        let opened = try await settings.openDatabase(.createAndMigrate)
        let stores = opened.stores
        // Switching an existing data folder to an object store does not move its files: say so once, at start.
        if !(opened.files.backend is LocalBlobBackend) {
            let left = LocalBlobBackend(folder: folder).storedHashes(writtenBefore: .distantFuture).count
            if left > 0 {
                logger.warning("\(left) stored file\(left == 1 ? " is" : "s are") in \(folder.blobsURL.path), which is not read with storage.blobs = \(settings.blobs): rows that name them find no file in \(opened.files.backend.location)")
            }
        }
        // SQLite's structural check of its file runs in the background after start; PostgreSQL checks its own.
        let integrity: BackgroundIntegrityCheck? = if case .sqlite = opened { BackgroundIntegrityCheck() } else { nil }
        if settings.databaseURL != nil, settings.secretsKey == nil {
            logger.notice("secrets.key is not set: this server seals providers' API keys with \(folder.secretsKeyURL.path), which other servers on this database cannot open; give every server the same secrets.key")
        }
        let limits = settings.limits
        let imagingLimits = ImagingLimits(maxFileBytes: Int(limits.maxPhotoBytes))
        let imaging = LazyImageProcessor(limits: imagingLimits) { () throws(ImagingError) in
            try LibvipsImageProcessor(limits: imagingLimits)
        }
        let ocrLogger = Logger(label: "nestory.ocr")
        let recognizer = OCREngine.recognizer(engine: settings.ocrEngine, python: settings.ocrPython, workers: settings.ocrWorkers,
                                              maxQueued: settings.ocrQueue, threads: settings.ocrThreadsPerWorker, timeout: TimeInterval(settings.ocrTimeoutSeconds)) { level, message in
            ocrLogger.log(level: level, "\(message)")
        }
        // The one place live implementations are picked.
        let secrets = try settings.secretKeys()
        let services = Services(
            stores: stores, folder: folder, secrets: secrets,
            passwordHasher: BcryptPasswordHasher(), imaging: imaging,
            reportMaker: stores.reportMaker(folder: folder), backupMaker: stores.backupMaker(folder: folder, secrets: secrets),
            receiptReader: ReceiptReader(recognizer: TimedRecognizer(base: recognizer)), maxPhotoBytes: limits.maxPhotoBytes,
            plan: settings.plan(stores.licences),
            webhooks: .init(sender: LiveWebhookSender(), allowPrivateAddresses: settings.webhooksAllowPrivate),
            valuationProviders: LiveValuationProviders(searchURL: URL(string: settings.valuationSearchURL)!),
            valuationDefaults: ValuationDefaults(analysisBaseURL: settings.valuationAnalysisURL, analysisModel: settings.valuationAnalysisModel,
                                                 analysisKey: settings.valuationAnalysisKey, searchKey: settings.valuationSearchKey),
            valuationAllowPrivateEndpoints: settings.valuationAllowPrivateEndpoints,
            valuationRequestsPerMinute: settings.valuationRequestsPerMinute, valuationConcurrency: settings.valuationConcurrency,
            tokenRequestsPerMinute: settings.tokenRequestsPerMinute,
            signInLimits: SignInLimits(perAccount: settings.signInAccountLimit, perClient: settings.signInClientLimit,
                                       window: TimeInterval(settings.signInWindowMinutes * 60)),
            concurrency: .init(reports: settings.reportJobs, receipts: settings.receiptJobs),
            drainTimeout: .seconds(settings.drainSeconds), jobLease: .seconds(settings.jobLeaseSeconds), idempotencyWindow: TimeInterval(settings.idempotencyWindowHours) * 3600,
            logger: Logger(label: "nestory.jobs"))
        let barcodes = TimedBarcodeDecoder(base: BarcodeReader(options: .init(zxingWorker: settings.zxingWorker ?? ZXingScanner.workerPath)))
        let process = ProcessMetrics(registry: registry, folder: folder)
        let metrics: Operations.MetricsAccess = switch settings.metrics {
        case "off": .off
        case "token": .token(settings.metricsToken ?? "")
        default: .loopback
        }
        let operations = Operations(
            metrics: metrics,
            emitMetrics: {
                process.update()
                var buffer: [UInt8] = []
                registry.emit(into: &buffer)
                return String(decoding: buffer, as: UTF8.self)
            },
            checks: Readiness.checks(folder: folder, minFreeBytes: Int64(settings.minFreeMegabytes) * 1_000_000, imaging: imaging,
                                     recognizer: recognizer, ocrEngine: settings.ocrEngine, ocrPython: settings.ocrPython)
                + (integrity.map { [$0.check] } ?? []) + Readiness.blobStorage(opened.files.backend))
        var dependencies = WebDependencies(
            services: services, imaging: imaging,
            cookies: CookiePolicy(secure: settings.secureCookies, sessionLifetime: TimeInterval(settings.sessionDays) * 86_400),
            limits: limits, barcodes: barcodes, productProviders: [OpenFoodFacts(), UPCItemDB()], operations: operations,
            logger: Logger(label: "nestory.http"), scanning: settings.scanning)
        dependencies.remindersInterval = .seconds(settings.remindersCheckMinutes * 60)
        dependencies.mcp = MCPSettings(allowedHosts: settings.mcpAllowedHosts, allowedOrigins: settings.mcpAllowedOrigins)
        dependencies.security = SecuritySettings(secondsPerMinute: TimeInterval(settings.appLockSecondsPerMinute), rpID: settings.passkeysRPID,
                                                 origin: settings.passkeysOrigin)
        // Said once the port is bound: before, a server whose port was taken announced itself and then stopped.
        let serving = "Nestory \(NestoryCommand.configuration.version) serving http://\(settings.host):\(settings.port) with data in \(opened.location), this server's files in \(folder.path), photos and files in \(opened.files.backend.location)"
        let sqlite: AppDatabase? = if case .sqlite(let database) = opened { database } else { nil }
        dependencies.onServerRunning = {
            logger.info("\(serving)")
            if let sqlite, let integrity { integrity.start(sqlite, logger: logger) }
        }
        let app = buildApplication(dependencies, configuration: ServerConfiguration(
            host: settings.host, port: settings.port, idleTimeout: .seconds(settings.idleTimeoutSeconds)), logger: logger)
        do {
            try await app.runService()
        } catch let error as IOError {
            throw Self.listenFailure(error, host: settings.host, port: settings.port) ?? error
        }
    }

    /// What to tell the operator when the address cannot be listened on; nil for any other failure.
    static func listenFailure(_ error: IOError, host: String, port: Int) -> CLIError? {
        switch error.errnoCode {
        case EADDRINUSE:
            return CLIError("Port \(port) on \(host) is already in use (another Nestory, or another program, listens there): stop it, or choose another port with --port or the setting port.")
        case EACCES:
            return CLIError("This user may not listen on port \(port) (ports below 1024 need privileges): choose a port of 1024 or more with --port, and put a proxy in front for ports 80 and 443.")
        case EADDRNOTAVAIL:
            return CLIError("\(host) is not an address of this machine, so the server cannot listen on it: set host to 127.0.0.1, 0.0.0.0 (every address) or one of this machine's addresses.")
        default:
            return nil
        }
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create the database or bring it up to this version's schema.")

    @OptionGroup var data: DataOptions

    func run() async throws {
        let database = try await data.openDatabase(.createAndMigrate)
        do {
            if case .sqlite(let sqlite) = database { try reportingErrors { try sqlite.checkIntegrity() } }
            let applied = try await reportingErrors { try await database.stores.status.appliedMigrations() }
            print("Database \(database.location) is at schema \(applied.last ?? "none") (\(applied.count) migrations).")
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}

/// Barcode decoding, timed for /metrics.
struct TimedBarcodeDecoder: BarcodeDecoding {
    let base: any BarcodeDecoding

    func decode(imageData: Data, region: BarcodeRegion?) throws(BarcodeReaderError) -> [DecodedBarcode] {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            Metrics.Timer(label: "nestory_barcode_decode_seconds").recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
        }
        return try base.decode(imageData: imageData, region: region)
    }
}

/// Receipt text recognition, timed for /metrics.
struct TimedRecognizer: TextRecognizer {
    let base: any TextRecognizer

    func recognize(imageData: Data) async throws(RecognitionError) -> RecognizedText {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { Metrics.Timer(label: "nestory_ocr_seconds").recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start)) }
        return try await base.recognize(imageData: imageData)
    }
}

extension Logger.Level {
    init(_ level: LibvipsMessages.Level) {
        switch level {
        case .error: self = .error
        case .critical: self = .critical
        case .warning: self = .warning
        case .message: self = .notice
        }
    }
}
