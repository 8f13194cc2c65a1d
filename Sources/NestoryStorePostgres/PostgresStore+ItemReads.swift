import Foundation
import Logging
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// The inventory's further reads on PostgreSQL: the list with its count, items by id, counts by category, and the
/// household's item content version (kept by triggers: migration `2026-12-01-item-content-version`).
extension PostgresStore {
    /// The page, then the count: two statements, each seeing what was committed when it began (a write between them
    /// may make the count one off the page for that one answer).
    public func itemsAndCount(_ householdID: HouseholdID, _ query: ItemQuery, cap: Int) async throws
        -> (page: Page<ItemListing>, matching: (count: Int, exact: Bool)) {
        let page = try await items(householdID, query)
        let matching = try await countItems(householdID, search: query.search, filter: query.filter, cap: cap)
        return (page, matching)
    }

    public func itemCountsByCategory(_ householdID: HouseholdID) async throws -> [CategoryID: Int] {
        try await withStoreErrors {
            var counts: [CategoryID: Int] = [:]
            for try await (id, count) in try await client.query("""
                SELECT category_id, count(*) FROM item WHERE household_id = \(householdID.rawValue) AND category_id IS NOT NULL
                GROUP BY category_id
                """, logger: logger).decode((UUID, Int).self) {
                counts[CategoryID(id)] = count
            }
            return counts
        }
    }

    public func items(_ householdID: HouseholdID, ids: [ItemID]) async throws -> [ItemListing] {
        guard !ids.isEmpty else { return [] }
        let query = PostgresQuery(unsafeSQL: """
            SELECT \(Self.itemColumns) FROM item i WHERE i.household_id = $1 AND i.id = ANY($2) ORDER BY i.name_key, i.seq
            """, binds: try Self.binds(householdID.rawValue, Array(Set(ids.map(\.rawValue)))))
        return try await withStoreErrors {
            try await Self.itemRows(try await client.query(query, logger: logger), householdID).map(\.listing)
        }
    }

    public func itemContentVersion(_ householdID: HouseholdID) async throws -> Int64 {
        try await withStoreErrors {
            for try await content in try await client.query("""
                SELECT content FROM item_content_version WHERE household_id = \(householdID.rawValue)
                """, logger: logger).decode(Int64.self) {
                return content
            }
            return 0
        }
    }

    /// The number is read before the page, so the page is at least as new as it: a change committed in between moves
    /// the number on, and an answer kept with the older number is listed afresh at the next request.
    public func itemsVersioned(_ householdID: HouseholdID, _ query: ItemQuery) async throws -> (page: Page<ItemListing>, version: Int64) {
        let version = try await itemContentVersion(householdID)
        return (try await items(householdID, query), version)
    }
}
