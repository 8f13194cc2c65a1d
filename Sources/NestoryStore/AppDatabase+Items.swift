import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

/// The bulk-insert types live beside the store interfaces (`ArchiveStore.insertItemsInBulk`); these names keep them here too.
public typealias NewItem = NestoryStoreInterfaces.NewItem
public typealias StoredReceipt = NestoryStoreInterfaces.StoredReceipt

extension AppDatabase {
    // MARK: - Items

    /// Adds an item. The draft is validated against the household's calendar day.
    /// `plan`, when given, is checked in the same transaction as the insert (Free's item limit).
    public func createItem(_ householdID: HouseholdID, _ draft: ItemDraft, now: Date, today: CalendarDate? = nil,
                           plan: Entitlement? = nil) throws -> Item {
        let draft = try draft.validated(today: today ?? CalendarDate(now, in: .current))
        return try write { db in
            _ = try Self.fetchHousehold(db, householdID)
            if let plan {
                let before = try Self.itemsIn(db, householdID.description)
                try plan.checkItems(before: before, after: before + 1, action: .add)
            }
            try Self.checkPlaces(db, householdID, draft)
            let item = Item(householdID: householdID, draft: draft, createdAt: now)
            let seq = try Self.insertItem(db, item)
            try Self.reindex(db, seq: seq, new: true)
            return item
        }
    }

    /// Replaces an item's editable fields.
    public func updateItem(_ householdID: HouseholdID, _ id: ItemID, _ draft: ItemDraft, now: Date, today: CalendarDate? = nil,
                           expected: Date? = nil) throws -> Item {
        let draft = try draft.validated(today: today ?? CalendarDate(now, in: .current))
        return try write { db in
            let seq = try Self.itemSeq(db, householdID, id)
            if let expected, try Int64.fetchOne(db, sql: "SELECT updated_at FROM item WHERE seq = ?", arguments: [seq]) != expected.millis {
                throw ItemChanged()
            }
            try Self.checkPlaces(db, householdID, draft)
            try db.execute(sql: """
                UPDATE item SET name = ?, name_key = ?, brand = ?, model_number = ?, serial_number = ?, price_minor = ?,
                    currency = ?, quantity = ?, purchase_date = ?, category_id = ?, room_id = ?, condition = ?,
                    condition_notes = ?, barcode = ?, warranty_expiry = ?, notes = ?, updated_at = ?
                WHERE seq = ?
                """, arguments: [draft.name, Text.foldKey(draft.name), draft.brand, draft.modelNumber, draft.serialNumber,
                                 draft.purchasePrice?.minorUnits, draft.currency.code, draft.quantity,
                                 draft.purchaseDate?.iso, draft.categoryID?.description, draft.roomID?.description,
                                 draft.condition.rawValue, draft.conditionNotes, draft.barcode, draft.warrantyExpiry?.iso,
                                 draft.notes, now.millis, seq])
            // Tags are written again only when they changed (writing them marks the household's list keys stale).
            let tags = try String.fetchAll(db, sql: "SELECT tag FROM item_tag WHERE item_seq = ? ORDER BY position", arguments: [seq])
            if tags != draft.tags {
                try db.execute(sql: "DELETE FROM item_tag WHERE item_seq = ?", arguments: [seq])
                try Self.insertTags(db, seq: seq, householdID: householdID, tags: draft.tags)
            }
            try Self.reindex(db, seq: seq)
            return try Self.fetchItem(db, householdID, seq: seq)
        }
    }

    /// Deletes an item and its photos. Receipts stay (unlinked): they are evidence in their own right.
    /// Stored files no other row uses are removed after the deletion has committed.
    public func deleteItem(_ householdID: HouseholdID, _ id: ItemID) throws {
        let candidates: [String] = try write { db in
            let seq = try Self.itemSeq(db, householdID, id)
            let hashes = try String.fetchAll(db, sql: "SELECT DISTINCT sha256 FROM item_photo WHERE item_seq = ?", arguments: [seq])
            try db.execute(sql: "DELETE FROM item WHERE seq = ?", arguments: [seq])
            return hashes
        }
        try removeUnreferencedBlobs(candidates)
    }

