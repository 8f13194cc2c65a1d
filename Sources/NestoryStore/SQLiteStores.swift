import Foundation
import NestoryStoreInterfaces

extension Stores {
    /// Every store on one SQLite database (the embedded default).
    public static func sqlite(_ database: AppDatabase) -> Stores {
        Stores(items: SQLiteItemStore(database), attachments: SQLiteAttachmentStore(database), accounts: SQLiteAccountStore(database),
               jobs: SQLiteJobStore(database), reports: SQLiteReportStore(database), reminders: SQLiteReminderStore(database),
               valuations: SQLiteValuationStore(database), products: SQLiteProductStore(database), licences: SQLiteLicenceStore(database),
               tokens: SQLiteAPITokenStore(database), idempotency: SQLiteIdempotencyStore(database),
               captureCounters: SQLiteCaptureCounterStore(database), archive: SQLiteArchiveStore(database))
    }
}
