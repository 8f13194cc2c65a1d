import Foundation
internal import GRDB
import NestoryDomain

extension AppDatabase {
    /// What the household keeps (photos and receipts by their stored files, each counted once; reports),
    /// the database's size and the free space of the data folder's disk.
    public func storageSummary(_ householdID: HouseholdID) throws -> StorageSummary {
        let id = householdID.description
        let (items, photos, receipts, reports) = try read { db in
            let items = try Int.fetchOne(db, sql: "SELECT items FROM item_stats WHERE household_id = ?", arguments: [id]) ?? 0
            func files(_ table: String) throws -> StorageSummary.Files {
                let row = try Row.fetchOne(db, sql: """
                    SELECT (SELECT COUNT(*) FROM \(table) WHERE household_id = ?) AS count,
                           (SELECT COALESCE(SUM(b.byte_count), 0) FROM blob b
                            WHERE b.sha256 IN (SELECT sha256 FROM \(table) WHERE household_id = ?)) AS bytes
                    """, arguments: [id, id])
                return StorageSummary.Files(count: row?["count"] ?? 0, bytes: row?["bytes"] ?? 0)
            }
            let report = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS count, COALESCE(SUM(byte_count), 0) AS bytes FROM report WHERE household_id = ?",
                                          arguments: [id])
            return (items, try files("item_photo"), try files("receipt"),
                    StorageSummary.Files(count: report?["count"] ?? 0, bytes: report?["bytes"] ?? 0))
        }
        let database = [folder.databaseURL.path, folder.databaseURL.path + "-wal"].reduce(Int64(0)) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0)
        }
        return StorageSummary(items: items, photos: photos, receipts: receipts, reports: reports, databaseBytes: database, freeBytes: folder.freeBytes)
    }
}
