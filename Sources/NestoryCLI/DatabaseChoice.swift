import Foundation
import Logging
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres

/// The database the settings name, open: SQLite in the data folder (the default) or PostgreSQL (`database.url`).
/// The one place a command or the server picks the engine.
enum OpenDatabase {
    case sqlite(AppDatabase)
    /// With the files its stores keep photos and receipts in (the data folder's, or the object store's).
    case postgres(PostgresStore, files: BlobStore)

    var stores: Stores {
        switch self {
        case .sqlite(let database): .sqlite(database)
        case .postgres(let store, let files): .postgres(store, files: files)
        }
    }

    /// Stored files, as `storage.blobs` says.
    var files: BlobStore {
        switch self {
        case .sqlite(let database): database.blobs
        case .postgres(_, let files): files
        }
    }

    /// For messages: the SQLite file's path, or the PostgreSQL URL without its password.
    var location: String { stores.status.displayLocation }

    func close() async {
        switch self {
        case .sqlite(let database): try? database.close()
        case .postgres(let store, _): await store.close()
        }
    }
}

extension Settings {
    /// Opens the database these settings name. The data folder is still this server's: temporary files, the
    /// rendition cache and (with `storage.blobs = local`) stored files; on SQLite also reports. `mode` is SQLite's; on
    /// PostgreSQL anything but `.readCurrent` brings the schema up to date and moves the PDFs of reports this server
    /// made before they were stored files from its reports/ into the stored files. An SQLite database upgraded here is
    /// copied first, and the copy's place logged.
    func openDatabase(_ mode: AppDatabase.OpenMode, logger: Logger = Logger(label: "nestory.database")) async throws -> OpenDatabase {
        let folder = DataFolder(path: data)
        guard let url = databaseURL else {
            let database = try reportingErrors { try AppDatabase.open(folder, mode: mode, blobBackend: blobBackend) }
            if let copy = database.upgradeCopy {
                logger.notice("The database was upgraded to this version's schema. A copy of it as it was is kept at \(copy.path): to undo the upgrade, stop Nestory and put the copy back as nestory.sqlite.")
            }
            return .sqlite(database)
        }
        do {
            // The data folder holds only this machine's files here (temporary files, thumbnails): made whenever missing.
            try folder.prepare(create: true)
            let files = BlobStore(folder: folder, backend: blobBackend)
            let store = try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: databaseSchema, migrate: mode != .readCurrent,
                                                           maximumConnections: databaseMaxConnections, blobs: files),
                                                     logger: logger)
            if mode != .readCurrent {
                do {
                    let moved = try await store.adoptReportFiles(from: folder.reportsURL)
                    if moved > 0 { logger.info("Report files moved into the stored files", metadata: ["reports": "\(moved)", "to": "\(files.location)"]) }
                } catch {
                    await store.close()
                    throw error
                }
            }
            return .postgres(store, files: files)
        } catch {
            throw cliError(error)
        }
    }
}
