import Foundation
import Logging
import NestoryDomain
import NestoryStore
import NestoryStorePostgres
import PostgresNIO
import Testing

/// A report made before report PDFs were stored files (its row names none, its PDF is in the reports/ folder of the
/// server that made it) is moved into the stored files by that server's next open (`adoptReportFiles`).
@Suite(.enabled(if: PostgresTestServer.url != nil || PostgresTestServer.required, "no PostgreSQL test server (run through scripts/with-postgres.sh)"))
struct ReportFileAdoptionTests {
    @Test func aReportMadeBeforeIsMovedFromTheReportsFolderIntoTheStoredFiles() async throws {
        guard let url = PostgresTestServer.url else { throw PostgresTestServer.NotConfigured() }
        let location = try PostgresLocation(url: url)
        let folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-adopt-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(at: folder.url) }
        for sub in [folder.blobsURL, folder.tmpURL, folder.reportsURL] { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true) }
        let schema = "a_" + String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20))
        let store = try await PostgresStore.open(.init(location: location, schema: schema, blobs: BlobStore(folder: folder)))
        do {
            let home = try await store.createHousehold(name: "Home", currency: .usd, now: Date())
            // As the version before wrote it: the row without a stored file, the PDF in reports/; beside it a file no row
            // names, two hours old, and one just written.
            let id = UUID()
            let bytes = Data("%PDF-1.7 made before\n%%EOF\n".utf8)
            try bytes.write(to: folder.reportsURL.appendingPathComponent("\(id.uuidString.lowercased()).pdf"))
            for name in ["stray-old.pdf", "stray-new.pdf"] { try Data("x".utf8).write(to: folder.reportsURL.appendingPathComponent(name)) }
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)],
                                                  ofItemAtPath: folder.reportsURL.appendingPathComponent("stray-old.pdf").path)
            let connection = try await PostgresConnection.connect(
                configuration: .init(host: location.host, port: location.port, username: location.username, password: location.password,
                                     database: location.database, tls: .disable), id: 1, logger: Logger(label: "nestory.tests.adopt"))
            try await connection.query(PostgresQuery(unsafeSQL: """
                INSERT INTO \(schema).report (id, household_id, kind, created_at, byte_count, options, file_name)
                VALUES ('\(id.uuidString.lowercased())', '\(home.id)', 'inventory', 1, \(bytes.count), '{}', '\(id.uuidString.lowercased()).pdf')
                """), logger: Logger(label: "nestory.tests.adopt"))
            try await connection.close()
            await #expect(throws: DomainError.notFound("The report's file")) { try await store.report(home.id, id) }

            #expect(try await store.adoptReportFiles(from: folder.reportsURL) == 1)
            let (report, file) = try await store.report(home.id, id)
            #expect(report.byteCount == Int64(bytes.count) && report.fileName == "\(id.uuidString.lowercased()).pdf")
            #expect(try Data(contentsOf: file) == bytes)
            #expect(file.path.hasPrefix(folder.blobsURL.path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.reportsURL.path) == ["stray-new.pdf"])
            // Nothing left to move: nothing moves.
            #expect(try await store.adoptReportFiles(from: folder.reportsURL) == 0)
            await store.close()
        } catch {
            await store.close()
            throw error
        }
    }
}
