import Foundation
import NestoryDomain
import Testing
import ZIPFoundation
@testable import NestoryBackup
@testable import NestoryStore
import NestoryStoreInterfaces

@Suite("Backup and restore")
struct BackupRoundTripTests {
    @Test("backup → restore into a fresh data folder gives the same rows and byte-identical files")
    func roundTrip() async throws {
        let ws = try Workspace()
        let source = try ws.database("a")
        let household = try ws.seeded(source)
        try source.setOnlineProductLookup(household.id, true)
        try source.setScanningEnabled(household.id, false)
        _ = try source.updateHousehold(household.id, name: household.name, currency: household.currency, highValueThreshold: household.highValueThreshold,
                                       timeZone: "Australia/Adelaide")
        let archive = ws.file("backup.zip")
        let result = try await BackupWriter(database: source).write(household: household.id, to: archive, now: ws.now)
        #expect(result.manifest.counts.items == 61)
        #expect(result.manifest.formatVersion == BackupManifest.currentFormatVersion)

        let target = try ws.database("b")
        let (manifest, summary) = try await BackupReader(database: target).restore(archive, into: nil, mode: .replace)
        #expect(summary.householdCreated)
        #expect(summary.items.added == 61)
        #expect(manifest.household.id == household.id.description)
        // The household's switches come back as they were.
        #expect(try target.onlineProductLookup(household.id) && !target.scanningEnabled(household.id))
        #expect(try target.household(household.id).timeZone == "Australia/Adelaide")

        let before = try snapshot(source, household.id)
        let after = try snapshot(target, household.id)
        for key in before.keys.sorted() {
            #expect(before[key] == after[key], "table \(key) differs")
        }
        #expect(before["items"]!.count == 61)
        // The valuation history comes back with its sources (issue 17).
        #expect(before["valuations"]!.count == 2 && before["valuations"]!.contains { $0.contains("shop.example") } && result.manifest.counts.valuations == 2)
        #expect(before["reports"]!.count == 1 && !before["reports"]![0].contains("missing"))
        #expect(summary.reports.added == 1)
        #expect(try fileHashes(source, household.id) == fileHashes(target, household.id))
        #expect(try fileHashes(target, household.id).allSatisfy { $0.key == $0.value })
        // What the server derives from rows (counters, search) is rebuilt as well.
        #expect(try source.summary(household.id) == target.summary(household.id))
        let search = ItemQuery(search: "茶壶")
        #expect(try target.items(household.id, search).elements.map(\.item.name) == ["Théière 茶壶 «Ø»"])
    }

    @Test("valuation settings travel with the household; the providers' keys only when asked, sealed again by the new server")
    func valuationSettings() async throws {
        let ws = try Workspace()
        let source = try ws.database("a")
        let household = try ws.seeded(source, items: 3)
        let box = try SecretBox.forFolder(source.folder)
        try source.saveValuationSettings(household.id, StoredValuationSettings(
            analysisBaseURL: "http://127.0.0.1:11434/v1", analysisModel: "llava", analysisKey: try box.seal("sk-source-1234", context: "\(household.id)/analysis"),
            analysisKeyHint: "1234", searchKey: try box.seal("tvly-source-5678", context: "\(household.id)/search"), searchKeyHint: "5678",
            searchCountry: "DE", exchangeRates: "EUR 1.08", depreciationTable: nil), now: ws.now)
        for withKeys in [false, true] {
            let archive = ws.file("settings-\(withKeys).zip")
            _ = try await BackupWriter(database: source).write(household: household.id, to: archive, now: ws.now, includeProviderKeys: withKeys)
            let text = try String(decoding: ArchiveEditor.entries(of: archive).first { $0.path == "data/valuation-settings.json" }!.data, as: UTF8.self)
            #expect(text.contains("sk-source-1234") == withKeys && text.contains("llava"))
            let target = try ws.database("t\(withKeys)")
            _ = try await BackupReader(database: target).restore(archive, into: nil, mode: .replace)
            let restored = try target.valuationSettings(household.id)
            #expect(restored.analysisModel == "llava" && restored.searchCountry == "DE" && restored.exchangeRates == "EUR 1.08")
            if withKeys {
                let targetBox = try SecretBox.forFolder(target.folder)
                #expect(try targetBox.open(restored.analysisKey!, context: "\(household.id)/analysis") == "sk-source-1234")
                #expect(restored.searchKeyHint == "5678" && restored.analysisKey?.contains("1234") == false)
            } else {
                #expect(restored.analysisKey == nil && restored.searchKey == nil && restored.analysisKeyHint == nil)
            }
        }
    }

