import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// Rooms and categories: add, rename (and recolour), move up or down, delete. Deleting keeps the items
/// and says how many lost their room or category. Everything goes through the item store (`ItemStore`), off the
/// event loops.
public struct PlacesService: Sendable {
    /// Where rooms and categories and their item counts are kept.
    let items: any ItemStore
    let now: @Sendable () -> Date

    public init(items: any ItemStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.items = items
        self.now = now
    }

    public enum Kind: String, Sendable, CaseIterable {
        case rooms, categories

        var noun: String { self == .rooms ? "room" : "category" }
    }

    public enum Direction: String, Sendable { case up, down }

    public func add(_ kind: Kind, to household: HouseholdID, name: String, colorHex: String?) async throws {
        switch kind {
        case .rooms: _ = try await items.createRoom(household, name: name)
        case .categories: _ = try await items.createCategory(household, name: name, colorHex: colorHex ?? "#64748B", icon: "box")
        }
    }

    public func rename(_ kind: Kind, _ id: String, in household: HouseholdID, to name: String, colorHex: String?) async throws {
        switch kind {
        case .rooms:
            try await items.renameRoom(household, try Self.id(id, kind, RoomID.init(string:)), to: name)
        case .categories:
            try await items.updateCategory(household, try Self.id(id, kind, CategoryID.init(string:)), name: name, colorHex: colorHex ?? "")
        }
    }

    /// Swaps the entry with its neighbour; at either end nothing changes.
    public func move(_ kind: Kind, _ id: String, in household: HouseholdID, _ direction: Direction) async throws {
        var ids = kind == .rooms ? try await items.rooms(household).map(\.id.description)
            : try await items.categories(household).map(\.id.description)
        guard let index = ids.firstIndex(of: id) else { throw DomainError.notFound("That \(kind.noun)") }
        let target = direction == .up ? index - 1 : index + 1
        guard ids.indices.contains(target) else { return }
        ids.swapAt(index, target)
        if kind == .rooms { try await items.reorderRooms(household, ids.compactMap(RoomID.init(string:))) } else {
            try await items.reorderCategories(household, ids.compactMap(CategoryID.init(string:)))
        }
    }

    /// Deletes the entry; returns how many items were in it (they stay, without a room or category).
    public func delete(_ kind: Kind, _ id: String, in household: HouseholdID) async throws -> Int {
        switch kind {
        case .rooms: return try await items.deleteRoom(household, try Self.id(id, kind, RoomID.init(string:)), now: now())
        case .categories: return try await items.deleteCategory(household, try Self.id(id, kind, CategoryID.init(string:)), now: now())
        }
    }

    private static func id<ID>(_ raw: String, _ kind: Kind, _ make: (String) -> ID?) throws(DomainError) -> ID {
        guard let id = make(raw) else { throw DomainError.notFound("That \(kind.noun)") }
        return id
    }
}
