import Foundation
import NestoryChildProcess
import GRDB
import NestoryAuth
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NestoryDomain
import NestoryStore
import Testing

@Suite(.serialized) struct CommandTests {
    @Test func migrateCreatesTheDatabase() throws {
        let folder = CLI.Folder()
        let result = try CLI.run(["migrate", "--data", folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(AppDatabase.knownMigrations.last!))
        #expect(FileManager.default.fileExists(atPath: folder.path + "/nestory.sqlite"))
        // Running it again changes nothing and still succeeds.
        #expect(try CLI.run(["migrate", "--data", folder.path]).status == 0)
    }

    @Test func theDataFolderCanComeFromTheEnvironment() throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["migrate"], environment: ["NESTORY_DATA": folder.path]).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/nestory.sqlite"))
    }

    @Test func demoThenStats() throws {
        let folder = CLI.Folder()
        let demo = try CLI.run(["demo", "--data", folder.path, "--items", "300", "--seed", "5"])
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("with 300 items"))
        let stats = try CLI.run(["stats", "--data", folder.path])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("300 across"))
        #expect(stats.stdout.contains("Documentation score"))
        let json = try CLI.run(["stats", "--data", folder.path, "--json"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((root["household"] as? [String: Any])?["name"] as? String == "Demo Household")
        let object = try #require(root["summary"] as? [String: Any])
        #expect(object["itemCount"] as? Int == 300)
        let documented = try #require(object["documentedCount"] as? Int)
        #expect(object["documentationScorePercent"] as? Int == documented * 100 / 300)
    }

    @Test func theDemoHasAnOwnerWhoCanSignIn() throws {
        let folder = CLI.Folder()
        let demo = try CLI.run(["demo", "--data", folder.path, "--items", "3"])
        #expect(demo.status == 0, "\(demo.stderr)")
        let line = try #require(demo.stdout.split(separator: "\n").first { $0.hasPrefix("Sign in as demo@example.com with the password ") })
        let password = String(line.dropFirst("Sign in as demo@example.com with the password ".count).prefix { $0 != " " })
        let database = try AppDatabase.open(DataFolder(path: folder.path), mode: .readCurrent)
        defer { try? database.close() }
        let credentials = try #require(try database.userCredentials(email: "demo@example.com"))
        #expect(BcryptPasswordHasher().verify(password, against: credentials.passwordHash))
        let household = try #require(try database.allHouseholds().first)
        #expect(try database.members(of: household.id).map(\.role) == [.owner])
        // A second demo with the same owner: the existing account owns it too, its password unchanged.
        let again = try CLI.run(["demo", "--data", folder.path, "--items", "1", "--name", "Second"])
        #expect(again.status == 0 && again.stdout.contains("its own password"), "\(again.stdout) \(again.stderr)")
        #expect(try database.memberships(of: credentials.user.id).map(\.role) == [.owner, .owner])
    }

    @Test func demoIsDeterministicWithASeed() throws {
        let a = CLI.Folder(), b = CLI.Folder()
        for folder in [a, b] { #expect(try CLI.run(["demo", "--data", folder.path, "--items", "120", "--seed", "9"]).status == 0) }
        let statsA = try CLI.run(["stats", "--data", a.path, "--json"]).stdout
        let statsB = try CLI.run(["stats", "--data", b.path, "--json"]).stdout
        let strip = { (s: String) in s.split(separator: "\n").filter { !$0.contains("\"id\"") }.joined(separator: "\n") }
        #expect(strip(statsA) == strip(statsB))
        let other = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", other.path, "--items", "120", "--seed", "10"]).status == 0)
        #expect(strip(try CLI.run(["stats", "--data", other.path, "--json"]).stdout) != strip(statsA))
    }

    @Test func userAddCreatesAHouseholdAndJoinsIt() throws {
        let folder = CLI.Folder()
        let owner = try CLI.run(["user", "add", "Alice@Example.com", "--household", "The Smiths", "--currency", "EUR", "--time-zone", "Europe/Paris",
                                 "--data", folder.path], stdin: "correct horse battery staple\n")
        #expect(owner.status == 0, "\(owner.stderr)")
        #expect(owner.stdout.contains("alice@example.com as owner of The Smiths"))
        // The name as typed in a hurry finds the household: no second "the smiths" is made.
        let member = try CLI.run(["user", "add", "bob@example.com", "--household", " the SMITHS", "--data", folder.path],
                                 environment: ["NESTORY_PASSWORD": "another long password"])
        #expect(member.status == 0, "\(member.stderr)")
        #expect(member.stdout.contains("as member of The Smiths"))
        // The stored hash verifies, and the household has the defaults and the chosen currency.
        let database = try AppDatabase.open(DataFolder(path: folder.path), mode: .readCurrent)
        let household = try #require(try database.households(named: "The Smiths").first)
        #expect(household.currency == .eur && household.timeZone == "Europe/Paris")
        #expect(try database.members(of: household.id).map(\.role) == [.owner, .member])
        #expect(try database.allHouseholds().count == 1)
        #expect(try database.rooms(household.id).count == Defaults.rooms.count)
        let credentials = try #require(try database.userCredentials(email: "ALICE@example.com"))
        #expect(credentials.passwordHash.hasPrefix("bcrypt-sha256$"))
        #expect(!credentials.passwordHash.contains("correct horse"))
        try database.close()
    }

    @Test func userAddRefusesBadInputClearly() throws {
        let folder = CLI.Folder()
        let short = try CLI.run(["user", "add", "a@example.com", "--household", "H", "--data", folder.path], stdin: "short\n")
        #expect(short.status != 0)
        #expect(short.stderr.contains("at least 10 characters"))
        let noPassword = try CLI.run(["user", "add", "a@example.com", "--household", "H", "--data", folder.path], stdin: "")
        #expect(noPassword.status != 0)
        #expect(noPassword.stderr.contains("No password given"))
        let badZone = try CLI.run(["user", "add", "a@example.com", "--household", "H", "--time-zone", "Paris", "--data", folder.path],
                                  stdin: "long enough password\n")
        #expect(badZone.status != 0)
        #expect(badZone.stderr.contains("Choose a time zone from the list, such as Europe/London."), "\(badZone.stderr)")
        let badEmail = try CLI.run(["user", "add", "not-an-email", "--household", "H", "--data", folder.path], stdin: "long enough password\n")
        #expect(badEmail.status != 0)
        #expect(badEmail.stderr.contains("email address"))
        #expect(try CLI.run(["user", "add", "a@example.com", "--household", "H", "--data", folder.path], stdin: "long enough password\n").status == 0)
        let duplicate = try CLI.run(["user", "add", "A@example.com", "--household", "H", "--data", folder.path], stdin: "long enough password\n")
        #expect(duplicate.status != 0)
        #expect(duplicate.stderr.contains("already exists"))
    }

    @Test func statsExplainsMissingAndAmbiguousHouseholds() throws {
        let folder = CLI.Folder()
        let none = try CLI.run(["stats", "--data", folder.path])
        #expect(none.status != 0)
        #expect(none.stderr.contains("There is no Nestory database"))
        #expect(!FileManager.default.fileExists(atPath: folder.path))  // stats creates nothing
        #expect(try CLI.run(["migrate", "--data", folder.path]).status == 0)
        #expect(try CLI.run(["stats", "--data", folder.path]).stderr.contains("no household yet"))
        for name in ["One", "Two"] {
            #expect(try CLI.run(["demo", "--data", folder.path, "--items", "3", "--name", name]).status == 0)
        }
        #expect(try CLI.run(["stats", "--data", folder.path]).stderr.contains("choose one with --household"))
        let two = try CLI.run(["stats", "--data", folder.path, "--household", "Two"])
        #expect(two.status == 0 && two.stdout.hasPrefix("Two"))
        #expect(try CLI.run(["stats", "--data", folder.path, "--household", "Three"]).stderr.contains("no household called Three"))
    }

    @Test func clearErrorsForABadDataFolder() throws {
        let folder = CLI.Folder()
        FileManager.default.createFile(atPath: folder.path, contents: Data("I am a file".utf8))
        let result = try CLI.run(["migrate", "--data", folder.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot be used: it is a file, not a folder"))
    }

    @Test func clearErrorsForACorruptDatabase() throws {
        let folder = CLI.Folder()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let junk = Data(String(repeating: "not a database ", count: 300).utf8)
        FileManager.default.createFile(atPath: folder.path + "/nestory.sqlite", contents: junk)
        for command in [["migrate"], ["stats"], ["demo", "--items", "1"]] {
            let result = try CLI.run(command + ["--data", folder.path])
            #expect(result.status != 0)
            #expect(result.stderr.contains("damaged or is not a Nestory database"), "\(command): \(result.stderr)")
        }
        #expect(FileManager.default.contents(atPath: folder.path + "/nestory.sqlite") == junk)
    }

    @Test func clearErrorsForANewerSchema() throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["migrate", "--data", folder.path]).status == 0)
        try ChildProcess.run("/usr/bin/sqlite3", [folder.path + "/nestory.sqlite", "INSERT INTO grdb_migrations VALUES ('2099-01-01-teleporter')"])
        let result = try CLI.run(["stats", "--data", folder.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("newer version of Nestory"))
        #expect(result.stderr.contains("2099-01-01-teleporter"))
    }

    @Test func clearErrorsForALockedDatabase() throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "2"]).status == 0)
        let shell = try ChildProcess(executable: "/usr/bin/sqlite3", arguments: [folder.path + "/nestory.sqlite"])
        func send(_ text: String) { _ = Array(text.utf8).withUnsafeBytes { shell.write($0) } }
        send("BEGIN EXCLUSIVE;\nSELECT 'locked';\n")
        #expect(String(decoding: shell.read(timeout: 30_000) ?? [], as: UTF8.self) == "locked\n", "the shell holds the lock")
        defer {
            send("ROLLBACK;\n.quit\n")
            shell.waitUntilExit()
        }
        let result = try CLI.run(["demo", "--data", folder.path, "--items", "1"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("locked by another process"), "\(result.stderr)")
    }

    @Test func serveAnswersHealthChecks() async throws {
        let folder = CLI.Folder()
        let server = try CLI.Server(folder: folder)
        defer { server.stop() }
        let health = try #require(await server.health(), "the server did not answer within 30 s: \(server.story)")
        #expect(health.contains("\"status\":\"ok\""))
        #expect(server.process.isRunning)
    }

    /// The whole-file check runs after the port is bound (at a million items it takes seconds): a damaged file
    /// still gets answers, and /health/ready reports what the check found.
    @Test func aDamagedDatabaseIsReportedByReadinessNotByAStartThatNeverAnswers() async throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "400"], environment: ["NESTORY_LICENCE_INSTANCE_PRO": "true"]).status == 0)
        let file = URL(fileURLWithPath: folder.path).appendingPathComponent("nestory.sqlite")
        // One page of an index the list uses and starting the server does not read. A page picked by its place in the
        // file (the middle) was sometimes a free page (the check found nothing) and sometimes one the server reads as it
        // starts: the demo's file is not laid out the same way twice.
        let (page, pageSize) = try await DatabaseQueue(path: file.path).read { db in
            (try Int.fetchOne(db, sql: "SELECT pageno FROM dbstat WHERE name = 'item_by_room_created' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1"),
             try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096)
        }
        let damaged = try #require(page, "the index has no leaf page")
        let handle = try FileHandle(forUpdating: file)
        try handle.seek(toOffset: UInt64((damaged - 1) * pageSize))
        handle.write(Data(repeating: 0xAB, count: pageSize))
        try handle.close()

        let server = try CLI.Server(folder: folder)
        defer { server.stop() }
        #expect(await server.health() != nil, "the server did not answer within 30 s: \(server.story)")
        var ready: (status: Int, body: String)?
        for _ in 0..<50 {
            ready = await server.get("/health/ready")
            if ready?.body.contains("\"integrity\"") == true, ready?.status == 503 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(ready?.status == 503, "\(String(describing: ready))")
        let body = try #require(try JSONSerialization.jsonObject(with: Data((ready?.body ?? "{}").utf8)) as? [String: Any])
        let checks = try #require(body["checks"] as? [[String: Any]])
        let integrity = try #require(checks.first { $0["name"] as? String == "integrity" })
        #expect(integrity["ok"] as? Bool == false)
        #expect(checks.first { $0["name"] as? String == "database" }?["ok"] as? Bool == true)
    }

    @Test func helpAndVersion() throws {
        let help = try CLI.run(["--help"])
        for command in ["serve", "migrate", "user", "demo", "stats"] { #expect(help.stdout.contains(command)) }
        #expect(try CLI.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == NestoryVersion.current)
        let unknown = try CLI.run(["teleport"])
        #expect(unknown.status != 0)
    }
}
