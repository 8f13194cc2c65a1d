import Foundation
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// The engines every conformance test runs against. SQLite always; PostgreSQL when a test server is named by
/// `NESTORY_TEST_POSTGRES_URL` (scripts/with-postgres.sh starts one for `make test`). With
/// `NESTORY_REQUIRE_POSTGRES=1` and no URL, the PostgreSQL half fails rather than vanish from the run.
enum Engine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { rawValue }

    static let postgresURL = ProcessInfo.processInfo.environment["NESTORY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let postgresRequired = ProcessInfo.processInfo.environment["NESTORY_REQUIRE_POSTGRES"] == "1"

    /// The engines to run: PostgreSQL only when it is there or required.
    static var available: [Engine] {
        postgresURL != nil || postgresRequired ? [.sqlite, .postgres] : [.sqlite]
    }
}

/// One engine's store as each interface sees it.
struct Stores: Sendable {
    let accounts: any AccountStore
    let jobs: any JobStore
    let items: any ItemStore
    let attachments: any AttachmentStore
    /// Where this store keeps stored files' bytes (a data folder of the test's own); nil for stores opened without
    /// files (the two servers of the job tests).
    let blobs: (any BlobFiles)?
    let tokens: any APITokenStore
    let idempotency: any IdempotencyStore
    let reminders: any ReminderStore
    let valuations: any ValuationStore
    let captureCounters: any CaptureCounterStore
    let licences: any LicenceStore
    let products: any ProductStore
    let requestBudget: any RequestBudget
    /// Nil for stores made without it (the two servers of the job tests).
    var serverRecords: (any ServerRecordStore)? = nil
}

/// A fresh, empty store of one engine for one test: SQLite in a temporary data folder, PostgreSQL in a schema of
/// its own in the test database (dropped with the cluster).
func withStore<T>(_ engine: Engine, _ body: (any AccountStore) async throws -> T) async throws -> T {
    try await withStores(engine) { try await body($0.accounts) }
}

func withStores<T>(_ engine: Engine, _ body: (Stores) async throws -> T) async throws -> T {
    switch engine {
    case .sqlite:
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-conformance-\(UUID().uuidString)").path
        let folder = DataFolder(path: path)
        let database = try AppDatabase.open(folder)
        defer {
            try? database.close()
            try? FileManager.default.removeItem(at: folder.url)
        }
        return try await body(Stores(accounts: SQLiteAccountStore(database), jobs: SQLiteJobStore(database), items: SQLiteItemStore(database),
                                     attachments: SQLiteAttachmentStore(database), blobs: database.blobs,
                                     tokens: SQLiteAPITokenStore(database), idempotency: SQLiteIdempotencyStore(database),
                                     reminders: SQLiteReminderStore(database), valuations: SQLiteValuationStore(database),
                                     captureCounters: SQLiteCaptureCounterStore(database), licences: SQLiteLicenceStore(database),
                                     products: SQLiteProductStore(database), requestBudget: database.requestBudget,
                                     serverRecords: SQLiteServerRecordStore(database)))
    case .postgres:
        let folder = try blobFolder()
        defer { try? FileManager.default.removeItem(at: folder.url) }
        let blobs = BlobStore(folder: folder)
        let store = try await openPostgres(blobs: blobs)
        do {
            let result = try await body(Stores(accounts: store, jobs: store, items: store, attachments: store, blobs: blobs, tokens: store,
                                               idempotency: store, reminders: store, valuations: store, captureCounters: store,
                                               licences: store, products: store, requestBudget: store, serverRecords: store))
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }
}

struct PostgresNotConfigured: Error, CustomStringConvertible {
    var description: String {
        "NESTORY_REQUIRE_POSTGRES=1 but NESTORY_TEST_POSTGRES_URL is not set: run the tests through scripts/with-postgres.sh"
    }
}

/// A PostgreSQL store in a new schema of the test database.
func openPostgres(migrate: Bool = true, schema: String = freshSchemaName(), blobs: (any BlobFiles)? = nil)
    async throws -> PostgresStore {
    guard let url = Engine.postgresURL else { throw PostgresNotConfigured() }
    return try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: schema, migrate: migrate,
                                              maximumConnections: 8, blobs: blobs))
}

/// A temporary data folder with its `blobs/` and `tmp/`, for a PostgreSQL store's files.
func blobFolder() throws -> DataFolder {
    let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-blobs-\(UUID().uuidString)").path)
    try FileManager.default.createDirectory(at: folder.blobsURL, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: folder.tmpURL, withIntermediateDirectories: true)
    return folder
}

/// `t_` and 20 random lower-case hex digits.
func freshSchemaName() -> String {
    "t_" + String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20))
}

/// Two PostgreSQL stores, each with its own pool, on one new schema: two servers on one database (and, given `blobs`,
/// one place for files; given `secondBlobs` too, the second server's own: another data folder on the same object store).
/// Both are closed after.
func withTwoPostgresStores<T>(blobs: (any BlobFiles)? = nil, secondBlobs: (any BlobFiles)? = nil,
                              _ body: (PostgresStore, PostgresStore) async throws -> T) async throws -> T {
    let schema = freshSchemaName()
    let first = try await openPostgres(schema: schema, blobs: blobs)
    let second: PostgresStore
    do { second = try await openPostgres(schema: schema, blobs: secondBlobs ?? blobs) } catch {
        await first.close()
        throw error
    }
    do {
        let result = try await body(first, second)
        await first.close()
        await second.close()
        return result
    } catch {
        await first.close()
        await second.close()
        throw error
    }
}
