import Foundation
import NestoryStoreInterfaces

extension Stores {
    /// Every store on one PostgreSQL database (its files where `store` was configured to keep them).
    public static func postgres(_ store: PostgresStore) -> Stores {
        Stores(items: store, attachments: store, accounts: store, jobs: store, reports: store, reminders: store, valuations: store,
               products: store, licences: store, tokens: store, idempotency: store, captureCounters: store, archive: store)
    }
}