    public func item(_ householdID: HouseholdID, _ id: ItemID) throws -> ItemDetails {
        try read { db in
            let seq = try Self.itemSeq(db, householdID, id)
            let item = try Self.fetchItem(db, householdID, seq: seq)
            return ItemDetails(item: item, photos: try Self.photos(db, householdID, id, seq: seq),
                               receipts: try Self.receipts(db, householdID, id, seq: seq))
        }
    }

    /// An item's photos, the main one first, then by position and time added (another household's item is not found).
    public func photos(_ householdID: HouseholdID, of id: ItemID) throws -> [ItemPhoto] {
        try read { db in try Self.photos(db, householdID, id, seq: try Self.itemSeq(db, householdID, id)) }
    }

    /// An item's receipts, oldest first (another household's item is not found).
    public func receipts(_ householdID: HouseholdID, of id: ItemID) throws -> [Receipt] {
        try read { db in try Self.receipts(db, householdID, id, seq: try Self.itemSeq(db, householdID, id)) }
    }

    static func photos(_ db: Database, _ householdID: HouseholdID, _ id: ItemID, seq: Int64) throws -> [ItemPhoto] {
        try Row.fetchAll(db, sql: """
            SELECT p.*, b.content_type, b.byte_count FROM item_photo p JOIN blob b ON b.sha256 = p.sha256
            WHERE p.item_seq = ? ORDER BY p.is_primary DESC, p.position, p.created_at
            """, arguments: [seq]).map { Self.photoFrom($0, householdID: householdID, itemID: id) }
    }

    static func receipts(_ db: Database, _ householdID: HouseholdID, _ id: ItemID, seq: Int64) throws -> [Receipt] {
        try Row.fetchAll(db, sql: """
            SELECT r.*, b.content_type, b.byte_count FROM receipt r JOIN blob b ON b.sha256 = r.sha256
            WHERE r.item_seq = ? ORDER BY r.created_at
            """, arguments: [seq]).map { Self.receiptFrom($0, householdID: householdID, itemID: id) }
    }

    /// Inserts many items in one transaction (demo data, imports): all or nothing.
    /// Drafts are validated; photos must already be stored (see `storeAttachment`).
    public func insertItems(_ householdID: HouseholdID, _ items: [NewItem], today: CalendarDate) throws {
        var pending: [NewItem]? = items
        try insertItemsInBulk(householdID, count: items.count, today: today) {
            defer { pending = nil }
            return pending
        }
    }

    /// Inserts the items `next` gives, batch after batch until it gives nil, in one transaction: all or nothing,
    /// and only one batch in memory at a time. `count`, how many are coming, decides how: when they are at least
    /// as many as the server holds already (a demo household, a first import or restore of a large inventory),
    /// the item table's secondary indexes are dropped for the load and built again at the end, each sorted once:
    /// inserted one by one, every batch rewrote pages of each of them at random places (at a million items about
    /// nine pages per item). Readers see the indexes throughout (they read the last commit); the index definitions
    /// are taken from the schema itself, so they come back exactly as they were.
    public func insertItemsInBulk(_ householdID: HouseholdID, count: Int, today: CalendarDate, next: () throws -> [NewItem]?) throws {
        try insertItemsInBulk(householdID, count: count, today: today, rebuildMinimum: Self.bulkRebuildMinimum, next: next)
    }

    /// `rebuildMinimum`: a test hook.
    func insertItemsInBulk(_ householdID: HouseholdID, count: Int, today: CalendarDate, rebuildMinimum: Int,
                           next: () throws -> [NewItem]?) throws {
        try bulkItemWrite(count: count, rebuildMinimum: rebuildMinimum) { db in
            _ = try Self.fetchHousehold(db, householdID)
            var placeCheck = Set<String>()
            while let batch = try next() {
                for new in batch {
                    var new = new
                    new.draft = try new.draft.validated(today: today)
                    try Self.insertNew(db, householdID, new, placeCheck: &placeCheck)
                }
            }
        }
    }

