import Foundation
import NestoryDomain
import NestoryJobs
import NestoryReports
import NestoryReportsLive
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// The report job as `serve` runs it, on each engine's stores alone: rendered from the item, valuation and account
/// stores into the server's tmp folder, kept in the engine's export history, its file a whole PDF, nothing left in tmp.
@Suite struct ReportJobConformanceTests {
    static let start = Date(millis: 1_763_800_000_000)

    /// One engine's stores with their files and report files kept in `folder` (PostgreSQL's reports with the stored files).
    func withEngine<T>(_ engine: Engine, _ body: (_ items: any ItemStore, _ valuations: any ValuationStore, _ accounts: any AccountStore,
                                                  _ reports: any ReportStore, _ jobs: any JobStore, _ files: any BlobFiles, _ folder: DataFolder)
                       async throws -> T) async throws -> T {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-report-job-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(at: folder.url) }
        switch engine {
        case .sqlite:
            let database = try AppDatabase.open(folder)
            defer { try? database.close() }
            return try await body(SQLiteItemStore(database), SQLiteValuationStore(database), SQLiteAccountStore(database), SQLiteReportStore(database),
                                  SQLiteJobStore(database), database.blobs, folder)
        case .postgres:
            guard let url = Engine.postgresURL else { throw PostgresNotConfigured() }
            for sub in [folder.blobsURL, folder.tmpURL] { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true) }
            let blobs = BlobStore(folder: folder)
            let store = try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: freshSchemaName(), maximumConnections: 4,
                                                           blobs: blobs))
            do {
                let result = try await body(store, store, store, store, store, blobs, folder)
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        }
    }

    @Test(arguments: Engine.available)
    func aReportJobRendersAndKeepsAReportFromTheStores(engine: Engine) async throws {
        try await withEngine(engine) { items, valuations, accounts, reports, jobs, files, folder in
            let home = try await accounts.createHousehold(name: "Lighthouse", currency: .usd, now: Self.start)
            for (name, price) in [("Brass telescope", "640"), ("Ship's clock", "215.25"), ("Oil lamp", "38")] {
                _ = try await items.createItem(home.id, ItemDraft(name: name, purchasePrice: try Money.parse(price, currency: .usd), currency: .usd),
                                               now: Self.start, today: nil, plan: nil)
            }
            let generator = ReportGenerator(items: items, valuations: valuations, accounts: accounts, files: files)
            let handler = ReportJobHandler(reports: generator, store: reports, tmp: folder.tmpURL, blocking: BlockingPool(width: 1),
                                           now: { Self.start })
            let request = ReportRequest.inventory(InventoryReportOptions(includePhotos: false))
            let job = try await jobs.enqueueJob(home.id, kind: JobKind.report, subject: nil,
                                                payload: String(decoding: try JSONEncoder().encode(request), as: UTF8.self), maxAttempts: 2,
                                                now: Self.start)
            let progress = ProgressLog()
            let result = try await handler.run(job, context: JobContext(jobID: job.id, progress: { done, total in
                progress.add(done, total)
                return false
            }))
            try await handler.verify(job, result: result)
            let made = try JSONDecoder().decode(ReportsService.Made.self, from: Data(result.utf8))
            let (kept, file) = try await reports.report(home.id, made.reportID)
            // SQLite keeps it in the data folder's reports/, PostgreSQL with the stored files (here the data folder's blobs/).
            #expect(kept.kind == "inventory" && file.path.hasPrefix((engine == .sqlite ? folder.reportsURL : folder.blobsURL).path))
            #expect(try await reports.reports(home.id, limit: 10).map(\.id) == [made.reportID])
            #expect(progress.last.map { $0 == 3 && $1 == 3 } == true)
            let text = try pdftotext(file)
            for expected in ["Lighthouse", "Brass telescope", "Ship's clock", "Oil lamp", "$893.25"] {
                #expect(text.contains(expected), "\(engine): \(expected)")
            }
            // Rendered in tmp/, then moved: nothing is left there.
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.tmpURL.path).filter { $0.hasPrefix("report-") || $0.hasPrefix("stage-") }
            #expect(left.isEmpty)
        }
    }

    final class ProgressLog: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [(Int64, Int64)] = []
        func add(_ done: Int64, _ total: Int64) { lock.withLock { seen.append((done, total)) } }
        var last: (Int64, Int64)? { lock.withLock { seen.last } }
    }

}
