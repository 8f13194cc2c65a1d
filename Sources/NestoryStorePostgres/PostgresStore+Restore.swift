import Foundation
import Logging
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore {
    // MARK: - Restore

    /// SQLite's `restoreHousehold`, on PostgreSQL: the archive's files are uploaded before the transaction and each is
    /// in place (`ensurePresent`, its `blob` row held) before a row naming it commits; report PDFs are moved into the
    /// reports folder inside the transaction (and removed again if it fails). The archive's large tables are read a few
    /// batches ahead on a thread of their own, so memory stays flat.
    public func restoreHousehold(_ source: any HouseholdArchiveSource, files: [String: StagedBlob], reportFiles: [String: StagedBlob],
                                 into target: HouseholdID?, mode: RestoreMode, plan: Entitlement?) async throws -> RestoreSummary {
        let blobFiles = files.isEmpty ? nil : try requireFiles()
        let reportsFolder = source.reports.isEmpty ? nil : try requireReportsFolder()
        if let blobFiles {
            let staged = Array(files.values)
            try await Self.onFileThread { for file in staged { try blobFiles.upload(file) } }
        }
        let placedReports = PlacedFiles()
        let logger = logger
        let outcome: (summary: RestoreSummary, removedBlobs: [String], removedReports: [String])
        do {
            outcome = try await transaction { c in
                var restore = Restore(c: c, logger: logger, source: source, target: target, mode: mode)
                try await restore.household()
                try await restore.places()
                try await restore.items(plan: plan)
                try await restore.valuations()
                try await restore.photos(files: files, blobFiles: blobFiles)
                try await restore.receipts(files: files, blobFiles: blobFiles)
                try await restore.reports(files: reportFiles, folder: reportsFolder, placed: placedReports)
                try await restore.reindex()
                return (restore.summary, restore.removedBlobs, restore.removedReports)
            }
        } catch {
            placedReports.removeAll()
            throw error
        }
        try await removeUnreferencedBlobs(outcome.removedBlobs)
        try await removeReportFiles(outcome.removedReports)
        return outcome.summary
    }

    /// The replaced reports' files, once their rows are gone: each only if no report names it now (a restored report
    /// may have taken its name again), and not while a backup holds the files' pin (as SQLite's `removeReportFiles`).
    func removeReportFiles(_ names: [String]) async throws {
        guard !names.isEmpty, let folder = reportsFolder else { return }
        let pin = blobFiles?.removalPin()
        defer { pin?.release() }
        if blobFiles != nil && pin == nil { return }
        for name in Set(names).sorted() {
            let used = try await withStoreErrors {
                for try await _ in try await client.query("SELECT 1 FROM report WHERE file_name = \(name)", logger: logger) { return true }
                return false
            }
            if !used { try? await Self.onFileThread { unlink(folder.appendingPathComponent(name).path) } }
        }
    }
}

/// Report files a restore moved into place, removed again when its transaction fails.
private final class PlacedFiles: @unchecked Sendable {
    private let lock = NSLock()
    private var urls: [URL] = []

    func add(_ url: URL) { lock.withLock { urls.append(url) } }

    func removeAll() {
        for url in lock.withLock({ urls }) { unlink(url.path) }
    }
}

/// One restore's transaction, step by step (as SQLite's `restoreHousehold`).
private struct Restore {
    let c: PostgresConnection
    let logger: Logger
    let source: any HouseholdArchiveSource
    let target: HouseholdID?
    let mode: RestoreMode
    var summary = RestoreSummary()
    var targetID = UUID()
    var exists = false
    var removedBlobs: [String] = []
    var removedReports: [String] = []
    /// The archive's rooms, categories and moved items as the target knows them.
    var rooms: [String: UUID] = [:]
    var categories: [String: UUID] = [:]
    var movedItems: [String: UUID] = [:]
    /// Items added (their documents are written at the end), and items already here whose document changes.
    var added: [Int64] = []
    var touched: Set<Int64> = []
    var itemsBefore = 0

