import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// The export history (generated reports and their files) behaves the same on every engine.
@Suite struct ReportStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_123)

    /// One engine's accounts, reports and attachments, with the folder its report files go to (SQLite's reports/,
    /// PostgreSQL's stored files: the data folder's blobs/, which hold nothing else here), its stored files, and a
    /// temporary folder on the same disk to render "reports" into.
    struct Fixture {
        let accounts: any AccountStore
        let reports: any ReportStore
        let attachments: any AttachmentStore
        let reportsFolder: URL
        let blobs: any BlobFiles
        let tmp: URL

        /// A finished "report" file of `size` bytes, as the renderer leaves it.
        func rendered(_ size: Int, fill: UInt8 = 0x25) throws -> URL {
            let url = tmp.appendingPathComponent("report-\(UUID().uuidString.lowercased()).pdf")
            try Data(repeating: fill, count: size).write(to: url)
            return url
        }

        /// The sizes of the report files kept, smallest first.
        func filesKept() throws -> [Int] {
            guard let files = FileManager.default.enumerator(at: reportsFolder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
            return try files.compactMap { entry -> Int? in
                // Reports (SQLite: `<id>.pdf`) or stored files (named by their hash); not the stored files' lock.
                guard let url = entry as? URL, url.pathExtension == "pdf" || url.lastPathComponent.count == 64,
                      try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { return nil }
                return try Data(contentsOf: url).count
            }.sorted()
        }
    }

    func withReports<T>(_ engine: Engine, _ body: (Fixture) async throws -> T) async throws -> T {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-reports-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(at: folder.url) }
        switch engine {
        case .sqlite:
            let database = try AppDatabase.open(folder)
            defer { try? database.close() }
            return try await body(Fixture(accounts: SQLiteAccountStore(database), reports: SQLiteReportStore(database),
                                          attachments: SQLiteAttachmentStore(database), reportsFolder: folder.reportsURL, blobs: database.blobs,
                                          tmp: folder.tmpURL))
        case .postgres:
            guard let url = Engine.postgresURL else { throw PostgresNotConfigured() }
            try FileManager.default.createDirectory(at: folder.tmpURL, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: folder.blobsURL, withIntermediateDirectories: true)
            let blobs = BlobStore(folder: folder)
            let store = try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: freshSchemaName(), maximumConnections: 4,
                                                           blobs: blobs))
            do {
                let result = try await body(Fixture(accounts: store, reports: store, attachments: store, reportsFolder: folder.blobsURL,
                                                    blobs: blobs, tmp: folder.tmpURL))
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        }
    }

    func household(_ f: Fixture, _ name: String) async throws -> Household {
        try await f.accounts.createHousehold(name: name, currency: .usd, now: now)
    }

    @Test(arguments: Engine.available)
    func aReportIsKeptWithItsFileAndListedNewestFirstInItsHouseholdOnly(engine: Engine) async throws {
        try await withReports(engine) { f in
            let home = try await household(f, "Home")
            let other = try await household(f, "Other")
            let first = try f.rendered(1234)
            let made = try await f.reports.recordReport(home.id, kind: "inventory", options: #"{"group":"room"}"#, file: first, now: now)
            #expect(made.householdID == home.id)
            #expect(made.kind == "inventory")
            #expect(made.options == #"{"group":"room"}"#)
            #expect(made.byteCount == 1234)
            #expect(made.createdAt == now)
            #expect(made.fileName == "\(made.id.uuidString.lowercased()).pdf")
            #expect(!FileManager.default.fileExists(atPath: first.path))  // moved, not copied

            let (read, file) = try await f.reports.report(home.id, made.id)
            #expect(read == made)
            #expect(try Data(contentsOf: file) == Data(repeating: 0x25, count: 1234))
            #expect(try f.filesKept() == [1234])

            let loss = try await f.reports.recordReport(home.id, kind: "loss", options: "{}", file: try f.rendered(10, fill: 1),
                                                        now: now.addingTimeInterval(60))
            let older = try await f.reports.recordReport(home.id, kind: "inventory", options: "{}", file: try f.rendered(20, fill: 2),
                                                         now: now.addingTimeInterval(-60))
            let theirs = try await f.reports.recordReport(other.id, kind: "loss", options: "{}", file: try f.rendered(5), now: now)
            #expect(try await f.reports.reports(home.id, limit: 200) == [loss, made, older])
            #expect(try await f.reports.reports(home.id, limit: 2) == [loss, made])
            #expect(try await f.reports.reports(other.id, limit: 200) == [theirs])

            // Another household's report is not found, and is not deleted.
            await #expect(throws: DomainError.notFound("The report")) { try await f.reports.report(other.id, made.id) }
            await #expect(throws: DomainError.notFound("The report")) { try await f.reports.deleteReport(other.id, made.id) }
            await #expect(throws: DomainError.notFound("The report")) { try await f.reports.report(home.id, UUID()) }
            #expect(try await f.reports.reports(home.id, limit: 200).count == 3)

            let summary = try await f.attachments.storageSummary(home.id)
            #expect(summary.reports == .init(count: 3, bytes: 1234 + 10 + 20))
            #expect(try await f.attachments.storageSummary(other.id).reports == .init(count: 1, bytes: 5))
        }
    }

    @Test(arguments: Engine.available)
    func aReportThatCannotBeRecordedLeavesNoFile(engine: Engine) async throws {
        try await withReports(engine) { f in
            let home = try await household(f, "Home")
            let kept = try await f.reports.recordReport(home.id, kind: "inventory", options: "{}", file: try f.rendered(100), now: now)
            let orphan = try f.rendered(50)
            await #expect(throws: DomainError.notFound("The household")) {
                try await f.reports.recordReport(HouseholdID(), kind: "inventory", options: "{}", file: orphan, now: now)
            }
            #expect(try f.filesKept() == [100])
            #expect(try await f.reports.reports(home.id, limit: 200) == [kept])
        }
    }

    @Test(arguments: Engine.available)
    func deletingAReportRemovesItsRowAndThenItsFile(engine: Engine) async throws {
        try await withReports(engine) { f in
            let home = try await household(f, "Home")
            let gone = try await f.reports.recordReport(home.id, kind: "inventory", options: "{}", file: try f.rendered(100), now: now)
            let stays = try await f.reports.recordReport(home.id, kind: "loss", options: "{}", file: try f.rendered(200),
                                                         now: now.addingTimeInterval(1))
            try await f.reports.deleteReport(home.id, gone.id)
            #expect(try await f.reports.reports(home.id, limit: 200) == [stays])
            await #expect(throws: DomainError.notFound("The report")) { try await f.reports.report(home.id, gone.id) }
            #expect(try f.filesKept() == [200])
            await #expect(throws: DomainError.notFound("The report")) { try await f.reports.deleteReport(home.id, gone.id) }
            #expect(try await f.attachments.storageSummary(home.id).reports == .init(count: 1, bytes: 200))
        }
    }

    @Test(arguments: Engine.available)
    func aReportDeletedWhileABackupHoldsItsFileIsRemovedByGarbageCollectionOnceAnHourOld(engine: Engine) async throws {
        try await withReports(engine) { f in
            let home = try await household(f, "Home")
            let kept = try await f.reports.recordReport(home.id, kind: "inventory", options: "{}", file: try f.rendered(100), now: now)
            let gone = try await f.reports.recordReport(home.id, kind: "loss", options: "{}", file: try f.rendered(300, fill: 7), now: now)
            // A backup holds the files: the row goes, the file stays for the sweep.
            let pin = try f.blobs.backupPin()
            try await f.reports.deleteReport(home.id, gone.id)
            pin.release()
            #expect(try f.filesKept() == [100, 300])
            // Once an hour old: removed; the report with a row keeps its file. (Younger, SQLite keeps it: it may be a
            // report whose row is being written; PostgreSQL's sweep of stored files knows by the file's lock, or with an
            // object store waits the hour too: ReportFilesOnPostgresTests.)
            #expect(try await f.attachments.collectGarbage(now: Date().addingTimeInterval(7200)) == 1)
            #expect(try f.filesKept() == [100])
            let (read, file) = try await f.reports.report(home.id, kept.id)
            #expect(read == kept)
            #expect(try Data(contentsOf: file) == Data(repeating: 0x25, count: 100))
        }
    }
}
