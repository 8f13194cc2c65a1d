import Foundation
import NestoryDomain
import Testing
import ZIPFoundation
@testable import NestoryBackup
@testable import NestoryStore

/// Every hostile or damaged archive is refused with a clear message and changes nothing.
@Suite("Hostile archives")
struct HostileArchiveTests {
    /// A server with one household, a valid archive of it, and a way to check nothing changed.
    struct Fixture {
        let ws: Workspace
        let database: AppDatabase
        let household: Household
        let entries: [ArchiveEditor.Entry]
        let before: [String: [String]]

        init() async throws {
            ws = try Workspace()
            database = try ws.database("a")
            household = try ws.seeded(database, items: 8)
            let archive = ws.file("valid.zip")
            try await BackupWriter(database: database).write(household: household.id, to: archive)
            entries = try ArchiveEditor.entries(of: archive)
            // Data changed after the backup: a refused restore must leave it so.
            _ = try database.createItem(household.id, ItemDraft(name: "After the backup", currency: .usd), now: ws.now)
            before = try snapshot(database, household.id)
        }

        func restore(_ entries: [ArchiveEditor.Entry], limits: ArchiveLimits = ArchiveLimits()) async throws {
            let url = ws.file("hostile-\(UUID().uuidString).zip")
            try ArchiveEditor.write(entries, to: url)
            try await restore(url, limits: limits)
        }

        func restore(_ url: URL, limits: ArchiveLimits = ArchiveLimits()) async throws {
            _ = try await BackupReader(database: database, limits: limits).restore(url, into: household.id, mode: .replace)
        }

        /// Nothing changed, and nothing was left staged.
        func unchanged() throws {
            #expect(try snapshot(database, household.id) == before)
            let staged = try FileManager.default.contentsOfDirectory(atPath: database.folder.tmpURL.path)
            #expect(staged.isEmpty, "left in tmp/: \(staged)")
        }

        /// Adds an entry and lists it in the manifest (so only the entry itself is the problem).
        func adding(_ entry: ArchiveEditor.Entry) throws -> [ArchiveEditor.Entry] {
            var manifest = try ArchiveEditor.manifest(entries)
            manifest.files.append(.init(path: entry.path, sha256: sha256Hex(entry.data), size: Int64(entry.data.count)))
            return try ArchiveEditor.replacingManifest(entries + [entry], manifest)
        }
    }

    /// A time zone this system does not know (another system's database, or a hand-edited archive) does not refuse the
    /// backup: the household is restored on the server's clock.
    @Test("a household's time zone this system does not know")
    func unknownTimeZone() async throws {
        let f = try await Fixture()
        var household = try JSONSerialization.jsonObject(with: f.entries.first { $0.path == "data/household.json" }!.data) as! [String: Any]
        household["time_zone"] = "Mars/Olympus_Mons"
        let data = try JSONSerialization.data(withJSONObject: household)
        var manifest = try ArchiveEditor.manifest(f.entries)
        manifest.files = manifest.files.map { $0.path == "data/household.json" ? .init(path: $0.path, sha256: sha256Hex(data), size: Int64(data.count)) : $0 }
        let edited = f.entries.map { $0.path == "data/household.json" ? ArchiveEditor.Entry(path: $0.path, data: data) : $0 }
        _ = try f.database.updateHousehold(f.household.id, name: f.household.name, currency: f.household.currency,
                                           highValueThreshold: f.household.highValueThreshold, timeZone: "Europe/Oslo")
        try await f.restore(try ArchiveEditor.replacingManifest(edited, manifest))
        #expect(try f.database.household(f.household.id).timeZone == nil)
    }

    @Test("paths that leave the folder", arguments: ["../evil", "files/../../evil", "/etc/passwd", "C:/evil", "files\\..\\evil", "files/./x"])
    func escapingPaths(_ path: String) async throws {
        let f = try await Fixture()
        await #expect(throws: BackupError.self) { try await f.restore(try f.adding(.init(path: path, data: Data("x".utf8)))) }
        do { try await f.restore(try f.adding(.init(path: path, data: Data("x".utf8)))) } catch let error as BackupError {
            guard case .unsafeEntry = error else { Issue.record("\(error)"); return }
        }
        try f.unchanged()
        #expect(!FileManager.default.fileExists(atPath: f.ws.root.deletingLastPathComponent().appendingPathComponent("evil").path))
    }

