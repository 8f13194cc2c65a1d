import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// Items, search, the list and the summary on SQLite, as the async interface: each call runs the store's own method
/// off the caller's thread (`AppDatabase.offload`). Code that still holds the concrete `AppDatabase` calls the same
/// methods synchronously.
public struct SQLiteItemStore: ItemStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    private func run<T: Sendable>(_ body: @escaping @Sendable (AppDatabase) throws -> T) async throws -> T {
        try await database.offload(body)
    }

    public func createItem(_ householdID: HouseholdID, _ draft: ItemDraft, now: Date, today: CalendarDate?, plan: Entitlement?) async throws -> Item {
        try await run { try $0.createItem(householdID, draft, now: now, today: today, plan: plan) }
    }
    public func updateItem(_ householdID: HouseholdID, _ id: ItemID, _ draft: ItemDraft, now: Date, today: CalendarDate?, expected: Date?) async throws -> Item {
        try await run { try $0.updateItem(householdID, id, draft, now: now, today: today, expected: expected) }
    }
    public func deleteItem(_ householdID: HouseholdID, _ id: ItemID) async throws { try await run { try $0.deleteItem(householdID, id) } }
    public func item(_ householdID: HouseholdID, _ id: ItemID) async throws -> Item { try await run { try $0.item(householdID, id).item } }
    public func rooms(_ householdID: HouseholdID) async throws -> [Room] { try await run { try $0.rooms(householdID) } }
    public func categories(_ householdID: HouseholdID) async throws -> [NestoryDomain.Category] {
        try await run { try $0.categories(householdID) }
    }
    public func createRoom(_ householdID: HouseholdID, name: String) async throws -> Room {
        try await run { try $0.createRoom(householdID, name: name) }
    }
    public func renameRoom(_ householdID: HouseholdID, _ id: RoomID, to name: String) async throws {
        try await run { try $0.renameRoom(householdID, id, to: name) }
    }
    public func reorderRooms(_ householdID: HouseholdID, _ ids: [RoomID]) async throws { try await run { try $0.reorderRooms(householdID, ids) } }
    public func deleteRoom(_ householdID: HouseholdID, _ id: RoomID, now: Date) async throws -> Int {
        try await run { try $0.deleteRoom(householdID, id, now: now) }
    }
    public func createCategory(_ householdID: HouseholdID, name: String, colorHex: String, icon: String) async throws -> NestoryDomain.Category {
        try await run { try $0.createCategory(householdID, name: name, colorHex: colorHex, icon: icon) }
    }
    public func updateCategory(_ householdID: HouseholdID, _ id: CategoryID, name: String, colorHex: String) async throws {
        try await run { try $0.updateCategory(householdID, id, name: name, colorHex: colorHex) }
    }
    public func reorderCategories(_ householdID: HouseholdID, _ ids: [CategoryID]) async throws {
        try await run { try $0.reorderCategories(householdID, ids) }
    }
    public func deleteCategory(_ householdID: HouseholdID, _ id: CategoryID, now: Date) async throws -> Int {
        try await run { try $0.deleteCategory(householdID, id, now: now) }
    }
    public func items(_ householdID: HouseholdID, barcodes codes: [String], limit: Int) async throws -> [Item] {
        try await run { try $0.items(householdID, barcodes: codes, limit: limit) }
    }

    public func items(_ householdID: HouseholdID, _ query: ItemQuery) async throws -> Page<ItemListing> {
        try await run { try $0.items(householdID, query) }
    }
    public func countItems(_ householdID: HouseholdID, search: String, filter: ItemFilter, cap: Int) async throws -> (count: Int, exact: Bool) {
        try await run { try $0.countItems(householdID, search: search, filter: filter, cap: cap) }
    }
    public func summary(_ householdID: HouseholdID) async throws -> InventorySummary { try await run { try $0.summary(householdID) } }
    public func valueByCategory(_ householdID: HouseholdID) async throws -> [CategoryValue] { try await run { try $0.valueByCategory(householdID) } }
    public func itemsByRoom(_ householdID: HouseholdID) async throws -> [RoomCount] { try await run { try $0.itemsByRoom(householdID) } }
    public func tags(_ householdID: HouseholdID) async throws -> [(tag: String, count: Int)] { try await run { try $0.tags(householdID) } }

    public func itemsAndCount(_ householdID: HouseholdID, _ query: ItemQuery, cap: Int) async throws
        -> (page: Page<ItemListing>, matching: (count: Int, exact: Bool)) {
        try await run { try $0.itemsAndCount(householdID, query, cap: cap) }
    }
    public func itemCountsByCategory(_ householdID: HouseholdID) async throws -> [CategoryID: Int] {
        try await run { try $0.itemCountsByCategory(householdID) }
    }
    public func items(_ householdID: HouseholdID, ids: [ItemID]) async throws -> [ItemListing] {
        try await run { try $0.reportItems(householdID, ids: ids, allPhotos: false).map(\.listing) }
    }
    public func itemContentVersion(_ householdID: HouseholdID) async throws -> Int64 {
        try await run { try $0.itemContentVersion(householdID) }
    }
    public func itemsVersioned(_ householdID: HouseholdID, _ query: ItemQuery) async throws -> (page: Page<ItemListing>, version: Int64) {
        try await run { try $0.itemsVersioned(householdID, query) }
    }
    public func reportItems(_ householdID: HouseholdID, groupBy column: ReportGroupColumn, groupID: String?, documentedOnly: Bool,
                            allPhotos: Bool, receipts: Bool, after: ReportCursor?, limit: Int) async throws
        -> (items: [ReportItemRecord], next: ReportCursor?) {
        try await run {
            try $0.reportItems(householdID, groupBy: column, groupID: groupID, documentedOnly: documentedOnly, allPhotos: allPhotos,
                               receipts: receipts, after: after, limit: limit)
        }
    }
    public func reportItems(_ householdID: HouseholdID, ids: [ItemID], allPhotos: Bool) async throws -> [ReportItemRecord] {
        try await run { try $0.reportItems(householdID, ids: ids, allPhotos: allPhotos) }
    }
}

/// `PRAGMA data_version` on the store's own reading connection: a few microseconds, on the caller's thread.
extension SQLiteItemStore: CommitCounter {
    public func commitCount() throws -> Int64 { try database.dataVersion() }
}
