import Foundation

/// One piece of evidence an item can have or lack.
public enum DocumentationAspect: String, Hashable, Codable, Sendable, CaseIterable {
    case photo, receipt, value, serial, room, category

    /// Counted by the documentation score (the spec's photo + value + category + room).
    public var isRequiredForScore: Bool {
        switch self {
        case .photo, .value, .room, .category: return true
        case .receipt, .serial: return false
        }
    }

    public var label: String {
        switch self {
        case .photo: return "Photo"
        case .receipt: return "Receipt"
        case .value: return "Value"
        case .serial: return "Serial"
        case .room: return "Room"
        case .category: return "Category"
        }
    }

    /// "What's missing?" help, shown when the aspect is missing.
    public var missingHelp: String {
        switch self {
        case .photo: return "A photo proves you owned the item and shows its condition. Add at least one clear photo."
        case .receipt: return "Receipts aren’t required, but they’re strong evidence for value and purchase date. Add a photo of a paper receipt or a screenshot of an email."
        case .value: return "Enter what you paid or what it is worth, so the item counts toward your estimated value."
        case .serial: return "A serial number identifies this exact item, which helps with theft claims and recovery."
        case .room: return "Say which room the item is in, so you can show where it was."
        case .category: return "Choose a category, so reports can group the item and totals by category are right."
        }
    }
}

/// Which evidence an item has.
public struct DocumentationStatus: Hashable, Codable, Sendable {
    public let hasPhoto: Bool
    public let hasReceipt: Bool
    public let hasValue: Bool
    public let hasSerial: Bool
    public let hasRoom: Bool
    public let hasCategory: Bool

    public init(hasPhoto: Bool, hasReceipt: Bool, hasValue: Bool, hasSerial: Bool, hasRoom: Bool, hasCategory: Bool) {
        self.hasPhoto = hasPhoto
        self.hasReceipt = hasReceipt
        self.hasValue = hasValue
        self.hasSerial = hasSerial
        self.hasRoom = hasRoom
        self.hasCategory = hasCategory
    }

    /// A value is any entered price, zero included (a gift entered as 0 was still entered).
    public init(item: Item, photoCount: Int, receiptCount: Int) {
        self.init(hasPhoto: photoCount > 0, hasReceipt: receiptCount > 0, hasValue: item.purchasePrice != nil,
                  hasSerial: item.serialNumber != nil, hasRoom: item.roomID != nil, hasCategory: item.categoryID != nil)
    }

    public func has(_ aspect: DocumentationAspect) -> Bool {
        switch aspect {
        case .photo: return hasPhoto
        case .receipt: return hasReceipt
        case .value: return hasValue
        case .serial: return hasSerial
        case .room: return hasRoom
        case .category: return hasCategory
        }
    }

    /// Documented for the score: a photo, a value, a category and a room.
    public var isDocumented: Bool {
        DocumentationAspect.allCases.filter(\.isRequiredForScore).allSatisfy(has)
    }

    public var missing: [DocumentationAspect] { DocumentationAspect.allCases.filter { !has($0) } }
}

/// The share of items that are documented.
public struct DocumentationScore: Hashable, Codable, Sendable {
    public let documented: Int
    public let total: Int

    public init(documented: Int, total: Int) {
        precondition(documented >= 0 && documented <= total, "documented must be within 0...total")
        self.documented = documented
        self.total = total
    }

    /// Whole percent, rounded down so 100% means every item; nil for an empty inventory.
    public var percent: Int? {
        guard total > 0 else { return nil }
        return documented * 100 / total
    }

    public static let explanation = "Documented items have a photo, a value, a category and a room."
}
