import Foundation
import Logging
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore {
    // MARK: - Restore

    /// SQLite's `restoreHousehold`, on PostgreSQL: the archive's files are uploaded before the transaction and each is
    /// in place (`ensurePresent`, its `blob` row held) before a row naming it commits; report PDFs are stored files too.
    /// The archive's large tables are read a few batches ahead on a thread of their own, so memory stays flat.
    public func restoreHousehold(_ source: any HouseholdArchiveSource, files: [String: StagedBlob], reportFiles: [String: StagedBlob],
                                 into target: HouseholdID?, mode: RestoreMode, plan: Entitlement?) async throws -> RestoreSummary {
        let blobFiles = files.isEmpty && reportFiles.isEmpty ? nil : try requireFiles()
        if let blobFiles {
            let staged = Array(files.values) + Array(reportFiles.values)
            try await Self.onFileThread { for file in staged { try blobFiles.upload(file) } }
        }
        let logger = logger
        let outcome: (summary: RestoreSummary, removedBlobs: [String]) = try await transaction { c in
            // The row triggers of items, tags, photos and receipts stand aside (migrations 2026-12-03-places and
            // 2026-12-04-batch): the rows go in by batches, and `recount` puts the counters right once at the end.
            try await c.query("SELECT set_config('nestory.item_rows', 'statement', true)", logger: logger)
            var restore = Restore(c: c, logger: logger, source: source, target: target, mode: mode)
            try await restore.household()
            try await restore.places()
            try await restore.items(plan: plan)
            try await restore.valuations()
            try await restore.photos(files: files, blobFiles: blobFiles)
            try await restore.receipts(files: files, blobFiles: blobFiles)
            try await restore.reports(files: reportFiles, blobFiles: blobFiles)
            try await restore.reindex()
            try await restore.recount()
            try await c.query("SELECT set_config('nestory.item_rows', '', true)", logger: logger)
            return (restore.summary, restore.removedBlobs)
        }
        try await removeUnreferencedBlobs(outcome.removedBlobs)
        return outcome.summary
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
                INSERT INTO household (id, name, currency, high_value_threshold_minor, created_at, online_product_lookup, scanning_enabled, time_zone)
                VALUES (\(targetID), \(archived.name), \(archived.currency), \(archived.highValueThresholdMinor), \(archived.createdAt),
                        \(archived.onlineProductLookup ?? false), \(archived.scanningEnabled ?? true), \(archived.knownTimeZone))
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
            for try await sha in try await c.query("SELECT sha256 FROM report WHERE household_id = \(targetID)", logger: logger)
                .decode(String?.self) {
                if let sha { removedBlobs.append(sha) }
                summary.reports.removed += 1
            }
            for table in ["report", "receipt", "item", "room", "category"] {
                try await c.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE household_id = $1", binds: binds(targetID)), logger: logger)
            }
            try await c.query("""
                UPDATE household SET name = \(archived.name), currency = \(archived.currency),
                    high_value_threshold_minor = \(archived.highValueThresholdMinor), online_product_lookup = \(archived.onlineProductLookup ?? false),
                    scanning_enabled = \(archived.scanningEnabled ?? true), time_zone = \(archived.knownTimeZone)
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

    /// New items added, newer ones replace the stored row, the rest are kept; Free's item limit checked after. Each
    /// batch of the archive is looked up with one statement and its new items and their tags written with one each.
    mutating func items(plan: Entitlement?) async throws {
        let batches = ArchiveBatches<ArchiveRecord.Item>(source.forEachItem)
        defer { batches.finish() }
        while let batch = try await batches.next() { try await itemBatch(batch) }
        try plan?.checkItems(before: itemsBefore, after: try await count("item"), action: .restore)
    }

    /// A new item's row as `jsonb_to_recordset` reads it (NULLs as JSON nulls), `n` its place in the archive.
    private struct NewItem: Encodable {
        let n: Int, id: UUID, name: String, nameKey: String, brand: String?, modelNumber: String?, serialNumber: String?
        let priceMinor: Int64?, currency: String, quantity: Int, purchaseDate: String?, categoryID: UUID?, roomID: UUID?
        let condition: String, conditionNotes: String?, barcode: String?, warrantyExpiry: String?, notes: String?
        let createdAt: Int64, updatedAt: Int64
    }

    private struct NewTag: Encodable {
        let seq: Int64, position: Int, tag: String, tagKey: String
    }

    static func json(_ rows: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(rows), as: UTF8.self)
    }

    private mutating func itemBatch(_ batch: [ArchiveRecord.Item]) async throws {
        var existing: [UUID: (seq: Int64, household: UUID, updated: Int64)] = [:]
        for try await (id, seq, household, updated) in try await c.query("""
            SELECT id, seq, household_id, updated_at FROM item WHERE id = ANY(\(batch.map { Self.uuid($0.id) })::uuid[])
            """, logger: logger).decode((UUID, Int64, UUID, Int64).self) {
            existing[id] = (seq, household, updated)
        }
        var rows: [NewItem] = []
        var tags: [[String]] = []
        for item in batch {
            let uuid = Self.uuid(item.id)
            let roomID = item.roomID.flatMap { rooms[$0] }
            let categoryID = item.categoryID.flatMap { categories[$0] }
            if let found = existing[uuid], found.household == targetID {
                guard item.updatedAt > found.updated else {
                    summary.items.skipped += 1
                    continue
                }
                try await update(item, seq: found.seq, roomID: roomID, categoryID: categoryID)
                continue
            }
            let id = existing[uuid] == nil ? uuid : UUID()
            if existing[uuid] != nil { movedItems[item.id] = id }
            rows.append(NewItem(n: rows.count, id: id, name: item.name, nameKey: Text.foldKey(item.name), brand: item.brand,
                                modelNumber: item.modelNumber, serialNumber: item.serialNumber, priceMinor: item.priceMinor,
                                currency: item.currency, quantity: item.quantity, purchaseDate: item.purchaseDate, categoryID: categoryID,
                                roomID: roomID, condition: item.condition, conditionNotes: item.conditionNotes, barcode: item.barcode,
                                warrantyExpiry: item.warrantyExpiry, notes: item.notes, createdAt: item.createdAt, updatedAt: item.updatedAt))
            tags.append(item.tags)
        }
        guard !rows.isEmpty else { return }
        // In the archive's order, so `seq` (the lists' tie-break) follows it as when the items were added one by one.
        var seqs: [UUID: Int64] = [:]
        for try await (id, seq) in try await c.query("""
            INSERT INTO item (id, household_id, name, name_key, brand, model_number, serial_number, price_minor, currency, quantity,
                purchase_date, category_id, room_id, condition, condition_notes, barcode, warranty_expiry, notes, created_at, updated_at)
            SELECT id, \(targetID), name, name_key, brand, model_number, serial_number, price_minor, currency, quantity, purchase_date,
                   category_id, room_id, condition, condition_notes, barcode, warranty_expiry, notes, created_at, updated_at
            FROM jsonb_to_recordset(\(try Self.json(rows))::jsonb) AS t(n integer, id uuid, name text, name_key text, brand text,
                model_number text, serial_number text, price_minor bigint, currency text, quantity integer, purchase_date text,
                category_id uuid, room_id uuid, condition text, condition_notes text, barcode text, warranty_expiry text, notes text,
                created_at bigint, updated_at bigint)
            ORDER BY n
            RETURNING id, seq
            """, logger: logger).decode((UUID, Int64).self) {
            seqs[id] = seq
        }
        var newTags: [NewTag] = []
        for (row, itemTags) in zip(rows, tags) {
            guard let seq = seqs[row.id] else { throw DomainError.notFound("The restored item") }
            added.append(seq)
            for (position, tag) in itemTags.enumerated() {
                newTags.append(NewTag(seq: seq, position: position, tag: tag, tagKey: Text.foldKey(tag)))
            }
        }
        if !newTags.isEmpty {
            try await c.query("""
                INSERT INTO item_tag (item_seq, household_id, position, tag, tag_key)
                SELECT seq, \(targetID), position, tag, tag_key
                FROM jsonb_to_recordset(\(try Self.json(newTags))::jsonb) AS t(seq bigint, position integer, tag text, tag_key text)
                """, logger: logger)
        }
        summary.items.added += rows.count
    }

    /// An item already here that the archive has newer: its row and tags replaced (merges only, so one at a time).
    private mutating func update(_ item: ArchiveRecord.Item, seq: Int64, roomID: UUID?, categoryID: UUID?) async throws {
        try await c.query("""
            UPDATE item SET name = \(item.name), name_key = \(Text.foldKey(item.name)), brand = \(item.brand), model_number = \(item.modelNumber),
                serial_number = \(item.serialNumber), price_minor = \(item.priceMinor), currency = \(item.currency),
                quantity = \(Int32(item.quantity)), purchase_date = \(item.purchaseDate), category_id = \(categoryID), room_id = \(roomID),
                condition = \(item.condition), condition_notes = \(item.conditionNotes), barcode = \(item.barcode),
                warranty_expiry = \(item.warrantyExpiry), notes = \(item.notes), created_at = \(item.createdAt), updated_at = \(item.updatedAt)
            WHERE seq = \(seq)
            """, logger: logger)
        try await c.query("DELETE FROM item_tag WHERE item_seq = \(seq)", logger: logger)
        try await PostgresStore.insertTags(c, household, seq: seq, tags: item.tags, logger: logger)
        touched.insert(seq)
        summary.items.updated += 1
    }

    /// The rows of the archive's items `ids` as the target household has them after the items are in (one statement).
    func itemSeqs(_ ids: some Sequence<String>) async throws -> [String: Int64] {
        var wanted: [UUID: String] = [:]
        for id in ids { wanted[movedItems[id] ?? Self.uuid(id)] = id }
        var seqs: [String: Int64] = [:]
        for try await (id, seq) in try await c.query("""
            SELECT id, seq FROM item WHERE household_id = \(targetID) AND id = ANY(\(Array(wanted.keys))::uuid[])
            """, logger: logger).decode((UUID, Int64).self) {
            if let archived = wanted[id] { seqs[archived] = seq }
        }
        return seqs
    }

    /// Of a batch's ids in `table`: those the target household has (a restore skips them) and those another household
    /// has (a restore gives the row a new id), in one statement.
    func owners(_ table: String, _ ids: [String]) async throws -> (here: Set<String>, elsewhere: Set<String>) {
        var (here, elsewhere) = (Set<String>(), Set<String>())
        let query = PostgresQuery(unsafeSQL: "SELECT id, household_id FROM \(table) WHERE id = ANY($1::uuid[])",
                                  binds: try PostgresStore.binds(ids.map(Self.uuid)))
        for try await (id, owner) in try await c.query(query, logger: logger).decode((UUID, UUID).self) {
            if owner == targetID { here.insert(id.uuidString.lowercased()) } else { elsewhere.insert(id.uuidString.lowercased()) }
        }
        return (here, elsewhere)
    }

    /// The id itself, or a new one when another household uses it (`owners`).
    static func fresh(_ id: String, _ elsewhere: Set<String>) -> UUID { elsewhere.contains(id.lowercased()) ? UUID() : uuid(id) }

    // MARK: Valuations, photos, receipts, reports

    private struct NewValuation: Encodable {
        let n: Int, id: UUID, itemSeq: Int64, currency: String, rcvMinor: Int64?, rcvLowMinor: Int64?, rcvHighMinor: Int64?
        let acvMinor: Int64?, acvLowMinor: Int64?, acvHighMinor: Int64?, method: String, confidence: String, valuedOn: String
        let sources: String, explanation: String?, createdAt: Int64
    }

    /// Each item's history, on the items as the target knows them; one already there is kept.
    mutating func valuations() async throws {
        let batches = ArchiveBatches<ArchiveRecord.Valuation>(source.forEachValuation)
        defer { batches.finish() }
        while let batch = try await batches.next() {
            let seqs = try await itemSeqs(batch.map(\.itemID))
            let (here, elsewhere) = try await owners("valuation", batch.map(\.id))
            var rows: [NewValuation] = []
            for v in batch {
                guard let seq = seqs[v.itemID], !here.contains(v.id.lowercased()) else { continue }
                rows.append(NewValuation(n: rows.count, id: Self.fresh(v.id, elsewhere), itemSeq: seq, currency: v.currency, rcvMinor: v.rcvMinor,
                                         rcvLowMinor: v.rcvLowMinor, rcvHighMinor: v.rcvHighMinor, acvMinor: v.acvMinor, acvLowMinor: v.acvLowMinor,
                                         acvHighMinor: v.acvHighMinor, method: v.method, confidence: v.confidence, valuedOn: v.valuedOn,
                                         sources: v.sources, explanation: v.explanation, createdAt: v.createdAt))
            }
            guard !rows.isEmpty else { continue }
            try await c.query("""
                INSERT INTO valuation (id, household_id, item_seq, currency, rcv_minor, rcv_low_minor, rcv_high_minor, acv_minor, acv_low_minor,
                    acv_high_minor, method, confidence, valued_on, sources, explanation, created_at)
                SELECT id, \(targetID), item_seq, currency, rcv_minor, rcv_low_minor, rcv_high_minor, acv_minor, acv_low_minor, acv_high_minor,
                       method, confidence, valued_on, sources, explanation, created_at
                FROM jsonb_to_recordset(\(try Self.json(rows))::jsonb) AS t(n integer, id uuid, item_seq bigint, currency text,
                    rcv_minor bigint, rcv_low_minor bigint, rcv_high_minor bigint, acv_minor bigint, acv_low_minor bigint, acv_high_minor bigint,
                    method text, confidence text, valued_on text, sources text, explanation text, created_at bigint)
                ORDER BY n
                """, logger: logger)
        }
    }

    /// The files a batch's rows name, each in place (fsynced, held) and its `blob` row recorded before the rows that
    /// name it commit; each file once per restore.
    private func placeFiles(_ shas: [String], files: [String: StagedBlob], blobFiles: (any BlobFiles)?, placed: inout Set<String>) async throws {
        var batch: [(StagedBlob, String, Date)] = []
        for sha in shas where placed.insert(sha).inserted {
            guard let staged = files[sha], let blob = source.blobs[sha], blobFiles != nil else {
                throw DomainError.notFound("The archive's file \(sha.prefix(12))…")
            }
            batch.append((staged, blob.contentType, Date(millis: blob.createdAt)))
        }
        guard let blobFiles, !batch.isEmpty else { return }
        try await PostgresStore.commitBlobs(c, blobFiles, batch, logger: logger)
    }

    /// Moves `item`'s photo or receipt counts by a batch's rows, one statement (the row triggers stand aside).
    private func moveCounts(_ column: String, _ seqs: [Int64]) async throws {
        guard !seqs.isEmpty else { return }
        var counts: [Int64: Int32] = [:]
        for seq in seqs { counts[seq, default: 0] += 1 }
        let keys = Array(counts.keys)
        let query = PostgresQuery(unsafeSQL: """
            UPDATE item i SET \(column) = i.\(column) + t.n FROM unnest($1::bigint[], $2::integer[]) AS t(seq, n) WHERE i.seq = t.seq
            """, binds: try PostgresStore.binds(keys, keys.map { counts[$0]! }))
        try await c.query(query, logger: logger)
    }

    private struct NewPhoto: Encodable {
        let n: Int, id: UUID, itemSeq: Int64, sha256: String, isPrimary: Bool, position: Int, createdAt: Int64
    }

    mutating func photos(files: [String: StagedBlob], blobFiles: (any BlobFiles)?) async throws {
        var placed = Set<String>()
        let batches = ArchiveBatches<ArchiveRecord.Photo>(source.forEachPhoto)
        defer { batches.finish() }
        while let batch = try await batches.next() {
            let seqs = try await itemSeqs(batch.map(\.itemID))
            let (here, elsewhere) = try await owners("item_photo", batch.map(\.id))
            // The items that have a primary photo already (one made earlier in this restore too): a restored photo is
            // primary only on an item without one.
            var hasPrimary = Set<Int64>()
            for try await seq in try await c.query("""
                SELECT item_seq FROM item_photo WHERE item_seq = ANY(\(Array(Set(seqs.values)))::bigint[]) AND is_primary
                """, logger: logger).decode(Int64.self) {
                hasPrimary.insert(seq)
            }
            var rows: [NewPhoto] = []
            for photo in batch {
                guard let seq = seqs[photo.itemID], !here.contains(photo.id.lowercased()) else {
                    summary.photos.skipped += 1
                    continue
                }
                let primary = photo.isPrimary && hasPrimary.insert(seq).inserted
                rows.append(NewPhoto(n: rows.count, id: Self.fresh(photo.id, elsewhere), itemSeq: seq, sha256: photo.sha256, isPrimary: primary,
                                     position: photo.position, createdAt: photo.createdAt))
            }
            guard !rows.isEmpty else { continue }
            try await placeFiles(rows.map(\.sha256), files: files, blobFiles: blobFiles, placed: &placed)
            try await c.query("""
                INSERT INTO item_photo (id, household_id, item_seq, sha256, is_primary, position, created_at)
                SELECT id, \(targetID), item_seq, sha256, is_primary, position, created_at
                FROM jsonb_to_recordset(\(try Self.json(rows))::jsonb) AS t(n integer, id uuid, item_seq bigint, sha256 text, is_primary boolean,
                    position integer, created_at bigint)
                ORDER BY n
                """, logger: logger)
            try await moveCounts("photo_count", rows.map(\.itemSeq))
            summary.photos.added += rows.count
        }
        placedFiles = placed
    }

    /// Files already placed by the photos (each is held once).
    var placedFiles = Set<String>()

    private struct NewReceipt: Encodable {
        let n: Int, id: UUID, itemSeq: Int64?, sha256: String, vendor: String?, currency: String?, totalMinor: Int64?, taxMinor: Int64?
        let purchaseDate: String?, rawText: String?, confidence: Double?, createdAt: Int64
    }

    mutating func receipts(files: [String: StagedBlob], blobFiles: (any BlobFiles)?) async throws {
        var placed = placedFiles
        let batches = ArchiveBatches<ArchiveRecord.Receipt>(source.forEachReceipt)
        defer { batches.finish() }
        let addedSeqs = Set(added)
        while let batch = try await batches.next() {
            let (here, elsewhere) = try await owners("receipt", batch.map(\.id))
            let seqs = try await itemSeqs(batch.compactMap(\.itemID))
            var rows: [NewReceipt] = []
            for receipt in batch {
                if here.contains(receipt.id.lowercased()) {
                    summary.receipts.skipped += 1
                    continue
                }
                let seq = receipt.itemID.flatMap { seqs[$0] }
                rows.append(NewReceipt(n: rows.count, id: Self.fresh(receipt.id, elsewhere), itemSeq: seq, sha256: receipt.sha256,
                                       vendor: receipt.vendor, currency: receipt.currency, totalMinor: receipt.totalMinor, taxMinor: receipt.taxMinor,
                                       purchaseDate: receipt.purchaseDate, rawText: receipt.rawText, confidence: receipt.confidence,
                                       createdAt: receipt.createdAt))
                if let seq, !addedSeqs.contains(seq) { touched.insert(seq) }
            }
            guard !rows.isEmpty else { continue }
            try await placeFiles(rows.map(\.sha256), files: files, blobFiles: blobFiles, placed: &placed)
            try await c.query("""
                INSERT INTO receipt (id, household_id, item_seq, sha256, vendor, currency, total_minor, tax_minor, purchase_date, raw_text,
                    confidence, created_at)
                SELECT id, \(targetID), item_seq, sha256, vendor, currency, total_minor, tax_minor, purchase_date, raw_text, confidence, created_at
                FROM jsonb_to_recordset(\(try Self.json(rows))::jsonb) AS t(n integer, id uuid, item_seq bigint, sha256 text, vendor text,
                    currency text, total_minor bigint, tax_minor bigint, purchase_date text, raw_text text, confidence double precision,
                    created_at bigint)
                ORDER BY n
                """, logger: logger)
            try await moveCounts("receipt_count", rows.compactMap(\.itemSeq))
            summary.receipts.added += rows.count
        }
    }

    /// The export history: each report's file a stored file, in place (held) with its `blob` row before its row commits.
    mutating func reports(files: [String: StagedBlob], blobFiles: (any BlobFiles)?) async throws {
        var placed = Set<String>()
        for report in source.reports {
            if try await scalar("SELECT household_id FROM report WHERE id = \(Self.uuid(report.id))", UUID.self) == targetID {
                summary.reports.skipped += 1
                continue
            }
            guard let staged = files[report.fileName], let blobFiles else { throw DomainError.notFound("The archive's report \(report.fileName)") }
            if placed.insert(staged.sha256).inserted {
                try await PostgresStore.commitBlobs(c, blobFiles, [(staged, PostgresStore.reportContentType, Date(millis: report.createdAt))],
                                                    logger: logger)
            }
            let id = try await fresh("report", report.id)
            try await c.query("""
                INSERT INTO report (id, household_id, kind, created_at, byte_count, options, file_name, sha256)
                VALUES (\(id), \(targetID), \(report.kind), \(report.createdAt), \(report.byteCount), \(report.options),
                        \("\(id.uuidString.lowercased()).pdf"), \(staged.sha256))
                """, logger: logger)
            summary.reports.added += 1
        }
    }

    /// The search documents: every added item's, then the changed ones already here, a few hundred items a statement
    /// (their rows, tags and linked receipts read with one statement each).
    func reindex() async throws {
        let seqs = added + touched.subtracting(added).sorted()
        var start = 0
        while start < seqs.count {
            let chunk = Array(seqs[start..<min(start + 500, seqs.count)])
            start += chunk.count
            var receipts: [Int64: [String]] = [:]
            for try await (seq, text) in try await c.query("""
                SELECT item_seq, COALESCE(vendor, '') || ' ' || COALESCE(raw_text, '') FROM receipt
                WHERE household_id = \(targetID) AND item_seq = ANY(\(chunk)::bigint[]) ORDER BY item_seq, created_at, id
                """, logger: logger).decode((Int64, String).self) {
                receipts[seq, default: []].append(text)
            }
            let rows = try await PostgresStore.fetchItems(c, household, seqs: chunk, logger: logger)
            let documents = rows.map { row in
                PostgresStore.itemDocument(name: row.item.name, brand: row.item.brand, modelNumber: row.item.modelNumber,
                                           serialNumber: row.item.serialNumber, notes: row.item.notes, tags: row.item.tags,
                                           receipts: receipts[row.seq] ?? [])
            }
            // Tokens hold no spaces (as `insertItems` passes them).
            try await c.query("""
                INSERT INTO item_search (seq, household_id, document, name_key, value_minor, created_at)
                SELECT i.seq, i.household_id,
                       nestory_document(string_to_array(d.tokens, ' '), string_to_array(d.positions, ' ')::integer[]),
                       i.name_key, i.value_minor, i.created_at
                FROM unnest(\(rows.map(\.seq))::bigint[], \(documents.map { $0.tokens.joined(separator: " ") })::text[],
                            \(documents.map { $0.positions.map(String.init).joined(separator: " ") })::text[]) AS d(seq, tokens, positions)
                JOIN item i ON i.seq = d.seq
                ON CONFLICT (seq) DO UPDATE SET document = excluded.document
                """, logger: logger)
        }
    }

    /// The counters the row triggers keep, counted again over the household's items (they stood aside for the
    /// restore: a household's counters, whatever was there before), and the item content version moved on once.
    func recount() async throws {
        try await c.query("DELETE FROM item_stats WHERE household_id = \(targetID)", logger: logger)
        try await c.query("""
            INSERT INTO item_stats (household_id, items, documented, no_photo, no_receipt, no_value, high_value)
            SELECT h.id, count(i.seq),
                   count(*) FILTER (WHERE i.photo_count > 0 AND i.price_minor IS NOT NULL AND i.category_id IS NOT NULL AND i.room_id IS NOT NULL),
                   count(*) FILTER (WHERE i.photo_count = 0), count(*) FILTER (WHERE i.receipt_count = 0),
                   count(*) FILTER (WHERE i.seq IS NOT NULL AND i.price_minor IS NULL),
                   count(*) FILTER (WHERE i.value_minor > h.high_value_threshold_minor AND i.currency = h.currency)
            FROM household h LEFT JOIN item i ON i.household_id = h.id WHERE h.id = \(targetID) GROUP BY h.id
            """, logger: logger)
        try await c.query("DELETE FROM value_total WHERE household_id = \(targetID)", logger: logger)
        try await c.query("""
            INSERT INTO value_total (household_id, currency, total, items)
            SELECT household_id, currency, sum(value_minor)::bigint, count(*) FROM item
            WHERE household_id = \(targetID) AND price_minor IS NOT NULL GROUP BY household_id, currency
            """, logger: logger)
        try await c.query("DELETE FROM room_total WHERE household_id = \(targetID)", logger: logger)
        try await c.query("""
            INSERT INTO room_total (household_id, room_id, items)
            SELECT household_id, room_id, count(*) FROM item WHERE household_id = \(targetID) GROUP BY household_id, room_id
            """, logger: logger)
        try await c.query("DELETE FROM category_total WHERE household_id = \(targetID)", logger: logger)
        try await c.query("""
            INSERT INTO category_total (household_id, category_id, currency, total, items)
            SELECT household_id, category_id, currency, sum(value_minor)::bigint, count(*) FROM item
            WHERE household_id = \(targetID) AND price_minor IS NOT NULL GROUP BY household_id, category_id, currency
            """, logger: logger)
        try await c.query("""
            INSERT INTO item_content_version AS v (household_id, content) VALUES (\(targetID), 1)
            ON CONFLICT (household_id) DO UPDATE SET content = v.content + 1
            """, logger: logger)
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