    init(c: PostgresConnection, logger: Logger, source: any HouseholdArchiveSource, target: HouseholdID?, mode: RestoreMode) {
        self.c = c
        self.logger = logger
        self.source = source
        self.target = target
        self.mode = mode
    }

    static func uuid(_ text: String) -> UUID { UUID(uuidString: text)! }

    var household: HouseholdID { HouseholdID(targetID) }

    func scalar<T: PostgresDecodable>(_ query: PostgresQuery, _ type: T.Type) async throws -> T? {
        for try await value in try await c.query(query, logger: logger).decode(T.self) { return value }
        return nil
    }

    // MARK: The household

    mutating func household() async throws {
        let archived = source.household
        targetID = target?.rawValue ?? Self.uuid(archived.id)
        exists = try await scalar("SELECT 1 FROM household WHERE id = \(targetID) FOR UPDATE", Int32.self) != nil
        summary.householdID = targetID.uuidString.lowercased()
        itemsBefore = exists ? try await count("item") : 0
        if !exists {
            guard target == nil else { throw DomainError.notFound("The household") }
            try await c.query("""
                INSERT INTO household (id, name, currency, high_value_threshold_minor, created_at, online_product_lookup, scanning_enabled)
                VALUES (\(targetID), \(archived.name), \(archived.currency), \(archived.highValueThresholdMinor), \(archived.createdAt),
                        \(archived.onlineProductLookup ?? false), \(archived.scanningEnabled ?? true))
                """, logger: logger)
            summary.householdCreated = true
            try await members()
        } else if mode == .replace {
            for try await sha in try await c.query("""
                SELECT sha256 FROM item_photo WHERE household_id = \(targetID) UNION SELECT sha256 FROM receipt WHERE household_id = \(targetID)
                """, logger: logger).decode(String.self) {
                removedBlobs.append(sha)
            }
            summary.items.removed = itemsBefore
            summary.receipts.removed = try await count("receipt")
            summary.photos.removed = try await count("item_photo")
            summary.rooms.removed = try await count("room")
            summary.categories.removed = try await count("category")
            for try await name in try await c.query("SELECT file_name FROM report WHERE household_id = \(targetID)", logger: logger)
                .decode(String.self) {
                removedReports.append(name)
            }
            summary.reports.removed = removedReports.count
            for table in ["report", "receipt", "item", "room", "category"] {
                try await c.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE household_id = $1", binds: binds(targetID)), logger: logger)
            }
            try await c.query("""
                UPDATE household SET name = \(archived.name), currency = \(archived.currency),
                    high_value_threshold_minor = \(archived.highValueThresholdMinor), online_product_lookup = \(archived.onlineProductLookup ?? false),
                    scanning_enabled = \(archived.scanningEnabled ?? true)
                WHERE id = \(targetID)
                """, logger: logger)
        }
    }

    func binds(_ values: UUID...) -> PostgresBindings {
        var bindings = PostgresBindings()
        for value in values { bindings.append(value) }
        return bindings
    }

