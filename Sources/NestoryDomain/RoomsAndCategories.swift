import Foundation

/// A place in the home where items are kept.
public struct Room: Identifiable, Hashable, Codable, Sendable {
    public let id: RoomID
    public let householdID: HouseholdID
    public var name: String
    /// Position in lists; lower first.
    public var sortOrder: Int

    public init(id: RoomID = RoomID(), householdID: HouseholdID, name: String, sortOrder: Int) {
        self.id = id
        self.householdID = householdID
        self.name = name
        self.sortOrder = sortOrder
    }
}

/// A kind of thing (electronics, furniture), with a colour for charts and pills.
public struct Category: Identifiable, Hashable, Codable, Sendable {
    public let id: CategoryID
    public let householdID: HouseholdID
    public var name: String
    /// `#RRGGBB`.
    public var colorHex: String
    /// A symbol name the web app draws when an item has no photo.
    public var icon: String
    public var sortOrder: Int
    /// False for the seeded defaults, true for categories a user added.
    public var isCustom: Bool

    public init(id: CategoryID = CategoryID(), householdID: HouseholdID, name: String, colorHex: String,
                icon: String, sortOrder: Int, isCustom: Bool) {
        self.id = id
        self.householdID = householdID
        self.name = name
        self.colorHex = colorHex
        self.icon = icon
        self.sortOrder = sortOrder
        self.isCustom = isCustom
    }

    /// Checks `#RRGGBB` and returns it upper-cased.
    public static func validatedColor(_ raw: String) throws(DomainError) -> String {
        let hex = raw.trimmingCharacters(in: .whitespaces).uppercased()
        guard hex.count == 7, hex.first == "#",
              hex.dropFirst().allSatisfy({ $0.isHexDigit }) else {
            throw .invalid(field: "colorHex", message: "Use a colour such as #3B82F6.")
        }
        return hex
    }
}

/// Rules shared by room and category names.
public enum PlaceName {
    public static let maximumLength = 60

    /// Cleaned as every name is (`Text.clean`: spaces collapsed, control characters and direction overrides dropped),
    /// then checked.
    public static func validated(_ raw: String, field: String = "name") throws(DomainError) -> String {
        guard let name = Text.clean(raw) else { throw .invalid(field: field, message: "Enter a name.") }
        guard name.count <= maximumLength else {
            throw .invalid(field: field, message: "Keep the name under \(maximumLength) characters.")
        }
        return name
    }

    /// A household's rooms (or categories) have different names, letters, case and accents folded (`Text.foldKey`):
    /// refused when one of `existing` (id, name) other than `except` already has this name. `kind` is "room" or
    /// "category". Every engine checks with this rule.
    public static func checkUnique(_ name: String, kind: String, among existing: [(id: String, name: String)], except: String?) throws(DomainError) {
        let key = Text.foldKey(name)
        if existing.contains(where: { Text.foldKey($0.name) == key && $0.id != except }) {
            throw .invalid(field: "name", message: "There is already a \(kind) called \(name).")
        }
    }

    /// A new order must list every one of the household's rooms (or categories) exactly once.
    public static func checkOrder(_ ids: [String], existing: Set<String>, kind: String) throws(DomainError) {
        guard Set(ids) == existing, ids.count == existing.count else {
            throw .invalid(field: "order", message: "List every \(kind) exactly once.")
        }
    }
}

/// What a new household starts with: editable, ordered, and deletable like any other.
public enum Defaults {
    public struct CategorySeed: Sendable, Hashable {
        public let name: String
        public let colorHex: String
        public let icon: String
    }

    public static let rooms: [String] = [
        "Living Room", "Kitchen", "Dining Room", "Primary Bedroom", "Bedroom", "Bathroom",
        "Office", "Garage", "Basement", "Attic", "Laundry", "Outdoor",
    ]

    public static let categories: [CategorySeed] = [
        .init(name: "Electronics", colorHex: "#3B82F6", icon: "tv"),
        .init(name: "Furniture", colorHex: "#A16207", icon: "sofa"),
        .init(name: "Appliances", colorHex: "#0D9488", icon: "washer"),
        .init(name: "Jewelry & Watches", colorHex: "#DB2777", icon: "gem"),
        .init(name: "Clothing & Accessories", colorHex: "#7C3AED", icon: "shirt"),
        .init(name: "Art & Decor", colorHex: "#EA580C", icon: "frame"),
        .init(name: "Musical Instruments", colorHex: "#CA8A04", icon: "music"),
        .init(name: "Tools & Equipment", colorHex: "#4B5563", icon: "wrench"),
        .init(name: "Sports & Outdoors", colorHex: "#16A34A", icon: "bike"),
        .init(name: "Kitchenware", colorHex: "#DC2626", icon: "utensils"),
        .init(name: "Books & Media", colorHex: "#2563EB", icon: "book"),
        .init(name: "Collectibles", colorHex: "#9333EA", icon: "star"),
        .init(name: "Toys & Games", colorHex: "#F59E0B", icon: "puzzle"),
        .init(name: "Other", colorHex: "#64748B", icon: "box"),
    ]
}
