import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

/// The export history on PostgreSQL: rows in `report`, each report's PDF a stored file (`blob`, by its SHA-256) kept in
/// the store's `BlobFiles` with photos and receipts, so every server of the deployment reads what any of them made. A
/// report's file is kept as theirs are: in place before its row commits, removed once no row uses it (at once when
/// the report is deleted, else by `collectGarbage`). Its `file_name` (`<id>.pdf`) is its name in backups.
extension PostgresStore: ReportStore {
    public func recordReport(_ householdID: HouseholdID, kind: String, options: String, file: URL, now: Date) async throws -> StoredReport {
        let files = try requireFiles()
        let staged = try await Self.onFileThread { try files.stage(movingFile: file) }
        defer { files.discard(staged) }
        try await Self.onFileThread { try files.upload(staged) }
        let id = UUID()
        let fileName = "\(id.uuidString.lowercased()).pdf"
        try await transaction { connection in
            // The household first: a report for none places no file.
            _ = try await Self.fetchHousehold(connection, householdID, logger: logger)
            let attachment = try await Self.commitBlob(connection, files, staged, contentType: Self.reportContentType, now: now, logger: logger)
            try await connection.query("""
                INSERT INTO report (id, household_id, kind, created_at, byte_count, options, file_name, sha256)
                VALUES (\(id), \(householdID.rawValue), \(kind), \(now.millis), \(staged.byteCount), \(options), \(fileName), \(attachment.sha256))
                """, logger: logger)
        }
        return StoredReport(id: id, householdID: householdID, kind: kind, createdAt: Date(millis: now.millis), byteCount: staged.byteCount,
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

    /// The file is the stored file itself when files are kept on this machine, else a copy fetched into the temporary
    /// folder (which its sweep removes).
    public func report(_ householdID: HouseholdID, _ id: UUID) async throws -> (report: StoredReport, file: URL) {
        let files = try requireFiles()
        let (report, sha256): (StoredReport, String?) = try await withStoreErrors {
            for try await row in try await client.query("""
                SELECT id, kind, created_at, byte_count, options, file_name, sha256 FROM report
                WHERE household_id = \(householdID.rawValue) AND id = \(id)
                """, logger: logger) {
                return (try Self.report(row, householdID), try row.makeRandomAccess()[6].decode(String?.self))
            }
            throw DomainError.notFound("The report")
        }
        // Made before reports were stored files, by a server that has not started since (it moves its reports/ then).
        guard let sha256 else { throw DomainError.notFound("The report's file") }
        return (report, try await Self.onFileThread { try files.localFile(sha256) })
    }

    public func deleteReport(_ householdID: HouseholdID, _ id: UUID) async throws {
        let sha256: String? = try await withStoreErrors {
            for try await sha256 in try await client.query(
                "DELETE FROM report WHERE household_id = \(householdID.rawValue) AND id = \(id) RETURNING sha256", logger: logger)
                .decode(String?.self) {
                return sha256
            }
            throw DomainError.notFound("The report")
        }
        // After the row is gone, and only if no other row uses the same bytes.
        if let sha256 { try await removeUnreferencedBlobs([sha256]) }
    }

    /// Moves the PDFs of reports made before they were stored files from this server's old reports folder into the
    /// stored files, each row given its file's hash in the transaction that makes sure the file is in place; the old
    /// file goes once its row names the stored one. Files there no such row names go once an hour old (the rule the
    /// folder's sweep had). Run at open by each server (each had its own folder); returns the reports moved.
    @discardableResult
    public func adoptReportFiles(from folder: URL, now: Date = Date()) async throws -> Int {
        guard let files = blobFiles, FileManager.default.fileExists(atPath: folder.path) else { return 0 }
        let waiting: [(UUID, String)] = try await withStoreErrors {
            var rows: [(UUID, String)] = []
            for try await row in try await client.query("SELECT id, file_name FROM report WHERE sha256 IS NULL", logger: logger)
                .decode((UUID, String).self) {
                rows.append(row)
            }
            return rows
        }
        var moved = 0
        for (id, name) in waiting {
            let old = folder.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: old.path) else { continue }  // another server's
            // Copied, not moved: the old file stays until its row names the stored one.
            let staged = try await Self.onFileThread { try files.stage(contentsOf: old, maxBytes: .max) }
            defer { files.discard(staged) }
            try await Self.onFileThread { try files.upload(staged) }
            let adopted = try await transaction { connection in
                guard try await Self.exists(connection, "SELECT EXISTS (SELECT 1 FROM report WHERE id = \(id) AND sha256 IS NULL FOR UPDATE)",
                                            logger: logger) else { return false }
                let attachment = try await Self.commitBlob(connection, files, staged, contentType: Self.reportContentType, now: now, logger: logger)
                try await connection.query("UPDATE report SET sha256 = \(attachment.sha256) WHERE id = \(id)", logger: logger)
                return true
            }
            if adopted { moved += 1 }
        }
        let unmoved: Set<String> = try await withStoreErrors {
            var names: Set<String> = []
            for try await name in try await client.query("SELECT file_name FROM report WHERE sha256 IS NULL", logger: logger).decode(String.self) {
                names.insert(name)
            }
            return names
        }
        let named = Set(waiting.map(\.1))  // files whose rows were waiting: now stored, so their old copy goes at once
        try await Self.onFileThread {
            let fm = FileManager.default
            for name in (try? fm.contentsOfDirectory(atPath: folder.path)) ?? [] where !unmoved.contains(name) {
                let url = folder.appendingPathComponent(name)
                guard let modified = (try? fm.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
                      named.contains(name) || now.timeIntervalSince(modified) > 3600 else { continue }
                try? fm.removeItem(at: url)
            }
        }
        return moved
    }

    /// What a report's `blob` row says its file is.
    static let reportContentType = "application/pdf"

    private static func report(_ row: PostgresRow, _ householdID: HouseholdID) throws -> StoredReport {
        let row = row.makeRandomAccess()
        return StoredReport(id: try row[0].decode(UUID.self), householdID: householdID, kind: try row[1].decode(String.self),
                            createdAt: Date(millis: try row[2].decode(Int64.self)), byteCount: try row[3].decode(Int64.self),
                            options: try row[4].decode(String.self), fileName: try row[5].decode(String.self))
    }
}
