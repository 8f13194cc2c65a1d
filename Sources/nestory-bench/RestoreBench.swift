import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres

// nestory-bench restore --url postgres://… [--items N] [--runs R]
// Times `restoreHousehold` (what `nestory restore`, the web restore job and `nestory copy` run) into PostgreSQL: an
// archive of N items made here (two tags each, one photo row each over 200 distinct small files, a receipt and a
// valuation for every tenth item, 6 rooms and 6 categories) restored R times, each into a schema of its own (a new
// household), then once more into that household as a merge (every row already there: all skipped) and as a replace.
// Prints seconds and rows a second (items + tags + photos + receipts + valuations) of each.

func runRestore(_ options: Options) async throws {
    guard let url = options.url else { fatalError("nestory-bench restore needs --url postgres://…") }
    let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-bench-restore-\(UUID().uuidString)").path)
    defer { try? FileManager.default.removeItem(at: folder.url) }
    for sub in [folder.blobsURL, folder.tmpURL] {
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    }
    let blobs = BlobStore(folder: folder)
    let source = try BenchArchive(items: options.items, files: blobs)
    print("restore into PostgreSQL: \(options.items) items, \(source.rowCount) rows (items, tags, photos, receipts, valuations), "
          + "\(source.blobs.count) files")
    let runs = options.runs == Options([]).runs ? 3 : max(1, options.runs)  // --runs, else 3
    for run in 1...runs {
        let schema = "bench_restore_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))"
        let store = try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: schema, maximumConnections: 4,
                                                      blobs: blobs))
        func timed(_ label: String, mode: RestoreMode, into target: HouseholdID?) async throws -> RestoreSummary {
            let files = try source.stage(blobs)
            let start = ContinuousClock.now
            let summary = try await store.restoreHousehold(source, files: files, reportFiles: [:], into: target, mode: mode, plan: nil)
            let seconds = (ContinuousClock.now - start) / .seconds(1)
            for file in files.values { blobs.discard(file) }
            print(String(format: "run %d %-8@ %8.2f s  %9.0f rows/s  (items added %d, updated %d, skipped %d; photos added %d, skipped %d)",
                         run, label, seconds, Double(source.rowCount) / seconds, summary.items.added, summary.items.updated,
                         summary.items.skipped, summary.photos.added, summary.photos.skipped))
            return summary
        }
        let created = try await timed("new", mode: .replace, into: nil)
        let household = HouseholdID(UUID(uuidString: created.householdID)!)
        let figures = try await store.summary(household)
        precondition(figures.itemCount == options.items, "the summary counts \(figures.itemCount) items")
        if run == 1 {
            _ = try await timed("merge", mode: .merge, into: household)
            _ = try await timed("replace", mode: .replace, into: household)
            // The figures, to compare between builds: the counters after a restore, a merge and a replace.
            print("summary after the new restore: \(figures)")
            print("summary after the merge and replace: \(try await store.summary(household))")
            print("value by category: \(try await store.valueByCategory(household).map { "\($0.name) \($0.value.minorUnits)/\($0.itemCount)" })")
            print("items by room: \(try await store.itemsByRoom(household).map { "\($0.name) \($0.itemCount)" })")
        }
        try await store.dropSchemaForBenchmarks(schema)
        await store.close()
    }
}

/// A made-up archive, its rows made as they are read (memory stays flat at any size).
struct BenchArchive: HouseholdArchiveSource {
    let itemCount: Int
    let household: ArchiveRecord.Household
    let rooms: [ArchiveRecord.Room]
    let categories: [ArchiveRecord.Category]
    let blobs: [String: ArchiveRecord.Blob]
    let contents: [Data]
    var users: [ArchiveRecord.User] { [] }
    var memberships: [ArchiveRecord.Membership] { [] }
    var reports: [ArchiveRecord.Report] { [] }
    static let start: Int64 = 1_763_800_000_000

