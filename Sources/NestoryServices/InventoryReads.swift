import Foundation
import NestoryDomain
import NestoryStore

/// The inventory's reads as use cases (search, an item, the summary, rooms and categories, warranties ending), for the
/// clients that take only services (MCP); each is one store read on the blocking pool, always within one household.
extension ItemsService {
    public func search(_ household: HouseholdID, _ query: ItemQuery) async throws -> Page<ItemListing> {
        let database = database
        return try await blocking.run { try database.items(household, query) }
    }

    /// An item with its photos and receipts; not found for another household's id.
    public func details(_ household: HouseholdID, _ item: ItemID) async throws -> ItemDetails {
        let database = database
        return try await blocking.run { try database.item(household, item) }
    }

    public func summary(_ household: HouseholdID) async throws -> InventorySummary {
        let database = database
        return try await blocking.run { try database.summary(household) }
    }

    /// Warranties ending within `days` days from today (today included), soonest first.
    public func warrantiesEnding(_ household: HouseholdID, within days: Int) async throws -> [WarrantyReminder] {
        let (database, today) = (database, CalendarDate(now(), in: .current))
        return try await blocking.run { try database.warrantyReminders(household, today: today) }
            .filter { $0.daysLeft >= 0 && $0.daysLeft <= days }.sorted { $0.expiry < $1.expiry }
    }
}

extension PlacesService {
    public func rooms(_ household: HouseholdID) async throws -> [Room] {
        let database = database
        return try await blocking.run { try database.rooms(household) }
    }

    public func categories(_ household: HouseholdID) async throws -> [NestoryDomain.Category] {
        let database = database
        return try await blocking.run { try database.categories(household) }
    }
}
