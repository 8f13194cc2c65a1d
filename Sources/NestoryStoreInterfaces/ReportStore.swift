import Foundation
import NestoryDomain

/// The export history: each generated report (a PDF) of a household, and its file.
///
/// Every engine keeps the same rules, which the conformance suite (`Tests/NestoryStoreInterfacesTests`) checks:
/// - a report is recorded only once its file is in place, so the history never lists a file that is not there; when
///   the record fails, the file does not stay behind;
/// - the history is listed newest first;
/// - what a household asks about is found only in that household: another household's report is not found, and
///   cannot be deleted;
/// - deleting a report removes its row, then its file (a failed removal leaves an unlisted file, never a listed report
///   without one).
public protocol ReportStore: Sendable {
    /// Moves a finished report file (a whole PDF on this machine, in the same file system as the data folder) to where
    /// reports are kept (SQLite: the data folder's reports/; PostgreSQL: its stored files, shared by every server), and
    /// records it. `options` is the options' JSON.
    func recordReport(_ householdID: HouseholdID, kind: String, options: String, file: URL, now: Date) async throws -> StoredReport
    /// The household's reports, newest first, at most `limit`.
    func reports(_ householdID: HouseholdID, limit: Int) async throws -> [StoredReport]
    /// One report of the household and a file on this machine with its bytes, the one way every reader (the download,
    /// the report job's check) reaches it: the kept file itself, or a temporary copy fetched from an object store.
    func report(_ householdID: HouseholdID, _ id: UUID) async throws -> (report: StoredReport, file: URL)
    /// Deletes a report of the household from the history, then its file.
    func deleteReport(_ householdID: HouseholdID, _ id: UUID) async throws
}
