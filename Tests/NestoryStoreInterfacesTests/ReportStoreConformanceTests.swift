import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// The export history (generated reports and their files) behaves the same on every engine.
@Suite struct ReportStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_123)

    /// One engine's accounts, reports and attachments, with the folder its report files go to and a temporary folder on
    /// the same disk to render "reports" into.
    struct Fixture {
        let accounts: any AccountStore
        let reports: any ReportStore
        let attachments: any AttachmentStore
        let reportsFolder: URL
        let tmp: URL

        /// A finished "report" file of `size` bytes, as the renderer leaves it.
        func rendered(_ size: Int, fill: UInt8 = 0x25) throws -> URL {
            let url = tmp.appendingPathComponent("report-\(UUID().uuidString.lowercased()).pdf")
            try Data(repeating: fill, count: size).write(to: url)
            return url
        }

        func filesKept() throws -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: reportsFolder.path)) ?? []).sorted()
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
                                          attachments: SQLiteAttachmentStore(database), reportsFolder: folder.reportsURL, tmp: folder.tmpURL))
        case .postgres:
            guard let url = Engine.postgresURL else { throw PostgresNotConfigured() }
            try FileManager.default.createDirectory(at: folder.tmpURL, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: folder.blobsURL, withIntermediateDirectories: true)
            let store = try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: freshSchemaName(), maximumConnections: 4,
                                                           blobs: BlobStore(folder: folder), reports: folder.reportsURL))
            do {
                let result = try await body(Fixture(accounts: store, reports: store, attachments: store, reportsFolder: folder.reportsURL,
                                                    tmp: folder.tmpURL))
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
            #expect(try f.filesKept() == [made.fileName])

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
            #expect(try f.filesKept() == [kept.fileName])
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
            #expect(try f.filesKept() == [stays.fileName])
            await #expect(throws: DomainError.notFound("The report")) { try await f.reports.deleteReport(home.id, gone.id) }
            #expect(try await f.attachments.storageSummary(home.id).reports == .init(count: 1, bytes: 200))
        }
    }

    @Test(arguments: Engine.available)
    func garbageCollectionRemovesAnHourOldReportFileNoRowNames(engine: Engine) async throws {
        try await withReports(engine) { f in
            let home = try await household(f, "Home")
            let kept = try await f.reports.recordReport(home.id, kind: "inventory", options: "{}", file: try f.rendered(100), now: now)
            let twoHoursAgo = Date().addingTimeInterval(-7200)
            // A file no row names, two hours old (a report deleted while a backup held it): removed. One as old with a row,
            // and a young one without (a report being recorded): kept.
            for name in ["stray-old.pdf", "stray-new.pdf"] {
                try Data(repeating: 0x25, count: 10).write(to: f.reportsFolder.appendingPathComponent(name))
            }
            for name in ["stray-old.pdf", kept.fileName] {
                try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: f.reportsFolder.appendingPathComponent(name).path)
            }
            #expect(try await f.attachments.collectGarbage(now: Date()) == 1)
            #expect(try f.filesKept() == [kept.fileName, "stray-new.pdf"].sorted())
            #expect(try await f.reports.reports(home.id, limit: 200) == [kept])
        }
    }
}
