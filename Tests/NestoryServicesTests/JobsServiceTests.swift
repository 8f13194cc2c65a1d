import Foundation
import NestoryDomain
import NestoryServices
import NestoryStore
import Testing

/// What a household's pages ask of its jobs: found only in the household and of the kinds the page shows, the recent
/// ones of a kind, and cancelling.
@Suite struct JobsServiceTests {
    @Test func aJobIsFoundOnlyInItsHouseholdAndOfTheKindsAsked() async throws {
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-jobs-service-\(UUID())").path)
        let database = try AppDatabase.open(folder)
        defer { try? database.close(); try? FileManager.default.removeItem(atPath: folder.path) }
        let start = Date(millis: 1_763_800_000_000)
        let home = try database.createHousehold(name: "Home", currency: .usd, now: start)
        let other = try database.createHousehold(name: "Other", currency: .usd, now: start)
        let backup = try database.enqueueJob(home.id, kind: "backup", subject: nil, payload: "{}", maxAttempts: 1, now: start)
        let report = try database.enqueueJob(home.id, kind: "report", subject: nil, payload: "{}", maxAttempts: 1, now: start.addingTimeInterval(10))
        let theirs = try database.enqueueJob(other.id, kind: "report", subject: nil, payload: "{}", maxAttempts: 1, now: start)
        let jobs = JobsService(store: SQLiteJobStore(database), now: { start.addingTimeInterval(20) })

        #expect(try await jobs.job(home.id, backup.id).id == backup.id)
        #expect(try await jobs.job(home.id, report.id, kinds: ["report"], notFound: "The report").id == report.id)
        await #expect(throws: DomainError.notFound("The report")) { try await jobs.job(home.id, backup.id, kinds: ["report"], notFound: "The report") }
        await #expect(throws: DomainError.notFound("The report")) { try await jobs.job(home.id, theirs.id, kinds: ["report"], notFound: "The report") }
        await #expect(throws: DomainError.notFound("The job")) { try await jobs.job(home.id, JobID()) }

        #expect(try await jobs.recent(home.id, kind: "report", within: 60).map(\.id) == [report.id])
        #expect(try await jobs.recent(home.id, kind: "backup", within: 60).map(\.id) == [backup.id])

        // Cancelling a job of another kind or household is refused and leaves it queued.
        await #expect(throws: DomainError.notFound("The batch")) { try await jobs.cancel(home.id, report.id, kinds: ["valuation"], notFound: "The batch") }
        await #expect(throws: DomainError.notFound("The job")) { try await jobs.cancel(home.id, theirs.id) }
        #expect(try database.job(report.id)?.state == .queued)
        #expect(try database.job(theirs.id)?.state == .queued)
        #expect(try await jobs.cancel(home.id, report.id, kinds: ["report"]).state == .cancelled)
        #expect(try database.job(report.id)?.state == .cancelled)
    }
}