    @Test("a symbolic link")
    func symlink() async throws {
        let f = try await Fixture()
        let error = await #expect(throws: BackupError.self) {
            try await f.restore(try f.adding(.init(path: "files/link", data: Data("/etc/passwd".utf8), type: .symlink)))
        }
        #expect(error == .unsafeEntry(name: "files/link", reason: "a symbolic link"))
        try f.unchanged()
    }

    @Test("a name twice")
    func duplicate() async throws {
        let f = try await Fixture()
        let dup = f.entries.first { $0.path.hasPrefix("files/") }!
        let error = await #expect(throws: BackupError.self) { try await f.restore(f.entries + [dup]) }
        #expect(error == .duplicateEntry(dup.path))
        try f.unchanged()
    }

    @Test("too many entries, an entry too large, a total too large")
    func limits() async throws {
        let f = try await Fixture()
        var few = ArchiveLimits()
        few.maxEntries = 5
        await #expect(throws: BackupError.tooManyEntries(6, limit: 5)) { try await f.restore(f.entries, limits: few) }
        var small = ArchiveLimits()
        small.maxEntryBytes = 100
        let tooLarge = await #expect(throws: BackupError.self) { try await f.restore(f.entries, limits: small) }
        guard case .tooLarge = tooLarge else { Issue.record("\(String(describing: tooLarge))"); return }
        var total = ArchiveLimits()
        total.maxTotalBytes = 1000
        await #expect(throws: BackupError.tooLarge(name: "the archive", limit: 1000)) { try await f.restore(f.entries, limits: total) }
        try f.unchanged()
    }

    @Test("a compression bomb")
    func bomb() async throws {
        let f = try await Fixture()
        let zeros = Data(count: 20 << 20)
        let error = await #expect(throws: BackupError.self) {
            try await f.restore(try f.adding(.init(path: "files/" + String(repeating: "a", count: 64), data: zeros, compression: .deflate)))
        }
        #expect(error == .bomb(name: "files/" + String(repeating: "a", count: 64)))
        try f.unchanged()
    }

    @Test("a corrupt or truncated ZIP, and a file that is no ZIP at all")
    func corrupt() async throws {
        let f = try await Fixture()
        let valid = f.ws.file("valid.zip")
        let bytes = try Data(contentsOf: valid)
        for (name, data) in [("truncated", bytes.prefix(bytes.count / 2)), ("garbage", Data("not a zip at all".utf8)),
                             ("empty", Data())] {
            let url = f.ws.file("\(name).zip")
            try Data(data).write(to: url)
            await #expect(throws: BackupError.self, "\(name)") { try await f.restore(url) }
        }
        // A flipped byte inside a stored photo: the checksum catches it.
        var flipped = f.entries
        let index = flipped.firstIndex { $0.path.hasPrefix("files/") }!
        flipped[index].data[0] ^= 0x01
        let error = await #expect(throws: BackupError.self) { try await f.restore(flipped) }
        #expect(error == .mismatch("\(flipped[index].path) does not match its checksum"))
        try f.unchanged()
    }

    @Test("a manifest from a newer format, a missing manifest, a foreign one")
    func manifests() async throws {
        let f = try await Fixture()
        var newer = try ArchiveEditor.manifest(f.entries)
        newer.formatVersion = BackupManifest.currentFormatVersion + 1
        await #expect(throws: BackupError.newerFormat(BackupManifest.currentFormatVersion + 1)) {
            try await f.restore(try ArchiveEditor.replacingManifest(f.entries, newer))
        }
        await #expect(throws: BackupError.noManifest) { try await f.restore(f.entries.filter { $0.path != "manifest.json" }) }
        var foreign = f.entries.filter { $0.path != "manifest.json" }
        foreign.append(.init(path: "manifest.json", data: Data(#"{"format":"other","format_version":1}"#.utf8)))
        await #expect(throws: BackupError.notABackup("manifest.json does not describe a Nestory backup")) { try await f.restore(foreign) }
        try f.unchanged()
    }

    @Test("entries and manifest that disagree: a missing file, an unlisted one")
    func disagreement() async throws {
        let f = try await Fixture()
        let photo = f.entries.first { $0.path.hasPrefix("files/") }!
        await #expect(throws: BackupError.mismatch("\(photo.path) is missing from the archive")) {
            try await f.restore(f.entries.filter { $0.path != photo.path })
        }
        let extra = ArchiveEditor.Entry(path: "files/" + String(repeating: "b", count: 64), data: Data("stray".utf8))
        await #expect(throws: BackupError.mismatch("\(extra.path) is in the archive but not in the manifest")) {
            try await f.restore(f.entries + [extra])
        }
        try f.unchanged()
    }

    @Test("rows that break the format are refused with the file and line")
    func invalidRows() async throws {
        let f = try await Fixture()
        func withItems(_ transform: (String) -> String) throws -> [ArchiveEditor.Entry] {
            var entries = f.entries
            let index = entries.firstIndex { $0.path == "data/items.jsonl" }!
            entries[index].data = Data(transform(String(decoding: entries[index].data, as: UTF8.self)).utf8)
            var manifest = try ArchiveEditor.manifest(entries)
            let m = manifest.files.firstIndex { $0.path == "data/items.jsonl" }!
            manifest.files[m].sha256 = sha256Hex(entries[index].data)
            manifest.files[m].size = Int64(entries[index].data.count)
            return try ArchiveEditor.replacingManifest(entries, manifest)
        }
        let badCondition = await #expect(throws: BackupError.self) {
            try await f.restore(try withItems { $0.replacingOccurrences(of: #""condition":"good""#, with: #""condition":"shiny""#) })
        }
        guard case .invalidData(let file, _, let message) = badCondition else { Issue.record("\(String(describing: badCondition))"); return }
        #expect(file == "data/items.jsonl")
        #expect(message.contains("shiny"))
        let broken = await #expect(throws: BackupError.self) { try await f.restore(try withItems { "{not json\n" + $0 }) }
        #expect(broken == .invalidData(file: "data/items.jsonl", line: 1, message: "not valid JSON"))
        try f.unchanged()
    }
}
