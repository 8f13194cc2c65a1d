import Foundation
import NestoryDomain
import NestoryStore
import Testing
@testable import NestoryDemo

@Suite struct DemoTests {
    func generator(seed: UInt64) throws -> DemoGenerator {
        let household = HouseholdID()
        let rooms = Defaults.rooms.enumerated().map { Room(householdID: household, name: $1, sortOrder: $0) }
        let categories = Defaults.categories.enumerated().map {
            NestoryDomain.Category(householdID: household, name: $1.name, colorHex: $1.colorHex, icon: $1.icon, sortOrder: $0, isCustom: false)
        }
        return DemoGenerator(seed: seed, currency: .usd, today: try CalendarDate(iso: "2026-11-22"), rooms: rooms, categories: categories)
    }

    @Test func theSameSeedGivesTheSameItems() throws {
        let g = try generator(seed: 42)
        let a = g.items(0..<200).map(\.draft)
        let b = g.items(0..<200).map(\.draft)
        #expect(a == b)
        // Slices agree with one long run.
        #expect(g.items(100..<120).map(\.draft) == Array(a[100..<120]))
        #expect(try generator(seed: 43).items(0..<200).map(\.draft) != a.map { $0 })
    }

    @Test func itemsArePlausibleAndSomeAreUndocumented() throws {
        let g = try generator(seed: 7)
        let items = g.items(0..<2000)
        let today = try CalendarDate(iso: "2026-11-22")
        for item in items {
            #expect(try item.draft.validated(today: today) == item.draft)  // already clean and valid
            if let price = item.draft.purchasePrice { #expect(price.minorUnits > 0 && price.minorUnits < 2_000_000) }
            if let date = item.draft.purchaseDate { #expect(date < today) }
        }
        let noPhoto = items.filter { $0.photoVariant == nil }.count
        let noValue = items.filter { $0.draft.purchasePrice == nil }.count
        let noRoom = items.filter { $0.draft.roomID == nil }.count
        #expect((200...500).contains(noPhoto))  // about 18%
        #expect((120...380).contains(noValue))  // about 12%
        #expect((40...170).contains(noRoom))  // about 5%
        #expect(Set(items.map(\.draft.name)).count > 100)
        #expect(Set(items.compactMap(\.draft.brand)).count > 50)
        #expect(Set(items.map(\.id)).count == items.count)
    }

    @Test func photosAreRealPNGs() {
        for variant in [0, 5, 15] {
            let png = DemoImages.photo(variant: variant)
            #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            // IHDR: 96×72, 8-bit RGB.
            #expect(Array(png[16..<24]) == [0, 0, 0, 96, 0, 0, 0, 72])
            #expect(png[24] == 8 && png[25] == 2)
            // The IHDR CRC matches.
            let crc = png[29..<33].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(crc == DemoImages.crc32(png[12..<29]))
        }
        #expect(DemoImages.photo(variant: 1) != DemoImages.photo(variant: 2))
    }

    @Test func seedingWritesAHouseholdWithPhotosAndReceipts() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-demo-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try AppDatabase.open(DataFolder(path: path))
        let now = Date(timeIntervalSince1970: 1_763_800_000)
        var progress: [Int] = []
        let home = try DemoSeeder.seed(database, count: 1200, seed: 3, now: now, batchSize: 500) { progress.append($0) }
        #expect(progress == [500, 1000, 1200])
        let summary = try database.summary(home.id)
        #expect(summary.itemCount == 1200)
        #expect(summary.needsPhoto > 100 && summary.needsPhoto < 400)
        #expect(summary.needsReceipt < 1200 && summary.needsReceipt > 600)
        #expect(summary.score.percent! > 40 && summary.score.percent! < 90)
        // A second demo household from the same seed has the same items under other ids.
        let twin = try DemoSeeder.seed(database, name: "Twin", count: 10, seed: 3, now: now)
        #expect(try database.summary(twin.id).itemCount == 10)
        // Receipt text is searchable.
        #expect(try database.items(home.id, ItemQuery(search: "thank you for shopping")).elements.count > 0)
        try database.close()
    }
}
