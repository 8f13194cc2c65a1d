import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces

/// What the Inventory tab shows at once: a page of the list with how many items match, the summary strip, the charts,
/// and the household's rooms and categories (to name each item's).
public struct InventoryOverview: Sendable {
    public let page: Page<ItemListing>
    public let matching: (count: Int, exact: Bool)
    public let summary: InventorySummary
    public let valueByCategory: [CategoryValue]
    public let itemsByRoom: [RoomCount]
    public let rooms: [Room]
    public let categories: [NestoryDomain.Category]
}

/// A stored photo or receipt image as it is served: its bytes and their type.
public struct ServedFile: Sendable {
    public let data: Data
    public let contentType: String
}

/// The inventory's reads as use cases (the list, an item, the summary and charts, rooms and categories, stored files),
/// for the web app, the API and MCP. Each reads through the store's interfaces (`ItemStore`, `AttachmentStore`), always
/// within one household.
extension ItemsService {
    public func search(_ household: HouseholdID, _ query: ItemQuery) async throws -> Page<ItemListing> {
        try await items.items(household, query)
    }

    /// One page and how many items match in all, at most `cap` (for "124 items").
    public func searchCounted(_ household: HouseholdID, _ query: ItemQuery, cap: Int = 1000) async throws
        -> (page: Page<ItemListing>, matching: (count: Int, exact: Bool)) {
        try await items.itemsAndCount(household, query, cap: cap)
    }

    /// The Inventory tab's figures and page, read side by side.
    public func overview(_ household: HouseholdID, _ query: ItemQuery) async throws -> InventoryOverview {
        let items = items
        async let listing = items.itemsAndCount(household, query, cap: 1000)
        async let summary = items.summary(household)
        async let values = items.valueByCategory(household)
        async let rooms = items.itemsByRoom(household)
        async let places = items.rooms(household)
        async let categories = items.categories(household)
        let (page, matching) = try await listing
        return InventoryOverview(page: page, matching: matching, summary: try await summary, valueByCategory: try await values,
                                 itemsByRoom: try await rooms, rooms: try await places, categories: try await categories)
    }

    /// An item of this household (not found for another household's id).
    public func item(_ household: HouseholdID, _ item: ItemID) async throws -> Item {
        try await items.item(household, item)
    }

    /// An item with its photos (the main one first) and receipts (oldest first); not found for another household's id.
    /// The three are read side by side (each read checks the household).
    public func details(_ household: HouseholdID, _ item: ItemID) async throws -> ItemDetails {
        let (items, attachments) = (items, attachments)
        async let found = items.item(household, item)
        async let photos = attachments.photos(household, of: item)
        async let receipts = attachments.receipts(household, of: item)
        return ItemDetails(item: try await found, photos: try await photos, receipts: try await receipts)
    }

    /// The items with these ids of the household, in name order (others' ids left out).
    public func listings(_ household: HouseholdID, ids: [ItemID]) async throws -> [ItemListing] {
        try await items.items(household, ids: ids)
    }

    public func summary(_ household: HouseholdID) async throws -> InventorySummary {
        try await items.summary(household)
    }

    /// The charts: value by category, items by room.
    public func charts(_ household: HouseholdID) async throws -> (valueByCategory: [CategoryValue], itemsByRoom: [RoomCount]) {
        let items = items
        async let values = items.valueByCategory(household)
        async let rooms = items.itemsByRoom(household)
        return (try await values, try await rooms)
    }

    /// The household's rooms and categories, in their order.
    public func places(_ household: HouseholdID) async throws -> (rooms: [Room], categories: [NestoryDomain.Category]) {
        let items = items
        async let rooms = items.rooms(household)
        async let categories = items.categories(household)
        return (try await rooms, try await categories)
    }

    // MARK: - Answers kept while the items are unchanged

    /// A page with the household's item content version it is at least as new as (`ItemStore.itemsVersioned`).
    public func versionedPage(_ household: HouseholdID, _ query: ItemQuery) async throws -> (page: Page<ItemListing>, version: Int64) {
        try await items.itemsVersioned(household, query)
    }

