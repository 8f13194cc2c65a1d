import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// The export history on SQLite: AppDatabase's own methods (files in the data folder's `reports/`), each run off the
/// caller's thread (`AppDatabase.offload`).
public struct SQLiteReportStore: ReportStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    public func recordReport(_ householdID: HouseholdID, kind: String, options: String, file: URL, now: Date) async throws -> StoredReport {
        try await database.offload { try $0.recordReport(householdID, kind: kind, options: options, file: file, now: now) }
    }

    public func reports(_ householdID: HouseholdID, limit: Int) async throws -> [StoredReport] {
        try await database.offload { try $0.reports(householdID, limit: limit) }
    }

    public func report(_ householdID: HouseholdID, _ id: UUID) async throws -> (report: StoredReport, file: URL) {
        try await database.offload { try $0.report(householdID, id) }
    }

    public func deleteReport(_ householdID: HouseholdID, _ id: UUID) async throws {
        try await database.offload { try $0.deleteReport(householdID, id) }
    }
}
