import Foundation
import NestoryDomain

/// Renders reports (cairo and pango in production).
public protocol ReportMaking: Sendable {
    /// Renders a report into `file` and checks that it is a whole PDF (else throws `PDFFileCheck.Incomplete`); returns
    /// the options as the JSON the export history keeps with it. Keeping it there is the caller's (`ReportStore`).
    func generate(_ householdID: HouseholdID, request: ReportRequest, to file: URL, now: Date,
                  progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void) throws -> String
    /// Writes every item as CSV to the file; returns the item count.
    func exportCSV(_ householdID: HouseholdID, to url: URL) throws -> Int
    /// Writes every item as JSON to the file; returns the item count.
    func exportJSON(_ householdID: HouseholdID, to url: URL, now: Date) throws -> Int
}
