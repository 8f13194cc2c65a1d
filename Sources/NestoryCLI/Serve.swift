import ArgumentParser
import Foundation
import NestoryBarcodesLive
import Hummingbird
import Logging
import NestoryAuth
import NestoryImaging
import NestoryImagingLive
import NestoryOCR
import NestoryProducts
import NestoryReceipts
import NestoryStore
import NestoryBackup
import NestoryReportsLive
import NestoryServices
import NestoryWeb

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the web server (migrating the database first).")

    @OptionGroup var data: DataOptions

    @Option(help: "The address to listen on. Use 0.0.0.0 to accept other machines (behind HTTPS).")
    var host: String = ProcessInfo.processInfo.environment["NESTORY_HOST"] ?? "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port: Int = Int(ProcessInfo.processInfo.environment["NESTORY_PORT"] ?? "") ?? 8080

    @Flag(help: "Mark cookies Secure: use when browsers reach Nestory over HTTPS (behind a proxy). Also NESTORY_SECURE_COOKIES=1.")
    var secureCookies = ProcessInfo.processInfo.environment["NESTORY_SECURE_COOKIES"] == "1"

    func run() async throws {
        let database = try reportingErrors {
            let database = try AppDatabase.open(data.folder, mode: .createAndMigrate)
            try database.checkIntegrity()
            return database
        }
        var logger = Logger(label: "nestory")
        logger.logLevel = .info
        let limits = Limits()
        let imagingLimits = ImagingLimits(maxFileBytes: Int(limits.maxPhotoBytes))
        let imaging = LazyImageProcessor(limits: imagingLimits) { () throws(ImagingError) in
            try LibvipsImageProcessor(limits: imagingLimits)
        }
        // The one place live implementations are picked.
        let services = Services(database: database, passwordHasher: BcryptPasswordHasher(), imaging: imaging,
                                reportMaker: ReportGenerator(database: database), backupMaker: BackupWriter(database: database),
                                receiptReader: Self.receiptReader(), maxPhotoBytes: limits.maxPhotoBytes,
                                logger: Logger(label: "nestory.jobs"))
        let dependencies = WebDependencies(database: database, services: services, imaging: imaging,
                                           cookies: CookiePolicy(secure: secureCookies), limits: limits,
                                           barcodes: BarcodeReader(), productProviders: [OpenFoodFacts(), UPCItemDB()])
        let app = buildApplication(dependencies, configuration: ServerConfiguration(host: host, port: port), logger: logger)
        logger.info("Nestory \(NestoryCommand.configuration.version) serving http://\(host):\(port) with data in \(data.folder.path)")
        try await app.runService()
    }
}

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create the database or bring it up to this version's schema.")

    @OptionGroup var data: DataOptions

    func run() throws {
        try reportingErrors {
            let database = try AppDatabase.open(data.folder, mode: .createAndMigrate)
            try database.checkIntegrity()
            let applied = try database.appliedMigrations()
            print("Database \(data.folder.databaseURL.path) is at schema \(applied.last ?? "none") (\(applied.count) migrations).")
        }
    }

}

extension Serve {
    /// One OCR worker with a short queue: a burst of receipts waits its turn (or is told the server is busy)
    /// instead of taking every core from the web app. RapidOCR when it is installed, else tesseract (OCREngine).
    static func receiptReader() -> ReceiptReader {
        ReceiptReader(recognizer: OCREngine.recognizer(workers: 1, maxQueued: 16) { message in
            FileHandle.standardError.write(Data("nestory: \(message)\n".utf8))
        })
    }
}
