import Foundation
import NestoryDomain

/// Renders a report and keeps it in the export history (cairo and pango in production).
public protocol ReportMaking: Sendable {
    func generateAndRecord(_ householdID: HouseholdID, request: ReportRequest, now: Date,
                           progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void) throws -> StoredReport
    /// Writes every item as CSV to the file; returns the item count.
    func exportCSV(_ householdID: HouseholdID, to url: URL) throws -> Int
    /// Writes every item as JSON to the file; returns the item count.
    func exportJSON(_ householdID: HouseholdID, to url: URL, now: Date) throws -> Int
}
