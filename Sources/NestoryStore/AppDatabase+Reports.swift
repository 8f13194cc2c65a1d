import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

extension AppDatabase {
    // MARK: - Export history

    /// Moves a finished report file into `reports/` and records it; the row is written only once the
    /// file is in place, so the history never lists a file that is not there.
    public func recordReport(_ householdID: HouseholdID, kind: String, options: String, file: URL, now: Date) throws -> StoredReport {
        let id = UUID()
        let fileName = "\(id.uuidString.lowercased()).pdf"
        let destination = folder.reportsURL.appendingPathComponent(fileName)
        let fm = FileManager.default
        try fm.createDirectory(at: folder.reportsURL, withIntermediateDirectories: true)
        let byteCount = Int64((try fm.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0)
        do { try fm.moveItem(at: file, to: destination) } catch { throw StoreError.io("\(fileName): \(error.localizedDescription)") }
        let report = StoredReport(id: id, householdID: householdID, kind: kind, createdAt: now, byteCount: byteCount, options: options,
                                  fileName: fileName)
        do {
            try write { db in
                _ = try Self.fetchHousehold(db, householdID)
                try db.execute(sql: """
                    INSERT INTO report (id, household_id, kind, created_at, byte_count, options, file_name) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [id.uuidString.lowercased(), householdID.description, kind, now.millis, byteCount, options, fileName])
            }
        } catch {
            try? fm.removeItem(at: destination)
            throw error
        }
        return report
    }

    /// The household's generated reports, newest first.
    public func reports(_ householdID: HouseholdID, limit: Int = 200) throws -> [StoredReport] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM report WHERE household_id = ? ORDER BY created_at DESC, id LIMIT ?",
                             arguments: [householdID.description, limit]).map { Self.reportFrom($0, householdID: householdID) }
        }
    }

    /// One report of the household and where its file is.
    public func report(_ householdID: HouseholdID, _ id: UUID) throws -> (StoredReport, URL) {
        let report = try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM report WHERE household_id = ? AND id = ?",
                                             arguments: [householdID.description, id.uuidString.lowercased()]) else {
                throw DomainError.notFound("The report")
            }
            return Self.reportFrom(row, householdID: householdID)
        }
        return (report, folder.reportsURL.appendingPathComponent(report.fileName))
    }

    /// Deletes a report from the history and its file.
    public func deleteReport(_ householdID: HouseholdID, _ id: UUID) throws {
        let (report, _) = try report(householdID, id)
        try write { db in
            try db.execute(sql: "DELETE FROM report WHERE household_id = ? AND id = ?", arguments: [householdID.description, id.uuidString.lowercased()])
        }
        // After the row is gone: a failed removal leaves an unlisted file, never a listed report without one.
        removeReportFiles([report.fileName])
    }

    /// Removes report files no row names any more. While a backup holds its pin they stay, and the
    /// next garbage sweep removes them.
    func removeReportFiles(_ names: [String]) {
        guard !names.isEmpty, let pin = blobs.tryPinForRemoval() else { return }
        defer { pin.release() }
        for name in Set(names) {
            let used = (try? read { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM report WHERE file_name = ?", arguments: [name]) ?? false }) ?? true
            if !used { try? FileManager.default.removeItem(at: folder.reportsURL.appendingPathComponent(name)) }
        }
    }

    static func reportFrom(_ row: Row, householdID: HouseholdID) -> StoredReport {
        StoredReport(id: UUID(uuidString: row["id"])!, householdID: householdID, kind: row["kind"], createdAt: row.date("created_at"),
                     byteCount: row["byte_count"], options: row["options"], fileName: row["file_name"])
    }

    // MARK: - Items for reports, page by page

    /// Rooms or categories in the household's order, as (id, name).
    public func reportGroups(_ householdID: HouseholdID, by column: ReportGroupColumn) throws -> [(id: String, name: String)] {
        switch column {
        case .room: return try rooms(householdID).map { ($0.id.description, $0.name) }
        case .category: return try categories(householdID).map { ($0.id.description, $0.name) }
        }
    }

    /// One page of a group's items in name order (`groupID` nil: items without a room/category),
    /// continuing after `after` (the last page's final name key and sequence number).
    public func reportItems(_ householdID: HouseholdID, groupBy column: ReportGroupColumn, groupID: String?, documentedOnly: Bool,
                            allPhotos: Bool = false, receipts: Bool = false, after: ReportCursor?, limit: Int = 200) throws -> (items: [ReportItemRecord], next: ReportCursor?) {
        let field = column == .room ? "item.room_id" : "item.category_id"
        var conditions = ["item.household_id = ?", groupID == nil ? "\(field) IS NULL" : "\(field) = ?"]
        var arguments: [any DatabaseValueConvertible] = [householdID.description]
        if let groupID { arguments.append(groupID) }
        if documentedOnly {
            conditions.append("item.photo_count > 0 AND item.price_minor IS NOT NULL AND item.category_id IS NOT NULL AND item.room_id IS NOT NULL")
        }
        if let after {
            conditions.append("(item.name_key, item.seq) > (?, ?)")
            arguments.append(after.nameKey)
            arguments.append(after.seq)
        }
        return try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(ItemColumns.select), r.name, c.name FROM item
                LEFT JOIN room r ON r.id = item.room_id LEFT JOIN category c ON c.id = item.category_id
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY item.name_key, item.seq LIMIT \(limit)
                """, arguments: StatementArguments(arguments))
            let records = try rows.map { try Self.reportRecord(db, $0, householdID: householdID, allPhotos: allPhotos, receipts: receipts) }
            let next = rows.count == limit ? rows.last.map { ReportCursor(nameKey: $0[ItemColumns.nameKey], seq: $0[ItemColumns.seq]) } : nil
            return (records, next)
        }
    }

    /// The items with these ids that belong to the household, in name order (ids of other households'
    /// items are ignored). Read in chunks, so any number of ids works.
    public func reportItems(_ householdID: HouseholdID, ids: [ItemID], allPhotos: Bool = true) throws -> [ReportItemRecord] {
        var records: [(key: String, seq: Int64, record: ReportItemRecord)] = []
        let unique = Array(Set(ids.map(\.description)))
        for start in stride(from: 0, to: unique.count, by: 500) {
            let chunk = Array(unique[start..<min(unique.count, start + 500)])
            try read { db in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT \(ItemColumns.select), r.name, c.name FROM item
                    LEFT JOIN room r ON r.id = item.room_id LEFT JOIN category c ON c.id = item.category_id
                    WHERE item.household_id = ? AND item.id IN (\(chunk.map { _ in "?" }.joined(separator: ",")))
                    """, arguments: StatementArguments([householdID.description] + chunk))
                for row in rows {
                    records.append((row[ItemColumns.nameKey], row[ItemColumns.seq],
                                    try Self.reportRecord(db, row, householdID: householdID, allPhotos: allPhotos, receipts: false)))
                }
            }
        }
        return records.sorted { ($0.key, $0.seq) < ($1.key, $1.seq) }.map(\.record)
    }

    private static func reportRecord(_ db: Database, _ row: Row, householdID: HouseholdID, allPhotos: Bool,
                                     receipts withReceipts: Bool) throws -> ReportItemRecord {
        let item = ItemColumns.item(row, householdID: householdID)
        let photoCount: Int = row[ItemColumns.photoCount]
        var photos: [Attachment] = []
        if photoCount > 0 {
            photos = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT b.sha256, b.content_type, b.byte_count FROM item_photo p JOIN blob b ON b.sha256 = p.sha256
                WHERE p.item_seq = ? ORDER BY p.is_primary DESC, p.position, p.created_at LIMIT ?
                """), arguments: [row[ItemColumns.seq] as Int64, allPhotos ? 1000 : 1]).map {
                Attachment(sha256: $0[0], contentType: $0[1], byteCount: $0[2])
            }
        }
        let receiptCount: Int = row[ItemColumns.receiptCount]
        var receipts: [Receipt] = []
        if withReceipts, receiptCount > 0 {
            receipts = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT r.*, b.content_type, b.byte_count FROM receipt r JOIN blob b ON b.sha256 = r.sha256
                WHERE r.item_seq = ? ORDER BY r.created_at
                """), arguments: [row[ItemColumns.seq] as Int64]).map { Self.receiptFrom($0, householdID: householdID, itemID: item.id) }
        }
        let listing = ItemListing(item: item, photoCount: photoCount, receiptCount: receiptCount, primaryPhoto: photos.first)
        return ReportItemRecord(listing: listing, roomName: row[ItemColumns.count], categoryName: row[ItemColumns.count + 1], photos: photos,
                                receipts: receipts)
    }
}
