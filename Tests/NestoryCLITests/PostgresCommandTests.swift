import Foundation
import NestoryChildProcess
import MCP
import Testing

/// Every command that reads or writes a household works on PostgreSQL as on SQLite (issue 19): demo, stats, backup,
/// restore, import, export, report, catalog and mcp, with `NESTORY_DATABASE_URL` naming the test server. They run when
/// scripts/with-postgres.sh gave one, and fail when it requires one and none was given.
@Suite(.serialized) struct PostgresCommandTests {
    /// One schema of the test server for one test, and a data folder that holds only this machine's files.
    struct Database {
        let folder = CLI.Folder()
        let environment: [String: String]

        init?() throws {
            guard let url = try DatabaseCommandTests.postgres() else { return nil }
            environment = ["NESTORY_DATABASE_URL": url, "NESTORY_DATABASE_SCHEMA": DatabaseCommandTests.schema()]
        }

        func run(_ arguments: [String], stdin: String? = nil) throws -> CLI.Result {
            try CLI.run(arguments + ["--data", folder.path], stdin: stdin, environment: environment)
        }
    }

    @Test func aDemoOnPostgreSQLIsBackedUpRestoredIntoSQLiteAndReportedOn() throws {
        guard let pg = try Database() else { return }
        let demo = try pg.run(["demo", "--items", "40", "--seed", "5", "--name", "Demo PG"], stdin: nil)
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("Created Demo PG"), "\(demo.stdout)")
        let stats = try pg.run(["stats", "--json"])
        #expect(stats.stdout.contains("\"itemCount\" : 40"), "\(stats.stdout) \(stats.stderr)")
        // Some demo items have photos and receipts: not every item needs one.
        let figures = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        let summary = figures?["summary"] as? [String: Any]
        let needsPhoto = try #require(summary?["needsPhoto"] as? Int), needsReceipt = try #require(summary?["needsReceipt"] as? Int)
        #expect(needsPhoto < 40 && needsReceipt < 40)
        #expect(!FileManager.default.fileExists(atPath: pg.folder.path + "/nestory.sqlite"))

