import Foundation
import NestoryDomain

/// One generated item, before it is stored.
public struct DemoItem: Sendable {
    public let id: ItemID
    public let draft: ItemDraft
    public let createdAt: Date
    /// Which of the shared demo photos to attach (nil: the item has no photo).
    public let photoVariant: Int?
    public let receipt: DemoReceipt?
}

/// A receipt for a demo item: what OCR would have read from it.
public struct DemoReceipt: Sendable {
    public let vendor: String
    public let total: Money
    public let date: CalendarDate
    public let rawText: String
}

/// Makes a realistic household: plausible names, brands, rooms, prices and dates, with some items
/// left undocumented the way real inventories are. The same seed gives the same items.
public struct DemoGenerator: Sendable {
    public let seed: UInt64
    public let currency: CurrencyCode
    /// The day the household is "as of": purchase dates fall before it.
    public let today: CalendarDate
    public let rooms: [Room]
    public let categories: [NestoryDomain.Category]
    /// Mixed into item ids only, so two demo households from one seed have the same items but
    /// never the same ids.
    public let idSalt: UInt64

    /// How many distinct photos items share (stored once each, content-addressed).
    public static let photoVariants = 16

    public init(seed: UInt64, currency: CurrencyCode, today: CalendarDate, rooms: [Room], categories: [NestoryDomain.Category],
                idSalt: UInt64 = 0) {
        self.idSalt = idSalt
        self.seed = seed
        self.currency = currency
        self.today = today
        self.rooms = rooms
        self.categories = categories
    }

    /// Items `range` of the household (generate in slices to keep memory flat).
    public func items(_ range: Range<Int>) -> [DemoItem] {
        range.map(item)
    }

    /// The item at `index`: each index has its own random stream, so slices agree with a single run.
    public func item(_ index: Int) -> DemoItem {
        var rng = SeededRandom(seed: seed &* 0x2545_F491_4F6C_DD1D &+ UInt64(index))
        let template = rng.pick(Catalogue.templates)
        let brand = rng.pick(template.brands)
        let adjective = rng.pick(Catalogue.adjectives)
        let name = adjective + template.name

        let roomName = rng.pick(template.rooms)
        let room = rooms.first { $0.name == roomName } ?? (rooms.isEmpty ? nil : rng.pick(rooms))
        let category = categories.first { $0.name == template.category }

        // Prices: a whole amount in the range, often ending in .99 or .00.
        let major = Int.random(in: template.priceRange, using: &rng)
        let cents = rng.pick([0, 0, 99, 49, 95, 0])
        var minor = Int64(major)
        for _ in 0..<currency.minorUnitDigits { minor *= 10 }
        if currency.minorUnitDigits == 2 { minor += Int64(cents) }
        let price = try! Money(minorUnits: minor, currency: currency)

        let ageDays = Int.random(in: 3...(12 * 365), using: &rng)
        let purchaseDate = try? today.adding(days: -ageDays)
        let createdDaysAgo = Int.random(in: 0...min(ageDays, 730), using: &rng)
        let createdAt = Date(timeIntervalSince1970: Double(today.daysSinceEpoch - createdDaysAgo) * 86_400
                             + Double(Int.random(in: 28_800...79_200, using: &rng)) + Double(index % 1000) / 1000)

        let serial = template.hasSerial && rng.chance(0.7) ? Self.serial(&rng) : nil
        let model = rng.chance(0.75) ? Self.model(brand: brand, &rng) : nil
        var tags = rng.chance(0.3) ? [rng.pick(Catalogue.tags)] : []
        if !tags.isEmpty, rng.chance(0.2) {
            let second = rng.pick(Catalogue.tags)
            if second != tags[0] { tags.append(second) }
        }
        let conditionRoll = Int.random(in: 0..<100, using: &rng)
        let condition: ItemCondition = ageDays < 60 ? .new : conditionRoll < 15 ? .likeNew : conditionRoll < 75 ? .good : conditionRoll < 93 ? .fair : .poor
        let warranty = template.hasSerial && ageDays < 3 * 365 && rng.chance(0.5) ? try? today.adding(days: 365 * 3 - ageDays) : nil
        let quantity = template.name.hasSuffix("Chair") ? rng.pick([1, 2, 4, 6]) : 1

        // Real inventories have gaps: no photo, no value, no room or category, no receipt.
        let hasValue = rng.chance(0.88)
        let hasPhoto = rng.chance(0.82)
        let hasRoom = rng.chance(0.95)
        let hasCategory = rng.chance(0.96)
        let photo = hasPhoto ? Int.random(in: 0..<Self.photoVariants, using: &rng) : nil
        let receipt: DemoReceipt? = hasValue && rng.chance(0.35) && purchaseDate != nil
            ? Self.receipt(name: name, brand: brand, unitPrice: price, quantity: quantity, date: purchaseDate!, &rng) : nil

        let draft = ItemDraft(
            name: name, brand: brand, modelNumber: model, serialNumber: serial,
            purchasePrice: hasValue ? price : nil, purchaseDate: hasValue ? purchaseDate : (rng.chance(0.3) ? purchaseDate : nil),
            currency: currency, categoryID: hasCategory ? category?.id : nil, roomID: hasRoom ? room?.id : nil,
            condition: condition, conditionNotes: condition == .poor || condition == .fair ? "Visible wear from regular use." : nil,
            barcode: nil, warrantyExpiry: warranty, tags: tags, notes: rng.chance(0.2) ? rng.pick(Catalogue.notes) : nil,
            quantity: quantity)
        var idRandom = SeededRandom(seed: rng.next() ^ idSalt)
        return DemoItem(id: ItemID(Self.uuid(&idRandom)), draft: draft, createdAt: createdAt, photoVariant: photo, receipt: receipt)
    }

    static func serial(_ rng: inout SeededRandom) -> String {
        let letters = Array("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
        return String((0..<12).map { _ in rng.pick(letters) })
    }

    static func model(brand: String, _ rng: inout SeededRandom) -> String {
        let prefix = String(brand.filter(\.isLetter).prefix(2)).uppercased()
        return "\(prefix)-\(Int.random(in: 100...9999, using: &rng))\(rng.pick(["", "X", "S", "Pro", "A"]))"
    }

    static func receipt(name: String, brand: String, unitPrice: Money, quantity: Int, date: CalendarDate,
                        _ rng: inout SeededRandom) -> DemoReceipt {
        let vendor = rng.pick(Catalogue.vendors)
        let total = (try? unitPrice.multiplied(by: quantity)) ?? unitPrice
        let text = """
            \(vendor.uppercased())
            \(date.iso)
            \(quantity) x \(brand) \(name)  \(unitPrice.plainAmount)
            TOTAL \(total.plainAmount)
            THANK YOU FOR SHOPPING
            """
        return DemoReceipt(vendor: vendor, total: total, date: date, rawText: text)
    }

    static func uuid(_ rng: inout SeededRandom) -> UUID {
        let a = rng.next(), b = rng.next()
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: a >> ($0 * 8)) } + (0..<8).map { UInt8(truncatingIfNeeded: b >> ($0 * 8)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
