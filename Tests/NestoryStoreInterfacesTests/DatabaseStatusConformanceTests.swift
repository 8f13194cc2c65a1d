import Foundation
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// `DatabaseStatus` (what `/health` and `/health/ready` ask) on both engines.
@Suite struct DatabaseStatusConformanceTests {
    @Test(arguments: Engine.available)
    func aFreshDatabaseIsAtThisVersionsSchemaAndWritable(_ engine: Engine) async throws {
        try await withStatus(engine) { status, known in
            #expect(try await status.appliedMigrations() == known)
            try await status.checkWritable()
            // Twice: the check leaves nothing behind that would make a second one fail.
            try await status.checkWritable()
            #expect(!status.displayLocation.isEmpty)
            #expect(!status.displayLocation.contains("secret"))
        }
    }

    @Test func aClosedPostgreSQLStoreIsNotWritable() async throws {
        guard Engine.available.contains(.postgres) else { return }
        let store = try await openPostgres()
        try await store.checkWritable()
        await store.close()
        await #expect(throws: (any Error).self) { try await store.checkWritable() }
    }

    func withStatus(_ engine: Engine, _ body: (any DatabaseStatus, [String]) async throws -> Void) async throws {
        switch engine {
        case .sqlite:
            let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-status-\(UUID().uuidString)").path)
            let database = try AppDatabase.open(folder)
            defer {
                try? database.close()
                try? FileManager.default.removeItem(at: folder.url)
            }
            try await body(SQLiteDatabaseStatus(database), AppDatabase.knownMigrations)
        case .postgres:
            let store = try await openPostgres()
            do { try await body(store, PostgresStore.knownMigrations) } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }
}
