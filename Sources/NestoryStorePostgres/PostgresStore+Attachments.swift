import Foundation
import Logging
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// Item photos, stored files and receipts on PostgreSQL (the schema: `PostgresAttachmentSchema`). Every statement on
/// photos and receipts names its household; `blob` rows are by content, shared by whoever has the same bytes (as on
/// SQLite), and read for a household only through its own photos, receipts and photos to value
/// (`PostgresStore+ValuationIntake`).
///
/// Stored files keep SQLite's guarantees with several servers writing at once:
/// - a row never commits before its file: `upload` before the transaction; inside it the `blob` row is locked
///   (`FOR SHARE`) or found missing, then `ensurePresent`, under a shared advisory lock on the hash held to commit;
/// - a row's file is removed only by a transaction that holds its `blob` row `FOR UPDATE` and then sees no photo,
///   receipt or photo to value use it (a writer of the same bytes waits for it, then finds no row and puts the file back);
/// - a file without a row is swept only under the hash's exclusive advisory lock, checked by a statement after the
///   lock is taken: a writer between putting the file in place and committing its row holds the shared lock.
extension PostgresStore: AttachmentStore {
    // MARK: - Photos

    public func addPhoto(_ householdID: HouseholdID, to itemID: ItemID, staged: StagedBlob, contentType: String, now: Date) async throws -> ItemPhoto {
        let files = try requireFiles()
        defer { files.discard(staged) }
        try await Self.onFileThread { try files.upload(staged) }
        return try await transaction { connection in
            // The item's row is locked: photos added at once take positions in turn, and one of them the primary.
            let seq = try await Self.itemSeq(connection, householdID, itemID, lock: true, logger: logger)
            let attachment = try await Self.commitBlob(connection, files, staged, contentType: contentType, now: now, logger: logger)
            var position = 0
            var hasPrimary = false
            for try await (next, primary) in try await connection.query("""
                SELECT COALESCE(max(position) + 1, 0)::integer, COALESCE(bool_or(is_primary), false) FROM item_photo WHERE item_seq = \(seq)
                """, logger: logger).decode((Int, Bool).self) {
                (position, hasPrimary) = (next, primary)
            }
            let photo = ItemPhoto(householdID: householdID, itemID: itemID, attachment: attachment, isPrimary: !hasPrimary,
                                  position: position, createdAt: now)
            try await connection.query("""
                INSERT INTO item_photo (id, household_id, item_seq, sha256, is_primary, position, created_at)
                VALUES (\(photo.id.rawValue), \(householdID.rawValue), \(seq), \(attachment.sha256), \(photo.isPrimary),
                        \(Int32(clamping: position)), \(now.millis))
                """, logger: logger)
            try await connection.query("UPDATE item SET updated_at = \(now.millis) WHERE seq = \(seq)", logger: logger)
            return photo
        }
    }

    public func removePhoto(_ householdID: HouseholdID, _ photoID: PhotoID, now: Date) async throws {
        let hash: String = try await transaction { connection in
            let (seq, sha256, wasPrimary) = try await Self.photoRow(connection, householdID, photoID, logger: logger)
            try await connection.query("DELETE FROM item_photo WHERE id = \(photoID.rawValue)", logger: logger)
            if wasPrimary {
                try await connection.query("""
                    UPDATE item_photo SET is_primary = true WHERE id =
                        (SELECT id FROM item_photo WHERE item_seq = \(seq) ORDER BY position, created_at LIMIT 1)
                    """, logger: logger)
            }
            try await connection.query("UPDATE item SET updated_at = \(now.millis) WHERE seq = \(seq)", logger: logger)
            return sha256
        }
        try await removeUnreferencedBlobs([hash])
    }

