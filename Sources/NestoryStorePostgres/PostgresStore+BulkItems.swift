import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore {
    /// Adds many new items of one household in one transaction: the rows, their tags and their search documents go in
    /// with one statement each (arrays unnested), where `createItem` spends four round trips an item. For loading a
    /// large household (the benchmarks' million items; moving a household here). The items are taken as they are
    /// (validated, with their ids and times); their rooms and categories must be the household's. The counters' triggers
    /// keep the summary figures as for single items.
    package func insertItems(_ householdID: HouseholdID, _ items: [Item]) async throws {
        guard !items.isEmpty else { return }
        precondition(items.allSatisfy { $0.householdID == householdID }, "items of another household")
        // NULL travels as a value no item has (PostgresNIO's arrays carry no NULLs): '' for text, the smallest Int64.
        try await transaction { connection in try await Self.insertItems(connection, householdID, items, logger: logger) }
    }

    /// `insertItems` inside a transaction of the caller's.
    static func insertItems(_ connection: PostgresConnection, _ householdID: HouseholdID, _ items: [Item], logger: Logger) async throws {
        guard !items.isEmpty else { return }
        let none = Int64.min
        func text(_ value: String?) -> String { value ?? "" }
        do {
            try await connection.query("""
                INSERT INTO item (id, household_id, name, name_key, brand, model_number, serial_number, price_minor, currency, quantity,
                    purchase_date, category_id, room_id, condition, condition_notes, barcode, warranty_expiry, notes, created_at, updated_at)
                SELECT id, \(householdID.rawValue), name, name_key, NULLIF(brand, ''), NULLIF(model, ''), NULLIF(serial, ''),
                       NULLIF(price, \(none)), currency, quantity, NULLIF(purchased, ''), NULLIF(category, '')::uuid,
                       NULLIF(room, '')::uuid, condition, NULLIF(condition_notes, ''), NULLIF(barcode, ''), NULLIF(warranty, ''),
                       NULLIF(notes, ''), created_at, updated_at
                FROM unnest(\(items.map(\.id.rawValue))::uuid[], \(items.map(\.name))::text[], \(items.map { Text.foldKey($0.name) })::text[],
                            \(items.map { text($0.brand) })::text[], \(items.map { text($0.modelNumber) })::text[],
                            \(items.map { text($0.serialNumber) })::text[], \(items.map { $0.purchasePrice?.minorUnits ?? none })::bigint[],
                            \(items.map(\.currency.code))::text[], \(items.map { Int32(clamping: $0.quantity) })::integer[],
                            \(items.map { text($0.purchaseDate?.iso) })::text[], \(items.map { text($0.categoryID?.rawValue.uuidString) })::text[],
                            \(items.map { text($0.roomID?.rawValue.uuidString) })::text[], \(items.map(\.condition.rawValue))::text[],
                            \(items.map { text($0.conditionNotes) })::text[], \(items.map { text($0.barcode) })::text[],
                            \(items.map { text($0.warrantyExpiry?.iso) })::text[], \(items.map { text($0.notes) })::text[],
                            \(items.map(\.createdAt.millis))::bigint[], \(items.map(\.updatedAt.millis))::bigint[])
                     AS t(id, name, name_key, brand, model, serial, price, currency, quantity, purchased, category, room, condition,
                          condition_notes, barcode, warranty, notes, created_at, updated_at)
                """, logger: logger)
            let tagged = items.flatMap { item in item.tags.enumerated().map { (item.id.rawValue, Int32($0.offset), $0.element) } }
            if !tagged.isEmpty {
                try await connection.query("""
                    INSERT INTO item_tag (item_seq, household_id, position, tag, tag_key)
                    SELECT i.seq, i.household_id, t.position, t.tag, t.key
                    FROM unnest(\(tagged.map(\.0))::uuid[], \(tagged.map(\.1))::integer[], \(tagged.map(\.2))::text[],
                                \(tagged.map { Text.foldKey($0.2) })::text[]) AS t(id, position, tag, key)
                    JOIN item i ON i.id = t.id
                    """, logger: logger)
            }
            // The documents as `reindex` writes them (a new item has no receipts); tokens hold no spaces.
            let documents = items.map { item in
                Self.itemDocument(name: item.name, brand: item.brand, modelNumber: item.modelNumber, serialNumber: item.serialNumber,
                                  notes: item.notes, tags: item.tags, receipts: [])
            }
            try await connection.query("""
                INSERT INTO item_search (seq, household_id, document, name_key, value_minor, created_at)
                SELECT i.seq, i.household_id,
                       nestory_document(string_to_array(d.tokens, ' '), string_to_array(d.positions, ' ')::integer[]),
                       i.name_key, i.value_minor, i.created_at
                FROM unnest(\(items.map(\.id.rawValue))::uuid[], \(documents.map { $0.tokens.joined(separator: " ") })::text[],
                            \(documents.map { $0.positions.map(String.init).joined(separator: " ") })::text[]) AS d(id, tokens, positions)
                JOIN item i ON i.id = d.id
                """, logger: logger)
        }
    }

    /// ``ArchiveStore/storeAttachment(_:contentType:now:)``: the file kept, then its `blob` row, as a photo's is.
    public func storeAttachment(_ data: Data, contentType: String, now: Date) async throws -> Attachment {
        let files = try requireFiles()
        let staged = try await Self.onFileThread { try files.stage(data) }
        defer { files.discard(staged) }
        try await Self.onFileThread { try files.upload(staged) }
        return try await transaction { connection in
            try await Self.commitBlob(connection, files, staged, contentType: contentType, now: now, logger: logger)
        }
    }

    /// ``ArchiveStore/insertItemsInBulk(_:count:today:next:)``: each batch's items, tags and search documents with
    /// `insertItems`, their photos with one statement, then each receipt and the document of the item it belongs to.
    public func insertItemsInBulk(_ householdID: HouseholdID, count: Int, today: CalendarDate,
                                  next: @escaping @Sendable () throws -> [NewItem]?) async throws {
        try await transaction { connection in
            _ = try await Self.fetchHousehold(connection, householdID, logger: logger)
            var placeCheck = Set<String>()
            var knownFiles = Set<String>()
            while let batch = try next() {
                var items: [Item] = []
                for new in batch {
                    let draft = try new.draft.validated(today: today)
                    if placeCheck.insert("\(draft.roomID?.description ?? "")|\(draft.categoryID?.description ?? "")").inserted {
                        try await Self.checkPlaces(connection, householdID, draft, logger: logger)
                    }
                    items.append(Item(id: new.id, householdID: householdID, draft: draft, createdAt: new.createdAt))
                }
                let files = Set(batch.flatMap { $0.photos.map(\.sha256) + $0.receipts.map(\.attachment.sha256) }).subtracting(knownFiles)
                if !files.isEmpty {
                    var found = Set<String>()
                    for try await sha256 in try await connection.query("SELECT sha256 FROM blob WHERE sha256 = ANY(\(Array(files))::text[])",
                                                                        logger: logger).decode(String.self) {
                        found.insert(sha256)
                    }
                    if let missing = files.subtracting(found).sorted().first { throw DomainError.notFound("The stored file \(missing.prefix(12))…") }
                    knownFiles.formUnion(found)
                }
                try await Self.insertItems(connection, householdID, items, logger: logger)
                let photos = batch.flatMap { new in new.photos.enumerated().map { (item: new.id.rawValue, position: $0.offset, sha256: $0.element.sha256, at: new.createdAt.millis) } }
                if !photos.isEmpty {
                    try await connection.query("""
                        INSERT INTO item_photo (id, household_id, item_seq, sha256, is_primary, position, created_at)
                        SELECT p.id, i.household_id, i.seq, p.sha256, p.position = 0, p.position, p.created_at
                        FROM unnest(\(photos.map { _ in PhotoID().rawValue })::uuid[], \(photos.map(\.item))::uuid[],
                                    \(photos.map(\.sha256))::text[], \(photos.map { Int32(clamping: $0.position) })::integer[],
                                    \(photos.map(\.at))::bigint[]) AS p(id, item, sha256, position, created_at)
                        JOIN item i ON i.id = p.item AND i.household_id = \(householdID.rawValue)
                        """, logger: logger)
                }
                for new in batch where !new.receipts.isEmpty {
                    let seq = try await Self.itemSeq(connection, householdID, new.id, lock: false, logger: logger)
                    for receipt in new.receipts {
                        let fields = receipt.fields
                        try await connection.query("""
                            INSERT INTO receipt (id, household_id, item_seq, sha256, vendor, currency, total_minor, tax_minor, purchase_date, raw_text,
                                confidence, created_at)
                            VALUES (\(ReceiptID().rawValue), \(householdID.rawValue), \(seq), \(receipt.attachment.sha256), \(fields.vendor),
                                    \((fields.total ?? fields.tax)?.currency.code), \(fields.total?.minorUnits), \(fields.tax?.minorUnits),
                                    \(fields.purchaseDate?.iso), \(fields.rawText), \(fields.confidence), \(new.createdAt.millis))
                            """, logger: logger)
                    }
                    try await Self.reindex(connection, householdID, seq: seq, logger: logger)
                }
            }
        }
    }
}