        // Backed up from PostgreSQL, restored into a fresh SQLite folder: the same items.
        let archive = pg.folder.path + "/demo.zip"
        let backup = try pg.run(["backup", archive])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("40 items"), "\(backup.stdout)")
        let sqlite = CLI.Folder()
        let restore = try CLI.run(["restore", archive, "--data", sqlite.path])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.contains("Items       40 added"), "\(restore.stdout)")
        let fromPostgres = pg.folder.path + "/pg.csv", fromSQLite = sqlite.path + "/sqlite.csv"
        let pgExport = try pg.run(["export", "csv", fromPostgres])
        #expect(pgExport.status == 0 && pgExport.stdout.contains("Wrote 40 items"), "\(pgExport.stdout) \(pgExport.stderr)")
        #expect(try CLI.run(["export", "csv", fromSQLite, "--data", sqlite.path]).status == 0)
        let rows = try String(contentsOfFile: fromPostgres, encoding: .utf8)
        #expect(rows.split(whereSeparator: \.isNewline).count == 41)
        #expect(rows == (try String(contentsOfFile: fromSQLite, encoding: .utf8)))
        let sqliteStats = try CLI.run(["stats", "--json", "--data", sqlite.path])
        #expect(sqliteStats.stdout.contains("\"needsPhoto\" : \(needsPhoto)"), "\(sqliteStats.stdout)")

        // The inventory PDF, made from PostgreSQL, lists an item by name (the export's first).
        let lines = rows.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let nameColumn = try #require(lines.first?.firstIndex { $0.lowercased() == "name" })
        let firstName = String(lines[1][nameColumn])
        let pdf = pg.folder.path + "/inventory.pdf"
        let report = try pg.run(["report", "inventory", "--out", pdf, "--photos", "--undocumented"])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains("40 items"), "\(report.stdout)")
        #expect(try pdftotext(pdf).contains(firstName.trimmingCharacters(in: CharacterSet(charactersIn: "\""))), "\(firstName)")
        // Restoring that archive back into PostgreSQL, which has the household: it asks how.
        let again = try pg.run(["restore", archive])
        #expect(again.status != 0 && again.stderr.contains("already has the household Demo PG"), "\(again.stderr)")
    }

    @Test func aSpreadsheetImportedIntoPostgreSQLIsExportedAndListedForALoss() throws {
        guard let pg = try Database() else { return }
        #expect(try pg.run(["user", "add", "ann@example.com", "--household", "Smiths"], stdin: "correct horse battery\n").status == 0)
        let csv = pg.folder.path + "-in.csv"
        defer { try? FileManager.default.removeItem(atPath: csv) }
        try "Name,Price,Room\nRecord player,320.00,Den\nSofa,1299.00,Living room\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let dry = try pg.run(["import", "csv", "--dry-run", csv])
        #expect(dry.status == 0 && dry.stdout.contains("2 items would be imported into Smiths"), "\(dry.stdout) \(dry.stderr)")
        let imported = try pg.run(["import", "csv", csv])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("Imported 2 items into Smiths") && imported.stdout.contains("New rooms: Den"), "\(imported.stdout)")
        let json = pg.folder.path + "/items.json"
        #expect(try pg.run(["export", "json", json]).status == 0)
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let names = (root?["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names.map(Set.init) == ["Record player", "Sofa"])
        let loss = pg.folder.path + "/loss.pdf"
        let lossList = try pg.run(["report", "loss", "--out", loss, "--room", "den", "--date", "2025-01-02", "--type", "theft"])
        #expect(lossList.status == 0, "\(lossList.stderr)")
        #expect(lossList.stdout.contains("1 item,"), "\(lossList.stdout)")
        let text = try pdftotext(loss)
        #expect(text.contains("Record player") && !text.contains("Sofa"), "\(text)")
    }

    @Test func theCatalogueOnPostgreSQLAnswersALookup() throws {
        guard let pg = try Database() else { return }
        #expect(try pg.run(["user", "add", "ann@example.com", "--household", "Smiths"], stdin: "correct horse battery\n").status == 0)
        let file = pg.folder.path + "-catalog.jsonl"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
            {"code": "4006381333931", "product_name": "Textmarker", "brands": "Stabilo"}
            {"product_name": "no code"}
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try pg.run(["catalog", "import", file])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("Imported 1 product in") && imported.stdout.contains("the catalogue has 1."), "\(imported.stdout)")
        #expect(imported.stdout.contains("Skipped 1 lines"), "\(imported.stdout)")
        let found = try pg.run(["catalog", "lookup", "4006381333931"])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.contains("\"name\" : \"Textmarker\"") && found.stdout.contains("\"brand\" : \"Stabilo\""), "\(found.stdout)")
        let missing = try pg.run(["catalog", "lookup", "0000000000000"])
        #expect(missing.status == 1)
        // Nothing went to a SQLite file in the data folder.
        #expect(try CLI.run(["catalog", "lookup", "4006381333931", "--data", pg.folder.path]).status != 0)
    }

    @Test func anAssistantUsesAPostgreSQLInventoryOverMCP() async throws {
        guard let pg = try Database() else { return }
        #expect(try pg.run(["user", "add", "ann@example.com", "--household", "Smiths"], stdin: "correct horse battery\n").status == 0)
        let token = try pg.run(["token", "create", "ann@example.com", "--name", "w", "--scope", "write"])
        try #require(token.status == 0, "\(token.stderr)")
        let (process, client, transport) = try MCPCommandTests.start(folder: pg.folder, token: token.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                                                                     environment: pg.environment)
        defer { process.signal(SIGTERM) }
        _ = try await client.connect(transport: transport)
        #expect(try await client.listTools().tools.count == 8)
        let added = try await client.callTool(name: "add_item", arguments: ["name": "Record player", "price": "320.00"])
        #expect(added.isError == false)
        await client.disconnect()
        let stats = try pg.run(["stats", "--json"])
        #expect(stats.stdout.contains("\"itemCount\" : 1"), "\(stats.stdout) \(stats.stderr)")
        let export = pg.folder.path + "/items.csv"
        #expect(try pg.run(["export", "csv", export]).status == 0)
        #expect(try String(contentsOfFile: export, encoding: .utf8).contains("Record player,"))
    }

    /// A report made before report PDFs were stored files (its row names no file; the PDF is in the reports/ folder of
    /// the server that made it) is moved into the stored files when that server next opens the database to write
    /// (`serve`, `demo`, `user add`: here the last), and not by a command that only reads.
    @Test func aServersOldReportFilesAreMovedIntoTheStoredFilesWhenItOpensTheDatabaseToWrite() throws {
        guard let pg = try Database(), let url = pg.environment["NESTORY_DATABASE_URL"], let schema = pg.environment["NESTORY_DATABASE_SCHEMA"] else { return }
        #expect(try pg.run(["demo", "--items", "1", "--name", "Home"]).status == 0)
        let id = UUID().uuidString.lowercased()
        let bytes = "%PDF-1.7 made before\n%%EOF\n"
        let reports = pg.folder.path + "/reports"
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        try Data(bytes.utf8).write(to: URL(fileURLWithPath: "\(reports)/\(id).pdf"))
        _ = try psql(url, """
            INSERT INTO \(schema).report (id, household_id, kind, created_at, byte_count, options, file_name)
            SELECT '\(id)', id, 'inventory', 1, \(bytes.utf8.count), '{}', '\(id).pdf' FROM \(schema).household
            """)

        #expect(try pg.run(["stats"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: reports) == ["\(id).pdf"], "a read-only command moved it")
        #expect(try psql(url, "SELECT coalesce(sha256, 'none') FROM \(schema).report") == "none")

        let user = try pg.run(["user", "add", "ann@example.com", "--household", "Smiths"], stdin: "correct horse battery\n")
        #expect(user.status == 0, "\(user.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: reports).isEmpty)
        let sha256 = try psql(url, "SELECT sha256 FROM \(schema).report")
        try #require(sha256.count == 64, "\(sha256)")
        let stored = "\(pg.folder.path)/blobs/\(sha256.prefix(2))/\(sha256.dropFirst(2).prefix(2))/\(sha256)"
        #expect(FileManager.default.contents(atPath: stored) == Data(bytes.utf8))
    }
}

/// The one value `sql` answers, through Debian's psql.
private func psql(_ url: String, _ sql: String) throws -> String {
    let result = try ChildProcess.run("/usr/bin/psql", [url, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", sql])
    try #require(result.exitCode == 0, "psql: \(result.errorText)")
    return result.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The text of a PDF, its whitespace made single spaces.
private func pdftotext(_ path: String) throws -> String {
    try ChildProcess.run("/usr/bin/pdftotext", [path, "-"]).outputText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
}