    public func setPhotoOrder(_ householdID: HouseholdID, _ itemID: ItemID, _ order: [PhotoID], now: Date) async throws {
        try await transaction { connection in
            let seq = try await Self.itemSeq(connection, householdID, itemID, lock: true, logger: logger)
            var current: [UUID] = []
            for try await id in try await connection.query("SELECT id FROM item_photo WHERE item_seq = \(seq)", logger: logger).decode(UUID.self) {
                current.append(id)
            }
            let named = order.map(\.rawValue)
            guard named.count == current.count, Set(named) == Set(current) else {
                throw DomainError.invalid(field: "photoIDs", message: "List each of the item's \(current.count) photo\(current.count == 1 ? "" : "s") exactly once.")
            }
            // One primary per item is a unique index: cleared before the new first photo takes it.
            try await connection.query("UPDATE item_photo SET is_primary = false WHERE item_seq = \(seq) AND is_primary", logger: logger)
            try await connection.query("""
                UPDATE item_photo p SET position = (o.n - 1)::integer, is_primary = (o.n = 1)
                FROM unnest(\(named)::uuid[]) WITH ORDINALITY AS o(id, n) WHERE p.id = o.id AND p.item_seq = \(seq)
                """, logger: logger)
            try await connection.query("UPDATE item SET updated_at = \(now.millis) WHERE seq = \(seq)", logger: logger)
        }
    }

    public func setPrimaryPhoto(_ householdID: HouseholdID, _ photoID: PhotoID) async throws {
        try await transaction { connection in
            let (seq, _, _) = try await Self.photoRow(connection, householdID, photoID, logger: logger)
            try await connection.query("UPDATE item_photo SET is_primary = false WHERE item_seq = \(seq) AND is_primary", logger: logger)
            try await connection.query("UPDATE item_photo SET is_primary = true WHERE id = \(photoID.rawValue)", logger: logger)
        }
    }

    public func photos(_ householdID: HouseholdID, of itemID: ItemID) async throws -> [ItemPhoto] {
        try await withStoreErrors {
            try await client.withConnection { connection in
                let seq = try await Self.itemSeq(connection, householdID, itemID, lock: false, logger: logger)
                var photos: [ItemPhoto] = []
                for try await (id, sha256, type, bytes, primary, position, created) in try await connection.query("""
                    SELECT p.id, p.sha256, b.content_type, b.byte_count, p.is_primary, p.position, p.created_at
                    FROM item_photo p JOIN blob b ON b.sha256 = p.sha256
                    WHERE p.item_seq = \(seq) AND p.household_id = \(householdID.rawValue)
                    ORDER BY p.is_primary DESC, p.position, p.created_at
                    """, logger: logger).decode((UUID, String, String, Int64, Bool, Int, Int64).self) {
                    photos.append(ItemPhoto(id: PhotoID(id), householdID: householdID, itemID: itemID,
                                            attachment: Attachment(sha256: sha256, contentType: type, byteCount: bytes),
                                            isPrimary: primary, position: position, createdAt: Date(millis: created)))
                }
                return photos
            }
        }
    }

    // MARK: - Stored files

    public func attachment(_ householdID: HouseholdID, sha256: String) async throws -> Attachment {
        try await withStoreErrors {
            for try await (type, bytes) in try await client.query("""
                SELECT b.content_type, b.byte_count FROM blob b WHERE b.sha256 = \(sha256) AND (
                    EXISTS (SELECT 1 FROM item_photo WHERE sha256 = b.sha256 AND household_id = \(householdID.rawValue))
                    OR EXISTS (SELECT 1 FROM receipt WHERE sha256 = b.sha256 AND household_id = \(householdID.rawValue))
                    OR EXISTS (SELECT 1 FROM valuation_intake WHERE sha256 = b.sha256 AND household_id = \(householdID.rawValue)))
                """, logger: logger).decode((String, Int64).self) {
                return Attachment(sha256: sha256, contentType: type, byteCount: bytes)
            }
            throw DomainError.notFound("The file")
        }
    }

    public func attachmentData(_ householdID: HouseholdID, sha256: String) async throws -> (Data, Attachment) {
        let attachment = try await self.attachment(householdID, sha256: sha256)
        let files = try requireFiles()
        return (try await Self.onFileThread { try files.read(sha256) }, attachment)
    }

