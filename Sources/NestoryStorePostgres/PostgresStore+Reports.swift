import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// The export history on PostgreSQL, as SQLite's: rows in `report`, files `<id>.pdf` in the folder the store was
/// given (`Configuration.reports`), which every server of the deployment must see.
extension PostgresStore: ReportStore {
    public func recordReport(_ householdID: HouseholdID, kind: String, options: String, file: URL, now: Date) async throws -> StoredReport {
        let folder = try requireReportsFolder()
        let id = UUID()
        let fileName = "\(id.uuidString.lowercased()).pdf"
        let destination = folder.appendingPathComponent(fileName)
        let byteCount = try await Self.onFileThread {
            let fm = FileManager.default
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
            let size = Int64((try fm.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0)
            do { try fm.moveItem(at: file, to: destination) } catch {
                throw PostgresStoreError.reportFile("\(fileName): \(error.localizedDescription)")
            }
            return size
        }
        // The row only once the file is in place; if it cannot be written, the file goes.
        do {
            try await withStoreErrors {
                for try await _ in try await client.query("""
                    INSERT INTO report (id, household_id, kind, created_at, byte_count, options, file_name)
                    SELECT \(id), h.id, \(kind), \(now.millis), \(byteCount), \(options), \(fileName) FROM household h
                    WHERE h.id = \(householdID.rawValue) RETURNING id
                    """, logger: logger) {
                    return
                }
                throw DomainError.notFound("The household")
            }
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
        return StoredReport(id: id, householdID: householdID, kind: kind, createdAt: Date(millis: now.millis), byteCount: byteCount,
                            options: options, fileName: fileName)
    }

    public func reports(_ householdID: HouseholdID, limit: Int) async throws -> [StoredReport] {
        try await withStoreErrors {
            var reports: [StoredReport] = []
            for try await row in try await client.query("""
                SELECT id, kind, created_at, byte_count, options, file_name FROM report
                WHERE household_id = \(householdID.rawValue) ORDER BY created_at DESC, id LIMIT \(Int64(max(0, limit)))
                """, logger: logger) {
                reports.append(try Self.report(row, householdID))
            }
            return reports
        }
    }

    public func report(_ householdID: HouseholdID, _ id: UUID) async throws -> (report: StoredReport, file: URL) {
        let folder = try requireReportsFolder()
        return try await withStoreErrors {
            for try await row in try await client.query("""
                SELECT id, kind, created_at, byte_count, options, file_name FROM report
                WHERE household_id = \(householdID.rawValue) AND id = \(id)
                """, logger: logger) {
                let report = try Self.report(row, householdID)
                return (report, folder.appendingPathComponent(report.fileName))
            }
            throw DomainError.notFound("The report")
        }
    }

    public func deleteReport(_ householdID: HouseholdID, _ id: UUID) async throws {
        let folder = try requireReportsFolder()
        let fileName = try await withStoreErrors {
            for try await name in try await client.query(
                "DELETE FROM report WHERE household_id = \(householdID.rawValue) AND id = \(id) RETURNING file_name", logger: logger)
                .decode(String.self) {
                return name
            }
            throw DomainError.notFound("The report")
        }
        // After the row is gone: a failed removal leaves an unlisted file, never a listed report without one.
        try? await Self.onFileThread { try FileManager.default.removeItem(at: folder.appendingPathComponent(fileName)) }
    }

    private static func report(_ row: PostgresRow, _ householdID: HouseholdID) throws -> StoredReport {
        let (id, kind, created, bytes, options, file) = try row.decode((UUID, String, Int64, Int64, String, String).self)
        return StoredReport(id: id, householdID: householdID, kind: kind, createdAt: Date(millis: created), byteCount: bytes,
                            options: options, fileName: file)
    }

    func requireReportsFolder() throws -> URL {
        guard let reportsFolder else { throw PostgresStoreError.noReportsFolder }
        return reportsFolder
    }
}
