import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces

/// Writes a generated household into a database.
public enum DemoSeeder {
    /// Creates a household named `name` with `count` items on any engine's stores; returns it. The items go in one
    /// transaction (all or nothing), generated batch by batch so memory stays flat for any count. `progress` gets the
    /// items written so far.
    public static func seed(_ stores: Stores, name: String = "Demo Household", currency: CurrencyCode = .usd,
                            count: Int, seed: UInt64, now: Date, batchSize: Int = 5000,
                            progress: @escaping @Sendable (Int) -> Void = { _ in }) async throws -> Household {
        let household = try await stores.accounts.createHousehold(name: name, currency: currency, now: now)
        var photos: [Attachment] = [], receipts: [Attachment] = []
        for variant in 0..<DemoGenerator.photoVariants {
            photos.append(try await stores.archive.storeAttachment(DemoImages.photo(variant: variant), contentType: "image/png", now: now))
        }
        for variant in 0..<4 {
            receipts.append(try await stores.archive.storeAttachment(DemoImages.receipt(variant: variant), contentType: "image/png", now: now))
        }
        let batches = DemoBatches(household, rooms: try await stores.items.rooms(household.id), categories: try await stores.items.categories(household.id),
                                  currency: currency, seed: seed, now: now, count: count, batchSize: batchSize, photos: photos,
                                  receipts: receipts, progress: progress)
        try await stores.archive.insertItemsInBulk(household.id, count: count, today: batches.today) { batches.next() }
        return household
    }

    /// ``seed(_:name:currency:count:seed:now:batchSize:progress:)`` on one SQLite database, without waiting on a task
    /// (the tests' and benchmarks' households).
    public static func seed(_ database: AppDatabase, name: String = "Demo Household", currency: CurrencyCode = .usd,
                            count: Int, seed: UInt64, now: Date, batchSize: Int = 5000,
                            progress: @escaping (Int) -> Void = { _ in }) throws -> Household {
        let household = try database.createHousehold(name: name, currency: currency, now: now)
        let photos = try (0..<DemoGenerator.photoVariants).map {
            try database.storeAttachment(DemoImages.photo(variant: $0), contentType: "image/png", now: now)
        }
        let receipts = try (0..<4).map {
            try database.storeAttachment(DemoImages.receipt(variant: $0), contentType: "image/png", now: now)
        }
        let batches = DemoBatches(household, rooms: try database.rooms(household.id), categories: try database.categories(household.id),
                                  currency: currency, seed: seed, now: now, count: count, batchSize: batchSize, photos: photos,
                                  receipts: receipts, progress: progress)
        try database.insertItemsInBulk(household.id, count: count, today: batches.today) { batches.next() }
        return household
    }
}

/// The demo's items, one batch a call, for a store's bulk insert (which calls `next` from one thread at a time).
private final class DemoBatches: @unchecked Sendable {
    let generator: DemoGenerator
    let today: CalendarDate
    let count: Int
    let batchSize: Int
    let photos: [Attachment]
    let receipts: [Attachment]
    let progress: (Int) -> Void
    private var written = 0
    private var batches = 0

    init(_ household: Household, rooms: [Room], categories: [NestoryDomain.Category], currency: CurrencyCode, seed: UInt64, now: Date,
         count: Int, batchSize: Int, photos: [Attachment], receipts: [Attachment], progress: @escaping (Int) -> Void) {
        today = CalendarDate(now, in: TimeZone(identifier: "UTC")!)
        generator = DemoGenerator(seed: seed, currency: currency, today: today, rooms: rooms, categories: categories,
                                  idSalt: withUnsafeBytes(of: household.id.rawValue.uuid) { $0.load(as: UInt64.self) })
        self.count = count
        self.batchSize = batchSize
        self.photos = photos
        self.receipts = receipts
        self.progress = progress
    }

    func next() -> [NewItem]? {
        // The previous batch is written: report it.
        if batches > 0 { progress(written) }
        guard written < count else { return nil }
        batches += 1
        let upper = min(count, written + batchSize)
        let batch = generator.items(written..<upper).enumerated().map { offset, demo in
            NewItem(
                id: demo.id, draft: demo.draft, createdAt: demo.createdAt,
                photos: demo.photoVariant.map { [photos[$0]] } ?? [],
                receipts: demo.receipt.map {
                    [StoredReceipt(attachment: receipts[(written + offset) % receipts.count],
                                   fields: ReceiptFields(vendor: $0.vendor, total: $0.total, purchaseDate: $0.date,
                                                         rawText: $0.rawText, confidence: 0.9))]
                } ?? [])
        }
        written = upper
        return batch
    }
}
