import Foundation
import NestoryBackup
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing
import ZIPFoundation

/// Backups, restores and imports behave the same on every engine (`ArchiveStore`, through the backup writer and reader
/// the app uses). The archive is the yardstick: a household restored from an archive made on SQLite and backed up
/// again gives the same bytes on every engine.
@Suite struct ArchiveStoreConformanceTests {
    static let start = Date(millis: 1_763_800_000_000)
    /// Every archive of these tests is made at this time, so two archives of the same rows are the same bytes.
    static let madeAt = Date(millis: 1_763_900_000_000)

    func at(_ seconds: Int) -> Date { Self.start.addingTimeInterval(Double(seconds)) }
    func usd(_ minor: Int64) -> Money { try! Money(minorUnits: minor, currency: .usd) }

    /// One engine's stores with a data folder of their own (tmp/, the stored files, reports/ and the key that seals
    /// the valuation providers' keys), and the backup writer and reader over them.
    struct Fixture {
        let stores: NestoryStoreInterfaces.Stores
        let blobs: any BlobFiles
        let folder: DataFolder

        var writer: BackupWriter { BackupWriter(archive: stores.archive, valuations: stores.valuations, blobs: blobs, folder: folder) }
        var reader: BackupReader { BackupReader(archive: stores.archive, valuations: stores.valuations, blobs: blobs, folder: folder) }

        /// An archive of the household, at `madeAt`.
        func backup(_ household: HouseholdID, keys: Bool = false) async throws -> Data {
            let url = folder.url.appendingPathComponent("backup-\(UUID().uuidString).zip")
            defer { try? FileManager.default.removeItem(at: url) }
            try await writer.write(household: household, to: url, now: ArchiveStoreConformanceTests.madeAt, includeProviderKeys: keys)
            return try Data(contentsOf: url)
        }

        /// Restores archive bytes.
        func restore(_ archive: Data, into target: HouseholdID?, mode: RestoreMode, plan: Entitlement? = nil) async throws -> RestoreSummary {
            let url = folder.url.appendingPathComponent("restore-\(UUID().uuidString).zip")
            try archive.write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            let checked = try reader.validate(url)
            defer { checked.discard() }
            return try await reader.apply(checked, into: target, mode: mode, plan: plan)
        }

        /// The files kept in the data folder, reports' and stored ones (PostgreSQL keeps reports with the stored files).
        func reportFiles() -> [String] {
            [folder.reportsURL, folder.blobsURL].flatMap { root in
                (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? [])
                    .filter { $0.hasSuffix(".pdf") || ($0 as NSString).lastPathComponent.count == 64 }
                    .map { "\(root.lastPathComponent)/\($0)" }
            }.sorted()
        }
    }

