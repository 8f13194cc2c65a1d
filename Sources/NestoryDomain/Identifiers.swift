import Foundation

/// A typed identifier: an `EntityID<Item>` cannot be passed where an `EntityID<Room>` is expected.
public struct EntityID<Entity>: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: UUID

    public init(_ rawValue: UUID = UUID()) { self.rawValue = rawValue }

    public init?(string: String) {
        // The stored form (lower-case, hyphenated) is read directly: lists read thousands a second.
        // Anything else goes through Foundation, which decides what else is accepted.
        if let uuid = Self.parseCanonical(string) {
            self.rawValue = uuid
            return
        }
        guard let uuid = UUID(uuidString: string) else { return nil }
        self.rawValue = uuid
    }

    /// Reads any case Foundation reads (ids written before they were written in lower case too).
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UUID.self)
    }

    /// Written as `description`, the stored form: the same text an item's `roomID` or a URL carries, so a script can
    /// compare ids as text (Foundation writes a UUID in upper case).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Lower-case canonical text, the form stored in the database.
    public var description: String {
        withUnsafeBytes(of: rawValue.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = lowerHexDigits[Int(byte >> 4)]
                    text[position + 1] = lowerHexDigits[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in lower-case hex digits, else nil.
    private static func parseCanonical(_ string: String) -> UUID? {
        var string = string
        return string.withUTF8 { text -> UUID? in
            guard text.count == 36 else { return nil }
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let ok = withUnsafeMutableBytes(of: &bytes) { out -> Bool in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        guard text[position] == UInt8(ascii: "-") else { return false }
                        position += 1
                    }
                    guard let high = lowerHexValue(text[position]), let low = lowerHexValue(text[position + 1]) else { return false }
                    out[index] = high << 4 | low
                    position += 2
                }
                return true
            }
            return ok ? UUID(uuid: bytes) : nil
        }
    }

    private static func lowerHexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }
}

private let lowerHexDigits: [UInt8] = Array("0123456789abcdef".utf8)

public typealias HouseholdID = EntityID<Household>
public typealias UserID = EntityID<User>
public typealias RoomID = EntityID<Room>
public typealias CategoryID = EntityID<Category>
public typealias ItemID = EntityID<Item>
public typealias PhotoID = EntityID<ItemPhoto>
public typealias ReceiptID = EntityID<Receipt>
