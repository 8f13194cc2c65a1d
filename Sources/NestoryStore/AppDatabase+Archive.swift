import Foundation
internal import GRDB
#if canImport(Glibc)
import Glibc
#endif
import NestoryDomain
import NestoryStoreInterfaces

/// One household's rows, read inside a single read transaction (a consistent snapshot while the
/// server keeps taking writes). Only valid inside `exportHousehold`'s closure.
public struct HouseholdExport {
    let db: Database
    let id: String
    public let household: ArchiveRecord.Household

    public func users(includePasswordHashes: Bool = true) throws -> [ArchiveRecord.User] {
        try Row.fetchAll(db, sql: """
            SELECT u.* FROM user u JOIN membership m ON m.user_id = u.id WHERE m.household_id = ? ORDER BY u.created_at, u.id
            """, arguments: [id]).map {
            ArchiveRecord.User(id: $0["id"], email: $0["email"], displayName: $0["display_name"],
                               passwordHash: includePasswordHashes ? $0["password_hash"] : nil, createdAt: $0["created_at"])
        }
    }

    public func memberships() throws -> [ArchiveRecord.Membership] {
        try Row.fetchAll(db, sql: "SELECT * FROM membership WHERE household_id = ? ORDER BY joined_at, user_id", arguments: [id]).map {
            ArchiveRecord.Membership(userID: $0["user_id"], role: $0["role"], joinedAt: $0["joined_at"])
        }
    }

    public func rooms() throws -> [ArchiveRecord.Room] {
        try Row.fetchAll(db, sql: "SELECT * FROM room WHERE household_id = ? ORDER BY sort_order, id", arguments: [id]).map {
            ArchiveRecord.Room(id: $0["id"], name: $0["name"], sortOrder: $0["sort_order"])
        }
    }

    public func categories() throws -> [ArchiveRecord.Category] {
        try Row.fetchAll(db, sql: "SELECT * FROM category WHERE household_id = ? ORDER BY sort_order, id", arguments: [id]).map {
            ArchiveRecord.Category(id: $0["id"], name: $0["name"], colorHex: $0["color_hex"], icon: $0["icon"],
                                   sortOrder: $0["sort_order"], isCustom: $0["is_custom"])
        }
    }

