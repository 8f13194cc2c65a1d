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
    let tokens: any APITokenStore
    let idempotency: any IdempotencyStore
    let reminders: any ReminderStore
    let valuations: any ValuationStore
    let captureCounters: any CaptureCounterStore
    let licences: any LicenceStore
    let products: any ProductStore
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
                                tokens: SQLiteAPITokenStore(database), idempotency: SQLiteIdempotencyStore(database),
                                reminders: SQLiteReminderStore(database), valuations: SQLiteValuationStore(database),
                                captureCounters: SQLiteCaptureCounterStore(database), licences: SQLiteLicenceStore(database),
                                products: SQLiteProductStore(database)))
    case .postgres:
        let store = try await openPostgres()
        do {
            let result = try await body(Stores(accounts: store, jobs: store, items: store, tokens: store, idempotency: store, reminders: store,
                                               valuations: store, captureCounters: store, licences: store, products: store))
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
func openPostgres(migrate: Bool = true, schema: String = freshSchemaName())
    async throws -> PostgresStore {
    guard let url = Engine.postgresURL else { throw PostgresNotConfigured() }
    return try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: schema, migrate: migrate,
                                              maximumConnections: 8))
}

/// `t_` and 20 random lower-case hex digits.
func freshSchemaName() -> String {
    "t_" + String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20))
}

/// Two PostgreSQL stores, each with its own pool, on one new schema: two servers on one database. Both are closed after.
func withTwoPostgresStores<T>(_ body: (PostgresStore, PostgresStore) async throws -> T) async throws -> T {
    let schema = freshSchemaName()
    let first = try await openPostgres(schema: schema)
    let second: PostgresStore
    do { second = try await openPostgres(schema: schema) } catch {
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
