import Foundation
import NestoryChildProcess
import NestoryDemo
import NestoryDomain
import NestoryReports
import NestoryReportsLive
import NestoryStoreInterfaces
import Testing

/// The PDF reports made from each engine's stores (the generator reads only the store interfaces and the files' storage):
/// the same household on SQLite and on PostgreSQL gives a report with the same text, photos from the files' storage and
/// from the display renditions, and the latest valuations.
@Suite struct ReportPDFConformanceTests {
    static let start = Date(millis: 1_763_800_000_000)

    func usd(_ text: String) throws -> Money { try Money.parse(text, currency: .usd) }

    /// Renders off Swift's cooperative pool: the generator waits for the async stores on its calling thread.
    func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }


    @Test(arguments: Engine.available)
    func aReportIsMadeFromEachEnginesStores(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let blobs = try #require(stores.blobs)
            let home = try await stores.accounts.createHousehold(name: "Harbour House", currency: .usd, now: Self.start)
            _ = try await stores.accounts.createHousehold(name: "Next Door", currency: .usd, now: Self.start)
            let rooms = try await stores.items.rooms(home.id)
            let categories = try await stores.items.categories(home.id)
            func make(_ name: String, price: String?, room: Int?, category: Int?) async throws -> Item {
                try await stores.items.createItem(home.id, ItemDraft(name: name, purchasePrice: try price.map(usd), currency: .usd,
                                                                     categoryID: category.map { categories[$0].id }, roomID: room.map { rooms[$0].id }),
                                                  now: Self.start, today: nil, plan: nil)
            }
            let piano = try await make("Upright piano", price: "3200", room: 0, category: 0)
            let kettle = try await make("Copper kettle", price: "89.50", room: 0, category: 1)
            let bike = try await make("Gravel bike", price: "1450", room: 1, category: 1)
            let stool = try await make("Milking stool", price: nil, room: nil, category: nil)
            // The piano's photo is a PNG kept in the files' storage; the bike's a WebP shown through its display rendition.
            _ = try await stores.attachments.addPhoto(home.id, to: piano.id, staged: try blobs.stage(DemoImages.photo(variant: 1)),
                                                      contentType: "image/png", now: Self.start)
            let webp = try await stores.attachments.addPhoto(home.id, to: bike.id, staged: try blobs.stage(Data("RIFF-not-an-image".utf8)),
                                                             contentType: "image/webp", now: Self.start)
            let renditions = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-renditions-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: renditions, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: renditions) }
            try DemoImages.photo(variant: 5).write(to: renditions.appendingPathComponent("\(webp.attachment.sha256)-display.jpg"))
            try await stores.valuations.addValuation(home.id, try Valuation(
                itemID: piano.id, replacementCost: ValueRange(exactly: try usd("4100")), actualCashValue: ValueRange(exactly: try usd("2600")),
                method: .manual, confidence: .high, valuedOn: try CalendarDate(iso: "2026-11-20"), explanation: "Tuner's appraisal",
                createdAt: Self.start))

            let generator = ReportGenerator(items: stores.items, valuations: stores.valuations, accounts: stores.accounts, files: blobs,
                                            displayRendition: { renditions.appendingPathComponent("\($0)-display.jpg") })
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-report-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let (inventoryURL, lossURL) = (folder.appendingPathComponent("inventory.pdf"), folder.appendingPathComponent("loss.pdf"))
            let now = Self.start
            let incident = Incident(date: try CalendarDate(iso: "2026-11-21"), type: .water, description: "Burst pipe")
            let (inventory, loss) = try await offThePool {
                (try generator.inventory(home.id, options: InventoryReportOptions(includePhotos: true), to: inventoryURL, now: now),
                 try generator.lossList(home.id, options: LossListOptions(incident: incident, itemIDs: [kettle.id, piano.id, stool.id]),
                                        to: lossURL, now: now))
            }

            #expect(inventory.items == 4 && inventory.images == 2 && inventory.pages >= 2)
            let text = try pdftotext(inventoryURL)
            for expected in ["Harbour House", "Upright piano", "Copper kettle", "Gravel bike", "Milking stool", rooms[0].name, rooms[1].name,
                             "$4,739.50", "RCV $4,100.00 h", "ACV $2,600.00 h", "Page 1 of \(inventory.pages)"] {
                #expect(text.contains(expected), "\(engine): \(expected)")
            }
            #expect(!text.contains("Next Door"))
            // The loss list: the chosen items in name order, the piano's photo page.
            #expect(loss.items == 3 && loss.images == 1)
            let lossText = try pdftotext(lossURL)
            for expected in ["Burst pipe", "$3,289.50", "Valued items (1 of 3)", "Tuner's appraisal"] {
                #expect(lossText.contains(expected), "\(engine): \(expected)")
            }
            let order = ["Copper kettle", "Milking stool", "Upright piano"].compactMap { lossText.range(of: $0)?.lowerBound }
            #expect(order.count == 3 && order == order.sorted())
            // The exports read the same stores: every item, the photos listed, the total exact.
            let jsonURL = folder.appendingPathComponent("export.json")
            #expect(try await offThePool { try generator.exportJSON(home.id, to: jsonURL, now: now) } == 4)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: jsonURL)) as? [String: Any])
            let items = try #require(json["items"] as? [[String: Any]])
            #expect(Set(items.compactMap { $0["name"] as? String }) == ["Upright piano", "Copper kettle", "Gravel bike", "Milking stool"])
            #expect(items.map { ($0["photos"] as? [Any])?.count ?? -1 }.reduce(0, +) == 2)
        }
    }
}

/// The PDF's text as pdftotext reads it, whitespace runs made single spaces.
func pdftotext(_ url: URL) throws -> String {
    try ChildProcess.run("/usr/bin/pdftotext", [url.path, "-"]).outputText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
}
