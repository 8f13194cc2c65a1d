import Foundation
import Testing

/// `--database` / `database.url` / `NESTORY_DATABASE_URL`: SQLite by default, PostgreSQL when a URL is given, and a
/// clear message for every way the URL can be wrong. The PostgreSQL tests run when scripts/with-postgres.sh gave a
/// test server (`NESTORY_TEST_POSTGRES_URL`).
@Suite struct DatabaseCommandTests {
    static let url = ProcessInfo.processInfo.environment["NESTORY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static var password: String? { url.flatMap { URLComponents(string: $0)?.password } }

    /// The test server's URL; nil skips a PostgreSQL test, unless scripts/with-postgres.sh said PostgreSQL is required.
    static func postgres() throws -> String? {
        if url == nil, ProcessInfo.processInfo.environment["NESTORY_REQUIRE_POSTGRES"] == "1" {
            Issue.record("NESTORY_REQUIRE_POSTGRES=1 but NESTORY_TEST_POSTGRES_URL is not set")
        }
        return url
    }

    /// A schema of its own for one test, in the test server's database.
    static func schema() -> String { "cli_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20) }

    @Test func migrateBringsAPostgreSQLDatabaseUpToDateAndSaysWhere() throws {
        guard let url = try Self.postgres() else { return }
        let folder = CLI.Folder()
        let schema = Self.schema()
        let first = try CLI.run(["migrate", "--data", folder.path, "--database", url], environment: ["NESTORY_DATABASE_SCHEMA": schema])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("Database postgres://"), "\(first.stdout)")
        #expect(first.stdout.contains("is at schema 2026-"), "\(first.stdout)")
        #expect(first.stderr.contains("PostgreSQL schema change applied"))
        // No SQLite file was made: the data folder only holds this server's files.
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/nestory.sqlite"))
        // Again, through the environment: nothing left to apply, the same schema.
        let second = try CLI.run(["migrate", "--data", folder.path], environment: ["NESTORY_DATABASE_URL": url, "NESTORY_DATABASE_SCHEMA": schema])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == first.stdout)
        #expect(!second.stderr.contains("schema change applied"))
        for output in [first.stdout, first.stderr, second.stdout, second.stderr] {
            #expect(!output.contains(Self.password ?? "no password"), "the password was shown")
        }
    }

    @Test func aWrongPasswordAndAMissingDatabaseAreSaidPlainly() throws {
        guard let url = try Self.postgres(), let password = Self.password else { return }
        let folder = CLI.Folder()
        let wrong = try CLI.run(["migrate", "--data", folder.path, "--database", url.replacingOccurrences(of: ":\(password)@", with: ":not-it@")])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("refused the password for user nestory"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("not-it"))
        var missing = URLComponents(string: url)!
        missing.path = "/no_such_database"
        let absent = try CLI.run(["migrate", "--data", folder.path], environment: ["NESTORY_DATABASE_URL": missing.string!])
        #expect(absent.status != 0)
        #expect(absent.stderr.contains("has no database named no_such_database"), "\(absent.stderr)")
        #expect(!absent.stderr.contains(password))
    }

    @Test func aURLThatIsNotPostgreSQLsIsRefusedBeforeAnythingOpens() throws {
        let folder = CLI.Folder()
        let mysql = try CLI.run(["migrate", "--data", folder.path, "--database", "mysql://root@db/inventory"])
        #expect(mysql.status != 0)
        #expect(mysql.stderr.contains("The setting database.url must be sqlite or a postgres:// URL: it starts with mysql://, not postgres://."),
                "\(mysql.stderr)")
        let noDatabase = try CLI.run(["serve", "--data", folder.path, "--database", "postgres://ann@db.example"])
        #expect(noDatabase.status != 0)
        #expect(noDatabase.stderr.contains("it names no database"), "\(noDatabase.stderr)")
        let schema = try CLI.run(["migrate", "--data", folder.path], environment: ["NESTORY_DATABASE_SCHEMA": "Robert'); DROP"])
        #expect(schema.status != 0)
        #expect(schema.stderr.contains("The setting database.schema must be lower-case letters"), "\(schema.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/nestory.sqlite"))
        // `sqlite` is the default said aloud.
        let sqlite = try CLI.run(["migrate", "--data", folder.path, "--database", "sqlite"])
        #expect(sqlite.status == 0, "\(sqlite.stderr)")
        #expect(sqlite.stdout.contains("nestory.sqlite is at schema"))
    }

    @Test func accountsTokensAndStatsWorkOnPostgreSQL() throws {
        guard let url = try Self.postgres() else { return }
        let folder = CLI.Folder()
        let environment = ["NESTORY_DATABASE_URL": url, "NESTORY_DATABASE_SCHEMA": Self.schema()]
        let added = try CLI.run(["user", "add", "ann@example.com", "--name", "Ann", "--household", "Smiths", "--currency", "EUR", "--data", folder.path],
                                stdin: "correct horse battery\n", environment: environment)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Added ann@example.com as owner of Smiths"), "\(added.stdout)")
        let stats = try CLI.run(["stats", "--json", "--data", folder.path], environment: environment)
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("\"name\" : \"Smiths\""), "\(stats.stdout)")
        #expect(stats.stdout.contains("\"itemCount\" : 0"), "\(stats.stdout)")
        let token = try CLI.run(["token", "create", "ann@example.com", "--name", "scripts", "--data", folder.path], environment: environment)
        #expect(token.status == 0, "\(token.stderr)")
        #expect(token.stdout.hasPrefix("nst_"))
        let list = try CLI.run(["token", "list", "ann@example.com", "--data", folder.path], environment: environment)
        #expect(list.stdout.contains("\tread\tscripts\t"), "\(list.stdout)")
        // The same names on the default SQLite file in the folder find nothing: the commands used PostgreSQL.
        let sqlite = try CLI.run(["stats", "--data", folder.path])
        #expect(sqlite.status != 0)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/nestory.sqlite"))
        // Backups too are of the PostgreSQL household (PostgresCommandTests has the other commands).
        let backup = try CLI.run(["backup", "--data", folder.path, folder.path + "/b.zip"], environment: environment)
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("Backed up Smiths"), "\(backup.stdout)")
    }
}
