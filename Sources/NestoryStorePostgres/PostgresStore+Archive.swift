import Foundation
import Logging
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// Backups, restores and imports on PostgreSQL (`ArchiveStore`): the rows SQLite's `exportHousehold` reads, in the same
/// order and with the same values (ids as lowercase text, times in milliseconds, money in minor units), so the same
/// household makes the same archive on either engine; a restore with SQLite's rules, in one transaction.
extension PostgresStore: ArchiveStore {
    // MARK: - Export

    public func exportHousehold(_ householdID: HouseholdID, includePasswordHashes: Bool,
                                to sink: any HouseholdArchiveSink) async throws -> ArchiveRecord.Household {
        let logger = logger
        return try await transaction { c in
            // One snapshot for every table, whatever is written meanwhile.
            try await c.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            let id = householdID.rawValue
            var found: ArchiveRecord.Household?
            for try await row in try await c.query("""
                SELECT id::text, name, currency, high_value_threshold_minor, created_at, online_product_lookup, scanning_enabled, time_zone
                FROM household WHERE id = \(id)
                """, logger: logger) {
                let r = row.makeRandomAccess()
                found = ArchiveRecord.Household(id: try r[0].decode(String.self), name: try r[1].decode(String.self),
                                                currency: try r[2].decode(String.self), highValueThresholdMinor: try r[3].decode(Int64.self),
                                                createdAt: try r[4].decode(Int64.self), onlineProductLookup: try r[5].decode(Bool.self),
                                                scanningEnabled: try r[6].decode(Bool.self), timeZone: try r[7].decode(String?.self))
            }
            guard let household = found else { throw DomainError.notFound("The household") }

            for try await row in try await c.query("""
                SELECT u.id::text, u.email, u.display_name, u.password_hash, u.created_at FROM app_user u
                JOIN membership m ON m.user_id = u.id WHERE m.household_id = \(id) ORDER BY u.created_at, u.id
                """, logger: logger) {
                let r = row.makeRandomAccess()
                try sink.append(.user(ArchiveRecord.User(
                    id: try r[0].decode(String.self), email: try r[1].decode(String.self), displayName: try r[2].decode(String.self),
                    passwordHash: includePasswordHashes ? try r[3].decode(String.self) : nil, createdAt: try r[4].decode(Int64.self))))
            }
            for try await (user, role, joined) in try await c.query("""
                SELECT user_id::text, role, joined_at FROM membership WHERE household_id = \(id) ORDER BY joined_at, user_id
                """, logger: logger).decode((String, String, Int64).self) {
                try sink.append(.membership(ArchiveRecord.Membership(userID: user, role: role, joinedAt: joined)))
            }
            for try await (room, name, order) in try await c.query("""
                SELECT id::text, name, sort_order FROM room WHERE household_id = \(id) ORDER BY sort_order, id
                """, logger: logger).decode((String, String, Int32).self) {
                try sink.append(.room(ArchiveRecord.Room(id: room, name: name, sortOrder: Int(order))))
            }
            for try await (category, name, color, icon, order, custom) in try await c.query("""
                SELECT id::text, name, color_hex, icon, sort_order, is_custom FROM category WHERE household_id = \(id) ORDER BY sort_order, id
                """, logger: logger).decode((String, String, String, String, Int32, Bool).self) {
                try sink.append(.category(ArchiveRecord.Category(id: category, name: name, colorHex: color, icon: icon, sortOrder: Int(order),
                                                                 isCustom: custom)))
            }
            // Items in the order they were added (`seq`), tags in order.
            for try await row in try await c.query("""
                SELECT i.id::text, i.name, i.brand, i.model_number, i.serial_number, i.price_minor, i.currency, i.quantity, i.purchase_date,
                       i.category_id::text, i.room_id::text, i.condition, i.condition_notes, i.barcode, i.warranty_expiry, i.notes,
                       i.created_at, i.updated_at,
                       COALESCE((SELECT array_agg(t.tag::text ORDER BY t.position) FROM item_tag t WHERE t.item_seq = i.seq), '{}'::text[])
                FROM item i WHERE i.household_id = \(id) ORDER BY i.seq
                """, logger: logger) {
                let r = row.makeRandomAccess()
                try sink.append(.item(ArchiveRecord.Item(
                    id: try r[0].decode(String.self), name: try r[1].decode(String.self), brand: try r[2].decode(String?.self),
                    modelNumber: try r[3].decode(String?.self), serialNumber: try r[4].decode(String?.self),
                    priceMinor: try r[5].decode(Int64?.self), currency: try r[6].decode(String.self), quantity: Int(try r[7].decode(Int32.self)),
                    purchaseDate: try r[8].decode(String?.self), categoryID: try r[9].decode(String?.self), roomID: try r[10].decode(String?.self),
                    condition: try r[11].decode(String.self), conditionNotes: try r[12].decode(String?.self), barcode: try r[13].decode(String?.self),
                    warrantyExpiry: try r[14].decode(String?.self), notes: try r[15].decode(String?.self), tags: try r[18].decode([String].self),
                    createdAt: try r[16].decode(Int64.self), updatedAt: try r[17].decode(Int64.self))))
            }
            // The files photos and receipts use, by hash in byte order (as SQLite's BINARY).
            for try await (sha, type, bytes, created) in try await c.query("""
                SELECT b.sha256, b.content_type, b.byte_count, b.created_at FROM blob b WHERE b.sha256 IN
                    (SELECT sha256 FROM item_photo WHERE household_id = \(id) UNION SELECT sha256 FROM receipt WHERE household_id = \(id))
                ORDER BY b.sha256 COLLATE "C"
                """, logger: logger).decode((String, String, Int64, Int64).self) {
                try sink.append(.blob(ArchiveRecord.Blob(sha256: sha, contentType: type, byteCount: bytes, createdAt: created)))
            }
            for try await (photo, item, sha, primary, position, created) in try await c.query("""
                SELECT p.id::text, i.id::text, p.sha256, p.is_primary, p.position, p.created_at FROM item_photo p JOIN item i ON i.seq = p.item_seq
                WHERE p.household_id = \(id) ORDER BY p.item_seq, p.position, p.id
                """, logger: logger).decode((String, String, String, Bool, Int32, Int64).self) {
                try sink.append(.photo(ArchiveRecord.Photo(id: photo, itemID: item, sha256: sha, isPrimary: primary, position: Int(position),
                                                           createdAt: created)))
            }
            for try await row in try await c.query("""
                SELECT r.id::text, i.id::text, r.sha256, r.vendor, r.currency, r.total_minor, r.tax_minor, r.purchase_date, r.raw_text,
                       r.confidence, r.created_at
                FROM receipt r LEFT JOIN item i ON i.seq = r.item_seq WHERE r.household_id = \(id) ORDER BY r.created_at, r.id
                """, logger: logger) {
                let r = row.makeRandomAccess()
                try sink.append(.receipt(ArchiveRecord.Receipt(
                    id: try r[0].decode(String.self), itemID: try r[1].decode(String?.self), sha256: try r[2].decode(String.self),
                    vendor: try r[3].decode(String?.self), currency: try r[4].decode(String?.self), totalMinor: try r[5].decode(Int64?.self),
                    taxMinor: try r[6].decode(Int64?.self), purchaseDate: try r[7].decode(String?.self), rawText: try r[8].decode(String?.self),
                    confidence: try r[9].decode(Double?.self), createdAt: try r[10].decode(Int64.self))))
            }
            for try await (report, kind, created, bytes, options, file, sha256) in try await c.query("""
                SELECT id::text, kind, created_at, byte_count, options, file_name, sha256 FROM report WHERE household_id = \(id)
                ORDER BY created_at, id
                """, logger: logger).decode((String, String, Int64, Int64, String, String, String?).self) {
                try sink.append(.report(ArchiveRecord.Report(id: report, kind: kind, createdAt: created, byteCount: bytes, options: options,
                                                             fileName: file), storedAs: sha256))
            }
            for try await row in try await c.query("""
                SELECT v.id::text, i.id::text, v.currency, v.rcv_minor, v.rcv_low_minor, v.rcv_high_minor, v.acv_minor, v.acv_low_minor,
                       v.acv_high_minor, v.method, v.confidence, v.valued_on, v.sources, v.explanation, v.created_at
                FROM valuation v JOIN item i ON i.seq = v.item_seq WHERE v.household_id = \(id) ORDER BY v.created_at, v.seq
                """, logger: logger) {
                let r = row.makeRandomAccess()
                try sink.append(.valuation(ArchiveRecord.Valuation(
                    id: try r[0].decode(String.self), itemID: try r[1].decode(String.self), currency: try r[2].decode(String.self),
                    rcvMinor: try r[3].decode(Int64?.self), rcvLowMinor: try r[4].decode(Int64?.self), rcvHighMinor: try r[5].decode(Int64?.self),
                    acvMinor: try r[6].decode(Int64?.self), acvLowMinor: try r[7].decode(Int64?.self), acvHighMinor: try r[8].decode(Int64?.self),
                    method: try r[9].decode(String.self), confidence: try r[10].decode(String.self), valuedOn: try r[11].decode(String.self),
                    sources: try r[12].decode(String.self), explanation: try r[13].decode(String?.self), createdAt: try r[14].decode(Int64.self))))
            }
            return household
        }
    }

