import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore: ProductStore {
    static func productFrom(_ row: PostgresRow) throws -> ProductRecord {
        let (source, code, name, brand, category, image) = try row.decode((String, String, String?, String?, String?, String?).self)
        return ProductRecord(source: source, code: code, name: name, brand: brand, category: category, imageURL: image)
    }

    @discardableResult
    public func importCatalog(_ products: [ProductRecord], now: Date) async throws -> Int {
        try await transaction { connection in
            for product in products {
                try await connection.query("""
                    INSERT INTO product (code, source, found, name, brand, category, image_url, fetched_at)
                    VALUES (\(product.code), 'catalog', true, \(product.name), \(product.brand), \(product.category), \(product.imageURL), \(now.millis))
                    ON CONFLICT (code, source) DO UPDATE SET name = EXCLUDED.name, brand = EXCLUDED.brand, category = EXCLUDED.category,
                        image_url = EXCLUDED.image_url, fetched_at = EXCLUDED.fetched_at
                    """, logger: logger)
            }
            return products.count
        }
    }

    public func catalogProduct(codes: [String]) async throws -> ProductRecord? {
        guard !codes.isEmpty else { return nil }
        return try await withStoreErrors {
            // The first of the codes, in the order given.
            for try await row in try await client.query("""
                SELECT p.source, p.code, p.name, p.brand, p.category, p.image_url
                FROM unnest(\(codes)::text[]) WITH ORDINALITY AS c(code, position) JOIN product p ON p.code = c.code AND p.source = 'catalog'
                ORDER BY c.position LIMIT 1
                """, logger: logger) {
                return try Self.productFrom(row)
            }
            return nil
        }
    }

    public func catalogCount() async throws -> Int {
        try await withStoreErrors {
            for try await count in try await client.query("SELECT count(*) FROM product WHERE source = 'catalog'", logger: logger).decode(Int64.self) {
                return Int(count)
            }
            return 0
        }
    }

    public func cachedAnswer(provider: String, key: String, foundSince: Date, missSince: Date) async throws -> CachedAnswer? {
        try await withStoreErrors {
            for try await row in try await client.query("""
                SELECT source, code, name, brand, category, image_url, found, fetched_at FROM product WHERE code = \(key) AND source = \(provider)
                """, logger: logger) {
                let c = row.makeRandomAccess()
                let fetched = Date(millis: try c[7].decode(Int64.self))
                if try c[6].decode(Bool.self) {
                    return fetched >= foundSince ? .found(try Self.productFrom(row)) : nil
                }
                return fetched >= missSince ? .notFound : nil
            }
            return nil
        }
    }

    public func storeAnswer(provider: String, key: String, _ answer: CachedAnswer, now: Date) async throws {
        let product: ProductRecord? = if case .found(let p) = answer { p } else { nil }
        try await withStoreErrors {
            try await client.query("""
                INSERT INTO product (code, source, found, name, brand, category, image_url, fetched_at)
                VALUES (\(key), \(provider), \(product != nil), \(product?.name), \(product?.brand), \(product?.category), \(product?.imageURL), \(now.millis))
                ON CONFLICT (code, source) DO UPDATE SET found = EXCLUDED.found, name = EXCLUDED.name, brand = EXCLUDED.brand,
                    category = EXCLUDED.category, image_url = EXCLUDED.image_url, fetched_at = EXCLUDED.fetched_at
                """, logger: logger)
        }
    }

    public func onlineProductLookup(_ householdID: HouseholdID) async throws -> Bool {
        try await withStoreErrors {
            for try await on in try await client.query("SELECT online_product_lookup FROM household WHERE id = \(householdID.rawValue)", logger: logger)
                .decode(Bool.self) {
                return on
            }
            return false
        }
    }

    public func setOnlineProductLookup(_ householdID: HouseholdID, _ enabled: Bool) async throws {
        try await withStoreErrors {
            for try await _ in try await client.query("""
                UPDATE household SET online_product_lookup = \(enabled) WHERE id = \(householdID.rawValue) RETURNING id
                """, logger: logger) {
                return
            }
            throw DomainError.notFound("The household")
        }
    }

    public func scanningEnabled(_ householdID: HouseholdID) async throws -> Bool {
        try await withStoreErrors {
            for try await on in try await client.query("SELECT scanning_enabled FROM household WHERE id = \(householdID.rawValue)", logger: logger)
                .decode(Bool.self) {
                return on
            }
            return true
        }
    }

    public func setScanningEnabled(_ householdID: HouseholdID, _ enabled: Bool) async throws {
        try await withStoreErrors {
            for try await _ in try await client.query("""
                UPDATE household SET scanning_enabled = \(enabled) WHERE id = \(householdID.rawValue) RETURNING id
                """, logger: logger) {
                return
            }
            throw DomainError.notFound("The household")
        }
    }
}