    /// How many rows of a table the target household has.
    func count(_ table: String) async throws -> Int {
        let query = PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table) WHERE household_id = $1", binds: binds(targetID))
        return Int(try await scalar(query, Int64.self) ?? 0)
    }

    /// Members' accounts and memberships, for a household the restore creates. An account whose email this server
    /// already has is that account (its password is left alone); an account without a password hash gets "!", which
    /// matches no password.
    mutating func members() async throws {
        var userIDs: [String: UUID] = [:]
        for user in source.users {
            if let existing = try await scalar("SELECT id FROM app_user WHERE email = \(user.email)", UUID.self) {
                userIDs[user.id] = existing
                continue
            }
            let taken = try await scalar("SELECT 1 FROM app_user WHERE id = \(Self.uuid(user.id))", Int32.self) != nil
            let id = taken ? UUID() : Self.uuid(user.id)
            try await c.query("""
                INSERT INTO app_user (id, email, display_name, password_hash, created_at)
                VALUES (\(id), \(user.email), \(user.displayName), \(user.passwordHash ?? "!"), \(user.createdAt))
                """, logger: logger)
            if user.passwordHash == nil { summary.accountsNeedingPassword.append(user.email) }
            userIDs[user.id] = id
        }
        for membership in source.memberships {
            guard let userID = userIDs[membership.userID] else { continue }
            try await c.query("""
                INSERT INTO membership (household_id, user_id, role, joined_at) VALUES (\(targetID), \(userID), \(membership.role),
                    \(membership.joinedAt)) ON CONFLICT DO NOTHING
                """, logger: logger)
            summary.members.added += 1
        }
    }

    /// The id itself, or a new one when any household already uses it in `table`.
    func fresh(_ table: String, _ id: String) async throws -> UUID {
        let uuid = Self.uuid(id)
        let query = PostgresQuery(unsafeSQL: "SELECT 1 FROM \(table) WHERE id = $1", binds: binds(uuid))
        return try await scalar(query, Int32.self) != nil ? UUID() : uuid
    }

    // MARK: Rooms and categories

    /// By id, then by folded name (merge), else added (at the end of the list when merging).
    mutating func places() async throws {
        let (targetID, logger, archivedRooms, archivedCategories) = (targetID, logger, source.rooms, source.categories)
        rooms = try await place("room", archivedRooms.map { ($0.id, $0.name, $0.sortOrder) }, \.rooms) { c, id, index, order in
            let room = archivedRooms[index]
            try await c.query("INSERT INTO room (id, household_id, name, sort_order) VALUES (\(id), \(targetID), \(room.name), \(Int32(order)))",
                              logger: logger)
        }
        categories = try await place("category", archivedCategories.map { ($0.id, $0.name, $0.sortOrder) }, \.categories) { c, id, index, order in
            let category = archivedCategories[index]
            try await c.query("""
                INSERT INTO category (id, household_id, name, color_hex, icon, sort_order, is_custom)
                VALUES (\(id), \(targetID), \(category.name), \(category.colorHex), \(category.icon), \(Int32(order)), \(category.isCustom))
                """, logger: logger)
        }
    }

    private mutating func place(_ table: String, _ archived: [(id: String, name: String, sortOrder: Int)],
                                _ counts: WritableKeyPath<RestoreSummary, RestoreSummary.Counts>,
                                insert: (PostgresConnection, UUID, Int, Int) async throws -> Void) async throws -> [String: UUID] {
        var ids: [String: UUID] = [:]
        var existing: [(id: UUID, key: String)] = []
        let query = PostgresQuery(unsafeSQL: "SELECT id, name FROM \(table) WHERE household_id = $1 ORDER BY sort_order, id", binds: binds(targetID))
        for try await (id, name) in try await c.query(query, logger: logger).decode((UUID, String).self) {
            existing.append((id, Text.foldKey(name)))
        }
        let maxQuery = PostgresQuery(unsafeSQL: "SELECT max(sort_order) FROM \(table) WHERE household_id = $1", binds: binds(targetID))
        var next = Int(try await scalar(maxQuery, Int32?.self).flatMap { $0 } ?? -1) + 1
        for (index, place) in archived.enumerated() {
            let uuid = Self.uuid(place.id)
            let key = Text.foldKey(place.name)
            if let match = existing.first(where: { $0.id == uuid }) ?? existing.first(where: { $0.key == key }) {
                ids[place.id] = match.id
                summary[keyPath: counts].skipped += 1
                continue
            }
            let id = try await fresh(table, place.id)
            ids[place.id] = id
            try await insert(c, id, index, exists && mode == .merge ? next : place.sortOrder)
            existing.append((id, key))
            next += 1
            summary[keyPath: counts].added += 1
        }
        return ids
    }

    // MARK: Items

    /// New items added, newer ones replace the stored row, the rest are kept; Free's item limit checked after.
    mutating func items(plan: Entitlement?) async throws {
        let batches = ArchiveBatches<ArchiveRecord.Item>(source.forEachItem)
        defer { batches.finish() }
        while let batch = try await batches.next() {
            for item in batch { try await self.item(item) }
        }
        try plan?.checkItems(before: itemsBefore, after: try await count("item"), action: .restore)
    }

    private mutating func item(_ item: ArchiveRecord.Item) async throws {
        let uuid = Self.uuid(item.id)
        var existing: (seq: Int64, household: UUID, updated: Int64)?
        for try await row in try await c.query("SELECT seq, household_id, updated_at FROM item WHERE id = \(uuid)", logger: logger)
            .decode((Int64, UUID, Int64).self) {
            existing = row
        }
        let roomID = item.roomID.flatMap { rooms[$0] }
        let categoryID = item.categoryID.flatMap { categories[$0] }
        if let existing, existing.household == targetID {
            guard item.updatedAt > existing.updated else {
                summary.items.skipped += 1
                return
            }
            try await c.query("""
                UPDATE item SET name = \(item.name), name_key = \(Text.foldKey(item.name)), brand = \(item.brand), model_number = \(item.modelNumber),
                    serial_number = \(item.serialNumber), price_minor = \(item.priceMinor), currency = \(item.currency),
                    quantity = \(Int32(item.quantity)), purchase_date = \(item.purchaseDate), category_id = \(categoryID), room_id = \(roomID),
                    condition = \(item.condition), condition_notes = \(item.conditionNotes), barcode = \(item.barcode),
                    warranty_expiry = \(item.warrantyExpiry), notes = \(item.notes), created_at = \(item.createdAt), updated_at = \(item.updatedAt)
                WHERE seq = \(existing.seq)
                """, logger: logger)
            try await c.query("DELETE FROM item_tag WHERE item_seq = \(existing.seq)", logger: logger)
            try await PostgresStore.insertTags(c, household, seq: existing.seq, tags: item.tags, logger: logger)
            touched.insert(existing.seq)
            summary.items.updated += 1
            return
        }
        let id = existing == nil ? uuid : UUID()
        if existing != nil { movedItems[item.id] = id }
        var seq: Int64 = 0
        for try await value in try await c.query("""
            INSERT INTO item (id, household_id, name, name_key, brand, model_number, serial_number, price_minor, currency, quantity,
                purchase_date, category_id, room_id, condition, condition_notes, barcode, warranty_expiry, notes, created_at, updated_at)
            VALUES (\(id), \(targetID), \(item.name), \(Text.foldKey(item.name)), \(item.brand), \(item.modelNumber), \(item.serialNumber),
                    \(item.priceMinor), \(item.currency), \(Int32(item.quantity)), \(item.purchaseDate), \(categoryID), \(roomID),
                    \(item.condition), \(item.conditionNotes), \(item.barcode), \(item.warrantyExpiry), \(item.notes), \(item.createdAt),
                    \(item.updatedAt))
            RETURNING seq
            """, logger: logger).decode(Int64.self) {
            seq = value
        }
        try await PostgresStore.insertTags(c, household, seq: seq, tags: item.tags, logger: logger)
        added.append(seq)
        summary.items.added += 1
    }

    /// The row of the archive's item `id` as the target household has it after the items are in.
    func itemSeq(_ id: String) async throws -> Int64? {
        try await scalar("SELECT seq FROM item WHERE id = \(movedItems[id] ?? Self.uuid(id)) AND household_id = \(targetID)", Int64.self)
    }

    // MARK: Valuations, photos, receipts, reports

    /// Each item's history, on the items as the target knows them; one already there is kept.
    mutating func valuations() async throws {
        let batches = ArchiveBatches<ArchiveRecord.Valuation>(source.forEachValuation)
        defer { batches.finish() }
        while let batch = try await batches.next() {
            for v in batch {
                guard let seq = try await itemSeq(v.itemID) else { continue }
                if try await scalar("SELECT 1 FROM valuation WHERE id = \(Self.uuid(v.id)) AND household_id = \(targetID)", Int32.self) != nil {
                    continue
                }
                let id = try await fresh("valuation", v.id)
                try await c.query("""
                    INSERT INTO valuation (id, household_id, item_seq, currency, rcv_minor, rcv_low_minor, rcv_high_minor, acv_minor, acv_low_minor,
                        acv_high_minor, method, confidence, valued_on, sources, explanation, created_at)
                    VALUES (\(id), \(targetID), \(seq), \(v.currency), \(v.rcvMinor), \(v.rcvLowMinor), \(v.rcvHighMinor), \(v.acvMinor),
                            \(v.acvLowMinor), \(v.acvHighMinor), \(v.method), \(v.confidence), \(v.valuedOn), \(v.sources), \(v.explanation),
                            \(v.createdAt))
                    """, logger: logger)
            }
        }
    }

    /// A file in place (fsynced, held) and its `blob` row recorded, before the row that names it commits.
    private func placeFile(_ sha: String, files: [String: StagedBlob], blobFiles: (any BlobFiles)?, placed: inout Set<String>) async throws {
        guard placed.insert(sha).inserted else { return }
        guard let staged = files[sha], let blob = source.blobs[sha], let blobFiles else { throw DomainError.notFound("The archive's file \(sha.prefix(12))…") }
        _ = try await PostgresStore.commitBlob(c, blobFiles, staged, contentType: blob.contentType, now: Date(millis: blob.createdAt), logger: logger)
    }

    mutating func photos(files: [String: StagedBlob], blobFiles: (any BlobFiles)?) async throws {
        var placed = Set<String>()
        let batches = ArchiveBatches<ArchiveRecord.Photo>(source.forEachPhoto)
        defer { batches.finish() }
        while let batch = try await batches.next() {
            for photo in batch {
                guard let seq = try await itemSeq(photo.itemID) else {
                    summary.photos.skipped += 1
                    continue
                }
                if try await scalar("SELECT household_id FROM item_photo WHERE id = \(Self.uuid(photo.id))", UUID.self) == targetID {
                    summary.photos.skipped += 1
                    continue
                }
                let id = try await fresh("item_photo", photo.id)
                try await placeFile(photo.sha256, files: files, blobFiles: blobFiles, placed: &placed)
                let hasPrimary = try await scalar("SELECT 1 FROM item_photo WHERE item_seq = \(seq) AND is_primary", Int32.self) != nil
                try await c.query("""
                    INSERT INTO item_photo (id, household_id, item_seq, sha256, is_primary, position, created_at)
                    VALUES (\(id), \(targetID), \(seq), \(photo.sha256), \(photo.isPrimary && !hasPrimary), \(Int32(photo.position)), \(photo.createdAt))
                    """, logger: logger)
                summary.photos.added += 1
            }
        }
        placedFiles = placed
    }

    /// Files already placed by the photos (each is held once).
    var placedFiles = Set<String>()

    mutating func receipts(files: [String: StagedBlob], blobFiles: (any BlobFiles)?) async throws {
        var placed = placedFiles
        let batches = ArchiveBatches<ArchiveRecord.Receipt>(source.forEachReceipt)
        defer { batches.finish() }
        let addedSeqs = Set(added)
        while let batch = try await batches.next() {
            for receipt in batch {
                if try await scalar("SELECT household_id FROM receipt WHERE id = \(Self.uuid(receipt.id))", UUID.self) == targetID {
                    summary.receipts.skipped += 1
                    continue
                }
                let id = try await fresh("receipt", receipt.id)
                try await placeFile(receipt.sha256, files: files, blobFiles: blobFiles, placed: &placed)
                var seq: Int64?
                if let item = receipt.itemID { seq = try await itemSeq(item) }
                try await c.query("""
                    INSERT INTO receipt (id, household_id, item_seq, sha256, vendor, currency, total_minor, tax_minor, purchase_date, raw_text,
                        confidence, created_at)
                    VALUES (\(id), \(targetID), \(seq), \(receipt.sha256), \(receipt.vendor), \(receipt.currency), \(receipt.totalMinor),
                            \(receipt.taxMinor), \(receipt.purchaseDate), \(receipt.rawText), \(receipt.confidence), \(receipt.createdAt))
                    """, logger: logger)
                if let seq, !addedSeqs.contains(seq) { touched.insert(seq) }
                summary.receipts.added += 1
            }
        }
    }

    /// The export history: each report's file is moved into the reports folder before its row commits.
    mutating func reports(files: [String: StagedBlob], folder: URL?, placed: PlacedFiles) async throws {
        for report in source.reports {
            if try await scalar("SELECT household_id FROM report WHERE id = \(Self.uuid(report.id))", UUID.self) == targetID {
                summary.reports.skipped += 1
                continue
            }
            guard let staged = files[report.fileName], let folder else { throw DomainError.notFound("The archive's report \(report.fileName)") }
            let id = try await fresh("report", report.id)
            let fileName = "\(id.uuidString.lowercased()).pdf"
            let destination = folder.appendingPathComponent(fileName)
            try await PostgresStore.onFileThread {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                guard rename(staged.tmpURL.path, destination.path) == 0 else {
                    throw PostgresStoreError.reportFile("cannot move a report into \(destination.path): \(String(cString: strerror(errno)))")
                }
                try PostgresStore.fsyncFolder(folder)
            }
            placed.add(destination)
            try await c.query("""
                INSERT INTO report (id, household_id, kind, created_at, byte_count, options, file_name)
                VALUES (\(id), \(targetID), \(report.kind), \(report.createdAt), \(report.byteCount), \(report.options), \(fileName))
                """, logger: logger)
            summary.reports.added += 1
        }
    }

    /// The search documents: every added item's, then the changed ones already here.
    func reindex() async throws {
        for seq in added + touched.subtracting(added).sorted() {
            try await PostgresStore.reindex(c, household, seq: seq, logger: logger)
        }
    }
}

