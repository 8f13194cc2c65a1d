import Foundation
import NestoryStoreInterfaces

extension Stores {
    /// Every store on one PostgreSQL database; `files` are the ones `store` was configured with.
    public static func postgres(_ store: PostgresStore, files: any BlobFiles) -> Stores {
        Stores(items: store, attachments: store, accounts: store, jobs: store, reports: store, reminders: store, valuations: store,
               products: store, licences: store, tokens: store, idempotency: store, captureCounters: store, status: store, files: files, archive: store,
               requestBudget: store, serverRecords: store)
    }
}

extension PostgresStore: DatabaseStatus {
    public var displayLocation: String { location.description }

    /// A write in a transaction that is rolled back: refused on a standby (read-only) server, or when the
    /// connection or the server's disk is gone.
    public func checkWritable() async throws {
        struct RolledBack: Error {}
        do {
            try await transaction { connection in
                try await connection.query("CREATE TEMPORARY TABLE nestory_ready_check (x int) ON COMMIT DROP", logger: logger)
                throw RolledBack()
            }
        } catch is RolledBack {}
    }
}
