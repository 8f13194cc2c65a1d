import Foundation
import NestoryHTTP
import NestoryImaging
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces

/// The services on one SQLite database's stores and data folder, as these tests build them (the bootstrap builds
/// them in `Services.init`).
extension ItemsService {
    static func sqlite(_ database: AppDatabase, items: (any ItemStore)? = nil, imaging: any ImageProcessing, blocking: BlockingPool, maxBytes: Int64,
                       plan: PlanService) -> ItemsService {
        let stores = Stores.sqlite(database)
        return ItemsService(items: items ?? stores.items, attachments: stores.attachments, accounts: stores.accounts, reminders: stores.reminders,
                            files: database.blobs, renditions: database.renditions, imaging: imaging, blocking: blocking, maxBytes: maxBytes,
                            plan: plan)
    }
}

extension ValuationService {
    static func sqlite(_ database: AppDatabase, providers: any ValuationProviderMaking = UnavailableValuationProviders(),
                       defaults: ValuationDefaults = ValuationDefaults(), endpoints: PublicAddressGuard = .valuationEndpoints(allowPrivate: false),
                       now: @escaping @Sendable () -> Date = Date.init) -> ValuationService {
        let stores = Stores.sqlite(database)
        return ValuationService(store: stores.valuations, items: stores.items, accounts: stores.accounts, jobs: stores.jobs,
                                attachments: stores.attachments, secrets: .folder(database.folder), providers: providers,
                                defaults: defaults, endpoints: endpoints, now: now)
    }
}