    public func householdExists(_ id: String) async throws -> Bool {
        guard let uuid = UUID(uuidString: id) else { return false }
        return try await withStoreErrors {
            for try await _ in try await client.query("SELECT 1 FROM household WHERE id = \(uuid)", logger: logger) { return true }
            return false
        }
    }
}

extension PostgresStore {
    // MARK: - Import

    /// SQLite's `importItemsInBulk`: one transaction (all or nothing), the household's row held, the plan checked first;
    /// each batch goes in on the bulk insert path (`insertItems`), with the rooms and categories it names created at
    /// the end of the household's order when missing.
    public func importItemsInBulk(_ householdID: HouseholdID, count: Int, now: Date, today: CalendarDate, plan: Entitlement?,
                                  next: @escaping @Sendable () throws -> [NamedPlaceDraft]?) async throws -> ImportSummary {
        let logger = logger
        return try await transaction { c in
            _ = try await Self.fetchHousehold(c, householdID, lock: true, logger: logger)
            if let plan {
                let before = try await Self.itemCount(c, householdID, logger: logger)
                try plan.checkItems(before: before, after: before + count, action: .import)
            }
            var places = try await ImportedPlaces(c, householdID, logger: logger)
            // The batches come from a file being read (perhaps waiting on it): taken on a thread of their own.
            while let batch = try await Self.onFileThread(next) {
                var items: [Item] = []
                items.reserveCapacity(batch.count)
                for named in batch {
                    var draft = try named.draft.validated(today: today)
                    if let name = named.roomName { draft.roomID = try await places.room(c, name) }
                    if let name = named.categoryName { draft.categoryID = try await places.category(c, name) }
                    if named.roomName == nil && draft.roomID != nil || named.categoryName == nil && draft.categoryID != nil {
                        try await Self.checkPlaces(c, householdID, draft, logger: logger)
                    }
                    items.append(Item(householdID: householdID, draft: draft, createdAt: now))
                }
                try await Self.insertItems(c, householdID, items, logger: logger)
                places.summary.items += items.count
            }
            return places.summary
        }
    }
}