    @Test("the archive is a standard ZIP: files are stored byte-exact and the manifest lists each with its checksum")
    func archiveLayout() async throws {
        let ws = try Workspace()
        let source = try ws.database("a")
        let household = try ws.seeded(source, items: 20)
        let archive = ws.file("backup.zip")
        try await BackupWriter(database: source).write(household: household.id, to: archive)
        let entries = try ArchiveEditor.entries(of: archive)
        let manifest = try ArchiveEditor.manifest(entries)
        #expect(Set(entries.map(\.path)) == Set(manifest.files.map(\.path) + ["manifest.json"]))
        for file in manifest.files {
            let entry = entries.first { $0.path == file.path }!
            #expect(sha256Hex(entry.data) == file.sha256)
            #expect(Int64(entry.data.count) == file.size)
            if file.path.hasPrefix("files/") {
                #expect(try entry.data == Data(contentsOf: source.blobs.url(for: file.sha256)))
            }
        }
        let zip = try Archive(url: archive, accessMode: .read)
        #expect(zip.allSatisfy { !$0.isCompressed })
    }

    @Test("a restore of a household that exists, with replace, makes its data exactly the archive's")
    func replace() async throws {
        let ws = try Workspace()
        let database = try ws.database("a")
        let household = try ws.seeded(database, items: 30)
        let archive = ws.file("backup.zip")
        try await BackupWriter(database: database).write(household: household.id, to: archive)
        let before = try snapshot(database, household.id)

        // Changes after the backup: a new item, an edited one, a deleted one, a new room.
        let extra = try database.createItem(household.id, ItemDraft(name: "Added later", currency: .usd), now: ws.now)
        let page = try database.items(household.id, ItemQuery(limit: 3)).elements
        var edited = page[0].item.draft
        edited.name = "Renamed"
        _ = try database.updateItem(household.id, page[0].item.id, edited, now: ws.now.addingTimeInterval(60))
        try database.deleteItem(household.id, page[1].item.id)
        _ = try database.createRoom(household.id, name: "Loft Studio")

        let summary = try await BackupReader(database: database).restore(archive, into: household.id, mode: .replace).summary
        #expect(summary.items.removed == 31)
        #expect(summary.items.added == 31)
        #expect(try snapshot(database, household.id) == before)
        #expect(throws: DomainError.self) { try database.item(household.id, extra.id) }
    }

    @Test("merge adds what is new, keeps what is newer here, takes what is newer in the archive")
    func merge() async throws {
        let ws = try Workspace()
        let database = try ws.database("a")
        let household = try ws.seeded(database, items: 10)
        let items = try database.items(household.id, ItemQuery(limit: 5)).elements.map(\.item)
        // The archive has item 0 edited later than the server's copy, and item 1 older.
        var newer = items[0].draft
        newer.name = "Newer in archive"
        _ = try database.updateItem(household.id, items[0].id, newer, now: ws.now.addingTimeInterval(100))
        let archive = ws.file("backup.zip")
        try await BackupWriter(database: database).write(household: household.id, to: archive)

        var older = items[0].draft
        older.name = "Older here"
        _ = try database.updateItem(household.id, items[0].id, older, now: ws.now.addingTimeInterval(50))
        var newerHere = items[1].draft
        newerHere.name = "Newer here"
        _ = try database.updateItem(household.id, items[1].id, newerHere, now: ws.now.addingTimeInterval(500))
        try database.deleteItem(household.id, items[2].id)
        let local = try database.createItem(household.id, ItemDraft(name: "Only here", currency: .usd), now: ws.now)

        let summary = try await BackupReader(database: database).restore(archive, into: household.id, mode: .merge).summary
        #expect(summary.items.added == 1)  // the deleted one comes back
        #expect(summary.items.updated == 1)
        #expect(summary.items.skipped == 9)
        #expect(summary.rooms.added == 0)
        #expect(try database.item(household.id, items[0].id).item.name == "Newer in archive")
        #expect(try database.item(household.id, items[1].id).item.name == "Newer here")
        #expect(try database.item(household.id, items[2].id).item.name == items[2].name)
        #expect(try database.item(household.id, local.id).item.name == "Only here")
        // A second merge of the same archive changes nothing.
        let again = try await BackupReader(database: database).restore(archive, into: household.id, mode: .merge).summary
        #expect(again.items.added == 0 && again.items.updated == 0 && again.photos.added == 0 && again.receipts.added == 0)
    }

