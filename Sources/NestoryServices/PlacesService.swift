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

        public var noun: String { self == .rooms ? "room" : "category" }
    }

    public enum Direction: String, Sendable { case up, down }

    /// A new category's colour when none is given (slate).
    public static let defaultColor = "#64748B"

    public func add(_ kind: Kind, to household: HouseholdID, name: String, colorHex: String?) async throws {
        switch kind {
        case .rooms: _ = try await addRoom(to: household, name: name)
        case .categories: _ = try await addCategory(to: household, name: name, colorHex: colorHex)
        }
    }

    /// Adds a room at the end of the list.
    public func addRoom(to household: HouseholdID, name: String) async throws -> Room {
        try await items.createRoom(household, name: name)
    }

    /// Adds a category at the end of the list, in `colorHex` (slate when nil).
    public func addCategory(to household: HouseholdID, name: String, colorHex: String?) async throws -> NestoryDomain.Category {
        try await items.createCategory(household, name: name, colorHex: colorHex ?? Self.defaultColor, icon: "box")
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

    /// Puts the entries in the order of `ids`, which lists every one of them once (else nothing changes and the problem
    /// is on `field`, the key the ids were given under).
    public func reorder(_ kind: Kind, _ ids: [String], in household: HouseholdID, field: String = "order") async throws {
        do {
            switch kind {
            case .rooms:
                try await items.reorderRooms(household, try ids.map { raw throws(DomainError) in try Self.listed(raw, kind, RoomID.init(string:)) })
            case .categories:
                try await items.reorderCategories(household, try ids.map { raw throws(DomainError) in try Self.listed(raw, kind, CategoryID.init(string:)) })
            }
        } catch DomainError.validation(let problems) {
            throw DomainError.validation(problems.map { $0.field == "order" ? FieldError(field: field, message: $0.message) : $0 })
        }
    }

    /// Deletes the entry; returns how many items were in it (they stay, without a room or category).
    public func delete(_ kind: Kind, _ id: String, in household: HouseholdID) async throws -> Int {
        switch kind {
        case .rooms: return try await items.deleteRoom(household, try Self.id(id, kind, RoomID.init(string:)), now: now())
        case .categories: return try await items.deleteCategory(household, try Self.id(id, kind, CategoryID.init(string:)), now: now())
        }
    }

    /// An id in a new order: one that is not an id at all is refused as the order is (the store's rule names the list).
    private static func listed<ID>(_ raw: String, _ kind: Kind, _ make: (String) -> ID?) throws(DomainError) -> ID {
        guard let id = make(raw) else { throw .invalid(field: "order", message: "“\(raw.prefix(60))” is not the id of a \(kind.noun).") }
        return id
    }

    private static func id<ID>(_ raw: String, _ kind: Kind, _ make: (String) -> ID?) throws(DomainError) -> ID {
        guard let id = make(raw) else { throw DomainError.notFound("That \(kind.noun)") }
        return id
    }
}
