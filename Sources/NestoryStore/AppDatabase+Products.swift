import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

/// The product catalogue, providers' cached answers and the household's switches on SQLite, as the async interface the
/// services call: each call runs the store's own method off the caller's thread (`AppDatabase.offload`).
public struct SQLiteProductStore: ProductStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    private func run<T: Sendable>(_ body: @escaping @Sendable (AppDatabase) throws -> T) async throws -> T {
        try await database.offload(body)
    }

    @discardableResult
    public func importCatalog(_ products: [ProductRecord], now: Date) async throws -> Int { try await run { try $0.importCatalog(products, now: now) } }
    public func catalogProduct(codes: [String]) async throws -> ProductRecord? { try await run { try $0.catalogProduct(codes: codes) } }
    public func catalogCount() async throws -> Int { try await run { try $0.catalogCount() } }
    public func cachedAnswer(provider: String, key: String, foundSince: Date, missSince: Date) async throws -> CachedAnswer? {
        try await run { try $0.cachedAnswer(provider: provider, key: key, foundSince: foundSince, missSince: missSince) }
    }
    public func storeAnswer(provider: String, key: String, _ answer: CachedAnswer, now: Date) async throws {
        try await run { try $0.storeAnswer(provider: provider, key: key, answer, now: now) }
    }
    public func onlineProductLookup(_ householdID: HouseholdID) async throws -> Bool { try await run { try $0.onlineProductLookup(householdID) } }
    public func setOnlineProductLookup(_ householdID: HouseholdID, _ enabled: Bool) async throws {
        try await run { try $0.setOnlineProductLookup(householdID, enabled) }
    }
    public func scanningEnabled(_ householdID: HouseholdID) async throws -> Bool { try await run { try $0.scanningEnabled(householdID) } }
    public func setScanningEnabled(_ householdID: HouseholdID, _ enabled: Bool) async throws {
        try await run { try $0.setScanningEnabled(householdID, enabled) }
    }
}

extension AppDatabase {
    // MARK: - Catalogue

    /// Adds or replaces catalogue products (one transaction per call). Returns how many were written.
    @discardableResult
    public func importCatalog(_ products: [ProductRecord], now: Date) throws -> Int {
        try write { db in
            for product in products {
                try db.cachedStatement(sql: """
                    INSERT INTO product (code, source, found, name, brand, category, image_url, fetched_at) VALUES (?, 'catalog', 1, ?, ?, ?, ?, ?)
                    ON CONFLICT (code, source) DO UPDATE SET name = excluded.name, brand = excluded.brand, category = excluded.category,
                        image_url = excluded.image_url, fetched_at = excluded.fetched_at
                    """).execute(arguments: [product.code, product.name, product.brand, product.category, product.imageURL, now.millis])
            }
            return products.count
        }
    }

    /// The first catalogue product under any of `codes` (tried in order: the spellings of one GTIN).
    public func catalogProduct(codes: [String]) throws -> ProductRecord? {
        try read { db in
            for code in codes {
                if let row = try Row.fetchOne(db, sql: "SELECT * FROM product WHERE code = ? AND source = 'catalog'", arguments: [code]) {
                    return Self.product(row)
                }
            }
            return nil
        }
    }

    public func catalogCount() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM product WHERE source = 'catalog'") ?? 0 }
    }

    // MARK: - Online answers

    /// A provider's answer for a GTIN key, if one was stored after `notBefore` (misses expire sooner).
    public func cachedAnswer(provider: String, key: String, foundSince: Date, missSince: Date) throws -> CachedAnswer? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM product WHERE code = ? AND source = ?", arguments: [key, provider]) else {
                return nil
            }
            let fetched = Date(timeIntervalSince1970: Double(row["fetched_at"] as Int64) / 1000)
            if row["found"] as Bool {
                return fetched >= foundSince ? .found(Self.product(row)) : nil
            }
            return fetched >= missSince ? .notFound : nil
        }
    }

    public func storeAnswer(provider: String, key: String, _ answer: CachedAnswer, now: Date) throws {
        try write { db in
            let product: ProductRecord? = if case .found(let p) = answer { p } else { nil }
            try db.execute(sql: """
                INSERT INTO product (code, source, found, name, brand, category, image_url, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (code, source) DO UPDATE SET found = excluded.found, name = excluded.name, brand = excluded.brand,
                    category = excluded.category, image_url = excluded.image_url, fetched_at = excluded.fetched_at
                """, arguments: [key, provider, product != nil, product?.name, product?.brand, product?.category, product?.imageURL, now.millis])
        }
    }

    // MARK: - Household

    /// The household's on/off switches: a column of `household` each, with its default.
    enum Switch: String {
        /// Whether Nestory may ask online providers about products (off unless turned on).
        case onlineProductLookup = "online_product_lookup"
        /// Whether the Capture tab offers barcode scanning (the owner's switch; on unless turned off).
        case scanning = "scanning_enabled"

        var fallback: Bool { self == .scanning }
    }

    func isOn(_ householdID: HouseholdID, _ setting: Switch) throws -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT \(setting.rawValue) FROM household WHERE id = ?", arguments: [householdID.description])
                ?? setting.fallback
        }
    }

    func turn(_ householdID: HouseholdID, _ setting: Switch, on: Bool) throws {
        try write { db in
            try db.execute(sql: "UPDATE household SET \(setting.rawValue) = ? WHERE id = ?", arguments: [on, householdID.description])
            guard db.changesCount == 1 else { throw DomainError.notFound("The household") }
        }
    }

    public func onlineProductLookup(_ householdID: HouseholdID) throws -> Bool { try isOn(householdID, .onlineProductLookup) }
    public func setOnlineProductLookup(_ householdID: HouseholdID, _ enabled: Bool) throws { try turn(householdID, .onlineProductLookup, on: enabled) }
    public func scanningEnabled(_ householdID: HouseholdID) throws -> Bool { try isOn(householdID, .scanning) }
    public func setScanningEnabled(_ householdID: HouseholdID, _ enabled: Bool) throws { try turn(householdID, .scanning, on: enabled) }

    /// The household's items whose barcode is any of `codes` (the spellings of one GTIN), newest first.
    public func items(_ householdID: HouseholdID, barcodes codes: [String], limit: Int = 5) throws -> [Item] {
        guard !codes.isEmpty else { return [] }
        return try read { db in
            let marks = Array(repeating: "?", count: codes.count).joined(separator: ", ")
            var arguments: StatementArguments = [householdID.description]
            arguments += StatementArguments(codes)
            arguments += [limit]
            return try Row.fetchAll(db, sql: """
                SELECT \(ItemColumns.select) FROM item WHERE household_id = ? AND barcode IN (\(marks))
                ORDER BY updated_at DESC LIMIT ?
                """, arguments: arguments).map { ItemColumns.item($0, householdID: householdID) }
        }
    }

    static func product(_ row: Row) -> ProductRecord {
        ProductRecord(source: row["source"], code: row["code"], name: row["name"], brand: row["brand"],
                      category: row["category"], imageURL: row["image_url"])
    }
}
