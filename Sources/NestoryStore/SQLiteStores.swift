import Foundation
import NestoryStoreInterfaces

extension Stores {
    /// Every store on one SQLite database (the embedded default).
    public static func sqlite(_ database: AppDatabase) -> Stores {
        Stores(items: SQLiteItemStore(database), attachments: SQLiteAttachmentStore(database), accounts: SQLiteAccountStore(database),
               jobs: SQLiteJobStore(database), reports: SQLiteReportStore(database), reminders: SQLiteReminderStore(database),
               valuations: SQLiteValuationStore(database), products: SQLiteProductStore(database), licences: SQLiteLicenceStore(database),
               tokens: SQLiteAPITokenStore(database), idempotency: SQLiteIdempotencyStore(database),
               captureCounters: SQLiteCaptureCounterStore(database), status: SQLiteDatabaseStatus(database), files: database.blobs,
               archive: SQLiteArchiveStore(database), requestBudget: database.requestBudget,
               serverRecords: SQLiteServerRecordStore(database))
    }
}

/// The SQLite file's status (`DatabaseStatus`).
public struct SQLiteDatabaseStatus: DatabaseStatus {
    let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    public var displayLocation: String { database.folder.databaseURL.path }

    public func appliedMigrations() async throws -> [String] {
        try await database.offload { try $0.appliedMigrations() }
    }

    public func checkWritable() async throws {
        try await database.offload { try $0.checkWritable() }
    }
}
