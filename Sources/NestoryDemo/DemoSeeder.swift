import Foundation
import NestoryDomain
import NestoryStore

/// Writes a generated household into a database.
public enum DemoSeeder {
    /// Creates a household named `name` with `count` items; returns it. The items go in one transaction
    /// (all or nothing), generated batch by batch so memory stays flat for any count. `progress` gets the
    /// items written so far.
    public static func seed(_ database: AppDatabase, name: String = "Demo Household", currency: CurrencyCode = .usd,
                            count: Int, seed: UInt64, now: Date, batchSize: Int = 5000,
                            progress: (Int) -> Void = { _ in }) throws -> Household {
        let household = try database.createHousehold(name: name, currency: currency, now: now)
        let today = CalendarDate(now, in: TimeZone(identifier: "UTC")!)
        let generator = DemoGenerator(seed: seed, currency: currency, today: today,
                                      rooms: try database.rooms(household.id), categories: try database.categories(household.id),
                                      idSalt: withUnsafeBytes(of: household.id.rawValue.uuid) { $0.load(as: UInt64.self) })
        let photos = try (0..<DemoGenerator.photoVariants).map {
            try database.storeAttachment(DemoImages.photo(variant: $0), contentType: "image/png", now: now)
        }
        let receiptImages = try (0..<4).map {
            try database.storeAttachment(DemoImages.receipt(variant: $0), contentType: "image/png", now: now)
        }
        var written = 0
        var batches = 0
        try database.insertItemsInBulk(household.id, count: count, today: today) { () -> [NewItem]? in
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
                        [StoredReceipt(attachment: receiptImages[(written + offset) % receiptImages.count],
                                       fields: ReceiptFields(vendor: $0.vendor, total: $0.total, purchaseDate: $0.date,
                                                             rawText: $0.rawText, confidence: 0.9))]
                    } ?? [])
            }
            written = upper
            return batch
        }
        return household
    }
}