    func withArchive<T>(_ engine: Engine, _ body: (Fixture) async throws -> T) async throws -> T {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-archive-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(at: folder.url) }
        switch engine {
        case .sqlite:
            let database = try AppDatabase.open(folder)
            defer { try? database.close() }
            return try await body(Fixture(stores: .sqlite(database), blobs: database.blobs, folder: folder))
        case .postgres:
            guard let url = Engine.postgresURL else { throw PostgresNotConfigured() }
            for sub in [folder.blobsURL, folder.tmpURL] {
                try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            }
            let blobs = BlobStore(folder: folder)
            let store = try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: freshSchemaName(), maximumConnections: 4,
                                                           blobs: blobs))
            do {
                let result = try await body(Fixture(stores: .postgres(store, files: blobs), blobs: blobs, folder: folder))
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        }
    }

    /// A household with everything an archive holds: two members, its rooms and categories (and one of each of its
    /// own), items with tags, prices, dates and Unicode, photos (one file shared by two items), a linked and an
    /// unlinked receipt, a valuation history, a report and valuation settings with a provider's key.
    @discardableResult
    func seed(_ f: Fixture, _ name: String, tag: String = "a") async throws -> (household: Household, items: [Item]) {
        let s = f.stores
        var home = try await s.accounts.createHousehold(name: name, currency: .usd, now: at(0))
        // A time zone of its own, so every archive here carries one (`time_zone`) through both engines.
        home = try await s.accounts.updateHousehold(home.id, name: name, currency: .usd, highValueThreshold: home.highValueThreshold,
                                                    timeZone: "Europe/Lisbon")
        _ = try await s.accounts.createAccount(email: "owner-\(tag)@example.com", displayName: "Ówner", passwordHash: "$2b$12$owner\(tag)",
                                               household: .existing(home.id), role: .owner, onlyIfFirst: false, now: at(1))
        _ = try await s.accounts.createAccount(email: "member-\(tag)@example.com", displayName: "Member", passwordHash: "$2b$12$member\(tag)",
                                               household: .existing(home.id), role: .member, onlyIfFirst: false, now: at(2))
        let rooms = try await s.items.rooms(home.id)
        let categories = try await s.items.categories(home.id)
        var items: [Item] = []
        var desk = ItemDraft(name: "Desk", brand: "Ikea", modelNumber: "LINNMON", serialNumber: "SN-1", purchasePrice: usd(12_999),
                             purchaseDate: try CalendarDate(iso: "2024-03-01"), currency: .usd, categoryID: categories[1].id, roomID: rooms[0].id,
                             condition: .likeNew, tags: ["office", "wood"], notes: "line one\nline two, \"quoted\"")
        desk.barcode = "4006381333931"
        items.append(try await s.items.createItem(home.id, desk, now: at(10), today: nil, plan: nil))
        var teapot = ItemDraft(name: "Théière 茶壶 «Ø»", brand: "Émile Henry", purchasePrice: usd(8_990), currency: .usd, roomID: rooms[1].id,
                               tags: ["cuisine", "gift"], quantity: 2)
        teapot.warrantyExpiry = try CalendarDate(iso: "2027-01-31")
        items.append(try await s.items.createItem(home.id, teapot, now: at(11), today: nil, plan: nil))
        items.append(try await s.items.createItem(home.id, ItemDraft(name: "Lamp", currency: .usd, condition: .fair), now: at(12), today: nil,
                                                  plan: nil))
        let shared = try f.blobs.stage(Data("shared photo \(tag)".utf8))
        _ = try await s.attachments.addPhoto(home.id, to: items[0].id, staged: shared, contentType: "image/jpeg", now: at(20))
        _ = try await s.attachments.addPhoto(home.id, to: items[0].id, staged: try f.blobs.stage(Data("desk back \(tag)".utf8)),
                                             contentType: "image/png", now: at(21))
        _ = try await s.attachments.addPhoto(home.id, to: items[1].id, staged: try f.blobs.stage(Data("shared photo \(tag)".utf8)),
                                             contentType: "image/jpeg", now: at(22))
        _ = try await s.attachments.addReceipt(home.id, itemID: items[0].id, staged: try f.blobs.stage(Data("desk receipt \(tag)".utf8)),
                                               contentType: "image/jpeg",
                                               fields: ReceiptFields(vendor: "Ikea Wembley", total: usd(12_999), tax: usd(2_167),
                                                                     purchaseDate: try CalendarDate(iso: "2024-03-01"), rawText: "LINNMON 129.99",
                                                                     confidence: 0.8125),
                                               now: at(23))
        _ = try await s.attachments.addReceipt(home.id, itemID: nil, staged: try f.blobs.stage(Data("loose receipt \(tag)".utf8)),
                                               contentType: "application/pdf", fields: ReceiptFields(vendor: "Café"), now: at(24))
        try await s.valuations.addValuation(home.id, try Valuation(
            itemID: items[1].id, replacementCost: ValueRange(exactly: usd(12_000)), actualCashValue: nil, method: .manual, confidence: .high,
            valuedOn: try CalendarDate(iso: "2025-01-10"), explanation: "Shop quote", createdAt: at(30)))
        try await s.valuations.addValuation(home.id, try Valuation(
            itemID: items[1].id, replacementCost: try ValueRange(value: usd(11_000), low: usd(10_000), high: usd(13_000)),
            actualCashValue: try ValueRange(value: usd(6_000), low: usd(5_500), high: usd(7_000)), method: .market, confidence: .medium,
            valuedOn: try CalendarDate(iso: "2025-06-01"),
            sources: [ValuationSource(url: "https://shop.example/teapot", title: "Théière, used", amount: usd(6_000), fetchedAt: at(31))],
            createdAt: at(31)))
        let pdf = f.folder.tmpURL.appendingPathComponent("report-\(UUID().uuidString).pdf")
        try FileManager.default.createDirectory(at: f.folder.tmpURL, withIntermediateDirectories: true)
        try Data("%PDF-1.7 the inventory of \(name)".utf8).write(to: pdf)
        _ = try await s.reports.recordReport(home.id, kind: "inventory", options: #"{"group":"room"}"#, file: pdf, now: at(40))
        let box = try SecretBox.forFolder(f.folder)
        try await s.valuations.saveValuationSettings(home.id, StoredValuationSettings(
            analysisBaseURL: "https://llm.example/v1", analysisModel: "vision-1",
            analysisKey: try box.seal("sk-analysis-\(tag)-1234", context: "\(home.id)/analysis"), analysisKeyHint: "1234",
            searchCountry: "gb", exchangeRates: #"{"EUR":0.92}"#), now: at(41))
        return (home, items)
    }

    /// An archive's entries by name (to say which differ when two archives do).
    func entries(_ archive: Data) throws -> [String: Data] {
        let zip = try Archive(data: archive, accessMode: .read)
        var entries: [String: Data] = [:]
        for entry in zip {
            var data = Data()
            _ = try zip.extract(entry) { data.append($0) }
            entries[entry.path] = data
        }
        return entries
    }

    /// Names the entries two archives disagree on.
    func differences(_ a: Data, _ b: Data) throws -> [String] {
        let (x, y) = (try entries(a), try entries(b))
        return Set(x.keys).union(y.keys).sorted().filter { x[$0] != y[$0] }
    }

    // MARK: - The same archive on every engine

    @Test(arguments: Engine.available)
    func anArchiveMadeOnSQLiteRestoredAndBackedUpAgainIsTheSameBytes(engine: Engine) async throws {
        try await withArchive(.sqlite) { source in
            let (home, _) = try await seed(source, "Home")
            let original = try await source.backup(home.id)
            let withKeys = try await source.backup(home.id, keys: true)
            try await withArchive(engine) { target in
                // A household of the target's own first: the restored one must not pick up any of it.
                try await seed(target, "Neighbours", tag: "n")
                let summary = try await target.restore(original, into: nil, mode: .replace)
                #expect(summary.householdCreated)
                #expect(summary.householdID == home.id.description)
                #expect([summary.items.added, summary.photos.added, summary.receipts.added, summary.reports.added] == [3, 3, 2, 1] as [Int])
                #expect(summary.members.added == 2)
                #expect(summary.accountsNeedingPassword.isEmpty)
                let again = try await target.backup(home.id)
                #expect(try differences(original, again) == [])
                #expect(again == original)
                // The restored household reads back as it was made.
                let items = try await target.stores.items.items(home.id, ItemQuery(search: "茶壶", limit: 10)).elements
                #expect(items.map(\.item.name) == ["Théière 茶壶 «Ø»"])
                #expect(try await target.stores.items.items(home.id, ItemQuery(search: "wembley", limit: 10)).elements.map(\.item.name) == ["Desk"])
                #expect(try await target.stores.items.summary(home.id).itemCount == 3)
                #expect(try await target.stores.accounts.members(of: home.id).map(\.user.email).sorted() == ["member-a@example.com", "owner-a@example.com"])
                #expect(try await target.stores.accounts.userCredentials(email: "owner-a@example.com")?.passwordHash == "$2b$12$ownera")
            }
            // The providers' key travels in clear and is sealed again with the target's own key.
            try await withArchive(engine) { target in
                _ = try await target.restore(withKeys, into: nil, mode: .replace)
                let stored = try await target.stores.valuations.valuationSettings(home.id)
                #expect(stored.analysisKeyHint == "1234")
                #expect(try SecretBox.forFolder(target.folder).open(try #require(stored.analysisKey), context: "\(home.id)/analysis")
                        == "sk-analysis-a-1234")
                #expect(try await target.backup(home.id, keys: true) == withKeys)
            }
        }
    }

    @Test(arguments: Engine.available)
    func anExportIsOneHouseholdsRowsInTheArchivesOrder(engine: Engine) async throws {
        try await withArchive(engine) { f in
            let (home, items) = try await seed(f, "Home")
            try await seed(f, "Other", tag: "b")
            final class Rows: HouseholdArchiveSink, @unchecked Sendable {
                var kinds: [String] = []
                var itemIDs: [String] = []
                var users: [ArchiveRecord.User] = []
                func append(_ row: ArchiveRow) throws {
                    let kind: String
                    switch row {
                    case .user(let user): kind = "user"; users.append(user)
                    case .membership: kind = "membership"
                    case .room: kind = "room"
                    case .category: kind = "category"
                    case .item(let item): kind = "item"; itemIDs.append(item.id)
                    case .blob: kind = "blob"
                    case .photo: kind = "photo"
                    case .receipt: kind = "receipt"
                    case .report: kind = "report"
                    case .valuation: kind = "valuation"
                    }
                    if kinds.last != kind { kinds.append(kind) }
                }
            }
            let rows = Rows()
            let household = try await f.stores.archive.exportHousehold(home.id, includePasswordHashes: false, to: rows)
            #expect(household.id == home.id.description)
            #expect(household.name == "Home")
            #expect(rows.kinds == ["user", "membership", "room", "category", "item", "blob", "photo", "receipt", "report", "valuation"])
            #expect(rows.itemIDs == items.map(\.id.description))
            #expect(rows.users.map(\.email) == ["owner-a@example.com", "member-a@example.com"])
            #expect(rows.users.allSatisfy { $0.passwordHash == nil })
            await #expect(throws: DomainError.notFound("The household")) {
                try await f.stores.archive.exportHousehold(HouseholdID(), includePasswordHashes: true, to: Rows())
            }
            #expect(try await f.stores.archive.householdExists(home.id.description))
            #expect(try await !f.stores.archive.householdExists(HouseholdID().description))
            #expect(try await !f.stores.archive.householdExists("not-a-uuid"))
        }
    }

    // MARK: - Replace and merge

    @Test(arguments: Engine.available)
    func replaceMakesTheHouseholdTheArchivesAndMergeKeepsWhatIsNewer(engine: Engine) async throws {
        try await withArchive(engine) { f in
            let (home, items) = try await seed(f, "Home")
            let archive = try await f.backup(home.id)
            let reportsBefore = f.reportFiles()
            // After the backup: an item added, one changed, one deleted.
            let added = try await f.stores.items.createItem(home.id, ItemDraft(name: "Sofa", currency: .usd), now: at(100), today: nil, plan: nil)
            _ = try await f.stores.items.updateItem(home.id, items[2].id, ItemDraft(name: "Lamp, rewired", currency: .usd), now: at(101), today: nil)
            try await f.stores.items.deleteItem(home.id, items[0].id)

            // Merge: what is new in the archive comes back, what is newer here stays, nothing of ours goes.
            let merged = try await f.restore(archive, into: home.id, mode: .merge)
            #expect(!merged.householdCreated)
            #expect([merged.items.added, merged.items.updated, merged.items.skipped, merged.items.removed] == [1, 0, 2, 0] as [Int])
            #expect([merged.photos.added, merged.photos.skipped] == [2, 1] as [Int])
            #expect([merged.receipts.added, merged.receipts.skipped] == [0, 2] as [Int])
            #expect([merged.rooms.added, merged.categories.added, merged.reports.skipped] == [0, 0, 1] as [Int])
            var names = try await f.stores.items.items(home.id, ItemQuery(sort: .name, limit: 50)).elements.map(\.item.name)
            #expect(names == ["Desk", "Lamp, rewired", "Sofa", "Théière 茶壶 «Ø»"])
            // The desk is back with its photos. Its receipt stayed here, unlinked when the desk was deleted: a merge keeps
            // a row it already has, so the receipt is not linked again (nor its text in the desk's search document).
            let desk = try #require(try await f.stores.items.items(home.id, ItemQuery(search: "desk", limit: 5)).elements.first)
            #expect(desk.photoCount == 2)
            #expect(desk.receiptCount == 0)
            #expect(try await f.stores.items.items(home.id, ItemQuery(search: "wembley", limit: 5)).elements.isEmpty)
            #expect(try await f.stores.items.summary(home.id).itemCount == 4)

            // Replace: exactly the archive's rows again (the new item goes, the old lamp comes back), the same archive.
            let replaced = try await f.restore(archive, into: home.id, mode: .replace)
            #expect([replaced.items.removed, replaced.items.added, replaced.reports.removed, replaced.reports.added] == [4, 3, 1, 1] as [Int])
            names = try await f.stores.items.items(home.id, ItemQuery(sort: .name, limit: 50)).elements.map(\.item.name)
            #expect(names == ["Desk", "Lamp", "Théière 茶壶 «Ø»"])
            await #expect(throws: DomainError.self) { try await f.stores.items.item(home.id, added.id) }
            #expect(try await f.stores.items.summary(home.id).itemCount == 3)
            #expect(try await f.backup(home.id) == archive)
            // The replaced report's file went with its row; the restored one is in its place.
            #expect(f.reportFiles() == reportsBefore)
        }
    }

    /// The summary figures and charts after a restore are the restored rows' own (PostgreSQL writes a restore by batches
    /// and counts them once at the end), and keep moving by one as items come and go after it.
    @Test(arguments: Engine.available)
    func theFiguresAfterARestoreAreTheRowsOwnAndKeepMoving(engine: Engine) async throws {
        try await withArchive(engine) { f in
            let (home, items) = try await seed(f, "Home")
            let rooms = try await f.stores.items.rooms(home.id)
            let categories = try await f.stores.items.categories(home.id)
            func figures() async throws -> (summary: InventorySummary, byCategory: [String], byRoom: [String]) {
                let s = f.stores.items
                return (try await s.summary(home.id),
                        try await s.valueByCategory(home.id).map { "\($0.categoryID?.description ?? "none") \($0.value.minorUnits) \($0.itemCount)" },
                        try await s.itemsByRoom(home.id).map { "\($0.roomID?.description ?? "none") \($0.itemCount)" })
            }
            let made = try await figures()
            // As seeded: the desk (priced, photographed, with a room and a category, a receipt), the teapot (priced, two of
            // it, a photo, a room), the lamp (nothing).
            #expect([made.summary.itemCount, made.summary.score.documented, made.summary.needsPhoto, made.summary.needsReceipt,
                     made.summary.needsValue, made.summary.roomsInUse] == [3, 1, 1, 2, 1, 2] as [Int])
            #expect(made.summary.estimatedValue == [usd(12_999 + 2 * 8_990)])
            let archive = try await f.backup(home.id)
            // After the backup: the teapot's photo removed, a sofa added, the lamp priced, the desk deleted.
            let teapotPhoto = try #require(try await f.stores.attachments.photos(home.id, of: items[1].id).first)
            try await f.stores.attachments.removePhoto(home.id, teapotPhoto.id, now: at(99))
            _ = try await f.stores.items.createItem(home.id, ItemDraft(name: "Sofa", currency: .usd), now: at(100), today: nil, plan: nil)
            _ = try await f.stores.items.updateItem(home.id, items[2].id, ItemDraft(name: "Lamp", purchasePrice: usd(2_500), currency: .usd),
                                                    now: at(101), today: nil)
            try await f.stores.items.deleteItem(home.id, items[0].id)
            let version = try await f.stores.items.itemContentVersion(home.id)

            // Merge: the desk comes back with its two photos (its receipt stayed here, unlinked), the teapot gets its
            // photo again, the priced lamp and the sofa stay.
            _ = try await f.restore(archive, into: home.id, mode: .merge)
            #expect(try await f.stores.items.itemContentVersion(home.id) != version)
            let merged = try await figures()
            #expect([merged.summary.itemCount, merged.summary.score.documented, merged.summary.needsPhoto, merged.summary.needsReceipt,
                     merged.summary.needsValue, merged.summary.roomsInUse] == [4, 1, 2, 4, 1, 2] as [Int])
            #expect(merged.summary.estimatedValue == [usd(12_999 + 2 * 8_990 + 2_500)])
            #expect(merged.byCategory == ["none \(2 * 8_990 + 2_500) 2", "\(categories[1].id) 12999 1"])
            #expect(merged.byRoom == ["none 2", "\(rooms[0].id) 1", "\(rooms[1].id) 1"])
            let teapot = try #require(try await f.stores.items.items(home.id, ItemQuery(search: "théière", limit: 5)).elements.first)
            #expect(teapot.photoCount == 1)

            // The counters go on from there: an item added in the first room, then the teapot deleted.
            _ = try await f.stores.items.createItem(home.id, ItemDraft(name: "Stool", purchasePrice: usd(1_000), currency: .usd, roomID: rooms[0].id),
                                                    now: at(110), today: nil, plan: nil)
            try await f.stores.items.deleteItem(home.id, items[1].id)
            let moved = try await figures()
            #expect([moved.summary.itemCount, moved.summary.score.documented, moved.summary.needsPhoto, moved.summary.needsReceipt,
                     moved.summary.needsValue, moved.summary.roomsInUse] == [4, 1, 3, 4, 1, 1] as [Int])
            #expect(moved.summary.estimatedValue == [usd(12_999 + 2_500 + 1_000)])
            #expect(moved.byCategory == ["\(categories[1].id) 12999 1", "none 3500 2"])
            #expect(moved.byRoom == ["none 2", "\(rooms[0].id) 2"])

            // Replace: the figures are the archive's again, as when the rows were made one by one.
            _ = try await f.restore(archive, into: home.id, mode: .replace)
            let replaced = try await figures()
            #expect(replaced.summary == made.summary)
            #expect(replaced.byCategory == made.byCategory)
            #expect(replaced.byRoom == made.byRoom)
        }
    }

    // MARK: - Isolation

    @Test(arguments: Engine.available)
    func restoringOneHouseholdLeavesAnotherAlone(engine: Engine) async throws {
        try await withArchive(engine) { f in
            let (home, _) = try await seed(f, "Home")
            let (other, _) = try await seed(f, "Other", tag: "b")
            let homeArchive = try await f.backup(home.id)
            let otherArchive = try await f.backup(other.id)
            _ = try await f.restore(homeArchive, into: home.id, mode: .replace)
            #expect(try await f.backup(other.id) == otherArchive)

            // Into the other household: every id the home household uses gets a new one; home is untouched.
            let summary = try await f.restore(homeArchive, into: other.id, mode: .merge)
            #expect([summary.items.added, summary.photos.added, summary.receipts.added, summary.reports.added] == [3, 3, 2, 1] as [Int])
            #expect(summary.members.added == 0)
            #expect(try await f.backup(home.id) == homeArchive)
            #expect(try await f.stores.items.summary(other.id).itemCount == 6)
            let homeIDs = Set(try await f.stores.items.items(home.id, ItemQuery(limit: 50)).elements.map(\.item.id))
            let otherIDs = Set(try await f.stores.items.items(other.id, ItemQuery(limit: 50)).elements.map(\.item.id))
            #expect(homeIDs.count == 3 && otherIDs.count == 6 && homeIDs.isDisjoint(with: otherIDs))
            // A search in one household never finds the other's copy.
            #expect(try await f.stores.items.items(home.id, ItemQuery(search: "desk", limit: 5)).elements.count == 1)
            #expect(try await f.stores.items.items(other.id, ItemQuery(search: "desk", limit: 5)).elements.count == 2)
            // A replace of the other household with its own archive again takes only its rows.
            _ = try await f.restore(otherArchive, into: other.id, mode: .replace)
            #expect(try await f.backup(other.id) == otherArchive)
            #expect(try await f.backup(home.id) == homeArchive)
            // A household that is not there is not restored into.
            await #expect(throws: DomainError.notFound("The household")) {
                _ = try await f.restore(homeArchive, into: HouseholdID(), mode: .merge)
            }
        }
    }

    // MARK: - Refused archives

    @Test(arguments: Engine.available)
    func hostileAndRefusedArchivesChangeNothing(engine: Engine) async throws {
        try await withArchive(engine) { f in
            let many = try await manyItems(f, count: 101)
            let (home, _) = try await seed(f, "Home")
            let archive = try await f.backup(home.id)
            _ = try await f.stores.items.createItem(home.id, ItemDraft(name: "After the backup", currency: .usd), now: at(100), today: nil, plan: nil)
            let before = try await f.backup(home.id)
            let reports = f.reportFiles()
            func refused(_ bytes: Data, plan: Entitlement? = nil, _ expected: (any Error) -> Bool) async throws {
                do {
                    _ = try await f.restore(bytes, into: home.id, mode: .replace, plan: plan)
                    Issue.record("the archive was restored")
                } catch {
                    #expect(expected(error), "\(error)")
                }
                #expect(try await f.backup(home.id) == before)
                #expect(f.reportFiles() == reports)
                let tmp = try FileManager.default.contentsOfDirectory(atPath: f.folder.tmpURL.path).filter { $0.hasPrefix("restore-") || $0.hasPrefix("stage-") }
                #expect(tmp.isEmpty, "left in tmp/: \(tmp)")
            }
            // A data file that does not match its checksum (the same size, one digit changed).
            var edited = try entries(archive)
            let photos = String(decoding: edited["data/photos.jsonl"]!, as: UTF8.self)
            edited["data/photos.jsonl"] = Data(photos.replacingOccurrences(of: #""position":0"#, with: #""position":1"#).utf8)
            try await refused(try rezip(edited)) { $0 as? BackupError == .mismatch("data/photos.jsonl does not match its checksum") }
            // An entry that leaves the folder.
            edited = try entries(archive)
            edited["../evil"] = Data("x".utf8)
            try await refused(try rezip(edited)) { $0 as? BackupError == .unsafeEntry(name: "../evil", reason: "a path that leaves the folder") }
            // Free's item limit, checked inside the restore's transaction (101 items for a household of 4).
            try await refused(many, plan: .free) { ($0 as? DomainError).map { if case .proRequired = $0 { true } else { false } } ?? false }
        }
    }

    /// An archive of a household of `count` items (made in a household of its own).
    func manyItems(_ f: Fixture, count: Int) async throws -> Data {
        let (big, _) = try await seed(f, "Big", tag: "big")
        for index in 0..<(count - 3) {
            _ = try await f.stores.items.createItem(big.id, ItemDraft(name: "Thing \(index)", currency: .usd), now: at(200 + index), today: nil,
                                                    plan: nil)
        }
        return try await f.backup(big.id)
    }

    /// The entries again as a ZIP (stored, in name order).
    func rezip(_ entries: [String: Data]) throws -> Data {
        let zip = try Archive(accessMode: .create)
        for (name, data) in entries.sorted(by: { $0.key < $1.key }) {
            try zip.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return try #require(zip.data)
    }

    // MARK: - Import

    @Test(arguments: Engine.available)
    func anImportAddsItsItemsAndThePlacesTheyNameInOneTransaction(engine: Engine) async throws {
        try await withArchive(engine) { f in
            let home = try await f.stores.accounts.createHousehold(name: "Home", currency: .usd, now: at(0))
            let other = try await f.stores.accounts.createHousehold(name: "Other", currency: .usd, now: at(0))
            let roomsBefore = try await f.stores.items.rooms(home.id)
            let categoriesBefore = try await f.stores.items.categories(home.id)
            func row(_ name: String, room: String?, category: String?, price: Int64? = nil, tags: [String] = []) -> NamedPlaceDraft {
                NamedPlaceDraft(draft: ItemDraft(name: name, purchasePrice: price.map(usd), currency: .usd, tags: tags), roomName: room,
                                categoryName: category)
            }
            let batches = LockedBatches([
                [row("Kettle", room: roomsBefore[0].name.uppercased(), category: "Teaware", price: 2_500, tags: ["tea"]),
                 row("Bike", room: "Shed", category: "Cycling")],
                [row("Helmet", room: "shed", category: "cycling", price: 4_000), row("Stool", room: nil, category: categoriesBefore[0].name)],
            ])
            let summary = try await f.stores.archive.importItemsInBulk(home.id, count: 4, now: at(10), today: try CalendarDate(iso: "2025-11-01"),
                                                                       plan: nil, next: batches.next)
            #expect(summary.items == 4)
            #expect(summary.roomsCreated == ["Shed"])
            #expect(summary.categoriesCreated == ["Teaware", "Cycling"])
            let rooms = try await f.stores.items.rooms(home.id)
            #expect(rooms.map(\.name) == roomsBefore.map(\.name) + ["Shed"])
            #expect(rooms.last?.sortOrder == roomsBefore.count)
            let categories = try await f.stores.items.categories(home.id)
            #expect(categories.suffix(2).map(\.name) == ["Teaware", "Cycling"])
            #expect(categories.suffix(2).map(\.colorHex) == Array(NamedPlaceDraft.importColors.prefix(2)))
            #expect(categories.count == categoriesBefore.count + 2)
            let listed = try await f.stores.items.items(home.id, ItemQuery(sort: .name, limit: 10)).elements
            #expect(listed.map(\.item.name) == ["Bike", "Helmet", "Kettle", "Stool"])
            let shed = try #require(rooms.last?.id)
            #expect(listed.filter { $0.item.roomID == shed }.map(\.item.name) == ["Bike", "Helmet"])
            #expect(listed.first { $0.item.name == "Kettle" }?.item.roomID == roomsBefore[0].id)
            #expect(listed.first { $0.item.name == "Stool" }?.item.categoryID == categoriesBefore[0].id)
            #expect(listed.first { $0.item.name == "Stool" }?.item.roomID == nil)
            #expect(try await f.stores.items.items(home.id, ItemQuery(search: "tea", limit: 10)).elements.map(\.item.name) == ["Kettle"])
            #expect(try await f.stores.items.summary(home.id).itemCount == 4)
            #expect(try await f.stores.items.summary(other.id).itemCount == 0)

            // A bad row in a later batch: nothing of the file is imported, no room or category is made.
            let bad = LockedBatches([[row("Lamp", room: "Loft", category: nil)], [row("", room: nil, category: nil)]])
            await #expect(throws: DomainError.self) {
                _ = try await f.stores.archive.importItemsInBulk(home.id, count: 2, now: at(20), today: try CalendarDate(iso: "2025-11-01"),
                                                                 plan: nil, next: bad.next)
            }
            #expect(try await f.stores.items.summary(home.id).itemCount == 4)
            #expect(try await f.stores.items.rooms(home.id).map(\.name) == rooms.map(\.name))
            // Free's limit counts the whole file first.
            await #expect(throws: DomainError.self) {
                _ = try await f.stores.archive.importItemsInBulk(home.id, count: 97, now: at(30), today: try CalendarDate(iso: "2025-11-01"),
                                                                 plan: .free, next: LockedBatches([]).next)
            }
            await #expect(throws: DomainError.notFound("The household")) {
                _ = try await f.stores.archive.importItemsInBulk(HouseholdID(), count: 0, now: at(30), today: try CalendarDate(iso: "2025-11-01"),
                                                                 plan: nil, next: LockedBatches([]).next)
            }
        }
    }
}

/// Batches handed out one at a time (an import's `next`).
final class LockedBatches: @unchecked Sendable {
    private let lock = NSLock()
    private var batches: [[NamedPlaceDraft]]

    init(_ batches: [[NamedPlaceDraft]]) { self.batches = batches }

    @Sendable func next() throws -> [NamedPlaceDraft]? {
        lock.withLock { batches.isEmpty ? nil : batches.removeFirst() }
    }
}