/// An archive table read by its source's synchronous `forEach…` on a thread of its own, handed over in batches with
/// at most a few waiting, so a restore's memory stays flat whatever the archive's size. `finish` stops the reading.
final class ArchiveBatches<Row: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready: [[Row]] = []
    private var ended = false
    private var failure: (any Error)?
    private var stopped = false
    private let capacity = 4
    private struct Stopped: Error {}

    init(_ forEach: @escaping @Sendable (_ body: (Row) throws -> Void) throws -> Void) {
        PostgresStore.fileQueue.async { [self] in
            var batch: [Row] = []
            batch.reserveCapacity(256)
            do {
                try forEach { row in
                    batch.append(row)
                    if batch.count == 256 {
                        try hand(batch)
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                if !batch.isEmpty { try hand(batch) }
                condition.withLock { ended = true; condition.broadcast() }
            } catch is Stopped {
            } catch {
                condition.withLock { failure = error; ended = true; condition.broadcast() }
            }
        }
    }

    private func hand(_ batch: [Row]) throws {
        condition.lock()
        defer { condition.unlock() }
        while ready.count >= capacity && !stopped { condition.wait() }
        if stopped { throw Stopped() }
        ready.append(batch)
        condition.broadcast()
    }

    /// The next batch, or nil at the end; waits on the blocking pool's terms (a thread of the file queue).
    func next() async throws -> [Row]? {
        try await PostgresStore.onFileThread { [self] in
            condition.lock()
            defer { condition.unlock() }
            while ready.isEmpty && !ended { condition.wait() }
            if !ready.isEmpty {
                let batch = ready.removeFirst()
                condition.broadcast()
                return batch
            }
            if let failure { throw failure }
            return nil
        }
    }

    func finish() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }
}

extension PostgresStore {
    /// Makes a folder's entries durable (a file just renamed into it).
    static func fsyncFolder(_ url: URL) throws {
        let fd = Glibc.open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw PostgresStoreError.reportFile("cannot open folder \(url.path)") }
        defer { Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw PostgresStoreError.reportFile("fsync of \(url.path) failed") }
    }
}