    @Test("restoring into another household of the same server gives clashing ids new ones")
    func intoAnotherHousehold() async throws {
        let ws = try Workspace()
        let database = try ws.database("a")
        let (first, archive) = try await ws.seededArchive(database, items: 10)
        let second = try database.createHousehold(name: "Cabin", currency: .usd, now: ws.now)
        let summary = try await BackupReader(database: database).restore(archive, into: second.id, mode: .merge).summary
        #expect(summary.items.added == 11)
        #expect(try database.summary(second.id).itemCount == 11)
        #expect(try database.summary(first.id).itemCount == 11)
        #expect(try snapshot(database, first.id)["items"]!.count == 11)
    }

    @Test("the archive lists a household's items in the order they were added, among another household's")
    func itemsInOrder() async throws {
        let ws = try Workspace()
        let database = try ws.database("a")
        let home = try database.createHousehold(name: "Home", currency: .usd, now: ws.now)
        let cabin = try database.createHousehold(name: "Cabin", currency: .usd, now: ws.now)
        var added: [String] = []
        // Names against the order, and prices, so no index of the household's gives the order they were added in.
        for i in 0..<30 {
            let item = try database.createItem(home.id, ItemDraft(name: "Item \(99 - i)", purchasePrice: try Money.parse("\((i * 7) % 13 + 1)", currency: .usd),
                                                              currency: .usd), now: ws.now.addingTimeInterval(Double(-i)))
            added.append(item.id.description)
            _ = try database.createItem(cabin.id, ItemDraft(name: "Cabin \(i)", currency: .usd), now: ws.now)
        }
        let archive = ws.file("backup.zip")
        try await BackupWriter(database: database).write(household: home.id, to: archive, now: ws.now)
        let lines = try ArchiveEditor.entries(of: archive).first { $0.path == "data/items.jsonl" }!.data.split(separator: 0x0A)
        let ids = try lines.map { try JSONDecoder().decode(ArchiveRecord.Item.self, from: Data($0)).id }
        #expect(ids == added)
    }

    @Test("a backup taken while items are deleted still holds every file its rows name")
    func pinKeepsFiles() async throws {
        let ws = try Workspace()
        let database = try ws.database("a")
        let household = try ws.seeded(database, items: 5)
        let item = try database.createItem(household.id, ItemDraft(name: "Doomed", currency: .usd), now: ws.now)
        let photo = try database.addPhoto(household.id, to: item.id, data: Data("doomed bytes".utf8), contentType: "image/jpeg", now: ws.now)
        let pin = try database.blobs.pinForBackup()
        try database.deleteItem(household.id, item.id)
        #expect(try database.blobs.exists(photo.attachment.sha256), "the file stays while a backup holds the pin")
        pin.release()
        #expect(try database.collectGarbage(now: ws.now) >= 1)
        #expect(try !database.blobs.exists(photo.attachment.sha256), "and is swept once the backup is done")
    }

    @Test("a damaged stored file fails the backup instead of being copied")
    func damagedFile() async throws {
        let ws = try Workspace()
        let database = try ws.database("a")
        let household = try ws.seeded(database, items: 5)
        let sha = try fileHashes(database, household.id).keys.sorted().first!
        let url = database.blobs.url(for: sha)
        var bytes = try Data(contentsOf: url)
        bytes[0] ^= 0xFF
        try bytes.write(to: url)
        await #expect(throws: BackupError.damagedStoredFile(sha256: sha)) {
            try await BackupWriter(database: database).write(household: household.id, to: ws.file("x.zip"))
        }
        #expect(!FileManager.default.fileExists(atPath: ws.file("x.zip").path))
    }
}