    public func itemCount() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE household_id = ?", arguments: [id]) ?? 0
    }

    /// Every item, in the order they were added, with its tags in order.
    ///
    /// A large household's items are read in the table's own order (AppDatabase.householdItemsBySeq).
    public func forEachItem(_ body: (ArchiveRecord.Item) throws -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT item.*, (SELECT json_group_array(tag) FROM (SELECT tag FROM item_tag WHERE item_seq = item.seq ORDER BY position)) AS tags_json
            \(try AppDatabase.householdItemsBySeq(db, id).sql)
            """, arguments: [id])
        let decoder = JSONDecoder()
        while let row = try rows.next() {
            let tagsJSON: String = row["tags_json"] ?? "[]"
            let tags = (try? decoder.decode([String].self, from: Data(tagsJSON.utf8))) ?? []
            try body(ArchiveRecord.Item(
                id: row["id"], name: row["name"], brand: row["brand"], modelNumber: row["model_number"],
                serialNumber: row["serial_number"], priceMinor: row["price_minor"], currency: row["currency"],
                quantity: row["quantity"], purchaseDate: row["purchase_date"], categoryID: row["category_id"],
                roomID: row["room_id"], condition: row["condition"], conditionNotes: row["condition_notes"],
                barcode: row["barcode"], warrantyExpiry: row["warranty_expiry"], notes: row["notes"], tags: tags,
                createdAt: row["created_at"], updatedAt: row["updated_at"]))
        }
    }

    /// Every stored file a photo or receipt of the household uses.
    public func forEachBlob(_ body: (ArchiveRecord.Blob) throws -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT b.* FROM blob b WHERE b.sha256 IN
                (SELECT sha256 FROM item_photo WHERE household_id = ? UNION SELECT sha256 FROM receipt WHERE household_id = ?)
            ORDER BY b.sha256
            """, arguments: [id, id])
        while let row = try rows.next() {
            try body(ArchiveRecord.Blob(sha256: row["sha256"], contentType: row["content_type"],
                                        byteCount: row["byte_count"], createdAt: row["created_at"]))
        }
    }

    public func forEachPhoto(_ body: (ArchiveRecord.Photo) throws -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT p.*, i.id AS item_uuid FROM item_photo p JOIN item i ON i.seq = p.item_seq
            WHERE p.household_id = ? ORDER BY p.item_seq, p.position, p.id
            """, arguments: [id])
        while let row = try rows.next() {
            try body(ArchiveRecord.Photo(id: row["id"], itemID: row["item_uuid"], sha256: row["sha256"],
                                         isPrimary: row["is_primary"], position: row["position"], createdAt: row["created_at"]))
        }
    }

    /// The export history, oldest first; each report's file is `reportsURL/<fileName>`.
    public func reports() throws -> [ArchiveRecord.Report] {
        try Row.fetchAll(db, sql: "SELECT * FROM report WHERE household_id = ? ORDER BY created_at, id", arguments: [id]).map {
            ArchiveRecord.Report(id: $0["id"], kind: $0["kind"], createdAt: $0["created_at"], byteCount: $0["byte_count"],
                                 options: $0["options"], fileName: $0["file_name"])
        }
    }

    public func forEachValuation(_ body: (ArchiveRecord.Valuation) throws -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT v.*, i.id AS item_uuid FROM valuation v JOIN item i ON i.seq = v.item_seq
            WHERE v.household_id = ? ORDER BY v.created_at, v.rowid
            """, arguments: [id])
        while let row = try rows.next() {
            try body(ArchiveRecord.Valuation(
                id: row["id"], itemID: row["item_uuid"], currency: row["currency"], rcvMinor: row["rcv_minor"], rcvLowMinor: row["rcv_low_minor"],
                rcvHighMinor: row["rcv_high_minor"], acvMinor: row["acv_minor"], acvLowMinor: row["acv_low_minor"], acvHighMinor: row["acv_high_minor"],
                method: row["method"], confidence: row["confidence"], valuedOn: row["valued_on"], sources: row["sources"],
                explanation: row["explanation"], createdAt: row["created_at"]))
        }
    }

    public func forEachReceipt(_ body: (ArchiveRecord.Receipt) throws -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT r.*, i.id AS item_uuid FROM receipt r LEFT JOIN item i ON i.seq = r.item_seq
            WHERE r.household_id = ? ORDER BY r.created_at, r.id
            """, arguments: [id])
        while let row = try rows.next() {
            try body(ArchiveRecord.Receipt(
                id: row["id"], itemID: row["item_uuid"], sha256: row["sha256"], vendor: row["vendor"],
                currency: row["currency"], totalMinor: row["total_minor"], taxMinor: row["tax_minor"],
                purchaseDate: row["purchase_date"], rawText: row["raw_text"], confidence: row["confidence"],
                createdAt: row["created_at"]))
        }
    }
}

extension AppDatabase {
    // MARK: - Backup

    /// Reads a household inside one read transaction: everything `body` sees is one consistent
    /// snapshot, whatever the server writes meanwhile.
    public func exportHousehold<T>(_ householdID: HouseholdID, _ body: (HouseholdExport) throws -> T) throws -> T {
        try read { db in
            let id = householdID.description
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM household WHERE id = ?", arguments: [id]) else {
                throw DomainError.notFound("The household")
            }
            let household = ArchiveRecord.Household(id: row["id"], name: row["name"], currency: row["currency"],
                                                    highValueThresholdMinor: row["high_value_threshold_minor"],
                                                    createdAt: row["created_at"], onlineProductLookup: row["online_product_lookup"],
                                                    scanningEnabled: row["scanning_enabled"], timeZone: row["time_zone"])
            return try body(HouseholdExport(db: db, id: id, household: household))
        }
    }

    /// Whether a household with this id exists.
    public func householdExists(_ id: String) throws -> Bool {
        try read { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM household WHERE id = ?", arguments: [id]) ?? false }
    }

    // MARK: - Restore

    /// Applies a validated archive in one write transaction: all of it, or (on any error, or a crash)
    /// none of it. `files` are the archive's files, already staged and checked against their SHA-256.
    ///
    /// `target` nil restores the archive's own household, creating it (with its members' accounts)
    /// when this server does not have it. Otherwise the rows go into `target`: `replace` makes its
    /// rooms, categories, items, photos and receipts exactly the archive's (members and accounts are
    /// left alone); `merge` adds what is new, replaces items the archive has a newer version of, and
    /// keeps the rest. Ids used by another household on this server are given new ids.
    /// `reportFiles` are the reports' PDFs, staged, by file name.
    ///
    /// The items go in on the bulk write path (`bulkItemWrite`): an archive with at least as many items as the server
    /// holds has the item indexes built again at the end instead of updated row by row. The search index gets the new
    /// items' rows once, in one pass in rowid order after their tags and receipts are in (the only other items
    /// reindexed are those a merge changed). Memory stays flat: the items are read one at a time, and the restore
    /// keeps only the ids it had to change; the rest it finds in the database.
    public func restoreHousehold(_ source: some HouseholdArchiveSource, files: [String: BlobStore.Staged],
                                 reportFiles: [String: BlobStore.Staged] = [:],
                                 into target: HouseholdID?, mode: RestoreMode, plan: Entitlement? = nil) throws -> RestoreSummary {
        try restoreHousehold(source, files: files, reportFiles: reportFiles, into: target, mode: mode, plan: plan,
                             rebuildMinimum: Self.bulkRebuildMinimum)
    }

    /// `rebuildMinimum`: a test hook (see `bulkItemWrite`).
    func restoreHousehold(_ source: some HouseholdArchiveSource, files: [String: BlobStore.Staged],
                          reportFiles: [String: BlobStore.Staged] = [:], into target: HouseholdID?, mode: RestoreMode,
                          plan: Entitlement? = nil, rebuildMinimum: Int) throws -> RestoreSummary {
        var removedCandidates: [String] = []
        var removedReportFiles: [String] = []
        // An object store's uploads happen before the write transaction (idempotent, skipped when already kept).
        for staged in files.values { try blobs.upload(staged) }
        let summary = try bulkItemWrite(count: source.itemCount, rebuildMinimum: rebuildMinimum) { db -> RestoreSummary in
            var summary = RestoreSummary()
            let archived = source.household
            let targetID = target?.description ?? archived.id
            let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM household WHERE id = ?", arguments: [targetID]) ?? false
            summary.householdID = targetID
            let itemsBefore = exists ? try Self.itemsIn(db, targetID) : 0
            var remap = IDRemap(targetHousehold: targetID)

            if !exists {
                guard target == nil else { throw DomainError.notFound("The household") }
                try db.execute(sql: """
                    INSERT INTO household (id, name, currency, high_value_threshold_minor, created_at, online_product_lookup, scanning_enabled,
                                           time_zone)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [targetID, archived.name, archived.currency, archived.highValueThresholdMinor, archived.createdAt,
                                     archived.onlineProductLookup ?? false, archived.scanningEnabled ?? true, archived.knownTimeZone])
                summary.householdCreated = true
                try Self.restoreMembers(db, source, householdID: targetID, summary: &summary)
            } else if mode == .replace {
                removedCandidates = try String.fetchAll(db, sql: """
                    SELECT sha256 FROM item_photo WHERE household_id = ? UNION SELECT sha256 FROM receipt WHERE household_id = ?
                    """, arguments: [targetID, targetID])
                summary.items.removed = try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE household_id = ?", arguments: [targetID]) ?? 0
                summary.receipts.removed = try Int.fetchOne(db, sql: "SELECT count(*) FROM receipt WHERE household_id = ?", arguments: [targetID]) ?? 0
                summary.photos.removed = try Int.fetchOne(db, sql: "SELECT count(*) FROM item_photo WHERE household_id = ?", arguments: [targetID]) ?? 0
                summary.rooms.removed = try Int.fetchOne(db, sql: "SELECT count(*) FROM room WHERE household_id = ?", arguments: [targetID]) ?? 0
                summary.categories.removed = try Int.fetchOne(db, sql: "SELECT count(*) FROM category WHERE household_id = ?", arguments: [targetID]) ?? 0
                removedReportFiles = try String.fetchAll(db, sql: "SELECT file_name FROM report WHERE household_id = ?", arguments: [targetID])
                summary.reports.removed = removedReportFiles.count
                try db.execute(sql: "DELETE FROM report WHERE household_id = ?", arguments: [targetID])
                try db.execute(sql: "DELETE FROM receipt WHERE household_id = ?", arguments: [targetID])
                try db.execute(sql: "DELETE FROM item WHERE household_id = ?", arguments: [targetID])
                try db.execute(sql: "DELETE FROM room WHERE household_id = ?", arguments: [targetID])
                try db.execute(sql: "DELETE FROM category WHERE household_id = ?", arguments: [targetID])
                try db.execute(sql: """
                    UPDATE household SET name = ?, currency = ?, high_value_threshold_minor = ?, online_product_lookup = ?, scanning_enabled = ?,
                        time_zone = ?
                    WHERE id = ?
                    """, arguments: [archived.name, archived.currency, archived.highValueThresholdMinor, archived.onlineProductLookup ?? false,
                                     archived.scanningEnabled ?? true, archived.knownTimeZone, targetID])
            }

            // Rooms and categories: by id, then by name (merge), else added (at the end of the list when merging).
            // Returns the archive's ids as the target knows them.
            func places(_ table: String, _ archived: [(id: String, name: String, sortOrder: Int)], _ counts: inout RestoreSummary.Counts,
                        insert: (_ id: String, _ index: Int, _ sortOrder: Int) throws -> Void) throws -> [String: String] {
                var ids: [String: String] = [:]
                var next = (try Int.fetchOne(db, sql: "SELECT max(sort_order) FROM \(table) WHERE household_id = ?", arguments: [targetID]) ?? -1) + 1
                for (index, place) in archived.enumerated() {
                    if let existing = try Self.placeMatch(db, table: table, targetID, id: place.id, name: place.name) {
                        ids[place.id] = existing
                        counts.skipped += 1
                        continue
                    }
                    let id = try remap.fresh(db, table: table, place.id)
                    ids[place.id] = id
                    try insert(id, index, exists && mode == .merge ? next : place.sortOrder)
                    next += 1
                    counts.added += 1
                }
                return ids
            }
            let rooms = source.rooms, categories = source.categories
            remap.rooms = try places("room", rooms.map { ($0.id, $0.name, $0.sortOrder) }, &summary.rooms) { id, index, order in
                try db.execute(sql: "INSERT INTO room (id, household_id, name, sort_order) VALUES (?, ?, ?, ?)",
                               arguments: [id, targetID, rooms[index].name, order])
            }
            remap.categories = try places("category", categories.map { ($0.id, $0.name, $0.sortOrder) }, &summary.categories) { id, index, order in
                let category = categories[index]
                try db.execute(sql: """
                    INSERT INTO category (id, household_id, name, color_hex, icon, sort_order, is_custom) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [id, targetID, category.name, category.colorHex, category.icon, order, category.isCustom])
            }

            // Items: new ones added, newer ones replace the stored row, the rest are kept. Every new row's seq is
            // above the highest one now (an INTEGER PRIMARY KEY goes up from the largest), which is how the search
            // index finds them at the end; `touched` are the rows already here whose search text changes.
            let lastSeqBefore = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM item") ?? 0
            var touched: [Int64] = []
            let household = HouseholdID(string: targetID)!
            try source.forEachItem { item in
                let existing = try Row.fetchOne(db.cachedStatement(sql: "SELECT seq, household_id, updated_at FROM item WHERE id = ?"),
                                                arguments: [item.id])
                let roomID = item.roomID.flatMap { remap.rooms[$0] }
                let categoryID = item.categoryID.flatMap { remap.categories[$0] }
                if let existing, existing["household_id"] as String == targetID {
                    let seq: Int64 = existing["seq"]
                    guard item.updatedAt > existing["updated_at"] as Int64 else {
                        summary.items.skipped += 1
                        return
                    }
                    try db.cachedStatement(sql: """
                        UPDATE item SET name = ?, name_key = ?, brand = ?, model_number = ?, serial_number = ?, price_minor = ?,
                            currency = ?, quantity = ?, purchase_date = ?, category_id = ?, room_id = ?, condition = ?,
                            condition_notes = ?, barcode = ?, warranty_expiry = ?, notes = ?, created_at = ?, updated_at = ?
                        WHERE seq = ?
                        """).execute(arguments: [item.name, Text.foldKey(item.name), item.brand, item.modelNumber, item.serialNumber,
                                         item.priceMinor, item.currency, item.quantity, item.purchaseDate, categoryID, roomID,
                                         item.condition, item.conditionNotes, item.barcode, item.warrantyExpiry, item.notes,
                                         item.createdAt, item.updatedAt, seq])
                    try db.cachedStatement(sql: "DELETE FROM item_tag WHERE item_seq = ?").execute(arguments: [seq])
                    try Self.insertTags(db, seq: seq, householdID: household, tags: item.tags)
                    touched.append(seq)
                    summary.items.updated += 1
                    return
                }
                let id = existing == nil ? item.id : ItemID().description
                if existing != nil { remap.movedItems[item.id] = id }
                try db.cachedStatement(sql: """
                    INSERT INTO item (id, household_id, name, name_key, brand, model_number, serial_number, price_minor, currency,
                        quantity, purchase_date, category_id, room_id, condition, condition_notes, barcode, warranty_expiry, notes,
                        created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [id, targetID, item.name, Text.foldKey(item.name), item.brand, item.modelNumber,
                                     item.serialNumber, item.priceMinor, item.currency, item.quantity, item.purchaseDate,
                                     categoryID, roomID, item.condition, item.conditionNotes, item.barcode, item.warrantyExpiry,
                                     item.notes, item.createdAt, item.updatedAt])
                try Self.insertTags(db, seq: db.lastInsertedRowID, householdID: household, tags: item.tags)
                summary.items.added += 1
            }
            // Free's item limit, checked before any file is put in place (the whole restore or nothing).
            try plan?.checkItems(before: itemsBefore, after: try Self.itemsIn(db, targetID), action: .restore)

            // Valuations: each item's history, on the items as the target knows them; one already there is kept.
            try source.forEachValuation { valuation in
                guard let seq = try remap.itemSeq(db, valuation.itemID) else { return }
                if try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM valuation WHERE id = ? AND household_id = ?"),
                                     arguments: [valuation.id, targetID]) == true { return }
                let id = try remap.fresh(db, table: "valuation", valuation.id)
                try db.cachedStatement(sql: """
                    INSERT INTO valuation (id, household_id, item_seq, currency, rcv_minor, rcv_low_minor, rcv_high_minor, acv_minor, acv_low_minor,
                        acv_high_minor, method, confidence, valued_on, sources, explanation, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [id, targetID, seq, valuation.currency, valuation.rcvMinor, valuation.rcvLowMinor, valuation.rcvHighMinor,
                                             valuation.acvMinor, valuation.acvLowMinor, valuation.acvHighMinor, valuation.method, valuation.confidence,
                                             valuation.valuedOn, valuation.sources, valuation.explanation, valuation.createdAt])
            }

            // Files are put in place (fsynced) before the rows that point at them commit.
            var placed = Set<String>()
            func place(_ sha: String) throws {
                guard placed.insert(sha).inserted else { return }
                guard let staged = files[sha], let blob = source.blobs[sha] else { throw StoreError.attachmentMissing(sha256: sha) }
                let recorded = try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM blob WHERE sha256 = ?"), arguments: [sha]) == true
                try blobs.ensurePresent(staged, recorded: recorded)
                try db.cachedStatement(sql: """
                    INSERT INTO blob (sha256, content_type, byte_count, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
                    """).execute(arguments: [sha, blob.contentType, blob.byteCount, blob.createdAt])
            }

            try source.forEachPhoto { photo in
                guard let seq = try remap.itemSeq(db, photo.itemID) else {
                    summary.photos.skipped += 1
                    return
                }
                if let owner = try String.fetchOne(db.cachedStatement(sql: "SELECT household_id FROM item_photo WHERE id = ?"),
                                                   arguments: [photo.id]), owner == targetID {
                    summary.photos.skipped += 1
                    return
                }
                let id = try remap.fresh(db, table: "item_photo", photo.id)
                try place(photo.sha256)
                let hasPrimary = try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM item_photo WHERE item_seq = ? AND is_primary = 1"),
                                                   arguments: [seq]) ?? false
                try db.cachedStatement(sql: """
                    INSERT INTO item_photo (id, household_id, item_seq, sha256, is_primary, position, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [id, targetID, seq, photo.sha256, photo.isPrimary && !hasPrimary, photo.position, photo.createdAt])
                summary.photos.added += 1
            }

            try source.forEachReceipt { receipt in
                if let owner = try String.fetchOne(db.cachedStatement(sql: "SELECT household_id FROM receipt WHERE id = ?"),
                                                   arguments: [receipt.id]), owner == targetID {
                    summary.receipts.skipped += 1
                    return
                }
                let id = try remap.fresh(db, table: "receipt", receipt.id)
                try place(receipt.sha256)
                let seq = try receipt.itemID.flatMap { try remap.itemSeq(db, $0) }
                try db.cachedStatement(sql: """
                    INSERT INTO receipt (id, household_id, item_seq, sha256, vendor, currency, total_minor, tax_minor, purchase_date,
                        raw_text, confidence, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [id, targetID, seq, receipt.sha256, receipt.vendor, receipt.currency, receipt.totalMinor,
                                     receipt.taxMinor, receipt.purchaseDate, receipt.rawText, receipt.confidence, receipt.createdAt])
                if let seq, seq <= lastSeqBefore { touched.append(seq) }
                summary.receipts.added += 1
            }

            // The export history: each report's file is put in place before its row commits.
            for report in source.reports {
                if try String.fetchOne(db, sql: "SELECT household_id FROM report WHERE id = ?", arguments: [report.id]) == targetID {
                    summary.reports.skipped += 1
                    continue
                }
                guard let staged = reportFiles[report.fileName] else { throw StoreError.attachmentMissing(sha256: report.fileName) }
                let id = try remap.fresh(db, table: "report", report.id)
                let fileName = "\(id).pdf"
                try self.placeReportFile(staged, as: fileName)
                try db.execute(sql: """
                    INSERT INTO report (id, household_id, kind, created_at, byte_count, options, file_name) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [id, targetID, report.kind, report.createdAt, report.byteCount, report.options, fileName])
                summary.reports.added += 1
            }

            // The search index: the new items' rows in one pass, in rowid order (FTS5 appends them to its pending
            // lists; rows out of order make it write a segment each time), then the changed rows already here.
            try db.execute(sql: """
                INSERT INTO item_fts (rowid, name, brand, model, serial, notes, tags, receipts)
                SELECT \(Self.indexedColumns) FROM item WHERE seq > ? ORDER BY seq
                """, arguments: [lastSeqBefore])
            for seq in Set(touched).sorted() { try Self.reindex(db, seq: seq) }
            Self.faultInjectionPause()
            return summary
        }
        try removeUnreferencedBlobs(removedCandidates)
        removeReportFiles(removedReportFiles)
        return summary
    }

    /// Moves a staged report file into `reports/` (fsynced), inside the transaction that records it.
    func placeReportFile(_ staged: BlobStore.Staged, as fileName: String) throws {
        let destination = folder.reportsURL.appendingPathComponent(fileName)
        try FileManager.default.createDirectory(at: folder.reportsURL, withIntermediateDirectories: true)
        guard rename(staged.tmpURL.path, destination.path) == 0 else {
            throw StoreError.io("cannot move a report into \(destination.path): \(String(cString: strerror(errno)))")
        }
        try BlobStore.fsyncDirectory(folder.reportsURL)
    }

    /// For the crash test only: with NESTORY_FAULT_PAUSE_BEFORE_COMMIT set to a path, a restore
    /// creates that file and waits inside its transaction, so a test can kill the process there.
    private static func faultInjectionPause() {
        guard let marker = ProcessInfo.processInfo.environment["NESTORY_FAULT_PAUSE_BEFORE_COMMIT"] else { return }
        FileManager.default.createFile(atPath: marker, contents: nil)
        Thread.sleep(forTimeInterval: 120)
    }

    /// Members' accounts and memberships, for a household the restore creates. An account whose
    /// email this server already has is that account (its password is left alone).
    private static func restoreMembers(_ db: Database, _ source: some HouseholdArchiveSource, householdID: String,
                                       summary: inout RestoreSummary) throws {
        var userIDs: [String: String] = [:]
        for user in source.users {
            if let existing = try String.fetchOne(db, sql: "SELECT id FROM user WHERE email = ?", arguments: [user.email]) {
                userIDs[user.id] = existing
                continue
            }
            let taken = try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [user.id]) ?? false
            let id = taken ? UserID().description : user.id
            // "!" matches no password: the account exists but cannot sign in until given one.
            try db.execute(sql: "INSERT INTO user (id, email, display_name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [id, user.email, user.displayName, user.passwordHash ?? "!", user.createdAt])
            if user.passwordHash == nil { summary.accountsNeedingPassword.append(user.email) }
            userIDs[user.id] = id
        }
        for membership in source.memberships {
            guard let userID = userIDs[membership.userID] else { continue }
            try db.execute(sql: """
                INSERT INTO membership (household_id, user_id, role, joined_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
                """, arguments: [householdID, userID, membership.role, membership.joinedAt])
            summary.members.added += 1
        }
    }

    /// The target household's room or category that is this one: the same id, or the same name.
    private static func placeMatch(_ db: Database, table: String, _ householdID: String, id: String, name: String) throws -> String? {
        if let same = try String.fetchOne(db, sql: "SELECT id FROM \(table) WHERE id = ? AND household_id = ?", arguments: [id, householdID]) {
            return same
        }
        let key = Text.foldKey(name)
        let candidates = try Row.fetchAll(db, sql: "SELECT id, name FROM \(table) WHERE household_id = ?", arguments: [householdID])
        return candidates.first { Text.foldKey($0["name"]) == key }?["id"]
    }
}

/// Ids as the target household will know them.
private struct IDRemap {
    let targetHousehold: String
    var rooms: [String: String] = [:]
    var categories: [String: String] = [:]
    /// The archive's items given a new id here (their id is another household's); every other item keeps its id.
    var movedItems: [String: String] = [:]

    /// The row of the archive's item `id` as the target household has it after the items are in.
    func itemSeq(_ db: Database, _ id: String) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM item WHERE id = ? AND household_id = ?"),
                           arguments: [movedItems[id] ?? id, targetHousehold])
    }

    /// The id itself, or a new one when another household already uses it.
    func fresh(_ db: Database, table: String, _ id: String) throws -> String {
        let taken = try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM \(table) WHERE id = ?"), arguments: [id]) ?? false
        return taken ? UUID().uuidString.lowercased() : id
    }
}
