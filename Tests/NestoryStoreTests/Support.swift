import Foundation
import NestoryDomain
@testable import NestoryStore

/// A database in a fresh temporary data folder, removed when the test is done with it.
final class TestStore {
    let folder: DataFolder
    let database: AppDatabase
    let now = Date(timeIntervalSince1970: 1_763_800_000)  // 2025-11-22
    let today = try! CalendarDate(iso: "2025-11-22")

    init() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-test-\(UUID().uuidString)").path
        folder = DataFolder(path: path)
        database = try AppDatabase.open(folder)
    }

    deinit {
        try? database.close()
        try? FileManager.default.removeItem(at: folder.url)
    }

    func household(_ name: String = "Home", currency: CurrencyCode = .usd) throws -> Household {
        try database.createHousehold(name: name, currency: currency, now: now)
    }

    @discardableResult
    func item(_ household: Household, _ name: String, price: String? = nil, brand: String? = nil, serial: String? = nil,
              notes: String? = nil, tags: [String] = [], room: String? = nil, category: String? = nil,
              quantity: Int = 1, createdOffset: TimeInterval = 0) throws -> Item {
        let rooms = try database.rooms(household.id)
        let categories = try database.categories(household.id)
        let draft = ItemDraft(
            name: name, brand: brand, serialNumber: serial,
            purchasePrice: try price.map { try Money.parse($0, currency: household.currency) },
            currency: household.currency,
            categoryID: category.map { c in categories.first { $0.name == c }!.id },
            roomID: room.map { r in rooms.first { $0.name == r }!.id },
            tags: tags, notes: notes, quantity: quantity)
        return try database.createItem(household.id, draft, now: now.addingTimeInterval(createdOffset), today: today)
    }

    func names(_ household: Household, _ query: ItemQuery) throws -> [String] {
        try database.items(household.id, query).elements.map(\.item.name)
    }

    /// Every page of a query, following cursors.
    func allPages(_ household: Household, _ query: ItemQuery) throws -> [ItemListing] {
        var out: [ItemListing] = []
        var q = query
        while true {
            let page = try database.items(household.id, q)
            out += page.elements
            guard let next = page.nextCursor else { return out }
            q.after = next
        }
    }
}

/// Bytes that look like a small JPEG (content does not matter to the store).
func fakeImage(_ seed: Int, size: Int = 2048) -> Data {
    var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
    var x = UInt32(truncatingIfNeeded: seed &* 2_654_435_761 &+ 1)
    for _ in 0..<size {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5
        bytes.append(UInt8(truncatingIfNeeded: x))
    }
    return Data(bytes + [0xFF, 0xD9])
}