    @discardableResult
    public func collectGarbage(now: Date) async throws -> Int {
        let files = try requireFiles()
        // Photos to value expire when no item was made of them within their lifetime; their files go below unless
        // another row uses them.
        try await withStoreErrors {
            try await client.query("DELETE FROM valuation_intake WHERE created_at < \(now.addingTimeInterval(-IntakePhoto.lifetime).millis)",
                                   logger: logger)
        }
        let unreferenced: [String] = try await withStoreErrors {
            var hashes: [String] = []
            for try await sha256 in try await client.query(PostgresQuery(unsafeSQL: "SELECT sha256 FROM blob b WHERE NOT (\(Self.blobInUse))"),
                                                           logger: logger).decode(String.self) {
                hashes.append(sha256)
            }
            return hashes
        }
        try await removeUnreferencedBlobs(unreferenced)
        // Files without a row: put in place by a transaction that then failed, or whose row went while a backup held them.
        guard let pin = files.removalPin() else { return unreferenced.count }
        defer { pin.release() }
        let stored = try await Self.onFileThread { try files.sweepableHashes(now: now) }
        guard !stored.isEmpty else { return unreferenced.count }
        let orphans: Int = try await withStoreErrors {
            try await client.withConnection { connection in
                var removed = 0
                for sha256 in stored {
                    // The lock first, then (a statement of its own, so a new snapshot) the row: a writer holds the shared
                    // lock until its row commits. Session locks, let go one by one: a sweep of many files holds one at a time.
                    guard try await Self.exists(connection, "SELECT pg_try_advisory_lock(\(Self.blobLockClass), hashtext(\(sha256)))",
                                                logger: logger) else { continue }
                    do {
                        if try await !Self.exists(connection, "SELECT EXISTS (SELECT 1 FROM blob WHERE sha256 = \(sha256))", logger: logger) {
                            try await Self.onFileThread { try files.remove(sha256) }
                            removed += 1
                        }
                    } catch {
                        _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.blobLockClass), hashtext(\(sha256)))", logger: logger)
                        throw error
                    }
                    try await connection.query("SELECT pg_advisory_unlock(\(Self.blobLockClass), hashtext(\(sha256)))", logger: logger)
                }
                return removed
            }
        }
        return unreferenced.count + orphans
    }

    public func recordedFiles(among hashes: [String]) async throws -> Set<String> {
        guard !hashes.isEmpty else { return [] }
        return try await withStoreErrors {
            var found = Set<String>()
            for try await sha256 in try await client.query("SELECT sha256 FROM blob WHERE sha256 = ANY(\(hashes))", logger: logger)
                .decode(String.self) {
                found.insert(sha256)
            }
            return found
        }
    }

    // MARK: - Receipts

    public func addReceipt(_ householdID: HouseholdID, itemID: ItemID?, staged: StagedBlob, contentType: String, fields: ReceiptFields,
                           now: Date) async throws -> Receipt {
        let files = try requireFiles()
        defer { files.discard(staged) }
        try await Self.onFileThread { try files.upload(staged) }
        return try await transaction { connection in
            _ = try await Self.fetchHousehold(connection, householdID, logger: logger)
            var seq: Int64?
            if let itemID { seq = try await Self.itemSeq(connection, householdID, itemID, lock: true, logger: logger) }
            let attachment = try await Self.commitBlob(connection, files, staged, contentType: contentType, now: now, logger: logger)
            let receipt = Receipt(householdID: householdID, itemID: itemID, attachment: attachment, vendor: fields.vendor,
                                  total: fields.total, tax: fields.tax, purchaseDate: fields.purchaseDate,
                                  rawText: fields.rawText, confidence: fields.confidence, createdAt: now)
            try await connection.query("""
                INSERT INTO receipt (id, household_id, item_seq, sha256, vendor, currency, total_minor, tax_minor, purchase_date, raw_text,
                    confidence, created_at)
                VALUES (\(receipt.id.rawValue), \(householdID.rawValue), \(seq), \(attachment.sha256), \(fields.vendor),
                        \((fields.total ?? fields.tax)?.currency.code), \(fields.total?.minorUnits), \(fields.tax?.minorUnits),
                        \(fields.purchaseDate?.iso), \(fields.rawText), \(fields.confidence), \(now.millis))
                """, logger: logger)
            if let seq { try await Self.reindex(connection, householdID, seq: seq, logger: logger) }
            return receipt
        }
    }

    public func receipt(_ householdID: HouseholdID, _ id: ReceiptID) async throws -> ReceiptListing {
        let query = PostgresQuery(unsafeSQL: "\(Self.receiptSelect) WHERE r.household_id = $1 AND r.id = $2",
                                  binds: try Self.binds(householdID.rawValue, id.rawValue))
        return try await withStoreErrors {
            guard let listing = try await Self.receiptListings(try await client.query(query, logger: logger), householdID).first else {
                throw DomainError.notFound("The receipt")
            }
            return listing
        }
    }

    public func receipts(_ householdID: HouseholdID, limit: Int, after: PageCursor?, unlinkedOnly: Bool) async throws -> Page<ReceiptListing> {
        let limit = min(max(limit, 1), ReceiptPageCursor.maxLimit)
        let unlinked = unlinkedOnly ? " AND r.item_seq IS NULL" : ""
        let query: PostgresQuery
        if let after {
            guard let position = ReceiptPageCursor.parse(after) else { throw ReceiptPageCursor.outOfDate }
            query = PostgresQuery(unsafeSQL: """
                \(Self.receiptSelect) WHERE r.household_id = $1\(unlinked) AND (r.created_at < $2 OR (r.created_at = $2 AND r.id > $3))
                ORDER BY r.created_at DESC, r.id LIMIT $4
                """, binds: try Self.binds(householdID.rawValue, position.millis, position.id.rawValue, Int64(limit + 1)))
        } else {
            query = PostgresQuery(unsafeSQL: "\(Self.receiptSelect) WHERE r.household_id = $1\(unlinked) ORDER BY r.created_at DESC, r.id LIMIT $2",
                                  binds: try Self.binds(householdID.rawValue, Int64(limit + 1)))
        }
        let rows = try await withStoreErrors { try await Self.receiptListings(try await client.query(query, logger: logger), householdID) }
        return ReceiptPageCursor.page(rows, limit: limit)
    }

    public func receipts(_ householdID: HouseholdID, of itemID: ItemID) async throws -> [Receipt] {
        try await withStoreErrors {
            try await client.withConnection { connection in
                let seq = try await Self.itemSeq(connection, householdID, itemID, lock: false, logger: logger)
                let query = PostgresQuery(unsafeSQL: "\(Self.receiptSelect) WHERE r.household_id = $1 AND r.item_seq = $2 ORDER BY r.created_at, r.id",
                                          binds: try Self.binds(householdID.rawValue, seq))
                return try await Self.receiptListings(try await connection.query(query, logger: logger), householdID).map(\.receipt)
            }
        }
    }

    public func updateReceipt(_ householdID: HouseholdID, _ id: ReceiptID, _ fields: ReceiptFields, expected: ReceiptFields?) async throws {
        try await transaction { connection in
            let (seq, _) = try await Self.receiptRow(connection, householdID, id, logger: logger)
            if let expected {
                // The row is locked (FOR UPDATE above), so what it holds now is what the update replaces.
                let query = PostgresQuery(unsafeSQL: "\(Self.receiptSelect) WHERE r.household_id = $1 AND r.id = $2",
                                          binds: try Self.binds(householdID.rawValue, id.rawValue))
                let now = try await Self.receiptListings(try await connection.query(query, logger: logger), householdID).first
                if now?.receipt.fields != expected { throw ReceiptChanged() }
            }
            try await connection.query("""
                UPDATE receipt SET vendor = \(fields.vendor), currency = \((fields.total ?? fields.tax)?.currency.code),
                    total_minor = \(fields.total?.minorUnits), tax_minor = \(fields.tax?.minorUnits), purchase_date = \(fields.purchaseDate?.iso),
                    raw_text = \(fields.rawText), confidence = \(fields.confidence)
                WHERE id = \(id.rawValue)
                """, logger: logger)
            if let seq { try await Self.reindex(connection, householdID, seq: seq, logger: logger) }
        }
    }

    public func linkReceipt(_ householdID: HouseholdID, _ receiptID: ReceiptID, to itemID: ItemID?) async throws {
        try await transaction { connection in
            let (old, _) = try await Self.receiptRow(connection, householdID, receiptID, logger: logger)
            var new: Int64?
            if let itemID { new = try await Self.itemSeq(connection, householdID, itemID, lock: true, logger: logger) }
            try await connection.query("UPDATE receipt SET item_seq = \(new) WHERE id = \(receiptID.rawValue)", logger: logger)
            for seq in Set([old, new].compactMap { $0 }) { try await Self.reindex(connection, householdID, seq: seq, logger: logger) }
        }
    }

    public func deleteReceipt(_ householdID: HouseholdID, _ id: ReceiptID) async throws {
        let hash: String = try await transaction { connection in
            let (seq, sha256) = try await Self.receiptRow(connection, householdID, id, logger: logger)
            try await connection.query("DELETE FROM receipt WHERE id = \(id.rawValue)", logger: logger)
            if let seq { try await Self.reindex(connection, householdID, seq: seq, logger: logger) }
            return sha256
        }
        try await removeUnreferencedBlobs([hash])
    }

    /// Reports count by their rows (as SQLite's); the database's size is the whole database's
    /// (shared by every household, as SQLite's file is); the free space of the server's disk is not known here.
    public func storageSummary(_ householdID: HouseholdID) async throws -> StorageSummary {
        try await withStoreErrors {
            for try await row in try await client.query("""
                SELECT COALESCE((SELECT items FROM item_stats WHERE household_id = \(householdID.rawValue)), 0),
                    (SELECT count(*) FROM item_photo WHERE household_id = \(householdID.rawValue)),
                    (SELECT COALESCE(sum(b.byte_count), 0)::bigint FROM blob b
                     WHERE b.sha256 IN (SELECT sha256 FROM item_photo WHERE household_id = \(householdID.rawValue))),
                    (SELECT count(*) FROM receipt WHERE household_id = \(householdID.rawValue)),
                    (SELECT COALESCE(sum(b.byte_count), 0)::bigint FROM blob b
                     WHERE b.sha256 IN (SELECT sha256 FROM receipt WHERE household_id = \(householdID.rawValue))),
                    pg_database_size(current_database()),
                    (SELECT count(*) FROM report WHERE household_id = \(householdID.rawValue)),
                    (SELECT COALESCE(sum(byte_count), 0)::bigint FROM report WHERE household_id = \(householdID.rawValue))
                """, logger: logger).decode((Int, Int, Int64, Int, Int64, Int64, Int, Int64).self) {
                return StorageSummary(items: row.0, photos: .init(count: row.1, bytes: row.2), receipts: .init(count: row.3, bytes: row.4),
                                      reports: .init(count: row.6, bytes: row.7), databaseBytes: row.5, freeBytes: nil)
            }
            return StorageSummary(items: 0, photos: .init(count: 0, bytes: 0), receipts: .init(count: 0, bytes: 0),
                                  reports: .init(count: 0, bytes: 0), databaseBytes: 0, freeBytes: nil)
        }
    }

    // MARK: - Internals

    func requireFiles() throws -> any BlobFiles {
        guard let blobFiles else { throw PostgresStoreError.noBlobFiles }
        return blobFiles
    }

    /// The first key of the advisory locks on a stored file's hash (the second is `hashtext` of the hash); the
    /// two-key space is apart from the migrations' one-key lock.
    static let blobLockClass: Int32 = 0x4E42

    /// Runs a file operation (a rename and fsync, or an object store's request) on a thread of its own, not on
    /// Swift's shared threads, which the event loops' work waits on.
    static func onFileThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            fileQueue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    static let fileQueue = DispatchQueue(label: "nestory.postgres.files", attributes: .concurrent)

    /// Inside a write transaction: the file kept (before the row commits) and its `blob` row recorded, held against
    /// removal until commit.
    static func commitBlob(_ connection: PostgresConnection, _ files: any BlobFiles, _ staged: StagedBlob, contentType: String, now: Date,
                           logger: Logger) async throws -> Attachment {
        try await connection.query("SELECT pg_advisory_xact_lock_shared(\(blobLockClass), hashtext(\(staged.sha256)))", logger: logger)
        var recorded: String?
        for try await type in try await connection.query("SELECT content_type FROM blob WHERE sha256 = \(staged.sha256) FOR SHARE",
                                                         logger: logger).decode(String.self) {
            recorded = type
        }
        let wasRecorded = recorded != nil
        try await onFileThread { try files.ensurePresent(staged, recorded: wasRecorded) }
        if let recorded { return Attachment(sha256: staged.sha256, contentType: recorded, byteCount: staged.byteCount) }
        try await connection.query("""
            INSERT INTO blob (sha256, content_type, byte_count, created_at)
            VALUES (\(staged.sha256), \(contentType), \(staged.byteCount), \(now.millis)) ON CONFLICT (sha256) DO NOTHING
            """, logger: logger)
        return Attachment(sha256: staged.sha256, contentType: contentType, byteCount: staged.byteCount)
    }

    /// `commitBlob` for many files at once (a restore's batch): their shared locks taken in hash order, the recorded
    /// ones read with one statement, each file made sure of on the file thread, the new `blob` rows written with one.
    static func commitBlobs(_ connection: PostgresConnection, _ files: any BlobFiles, _ blobs: [(staged: StagedBlob, contentType: String, now: Date)],
                            logger: Logger) async throws {
        let sorted = blobs.sorted { $0.staged.sha256 < $1.staged.sha256 }
        let shas = sorted.map(\.staged.sha256)
        try await connection.query("""
            SELECT count(pg_advisory_xact_lock_shared(\(blobLockClass), hashtext(s))) FROM unnest(\(shas)::text[]) AS s
            """, logger: logger)
        var recorded = Set<String>()
        for try await sha in try await connection.query("SELECT sha256 FROM blob WHERE sha256 = ANY(\(shas)::text[]) FOR SHARE", logger: logger)
            .decode(String.self) {
            recorded.insert(sha)
        }
        let (staged, known) = (sorted.map(\.staged), recorded)
        try await onFileThread { for file in staged { try files.ensurePresent(file, recorded: known.contains(file.sha256)) } }
        let new = sorted.filter { !recorded.contains($0.staged.sha256) }
        guard !new.isEmpty else { return }
        try await connection.query("""
            INSERT INTO blob (sha256, content_type, byte_count, created_at)
            SELECT * FROM unnest(\(new.map(\.staged.sha256))::text[], \(new.map(\.contentType))::text[], \(new.map(\.staged.byteCount))::bigint[],
                                 \(new.map(\.now.millis))::bigint[])
            ON CONFLICT (sha256) DO NOTHING
            """, logger: logger)
    }

    /// Whether a stored file is in use, for `blob b`: a photo, a receipt, a photo to value or a report names it.
    static let blobInUse = """
        EXISTS (SELECT 1 FROM item_photo WHERE sha256 = b.sha256) OR EXISTS (SELECT 1 FROM receipt WHERE sha256 = b.sha256) \
        OR EXISTS (SELECT 1 FROM valuation_intake WHERE sha256 = b.sha256) OR EXISTS (SELECT 1 FROM report WHERE sha256 = b.sha256)
        """

    /// Removes stored files no photo, receipt, photo to value or report uses any more: each `blob` row locked, then its uses looked up (a new
    /// snapshot, after the lock), the row and file removed in that transaction. While a backup holds its pin, rows go
    /// and files stay (orphans for the next sweep).
    func removeUnreferencedBlobs(_ candidates: [String]) async throws {
        guard !candidates.isEmpty, let files = blobFiles else { return }
        let pin = files.removalPin()
        defer { pin?.release() }
        try await transaction { connection in
            for sha256 in Set(candidates).sorted() {
                var held = false
                for try await _ in try await connection.query("SELECT sha256 FROM blob WHERE sha256 = \(sha256) FOR UPDATE", logger: logger) {
                    held = true
                }
                guard held else { continue }
                var binds = PostgresBindings()
                binds.append(sha256)
                guard try await !Self.exists(connection, PostgresQuery(unsafeSQL: "SELECT \(Self.blobInUse) FROM blob b WHERE b.sha256 = $1", binds: binds),
                                             logger: logger) else { continue }
                try await connection.query("DELETE FROM blob WHERE sha256 = \(sha256)", logger: logger)
                guard pin != nil else { continue }
                try await Self.onFileThread { try files.remove(sha256) }
            }
        }
    }

    /// An item's sequence number in its household (another household's is not found), its row locked when asked.
    static func itemSeq(_ connection: PostgresConnection, _ householdID: HouseholdID, _ id: ItemID, lock: Bool, logger: Logger) async throws -> Int64 {
        let query: PostgresQuery = lock
            ? "SELECT seq FROM item WHERE household_id = \(householdID.rawValue) AND id = \(id.rawValue) FOR UPDATE"
            : "SELECT seq FROM item WHERE household_id = \(householdID.rawValue) AND id = \(id.rawValue)"
        for try await seq in try await connection.query(query, logger: logger).decode(Int64.self) { return seq }
        throw DomainError.notFound("The item")
    }

    /// A photo of the household: its item (row locked), file and whether it is primary.
    static func photoRow(_ connection: PostgresConnection, _ householdID: HouseholdID, _ id: PhotoID,
                         logger: Logger) async throws -> (seq: Int64, sha256: String, primary: Bool) {
        for try await (seq, sha256, primary) in try await connection.query("""
            SELECT p.item_seq, p.sha256, p.is_primary FROM item_photo p JOIN item i ON i.seq = p.item_seq
            WHERE p.household_id = \(householdID.rawValue) AND p.id = \(id.rawValue) FOR UPDATE
            """, logger: logger).decode((Int64, String, Bool).self) {
            return (seq, sha256, primary)
        }
        throw DomainError.notFound("The photo")
    }

    /// A receipt of the household (row locked): the item it is linked to, and its file.
    static func receiptRow(_ connection: PostgresConnection, _ householdID: HouseholdID, _ id: ReceiptID,
                           logger: Logger) async throws -> (seq: Int64?, sha256: String) {
        for try await (seq, sha256) in try await connection.query("""
            SELECT item_seq, sha256 FROM receipt WHERE household_id = \(householdID.rawValue) AND id = \(id.rawValue) FOR UPDATE
            """, logger: logger).decode((Int64?, String).self) {
            return (seq, sha256)
        }
        throw DomainError.notFound("The receipt")
    }

    /// An item's search document written again from its row, tags and linked receipts.
    static func reindex(_ connection: PostgresConnection, _ householdID: HouseholdID, seq: Int64, logger: Logger) async throws {
        guard let row = try await fetchItems(connection, householdID, seqs: [seq], logger: logger).first else { return }
        try await reindex(connection, householdID, seq: seq, row.item.draft, logger: logger)
    }

    /// The columns `receiptListings` reads, by position.
    static let receiptSelect = """
        SELECT r.id, r.sha256, b.content_type, b.byte_count, r.vendor, r.currency, r.total_minor, r.tax_minor, r.purchase_date, \
        r.raw_text, r.confidence, r.created_at, i.id, i.name \
        FROM receipt r JOIN blob b ON b.sha256 = r.sha256 LEFT JOIN item i ON i.seq = r.item_seq
        """

    static func receiptListings(_ rows: PostgresRowSequence, _ householdID: HouseholdID) async throws -> [ReceiptListing] {
        var listings: [ReceiptListing] = []
        for try await row in rows {
            let row = row.makeRandomAccess()
            let currency = try row[5].decode(String?.self).flatMap { try? CurrencyCode($0) } ?? .usd
            let receipt = Receipt(
                id: ReceiptID(try row[0].decode(UUID.self)), householdID: householdID, itemID: try row[12].decode(UUID?.self).map { ItemID($0) },
                attachment: Attachment(sha256: try row[1].decode(String.self), contentType: try row[2].decode(String.self),
                                       byteCount: try row[3].decode(Int64.self)),
                vendor: try row[4].decode(String?.self),
                total: try row[6].decode(Int64?.self).flatMap { try? Money(minorUnits: $0, currency: currency) },
                tax: try row[7].decode(Int64?.self).flatMap { try? Money(minorUnits: $0, currency: currency) },
                purchaseDate: try row[8].decode(String?.self).flatMap { try? CalendarDate(iso: $0) },
                rawText: try row[9].decode(String?.self), confidence: try row[10].decode(Double?.self),
                createdAt: Date(millis: try row[11].decode(Int64.self)))
            listings.append(ReceiptListing(receipt: receipt, itemName: try row[13].decode(String?.self)))
        }
        return listings
    }
}
