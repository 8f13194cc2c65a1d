import Foundation
import NestoryDomain
import NestoryJobs
import NestoryReports
import NestoryServices
import NestoryStore
import Testing

/// A report maker double: it does what a test set up and fails loudly on anything else.
final class ScriptedReportMaker: ReportMaking, @unchecked Sendable {
    var generate: (@Sendable (HouseholdID, ReportRequest, URL, Date) throws -> String)?

    func generate(_ householdID: HouseholdID, request: ReportRequest, to file: URL, now: Date,
                  progress: @escaping @Sendable (Int, Int) -> Void) throws -> String {
        guard let generate else {
            Issue.record("generate was called but the test did not set it up")
            throw JobFailure(code: "unscripted", message: "unscripted")
        }
        return try generate(householdID, request, file, now)
    }

    func exportCSV(_ householdID: HouseholdID, to url: URL) throws -> Int {
        Issue.record("exportCSV was called but the test did not set it up")
        throw JobFailure(code: "unscripted", message: "unscripted")
    }

    func exportJSON(_ householdID: HouseholdID, to url: URL, now: Date) throws -> Int {
        Issue.record("exportJSON was called but the test did not set it up")
        throw JobFailure(code: "unscripted", message: "unscripted")
    }
}

@Suite struct ReportJobTests {
    /// Found: on a full disk an inventory report was recorded as finished with a 0-byte PDF.
    @Test(arguments: [Data(), Data("%PDF-1.5\n1 0 obj".utf8), Data("%PDF-1.5\nwhole\n%%EOF\n".utf8)])
    func aReportIsDoneOnlyIfItsFileIsAWholePDF(_ bytes: Data) async throws {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-report-job-\(UUID())").path)
        let database = try AppDatabase.open(folder)
        defer { try? database.close(); try? FileManager.default.removeItem(atPath: folder.path) }
        let household = try database.createHousehold(name: "Smiths", currency: .usd, now: Date())
        let maker = ScriptedReportMaker()
        maker.generate = { _, _, file, _ in
            // What a disk that filled up mid-write leaves: a file cut short, passed on all the same.
            try bytes.write(to: file)
            return "{}"
        }
        let handler = ReportJobHandler(reports: maker, store: SQLiteReportStore(database), tmp: database.folder.tmpURL, blocking: BlockingPool(width: 1))
        let runner = JobRunner(jobs: SQLiteJobStore(database), handlers: [handler], pollInterval: .milliseconds(20))
        let job = try await ReportsService(queue: runner.queue(), maker: maker, store: SQLiteReportStore(database), tmp: database.folder.tmpURL,
                                           blocking: BlockingPool(width: 1), plan: PlanService(licences: SQLiteLicenceStore(database), instancePro: true),
                                           items: SQLiteItemStore(database))
            .start(household.id, .inventory(InventoryReportOptions()))
        let task = Task { try await runner.run() }
        defer { task.cancel() }
        var done = try #require(try database.job(job.id))
        for _ in 0..<4500 where !done.state.isFinished {
            try await Task.sleep(for: .milliseconds(20))
            done = try #require(try database.job(job.id))
        }
        if bytes.count > 16 && String(decoding: bytes, as: UTF8.self).contains("%%EOF") {
            #expect(done.state == .succeeded, "\(done.state) \(done.message ?? "")")
        } else {
            #expect(done.state == .failed && done.errorCode == "report_incomplete", "\(done.state) \(done.errorCode ?? "")")
            #expect(done.message?.contains("disk full") == true && done.message?.contains(folder.path) == false)
        }
    }
}
