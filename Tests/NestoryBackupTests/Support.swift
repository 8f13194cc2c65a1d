import Crypto
import Foundation
import GRDB
import NestoryDemo
import NestoryDomain
import NestoryStoreInterfaces
@testable import NestoryBackup
@testable import NestoryStore
import ZIPFoundation

/// A data folder with a database, removed at the end.
final class Workspace {
    let root: URL
    let now = Date(timeIntervalSince1970: 1_763_800_000)

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func database(_ name: String) throws -> AppDatabase {
        try AppDatabase.open(DataFolder(path: root.appendingPathComponent(name).path))
    }

    func file(_ name: String) -> URL { root.appendingPathComponent(name) }

    /// A seeded household (`seeded`) and its archive, written to `backup.zip`.
    func seededArchive(_ database: AppDatabase, items: Int) async throws -> (household: Household, archive: URL) {
        let household = try seeded(database, items: items)
        let archive = file("backup.zip")
        try await BackupWriter(database: database).write(household: household.id, to: archive, now: now)
        return (household, archive)
    }

    /// A demo household with photos and receipts, plus a Unicode item with tags and an unlinked receipt.
    func seeded(_ database: AppDatabase, items: Int = 60, name: String = "Demo Household") throws -> Household {
        let household = try DemoSeeder.seed(database, name: name, count: items, seed: 7, now: now)
        let rooms = try database.rooms(household.id)
        var draft = ItemDraft(name: "Théière 茶壶 «Ø»", brand: "Émile Henry", purchasePrice: try Money.parse("89.90", currency: .usd),
                              purchaseDate: try CalendarDate(iso: "2024-02-29"), currency: .usd, roomID: rooms.first?.id,
                              tags: ["cuisine", "gift"], notes: "line one\nline two, with \"quotes\"", quantity: 2)
        draft.warrantyExpiry = try CalendarDate(iso: "2027-01-31")
        let item = try database.createItem(household.id, draft, now: now)
        _ = try database.addPhoto(household.id, to: item.id, data: Data("unique photo bytes \(UUID())".utf8), contentType: "image/jpeg", now: now)
        // Its valuation history: a value entered by hand, then one from market prices with a source.
        let usd = { (text: String) in try Money.parse(text, currency: .usd) }
        try database.addValuation(household.id, try Valuation(itemID: item.id, replacementCost: ValueRange(exactly: try usd("120")), actualCashValue: nil,
                                                              method: .manual, confidence: .high, valuedOn: try CalendarDate(iso: "2025-01-10"),
                                                              explanation: "Shop quote", createdAt: now))
        try database.addValuation(household.id, try Valuation(
            itemID: item.id, replacementCost: try ValueRange(value: try usd("110"), low: try usd("100"), high: try usd("130")),
            actualCashValue: try ValueRange(value: try usd("60"), low: try usd("55"), high: try usd("70")), method: .market, confidence: .medium,
            valuedOn: try CalendarDate(iso: "2025-06-01"),
            sources: [ValuationSource(url: "https://shop.example/teapot", title: "Théière, used", amount: try usd("60"), fetchedAt: now)],
            createdAt: now.addingTimeInterval(1)))
        _ = try database.addReceipt(household.id, itemID: nil, data: Data("loose receipt".utf8), contentType: "image/jpeg",
                                    fields: ReceiptFields(vendor: "Café", total: try Money.parse("12.34", currency: .usd)), now: now)
        // A generated report in the export history.
        let pdf = root.appendingPathComponent("report-\(UUID()).pdf")
        try Data("%PDF-1.7 a report of \(name)".utf8).write(to: pdf)
        _ = try database.recordReport(household.id, kind: "inventory", options: #"{"group":"room"}"#, file: pdf, now: now)
        return household
    }
}

/// Every row of a household, in a comparable form (ids, values, times, file hashes).
func snapshot(_ database: AppDatabase, _ householdID: HouseholdID) throws -> [String: [String]] {
    try database.exportHousehold(householdID) { export in
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func lines<T: Encodable>(_ values: [T]) throws -> [String] { try values.map { String(decoding: try encoder.encode($0), as: UTF8.self) }.sorted() }
        var items: [ArchiveRecord.Item] = [], photos: [ArchiveRecord.Photo] = [], receipts: [ArchiveRecord.Receipt] = [], blobs: [ArchiveRecord.Blob] = []
        try export.forEachItem { items.append($0) }
        try export.forEachPhoto { photos.append($0) }
        try export.forEachReceipt { receipts.append($0) }
        try export.forEachBlob { blobs.append($0) }
        var valuations: [ArchiveRecord.Valuation] = []
        try export.forEachValuation { valuations.append($0) }
        return [
            "household": try lines([export.household]), "users": try lines(try export.users()),
            "memberships": try lines(try export.memberships()), "rooms": try lines(try export.rooms()),
            "categories": try lines(try export.categories()), "items": try lines(items), "photos": try lines(photos),
            "receipts": try lines(receipts), "blobs": try lines(blobs), "valuations": try lines(valuations),
            "reports": try lines(try export.reports().map { report in
                // With the bytes of its file, so a restore that loses the PDF shows.
                [report.id, report.kind, String(report.createdAt), report.options, report.fileName,
                 (try? Data(contentsOf: database.folder.reportsURL.appendingPathComponent(report.fileName))).map(sha256Hex) ?? "missing"]
            }),
        ]
    }
}

/// The SHA-256 of every stored file a household uses, computed from the bytes on disk.
func fileHashes(_ database: AppDatabase, _ householdID: HouseholdID) throws -> [String: String] {
    var out: [String: String] = [:]
    try database.exportHousehold(householdID) { export in
        try export.forEachBlob { blob in
            let data = try Data(contentsOf: database.blobs.url(for: blob.sha256))
            out[blob.sha256] = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        }
    }
    return out
}

/// Rewrites a valid archive with one change, to make hostile or damaged ones.
struct ArchiveEditor {
    struct Entry {
        var path: String
        var data: Data
        var type: ZIPFoundation.Entry.EntryType = .file
        var compression: CompressionMethod = .none
    }

    static func entries(of url: URL) throws -> [Entry] {
        let archive = try Archive(url: url, accessMode: .read)
        return try archive.map { entry in
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            return Entry(path: entry.path, data: data)
        }
    }

    static func write(_ entries: [Entry], to url: URL) throws {
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        for entry in entries {
            try archive.addEntry(with: entry.path, type: entry.type, uncompressedSize: Int64(entry.data.count),
                                 compressionMethod: entry.compression) { position, size in
                entry.data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
    }

    /// Replaces the manifest after `change`, keeping it consistent unless the change says otherwise.
    static func manifest(_ entries: [Entry]) throws -> BackupManifest {
        try JSONDecoder().decode(BackupManifest.self, from: entries.first { $0.path == "manifest.json" }!.data)
    }

    static func replacingManifest(_ entries: [Entry], _ manifest: BackupManifest) throws -> [Entry] {
        var out = entries.filter { $0.path != "manifest.json" }
        out.append(Entry(path: "manifest.json", data: try JSONEncoder().encode(manifest)))
        return out
    }
}

func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}