    /// One write transaction for `count` new items (see `insertItemsInBulk`): with that many or more than the server
    /// holds, the item table's secondary indexes are dropped before `load` and built again after it.
    func bulkItemWrite<T>(count: Int, rebuildMinimum: Int = AppDatabase.bulkRebuildMinimum, _ load: (Database) throws -> T) throws -> T {
        let held = try read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(items), 0) FROM item_stats") ?? 0 }
        let rebuild = count >= rebuildMinimum && count >= held
        func loadRebuildingIndexes(_ db: Database) throws -> T {
            // The list-version triggers (Migrations.itemListVersion, itemContentVersion) go with the indexes: each would bump its household's
            // version once per item and tag; every household's is bumped once at the end instead.
            let dropped = rebuild
                ? try Row.fetchAll(db, sql: """
                    SELECT name, sql, type FROM sqlite_schema WHERE sql IS NOT NULL
                    AND ((type = 'index' AND tbl_name = 'item') OR (type = 'trigger' AND name LIKE 'item\\_list\\_%' ESCAPE '\\'))
                    """).map { (name: $0["name"] as String, sql: $0["sql"] as String, type: $0["type"] as String) }
                : []
            for object in dropped { try db.execute(sql: "DROP \(object.type.uppercased()) \(object.name)") }
            let result = try load(db)
            for object in dropped { try db.execute(sql: object.sql) }
            if rebuild {
                try db.execute(sql: """
                    INSERT INTO item_list_version (household_id, version, content) SELECT id, 1, 1 FROM household WHERE true
                    ON CONFLICT (household_id) DO UPDATE SET version = version + 1, content = content + 1
                    """)
            }
            return result
        }
        guard rebuild else { return try write(loadRebuildingIndexes) }
        try gate.enter(path: folder.path)
        defer { gate.leave() }
        do {
            // Building an index sorts every item; with temporary files in memory that sort would hold them all
            // (300 MB at a million items), so this write keeps its scratch space on disk, and a 16 MB page cache
            // (SQLite sorts in memory up to the cache's size, then merges runs from disk). Without the indexes
            // each insert touches few pages (the new rows go at the ends of the table and the search index), and
            // its statement journal stays under the 64 KB SQLite keeps in memory.
            return try writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA temp_store = FILE; PRAGMA cache_size = -16384")
                defer { try? db.execute(sql: "PRAGMA temp_store = MEMORY; PRAGMA cache_size = \(Self.writerCacheSize)") }
                var result: T?
                try db.inTransaction {
                    result = try loadRebuildingIndexes(db)
                    return .commit
                }
                return result!
            }
        } catch {
            throw StoreError.translate(error, path: folder.path)
        }
    }

    /// Below this many items a bulk write keeps the indexes (building them again costs a pass over every item).
    static let bulkRebuildMinimum = 50_000

    static func insertNew(_ db: Database, _ householdID: HouseholdID, _ new: NewItem, placeCheck: inout Set<String>) throws {
        let key = "\(new.draft.roomID?.description ?? "")|\(new.draft.categoryID?.description ?? "")"
        if placeCheck.insert(key).inserted { try Self.checkPlaces(db, householdID, new.draft) }
        let item = Item(id: new.id, householdID: householdID, draft: new.draft, createdAt: new.createdAt)
        let seq = try Self.insertItem(db, item)
        for (position, attachment) in new.photos.enumerated() {
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM blob WHERE sha256 = ?"), arguments: [attachment.sha256]) == true else {
                throw StoreError.attachmentMissing(sha256: attachment.sha256)
            }
            try db.cachedStatement(sql: """
                INSERT INTO item_photo (id, household_id, item_seq, sha256, is_primary, position, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [PhotoID().description, householdID.description, seq, attachment.sha256,
                                 position == 0, position, new.createdAt.millis])
        }
        for receipt in new.receipts {
            try Self.insertReceipt(db, ReceiptID(), householdID, itemSeq: seq, receipt.attachment, receipt.fields, now: new.createdAt)
        }
        try Self.reindex(db, seq: seq, new: true)
    }

    // MARK: - Photos

    /// Stores a file and records it without linking it to anything yet; returns what rows refer to.
    /// Used for files shared by many rows (demo photos); uploads go through `addPhoto`.
    public func storeAttachment(_ data: Data, contentType: String, now: Date) throws -> Attachment {
        let staged = try blobs.stage(data)
        defer { blobs.discard(staged) }
        try blobs.upload(staged)
        return try write { db in try self.commitBlob(db, staged, contentType: contentType, now: now) }
    }

    /// Adds a photo to an item; the first photo becomes primary.
    public func addPhoto(_ householdID: HouseholdID, to itemID: ItemID, data: Data, contentType: String, now: Date) throws -> ItemPhoto {
        let staged = try blobs.stage(data)
        return try addPhoto(householdID, to: itemID, staged: staged, contentType: contentType, now: now)
    }

    /// Adds a photo from a staged file (an upload spooled to disk).
    public func addPhoto(_ householdID: HouseholdID, to itemID: ItemID, staged: BlobStore.Staged, contentType: String, now: Date) throws -> ItemPhoto {
        defer { blobs.discard(staged) }
        try blobs.upload(staged)
        return try write { db in
            let seq = try Self.itemSeq(db, householdID, itemID)
            let attachment = try commitBlob(db, staged, contentType: contentType, now: now)
            let position = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(position) + 1, 0) FROM item_photo WHERE item_seq = ?",
                                            arguments: [seq]) ?? 0
            let isPrimary = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item_photo WHERE item_seq = ? AND is_primary = 1",
                                             arguments: [seq]) == 0
            let photo = ItemPhoto(householdID: householdID, itemID: itemID, attachment: attachment, isPrimary: isPrimary,
                                  position: position, createdAt: now)
            try db.execute(sql: """
                INSERT INTO item_photo (id, household_id, item_seq, sha256, is_primary, position, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [photo.id.description, householdID.description, seq, attachment.sha256, isPrimary, position, now.millis])
            try db.execute(sql: "UPDATE item SET updated_at = ? WHERE seq = ?", arguments: [now.millis, seq])
            return photo
        }
    }

    /// Removes a photo; if it was primary, the next one becomes primary.
    public func removePhoto(_ householdID: HouseholdID, _ photoID: PhotoID, now: Date) throws {
        let hash: String = try write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT item_seq, sha256, is_primary FROM item_photo WHERE household_id = ? AND id = ?",
                                             arguments: [householdID.description, photoID.description]) else {
                throw DomainError.notFound("The photo")
            }
            let seq: Int64 = row["item_seq"]
            try db.execute(sql: "DELETE FROM item_photo WHERE id = ?", arguments: [photoID.description])
            if row["is_primary"] as Bool {
                try db.execute(sql: """
                    UPDATE item_photo SET is_primary = 1 WHERE id =
                        (SELECT id FROM item_photo WHERE item_seq = ? ORDER BY position, created_at LIMIT 1)
                    """, arguments: [seq])
            }
            try db.execute(sql: "UPDATE item SET updated_at = ? WHERE seq = ?", arguments: [now.millis, seq])
            return row["sha256"]
        }
        try removeUnreferencedBlobs([hash])
    }

    /// Puts an item's photos in the given order: the first becomes the main photo. `order` must name every
    /// photo of the item exactly once (checked here, in the same transaction as the write).
    public func setPhotoOrder(_ householdID: HouseholdID, _ itemID: ItemID, _ order: [PhotoID], now: Date) throws {
        try write { db in
            let seq = try Self.itemSeq(db, householdID, itemID)
            let current = try String.fetchAll(db, sql: "SELECT id FROM item_photo WHERE item_seq = ?", arguments: [seq])
            let named = order.map(\.description)
            guard named.count == current.count, Set(named) == Set(current) else {
                throw DomainError.invalid(field: "photoIDs", message: "List each of the item's \(current.count) photo\(current.count == 1 ? "" : "s") exactly once.")
            }
            // One primary per item is a unique index: clear it before the new first photo takes it.
            try db.execute(sql: "UPDATE item_photo SET is_primary = 0 WHERE item_seq = ?", arguments: [seq])
            for (position, id) in named.enumerated() {
                try db.execute(sql: "UPDATE item_photo SET position = ?, is_primary = ? WHERE id = ?", arguments: [position, position == 0, id])
            }
            try db.execute(sql: "UPDATE item SET updated_at = ? WHERE seq = ?", arguments: [now.millis, seq])
        }
    }

    public func setPrimaryPhoto(_ householdID: HouseholdID, _ photoID: PhotoID) throws {
        try write { db in
            guard let seq = try Int64.fetchOne(db, sql: "SELECT item_seq FROM item_photo WHERE household_id = ? AND id = ?",
                                               arguments: [householdID.description, photoID.description]) else {
                throw DomainError.notFound("The photo")
            }
            try db.execute(sql: "UPDATE item_photo SET is_primary = 0 WHERE item_seq = ?", arguments: [seq])
            try db.execute(sql: "UPDATE item_photo SET is_primary = 1 WHERE id = ?", arguments: [photoID.description])
        }
    }

    /// The bytes of a stored file, only if a photo, a receipt or a photo to value of this household uses it.
    public func attachmentData(_ householdID: HouseholdID, sha256: String) throws -> (Data, Attachment) {
        let attachment = try self.attachment(householdID, sha256: sha256)
        return (try blobs.read(sha256), attachment)
    }

    /// What is recorded of a stored file (type, size), only if a photo, a receipt or a photo to value of this
    /// household uses it; its bytes are not read.
    public func attachment(_ householdID: HouseholdID, sha256: String) throws -> Attachment {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT b.* FROM blob b WHERE b.sha256 = ? AND (
                    EXISTS (SELECT 1 FROM item_photo WHERE household_id = ? AND sha256 = b.sha256)
                    OR EXISTS (SELECT 1 FROM receipt WHERE household_id = ? AND sha256 = b.sha256)
                    OR EXISTS (SELECT 1 FROM valuation_intake WHERE household_id = ? AND sha256 = b.sha256))
                """, arguments: [sha256, householdID.description, householdID.description, householdID.description]) else {
                throw DomainError.notFound("The file")
            }
            return Attachment(sha256: row["sha256"], contentType: row["content_type"], byteCount: row["byte_count"])
        }
    }

    // MARK: - Receipts

    /// Stores a receipt image with whatever was read from it, linked to an item or not.
    public func addReceipt(_ householdID: HouseholdID, itemID: ItemID?, data: Data, contentType: String,
                           fields: ReceiptFields = ReceiptFields(), now: Date) throws -> Receipt {
        try addReceipt(householdID, itemID: itemID, staged: try blobs.stage(data), contentType: contentType, fields: fields, now: now)
    }

    /// Stores a receipt image from a staged file (its temporary file is discarded), linked to an item or not.
    public func addReceipt(_ householdID: HouseholdID, itemID: ItemID?, staged: BlobStore.Staged, contentType: String,
                           fields: ReceiptFields = ReceiptFields(), now: Date) throws -> Receipt {
        defer { blobs.discard(staged) }
        try blobs.upload(staged)
        return try write { db in
            _ = try Self.fetchHousehold(db, householdID)
            let seq = try itemID.map { try Self.itemSeq(db, householdID, $0) }
            let attachment = try commitBlob(db, staged, contentType: contentType, now: now)
            let receipt = Receipt(householdID: householdID, itemID: itemID, attachment: attachment, vendor: fields.vendor,
                                  total: fields.total, tax: fields.tax, purchaseDate: fields.purchaseDate,
                                  rawText: fields.rawText, confidence: fields.confidence, createdAt: now)
            try Self.insertReceipt(db, receipt.id, householdID, itemSeq: seq, attachment, fields, now: now)
            if let seq { try Self.reindex(db, seq: seq) }
            return receipt
        }
    }

    /// Links a receipt to an item, or unlinks it with `nil`.
    public func linkReceipt(_ householdID: HouseholdID, _ receiptID: ReceiptID, to itemID: ItemID?) throws {
        try write { db in
            guard let old = try Row.fetchOne(db, sql: "SELECT item_seq FROM receipt WHERE household_id = ? AND id = ?",
                                             arguments: [householdID.description, receiptID.description]) else {
                throw DomainError.notFound("The receipt")
            }
            let oldSeq: Int64? = old["item_seq"]
            let newSeq = try itemID.map { try Self.itemSeq(db, householdID, $0) }
            try db.execute(sql: "UPDATE receipt SET item_seq = ? WHERE id = ?", arguments: [newSeq, receiptID.description])
            for seq in Set([oldSeq, newSeq].compactMap { $0 }) { try Self.reindex(db, seq: seq) }
        }
    }

    /// Deletes a receipt; the item it was linked to loses its text from search, and its stored file goes once no
    /// row uses it (after the deletion has committed).
    public func deleteReceipt(_ householdID: HouseholdID, _ receiptID: ReceiptID) throws {
        let hash: String = try write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT item_seq, sha256 FROM receipt WHERE household_id = ? AND id = ?",
                                             arguments: [householdID.description, receiptID.description]) else {
                throw DomainError.notFound("The receipt")
            }
            try db.execute(sql: "DELETE FROM receipt WHERE id = ?", arguments: [receiptID.description])
            if let seq: Int64 = row["item_seq"] { try Self.reindex(db, seq: seq) }
            return row["sha256"]
        }
        try removeUnreferencedBlobs([hash])
    }

    // MARK: - Internals

    static func insertReceipt(_ db: Database, _ id: ReceiptID, _ householdID: HouseholdID, itemSeq: Int64?,
                              _ attachment: Attachment, _ fields: ReceiptFields, now: Date) throws {
        guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM blob WHERE sha256 = ?"), arguments: [attachment.sha256]) == true else {
            throw StoreError.attachmentMissing(sha256: attachment.sha256)
        }
        try db.cachedStatement(sql: """
            INSERT INTO receipt (id, household_id, item_seq, sha256, vendor, currency, total_minor, tax_minor,
                purchase_date, raw_text, confidence, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [id.description, householdID.description, itemSeq, attachment.sha256, fields.vendor,
                             (fields.total ?? fields.tax)?.currency.code, fields.total?.minorUnits, fields.tax?.minorUnits,
                             fields.purchaseDate?.iso, fields.rawText, fields.confidence, now.millis])
    }

    static func itemSeq(_ db: Database, _ householdID: HouseholdID, _ id: ItemID) throws -> Int64 {
        guard let seq = try Int64.fetchOne(db, sql: "SELECT seq FROM item WHERE household_id = ? AND id = ?",
                                           arguments: [householdID.description, id.description]) else {
            throw DomainError.notFound("The item")
        }
        return seq
    }

    /// A room or category must belong to the same household (the schema's triggers check it too).
    static func checkPlaces(_ db: Database, _ householdID: HouseholdID, _ draft: ItemDraft) throws {
        var errors: [FieldError] = []
        if let room = draft.roomID, try Bool.fetchOne(db, sql: "SELECT 1 FROM room WHERE household_id = ? AND id = ?",
                                                      arguments: [householdID.description, room.description]) != true {
            errors.append(FieldError(field: "roomID", message: "Choose one of your rooms."))
        }
        if let category = draft.categoryID, try Bool.fetchOne(db, sql: "SELECT 1 FROM category WHERE household_id = ? AND id = ?",
                                                              arguments: [householdID.description, category.description]) != true {
            errors.append(FieldError(field: "categoryID", message: "Choose one of your categories."))
        }
        if !errors.isEmpty { throw DomainError.validation(errors) }
    }

    static func insertItem(_ db: Database, _ item: Item) throws -> Int64 {
        // Cached statements: bulk inserts (imports, demo data) compile each SQL text once.
        try db.cachedStatement(sql: """
            INSERT INTO item (id, household_id, name, name_key, brand, model_number, serial_number, price_minor, currency,
                quantity, purchase_date, category_id, room_id, condition, condition_notes, barcode, warranty_expiry, notes,
                created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [item.id.description, item.householdID.description, item.name, Text.foldKey(item.name), item.brand,
                             item.modelNumber, item.serialNumber, item.purchasePrice?.minorUnits, item.currency.code,
                             item.quantity, item.purchaseDate?.iso, item.categoryID?.description, item.roomID?.description,
                             item.condition.rawValue, item.conditionNotes, item.barcode, item.warrantyExpiry?.iso, item.notes,
                             item.createdAt.millis, item.updatedAt.millis])
        let seq = db.lastInsertedRowID
        try insertTags(db, seq: seq, householdID: item.householdID, tags: item.tags)
        return seq
    }

    static func insertTags(_ db: Database, seq: Int64, householdID: HouseholdID, tags: [String]) throws {
        for (position, tag) in tags.enumerated() {
            try db.cachedStatement(sql: "INSERT INTO item_tag (item_seq, household_id, position, tag, tag_key) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [seq, householdID.description, position, tag, Text.foldKey(tag)])
        }
    }

    /// What the search index holds of an item (`item` in the FROM clause), letters folded as searches are.
    static let indexedColumns = """
        seq, nestory_fold(name), nestory_fold(brand), nestory_fold(model_number), nestory_fold(serial_number), nestory_fold(notes),
            nestory_fold((SELECT group_concat(tag, ' ') FROM item_tag WHERE item_seq = item.seq)),
            nestory_fold((SELECT group_concat(COALESCE(vendor, '') || ' ' || COALESCE(raw_text, ''), ' ') FROM receipt WHERE item_seq = item.seq))
        """

    /// Rewrites an item's search row from its fields, tags and linked receipts' text. A new item has no row to
    /// remove (deleting an item deletes its row), which bulk writes save a lookup on.
    static func reindex(_ db: Database, seq: Int64, new: Bool = false) throws {
        if !new { try db.cachedStatement(sql: "DELETE FROM item_fts WHERE rowid = ?").execute(arguments: [seq]) }
        try db.cachedStatement(sql: """
            INSERT INTO item_fts (rowid, name, brand, model, serial, notes, tags, receipts)
            SELECT \(Self.indexedColumns) FROM item WHERE seq = ?
            """).execute(arguments: [seq])
    }

    static func fetchItem(_ db: Database, _ householdID: HouseholdID, seq: Int64) throws -> Item {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(ItemColumns.select) FROM item WHERE item.seq = ? AND item.household_id = ?",
                                         arguments: [seq, householdID.description]) else {
            throw DomainError.notFound("The item")
        }
        return ItemColumns.item(row, householdID: householdID)
    }

    static func photoFrom(_ row: Row, householdID: HouseholdID, itemID: ItemID) -> ItemPhoto {
        ItemPhoto(id: row.id("id"), householdID: householdID, itemID: itemID,
                  attachment: Attachment(sha256: row["sha256"], contentType: row["content_type"], byteCount: row["byte_count"]),
                  isPrimary: row["is_primary"], position: row["position"], createdAt: row.date("created_at"))
    }

    static func receiptFrom(_ row: Row, householdID: HouseholdID, itemID: ItemID?) -> Receipt {
        let currency = (row["currency"] as String?).flatMap { try? CurrencyCode($0) } ?? .usd
        return Receipt(id: row.id("id"), householdID: householdID, itemID: itemID,
                       attachment: Attachment(sha256: row["sha256"], contentType: row["content_type"], byteCount: row["byte_count"]),
                       vendor: row["vendor"], total: row.money("total_minor", currency: currency),
                       tax: row.money("tax_minor", currency: currency), purchaseDate: row.calendarDate("purchase_date"),
                       rawText: row["raw_text"], confidence: row["confidence"], createdAt: row.date("created_at"))
    }

    /// Inside a write: puts the staged file in place (before the row commits) and records it. Call `blobs.upload`
    /// before the write transaction (an object store's PUT is not made while the write lock is held).
    func commitBlob(_ db: Database, _ staged: BlobStore.Staged, contentType: String, now: Date) throws -> Attachment {
        let recorded = try String.fetchOne(db, sql: "SELECT content_type FROM blob WHERE sha256 = ?", arguments: [staged.sha256])
        try blobs.ensurePresent(staged, recorded: recorded != nil)
        if let recorded { return Attachment(sha256: staged.sha256, contentType: recorded, byteCount: staged.byteCount) }
        try db.execute(sql: "INSERT INTO blob (sha256, content_type, byte_count, created_at) VALUES (?, ?, ?, ?)",
                       arguments: [staged.sha256, contentType, staged.byteCount, now.millis])
        return Attachment(sha256: staged.sha256, contentType: contentType, byteCount: staged.byteCount)
    }

    /// Removes stored files that no photo or receipt uses any more, deciding and deleting inside
    /// one write transaction so a concurrent upload of the same bytes cannot lose its file.
    /// While a backup holds its pin, rows go but files stay (orphans for the next sweep).
    func removeUnreferencedBlobs(_ candidates: [String]) throws {
        guard !candidates.isEmpty else { return }
        let pin = blobs.tryPinForRemoval()
        defer { pin?.release() }
        try write { db in
            for sha in Set(candidates) {
                let used = try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM item_photo WHERE sha256 = ?) OR EXISTS (SELECT 1 FROM receipt WHERE sha256 = ?)
                        OR EXISTS (SELECT 1 FROM valuation_intake WHERE sha256 = ?)
                    """, arguments: [sha, sha, sha]) ?? true
                guard !used else { continue }
                try db.execute(sql: "DELETE FROM blob WHERE sha256 = ?", arguments: [sha])
                guard pin != nil else { continue }
                try blobs.remove(sha)
                renditions.remove(sha)
            }
        }
    }

    /// Of `hashes`, those with a `blob` row (`AttachmentStore.recordedFiles`).
    public func recordedFiles(among hashes: [String]) throws -> Set<String> {
        try read { db in
            var found = Set<String>()
            for start in stride(from: 0, to: hashes.count, by: 500) {
                let chunk = Array(hashes[start..<min(start + 500, hashes.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                found.formUnion(try String.fetchAll(db, sql: "SELECT sha256 FROM blob WHERE sha256 IN (\(marks))", arguments: StatementArguments(chunk)))
            }
            return found
        }
    }

    /// Removes stored files no row uses and temporary files over an hour old. Safe while serving.
    /// Returns how many stored files were removed.
    @discardableResult
    public func collectGarbage(now: Date) throws -> Int {
        blobs.sweepTemporaryFiles(olderThan: 3600, now: now)
        // Photos taken to value new things expire when no item was made of them within 30 days.
        try write { db in
            try db.execute(sql: "DELETE FROM valuation_intake WHERE created_at < ?", arguments: [now.addingTimeInterval(-Self.intakeLifetime).millis])
        }
        let unreferenced = try read { db in
            try String.fetchAll(db, sql: """
                SELECT sha256 FROM blob b WHERE NOT EXISTS (SELECT 1 FROM item_photo WHERE sha256 = b.sha256)
                AND NOT EXISTS (SELECT 1 FROM receipt WHERE sha256 = b.sha256)
                AND NOT EXISTS (SELECT 1 FROM valuation_intake WHERE sha256 = b.sha256)
                """)
        }
        try removeUnreferencedBlobs(unreferenced)
        // Files renamed into place by a transaction that then failed have no blob row.
        guard let pin = blobs.tryPinForRemoval() else { return unreferenced.count }
        defer { pin.release() }
        let onDisk = try blobs.allStoredHashes(now: now)
        var orphans = 0
        try write { db in
            for sha in onDisk where try Bool.fetchOne(db, sql: "SELECT 1 FROM blob WHERE sha256 = ?", arguments: [sha]) != true {
                try blobs.remove(sha)
                orphans += 1
            }
        }
        // Report files no history row names (a deletion during a backup), once they are an hour old
        // (a report being recorded has its file in place a moment before its row).
        let names = Set(try read { db in try String.fetchAll(db, sql: "SELECT file_name FROM report") })
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder.reportsURL.path)) ?? [] where !names.contains(file) {
            let url = folder.reportsURL.appendingPathComponent(file)
            if let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
               now.timeIntervalSince(modified) > 3600 {
                try? FileManager.default.removeItem(at: url)
                orphans += 1
            }
        }
        return unreferenced.count + orphans
    }
}