    /// `files`: where the contents are staged once to learn their SHA-256.
    init(items: Int, files: BlobStore) throws {
        itemCount = items
        household = ArchiveRecord.Household(id: UUID().uuidString.lowercased(), name: "Bench restore", currency: "USD",
                                            highValueThresholdMinor: 100_000, createdAt: Self.start)
        rooms = (0..<6).map { ArchiveRecord.Room(id: Self.id(1, $0), name: "Room \($0)", sortOrder: $0) }
        categories = (0..<6).map { ArchiveRecord.Category(id: Self.id(2, $0), name: "Category \($0)", colorHex: "#336699", icon: "tag",
                                                          sortOrder: $0, isCustom: false) }
        contents = (0..<200).map { Data("bench photo \($0)".utf8) }
        var blobs: [String: ArchiveRecord.Blob] = [:]
        for data in contents {
            let staged = try files.stage(data)
            files.discard(staged)
            blobs[staged.sha256] = ArchiveRecord.Blob(sha256: staged.sha256, contentType: "image/jpeg", byteCount: Int64(data.count),
                                                      createdAt: Self.start)
        }
        self.blobs = blobs
    }

    /// A fixed id per kind and number, so runs restore the same rows.
    static func id(_ kind: Int, _ n: Int) -> String { String(format: "%08x-0000-4000-8000-%012x", kind, n) }

    var shas: [String] { blobs.keys.sorted() }

    var rowCount: Int { itemCount * 4 + 2 * (itemCount / 10) }

    func stage(_ store: BlobStore) throws -> [String: StagedBlob] {
        var files: [String: StagedBlob] = [:]
        for data in contents {
            let staged = try store.stage(data)
            files[staged.sha256] = staged
        }
        return files
    }

    func forEachItem(_ body: (ArchiveRecord.Item) throws -> Void) throws {
        let words = ["walnut", "oak", "lamp", "chair", "sony", "speaker", "table", "shelf"]
        for n in 0..<itemCount {
            try body(ArchiveRecord.Item(
                id: Self.id(3, n), name: "\(words[n % 8].capitalized) \(n)", brand: n % 3 == 0 ? "Brand \(n % 17)" : nil, priceMinor: n % 5 == 0 ? nil : Int64(1_000 + n),
                currency: "USD", quantity: 1 + n % 2, categoryID: n % 7 == 0 ? nil : Self.id(2, n % 6), roomID: n % 9 == 0 ? nil : Self.id(1, n % 6),
                condition: "good", notes: n % 4 == 0 ? "a \(words[(n / 4) % 8]) note" : nil, tags: ["tag\(n % 10)", "t\(n % 3)"],
                createdAt: Self.start + Int64(n) * 1_000, updatedAt: Self.start + Int64(n) * 1_000))
        }
    }

    func forEachPhoto(_ body: (ArchiveRecord.Photo) throws -> Void) throws {
        let shas = shas
        for n in 0..<itemCount {
            try body(ArchiveRecord.Photo(id: Self.id(4, n), itemID: Self.id(3, n), sha256: shas[n % shas.count], isPrimary: true, position: 0,
                                         createdAt: Self.start + Int64(n) * 1_000 + 1))
        }
    }

    func forEachReceipt(_ body: (ArchiveRecord.Receipt) throws -> Void) throws {
        let shas = shas
        for n in stride(from: 0, to: itemCount, by: 10) {
            try body(ArchiveRecord.Receipt(id: Self.id(5, n), itemID: Self.id(3, n), sha256: shas[(n + 1) % shas.count], vendor: "Shop \(n % 13)",
                                           currency: "USD", totalMinor: Int64(1_000 + n), rawText: "TOTAL \(n)", confidence: 0.75,
                                           createdAt: Self.start + Int64(n) * 1_000 + 2))
        }
    }

    func forEachValuation(_ body: (ArchiveRecord.Valuation) throws -> Void) throws {
        for n in stride(from: 0, to: itemCount, by: 10) {
            try body(ArchiveRecord.Valuation(id: Self.id(6, n), itemID: Self.id(3, n), currency: "USD", rcvMinor: Int64(2_000 + n), method: "manual",
                                             confidence: "high", valuedOn: "2025-01-10", sources: "[]", createdAt: Self.start + Int64(n) * 1_000 + 3))
        }
    }
}
