import Foundation

/// A typed identifier: an `EntityID<Item>` cannot be passed where an `EntityID<Room>` is expected.
public struct EntityID<Entity>: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: UUID

    public init(_ rawValue: UUID = UUID()) { self.rawValue = rawValue }

    public init?(string: String) {
        guard let uuid = UUID(uuidString: string) else { return nil }
        self.rawValue = uuid
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UUID.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Lower-case canonical text, the form stored in the database.
    public var description: String { rawValue.uuidString.lowercased() }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }
}

public typealias HouseholdID = EntityID<Household>
public typealias UserID = EntityID<User>
public typealias RoomID = EntityID<Room>
public typealias CategoryID = EntityID<Category>
public typealias ItemID = EntityID<Item>
public typealias PhotoID = EntityID<ItemPhoto>
public typealias ReceiptID = EntityID<Receipt>