    /// The household's item content version now (`ItemStore.itemContentVersion`).
    public func contentVersion(_ household: HouseholdID) async throws -> Int64 {
        try await items.itemContentVersion(household)
    }

    /// The item store's commit counter, free to read, or nil when it has none (`CommitCounter`: SQLite has one,
    /// PostgreSQL not; then caches read `contentVersion`).
    public func dataVersion() -> Int64? { try? (items as? any CommitCounter)?.commitCount() }

    // MARK: - Stored files

    /// A stored photo or receipt image of this household (another's is not found). `thumb` and `display` (the default
    /// for images) are renditions without metadata, from the renditions kept on this server when there, else made from
    /// the stored bytes and kept; `original` is the file byte-exact, as uploaded. Files that are not images are served
    /// as they are.
    public func file(_ household: HouseholdID, sha256: String, size: String) async throws -> ServedFile {
        let attachments = attachments
        guard size != "original" else {
            let (data, attachment) = try await attachments.attachmentData(household, sha256: sha256)
            return ServedFile(data: data, contentType: attachment.contentType)
        }
        let attachment = try await attachments.attachment(household, sha256: sha256)
        guard attachment.contentType.hasPrefix("image/") else {
            return ServedFile(data: try await attachments.attachmentData(household, sha256: sha256).0, contentType: attachment.contentType)
        }
        // A kept rendition is served without reading the original (which may be in an object store).
        let kind: RenditionCache.Kind = size == "thumb" ? .thumbnail : .display
        if let cached = renditions.read(sha256, kind) { return ServedFile(data: cached, contentType: "image/jpeg") }
        let data = try await attachments.attachmentData(household, sha256: sha256).0
        let body = await rendition(of: data, sha256: sha256, kind) ?? data
        return ServedFile(data: body, contentType: body != data ? "image/jpeg" : attachment.contentType)
    }

    /// The most warranties read for `warrantiesEnding` (of those within the reminders' horizon).
    static let warrantyLimit = 500

    /// Warranties ending within `days` days from the household's today (today included), soonest first.
    public func warrantiesEnding(_ household: Household, within days: Int) async throws -> [WarrantyReminder] {
        return try await reminders.warrantyReminders(household.id, today: household.day(at: now()), limit: Self.warrantyLimit)
            .filter { $0.daysLeft >= 0 && $0.daysLeft <= days }.sorted { $0.expiry < $1.expiry }
    }
}

extension PlacesService {
    public func rooms(_ household: HouseholdID) async throws -> [Room] {
        try await items.rooms(household)
    }

    public func categories(_ household: HouseholdID) async throws -> [NestoryDomain.Category] {
        try await items.categories(household)
    }

    /// One room or category as the Rooms and Categories pages list it, with how many items it holds.
    public struct Counted: Sendable, Equatable {
        public let id: String
        public let name: String
        /// A category's colour; nil for rooms.
        public let colorHex: String?
        public let items: Int
    }

    /// The household's rooms or categories in their order, each with its item count.
    public func counted(_ kind: Kind, in household: HouseholdID) async throws -> [Counted] {
        async let counts = itemCounts(kind, in: household)
        switch kind {
        case .rooms:
            let rooms = try await items.rooms(household)
            let counts = try await counts
            return rooms.map { Counted(id: $0.id.description, name: $0.name, colorHex: nil, items: counts[$0.id.description] ?? 0) }
        case .categories:
            let categories = try await items.categories(household)
            let counts = try await counts
            return categories.map { Counted(id: $0.id.description, name: $0.name, colorHex: $0.colorHex, items: counts[$0.id.description] ?? 0) }
        }
    }

    /// How many items each room or category holds, by its id (one without items is left out).
    public func itemCounts(_ kind: Kind, in household: HouseholdID) async throws -> [String: Int] {
        switch kind {
        case .rooms:
            Dictionary(try await items.itemsByRoom(household).compactMap { r in r.roomID.map { ($0.description, r.itemCount) } }, uniquingKeysWith: +)
        case .categories:
            Dictionary(uniqueKeysWithValues: try await items.itemCountsByCategory(household).map { ($0.key.description, $0.value) })
        }
    }
}