/// The household's rooms and categories by folded name while an import runs, creating the ones a row names that do not
/// exist yet (as SQLite's `ImportedPlaces`).
private struct ImportedPlaces {
    let householdID: HouseholdID
    let logger: Logger
    var rooms: [String: RoomID] = [:]
    var categories: [String: CategoryID] = [:]
    var nextRoom = 0
    var nextCategory = 0
    var summary = ImportSummary()

    init(_ c: PostgresConnection, _ householdID: HouseholdID, logger: Logger) async throws {
        self.householdID = householdID
        self.logger = logger
        for try await (id, name) in try await c.query("""
            SELECT id, name FROM room WHERE household_id = \(householdID.rawValue) ORDER BY sort_order, name COLLATE "C"
            """, logger: logger).decode((UUID, String).self) {
            if rooms[Text.foldKey(name)] == nil { rooms[Text.foldKey(name)] = RoomID(id) }
        }
        for try await (id, name) in try await c.query("""
            SELECT id, name FROM category WHERE household_id = \(householdID.rawValue) ORDER BY sort_order, name COLLATE "C"
            """, logger: logger).decode((UUID, String).self) {
            if categories[Text.foldKey(name)] == nil { categories[Text.foldKey(name)] = CategoryID(id) }
        }
        for try await value in try await c.query("""
            SELECT COALESCE(max(sort_order) + 1, 0) FROM room WHERE household_id = \(householdID.rawValue)
            """, logger: logger).decode(Int32.self) {
            nextRoom = Int(value)
        }
        for try await value in try await c.query("""
            SELECT COALESCE(max(sort_order) + 1, 0) FROM category WHERE household_id = \(householdID.rawValue)
            """, logger: logger).decode(Int32.self) {
            nextCategory = Int(value)
        }
    }

    mutating func room(_ c: PostgresConnection, _ raw: String) async throws -> RoomID {
        let name = try PlaceName.validated(raw, field: "room")
        let key = Text.foldKey(name)
        if let id = rooms[key] { return id }
        let id = RoomID()
        try await c.query("""
            INSERT INTO room (id, household_id, name, sort_order) VALUES (\(id.rawValue), \(householdID.rawValue), \(name), \(Int32(nextRoom)))
            """, logger: logger)
        nextRoom += 1
        rooms[key] = id
        summary.roomsCreated.append(name)
        return id
    }

    mutating func category(_ c: PostgresConnection, _ raw: String) async throws -> CategoryID {
        let name = try PlaceName.validated(raw, field: "category")
        let key = Text.foldKey(name)
        if let id = categories[key] { return id }
        let id = CategoryID()
        let color = NamedPlaceDraft.importColors[summary.categoriesCreated.count % NamedPlaceDraft.importColors.count]
        try await c.query("""
            INSERT INTO category (id, household_id, name, color_hex, icon, sort_order, is_custom)
            VALUES (\(id.rawValue), \(householdID.rawValue), \(name), \(color), 'box', \(Int32(nextCategory)), true)
            """, logger: logger)
        nextCategory += 1
        categories[key] = id
        summary.categoriesCreated.append(name)
        return id
    }
}
