import Foundation
import NestoryDomain
import Testing
@testable import NestoryStore

@Suite struct ReportHistoryTests {
    @Test func theReportsMigrationAndFolderExist() throws {
        let store = try TestStore()
        #expect(AppDatabase.knownMigrations.contains("2026-11-23-reports"))
        #expect(try store.database.appliedMigrations().contains("2026-11-23-reports"))
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: store.folder.reportsURL.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test func recordListDeleteAndIsolation() throws {
        let store = try TestStore()
        let home = try store.household("Home")
        let other = try store.household("Other")
        var ids: [UUID] = []
        for (index, kind) in ["inventory", "loss"].enumerated() {
            let file = store.folder.tmpURL.appendingPathComponent("r\(index).pdf")
            try Data(repeating: 7, count: 100 + index).write(to: file)
            ids.append(try store.database.recordReport(home.id, kind: kind, options: "{\"n\":\(index)}", file: file,
                                                       now: store.now.addingTimeInterval(Double(index))).id)
            #expect(!FileManager.default.fileExists(atPath: file.path), "moved, not copied")
        }
        let listed = try store.database.reports(home.id)
        #expect(listed.map(\.id) == ids.reversed())  // newest first
        #expect(listed.map(\.byteCount) == [101, 100] && listed[0].kind == "loss" && listed[0].options == "{\"n\":1}")
        #expect(try store.database.reports(other.id).isEmpty)
        #expect(throws: DomainError.notFound("The report")) { try store.database.report(other.id, ids[0]) }
        #expect(throws: DomainError.notFound("The report")) { try store.database.deleteReport(other.id, ids[0]) }
        let (_, url) = try store.database.report(home.id, ids[0])
        #expect(try Data(contentsOf: url).count == 100)
        try store.database.deleteReport(home.id, ids[0])
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try store.database.reports(home.id).map(\.id) == [ids[1]])
    }

    @Test func aRecordForAnUnknownHouseholdLeavesNoFile() throws {
        let store = try TestStore()
        let file = store.folder.tmpURL.appendingPathComponent("orphan.pdf")
        try Data("%PDF".utf8).write(to: file)
        #expect(throws: (any Error).self) { try store.database.recordReport(HouseholdID(), kind: "inventory", options: "{}", file: file, now: store.now) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.reportsURL.path).isEmpty)
    }

    @Test func reportsLeftHalfWrittenByACrashAreSwept() throws {
        let store = try TestStore()
        let leftover = store.folder.tmpURL.appendingPathComponent("report-crashed.pdf")
        try Data("%PDF".utf8).write(to: leftover)
        try store.database.collectGarbage(now: Date().addingTimeInterval(7200))
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
    }
}
