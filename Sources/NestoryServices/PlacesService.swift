import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces

/// Rooms and categories: add, rename (and recolour), move up or down, delete. Deleting keeps the items
/// and says how many lost their room or category. Writes run on the blocking pool.
public struct PlacesService: Sendable {
    let database: AppDatabase
    /// Where rooms and categories and their item counts are read (the same database's SQLite store unless given).
    let items: any ItemStore
    let blocking: BlockingPool
    let now: @Sendable () -> Date

    public init(database: AppDatabase, items: (any ItemStore)? = nil, blocking: BlockingPool, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.items = items ?? SQLiteItemStore(database)
        self.blocking = blocking
        self.now = now
    }

    public enum Kind: String, Sendable, CaseIterable {
        case rooms, categories

        var noun: String { self == .rooms ? "room" : "category" }
    }

    public enum Direction: String, Sendable { case up, down }

    public func add(_ kind: Kind, to household: HouseholdID, name: String, colorHex: String?) async throws {
        let database = database
        try await blocking.run {
            switch kind {
            case .rooms: _ = try database.createRoom(household, name: name)
            case .categories: _ = try database.createCategory(household, name: name, colorHex: colorHex ?? "#64748B")
            }
        }
    }

    public func rename(_ kind: Kind, _ id: String, in household: HouseholdID, to name: String, colorHex: String?) async throws {
        let database = database
        switch kind {
        case .rooms:
            let room = try Self.id(id, kind, RoomID.init(string:))
            try await blocking.run { try database.renameRoom(household, room, to: name) }
        case .categories:
            let category = try Self.id(id, kind, CategoryID.init(string:))
            try await blocking.run { try database.updateCategory(household, category, name: name, colorHex: colorHex ?? "") }
        }
    }

    /// Swaps the entry with its neighbour; at either end nothing changes.
    public func move(_ kind: Kind, _ id: String, in household: HouseholdID, _ direction: Direction) async throws {
        let database = database
        try await blocking.run {
            var ids = kind == .rooms ? try database.rooms(household).map(\.id.description) : try database.categories(household).map(\.id.description)
            guard let index = ids.firstIndex(of: id) else { throw DomainError.notFound("That \(kind.noun)") }
            let target = direction == .up ? index - 1 : index + 1
            guard ids.indices.contains(target) else { return }
            ids.swapAt(index, target)
            if kind == .rooms { try database.reorderRooms(household, ids.compactMap(RoomID.init(string:))) } else {
                try database.reorderCategories(household, ids.compactMap(CategoryID.init(string:)))
            }
        }
    }

    /// Deletes the entry; returns how many items were in it (they stay, without a room or category).
    public func delete(_ kind: Kind, _ id: String, in household: HouseholdID) async throws -> Int {
        let (database, at) = (database, now())
        switch kind {
        case .rooms:
            let room = try Self.id(id, kind, RoomID.init(string:))
            return try await blocking.run { try database.deleteRoom(household, room, now: at) }
        case .categories:
            let category = try Self.id(id, kind, CategoryID.init(string:))
            return try await blocking.run { try database.deleteCategory(household, category, now: at) }
        }
    }

    private static func id<ID>(_ raw: String, _ kind: Kind, _ make: (String) -> ID?) throws(DomainError) -> ID {
        guard let id = make(raw) else { throw DomainError.notFound("That \(kind.noun)") }
        return id
    }
}
