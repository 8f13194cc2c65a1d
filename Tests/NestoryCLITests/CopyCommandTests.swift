import Foundation
import GRDB
import NestoryAuth
import NestoryDomain
import NestoryHTTP
import NestoryObjectStorage
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// `nestory copy`: a SQLite data folder's households onto PostgreSQL (the test cluster of scripts/with-postgres.sh,
/// in a schema of the test's own), verified, and resumable.
@Suite("copy to PostgreSQL")
struct CopyCommandTests {
    static let postgresURL = ProcessInfo.processInfo.environment["NESTORY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let postgresRequired = ProcessInfo.processInfo.environment["NESTORY_REQUIRE_POSTGRES"] == "1"

    @Test("every household is copied and verified; a second run verifies and skips them; a change is copied again",
          .enabled(if: postgresURL != nil || postgresRequired))
    func copyResumeAndChange() throws {
        let url = try #require(Self.postgresURL, "run through scripts/with-postgres.sh")
        let folder = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "40", "--seed", "5", "--name", "Home"]).status == 0)
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "25", "--seed", "6", "--name", "Cottage",
                             "--owner", "cottage@example.com"]).status == 0)
        let schema = "t_" + String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20))
        let copy = ["copy", "--from", "sqlite:\(folder.path)", "--to", url, "--to-schema", schema]

        let first = try CLI.run(copy)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Home: copied, verified: 40 items"), "\(first.stdout)")
        #expect(first.stdout.contains("Cottage: copied, verified: 25 items"), "\(first.stdout)")
        #expect(first.stdout.contains("2 households: 2 copied, 0 copied again, 0 already there."), "\(first.stdout)")

        // Run again (as after an interruption): both are there and the same, so nothing is written.
        let second = try CLI.run(copy)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("Home: already copied, verified."), "\(second.stdout)")
        #expect(second.stdout.contains("2 households: 0 copied, 0 copied again, 2 already there."), "\(second.stdout)")

        // The source moves on: that household is copied again (and verified), the other is left.
        let csv = folder.path + ".csv"
        defer { try? FileManager.default.removeItem(atPath: csv) }
        try "Name,Price,Room\nNew sofa,899.00,Den\n".write(toFile: csv, atomically: true, encoding: .utf8)
        #expect(try CLI.run(["import", "csv", "--data", folder.path, "--household", "Cottage", csv]).status == 0)
        let third = try CLI.run(copy)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.contains("Cottage: copied again (it had changed), verified: 26 items"), "\(third.stdout)")
        #expect(third.stdout.contains("2 households: 0 copied, 1 copied again, 1 already there."), "\(third.stdout)")

        // The SQLite side is untouched by the copy: its own backup still has every file.
        let archive = folder.path + ".zip"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        #expect(try CLI.run(["backup", "--data", folder.path, "--household", "Home", archive]).status == 0)
    }

    static func schema() -> String {
        "t_" + String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20))
    }

    /// The PostgreSQL stores `copy` wrote to, over the test's data folder (and its object store, for --blobs).
    static func withTarget<T>(_ url: String, schema: String, folder: String, backend: (any BlobBackend)? = nil,
                              _ body: (Stores) async throws -> T) async throws -> T {
        let data = DataFolder(path: folder)
        let files = BlobStore(folder: data, backend: backend)
        let store = try await PostgresStore.open(.init(location: try PostgresLocation(url: url), schema: schema, maximumConnections: 2, blobs: files))
        do {
            let result = try await body(.postgres(store, files: files))
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    @Test("everything is copied: an account in no household, passkeys, tokens, feeds, reminder settings, webhooks, licences, the catalogue; again changes nothing; a change moves only it",
          .enabled(if: postgresURL != nil || postgresRequired))
    func everythingIsCopied() async throws {
        let url = try #require(Self.postgresURL, "run through scripts/with-postgres.sh")
        let folder = CLI.Folder()
        defer { withExtendedLifetime(folder) {} }
        let path = folder.path
        let setup = try await offThePool {
            [try CLI.run(["demo", "--data", path, "--items", "12", "--seed", "5", "--name", "Home", "--owner", "home@example.com"]),
             try CLI.run(["demo", "--data", path, "--items", "8", "--seed", "6", "--name", "Cottage", "--owner", "cottage@example.com"])]
        }
        #expect(setup.allSatisfy { $0.status == 0 }, "\(setup.map(\.stderr))")
        let made = try await offThePool { try CLI.run(["token", "create", "cottage@example.com", "--name", "Script", "--scope", "read", "--data", path]) }
        #expect(made.status == 0, "\(made.stderr)")
        let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // What the command line cannot make, made in the SQLite database itself.
        let now = Date(millis: 1_764_000_000_000)
        let source = try AppDatabase.open(DataFolder(path: path))
        let home = try #require(try source.households(named: "Home").first)
        let cottage = try #require(try source.households(named: "Cottage").first)
        let (loner, _, _) = try source.createAccount(email: "loner@example.com", displayName: "Lone", passwordHash: "hash-l",
                                                     household: .existing(home.id), role: .member, now: now)
        try source.removeMember(home.id, user: loner.id)
        try source.setTheme(loner.id, .dark)
        try source.setReminderPreferences(loner.id, ReminderPreferences(warranties: false, weeklyNudge: false))
        let owner = try #require(try source.members(of: cottage.id).first?.user)
        let passkey = try source.addPasskey(userID: owner.id, credentialID: [7, 7, 7], name: "Phone", publicKey: [1, 2], signCount: 4,
                                            backupEligible: true, now: now)
        try source.setCalendarFeed(owner.id, token: "feed", tokenHash: "feed-hash", now: now)
        try source.setWebhook(cottage.id, url: "https://hooks.example.com/a", newSecret: "whsec_abc", replaceSecret: false, now: now)
        try source.markEventSent(cottage.id, eventID: "warranty-7-x", now: now)
        try source.installLicence(key: "licence-for-home", keyID: "k1", household: home.id, now: now)
        try source.importCatalog([ProductRecord(source: "catalog", code: "4006381333931", name: "Pen"),
                                  ProductRecord(source: "catalog", code: "5000112637922", name: "Cola", brand: "Co")], now: now)
        let expected = try source.serverRecords()
        try source.close()
        #expect(expected.accounts.count == 3 && expected.passkeys.count == 1 && expected.apiTokens.count == 1 && expected.products.count == 2)

        let schema = Self.schema()
        let copy = ["copy", "--from", "sqlite:\(path)", "--to", url, "--to-schema", schema]
        let first = try await offThePool { try CLI.run(copy) }
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("2 households: 2 copied, 0 copied again, 0 already there."), "\(first.stdout)")
        #expect(first.stdout.contains("3 accounts, 1 passkeys, 1 API tokens, 1 calendar feeds, 1 webhooks, 1 webhook events sent, 1 licences, 2 products: 11 rows copied and the server's id, 0 rows removed."), "\(first.stdout)")
        #expect(!first.stdout.contains("Nothing changed"))

        // Every kind is on PostgreSQL as SQLite has it, and the token authenticates there through the services.
        try await Self.withTarget(url, schema: schema, folder: path) { (stores: Stores) async throws -> Void in
            #expect(try await stores.serverRecords.serverRecords() == expected)
            #expect(try await stores.licences.instanceID() == expected.instanceID)
            #expect(try await stores.accounts.memberships(of: loner.id).isEmpty)
            #expect(try await stores.accounts.user(loner.id)?.email == "loner@example.com")
            #expect(try await stores.reminders.reminderPreferences(loner.id) == ReminderPreferences(warranties: false, weeklyNudge: false))
            #expect(try await stores.accounts.passkey(credentialID: [7, 7, 7])?.id == passkey.id)
            #expect(try await stores.reminders.webhook(cottage.id)?.secret == "whsec_abc")
            #expect(try await stores.products.catalogProduct(codes: ["5000112637922"])?.brand == "Co")
            #expect(try await stores.licences.licences(for: home.id).map(\.key) == ["licence-for-home"])
        }

        // Again: nothing changed, and it says so.
        let second = try await offThePool { try CLI.run(copy) }
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("2 households: 0 copied, 0 copied again, 2 already there."), "\(second.stdout)")
        #expect(second.stdout.contains(": 0 rows copied, 0 rows removed."), "\(second.stdout)")
        #expect(second.stdout.contains("Nothing changed: everything was already there."), "\(second.stdout)")

        // One thing changes in SQLite (the webhook's address), and one goes (the passkey): only they move.
        let changed = try AppDatabase.open(DataFolder(path: path))
        try changed.setWebhook(cottage.id, url: "https://hooks.example.com/b", newSecret: "unused", replaceSecret: false, now: now)
        _ = try changed.removePasskey(of: owner.id, id: passkey.id)
        try changed.close()
        let third = try await offThePool { try CLI.run(copy) }
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.contains("2 households: 0 copied, 0 copied again, 2 already there."), "\(third.stdout)")
        #expect(third.stdout.contains("3 accounts, 0 passkeys, 1 API tokens, 1 calendar feeds, 1 webhooks, 1 webhook events sent, 1 licences, 2 products: 1 row copied, 1 row removed."), "\(third.stdout)")
        try await Self.withTarget(url, schema: schema, folder: path) { (stores: Stores) async throws -> Void in
            #expect(try await stores.reminders.webhook(cottage.id).map { [$0.url, $0.secret] } == ["https://hooks.example.com/b", "whsec_abc"])
            #expect(try await stores.accounts.passkey(credentialID: [7, 7, 7]) == nil)
            let access = try await TokenService(stores: stores).authenticate(token)
            #expect(access?.household.id == cottage.id && access?.user.email == "cottage@example.com" && access?.scope == .read)
            #expect(try await TokenService(stores: stores).authenticate(token + "x") == nil)
        }
    }

    @Test("--blobs s3://…: the files go to the object store once, are verified from it, and a copy made without it is moved there",
          .enabled(if: postgresURL != nil || postgresRequired))
    func blobsGoToTheObjectStore() async throws {
        let url = try #require(Self.postgresURL, "run through scripts/with-postgres.sh")
        let server = try await S3TestServer.get()
        let bucket = try await offThePool { try server.makeBucket() }
        let folder = CLI.Folder()
        defer { withExtendedLifetime(folder) {} }
        let path = folder.path
        let demo = try await offThePool { try CLI.run(["demo", "--data", path, "--items", "15", "--seed", "8", "--name", "Home"]) }
        #expect(demo.status == 0, "\(demo.stderr)")
        let stored = Set((FileManager.default.enumerator(atPath: path + "/blobs")?.allObjects.compactMap { $0 as? String } ?? [])
            .map { ($0 as NSString).lastPathComponent }.filter { $0.count == 64 })
        // The files rows name (the demo leaves a few no row names, for the sweep: those are not copied).
        let referenced = try await DatabaseQueue(path: path + "/nestory.sqlite").read { db in
            Set(try String.fetchAll(db, sql: "SELECT sha256 FROM item_photo UNION SELECT sha256 FROM receipt"))
        }
        #expect(referenced.count > 5 && referenced.isSubset(of: stored))
        let environment = ["NESTORY_STORAGE_S3_ENDPOINT": server.proxy.absoluteString, "NESTORY_STORAGE_S3_PATH_STYLE": "true",
                           "NESTORY_STORAGE_S3_ACCESS_KEY": server.accessKey, "NESTORY_STORAGE_S3_SECRET_KEY": server.secretKey,
                           "NESTORY_STORAGE_S3_ATTEMPTS": "2"]
        let schema = Self.schema()
        let copy = ["copy", "--from", "sqlite:\(path)", "--to", url, "--to-schema", schema]
        // First without --blobs (the files stay in the data folder), then with: the household is copied again, its files put.
        let local = try await offThePool { try CLI.run(copy, environment: environment) }
        #expect(local.status == 0, "\(local.stderr)")
        #expect(try await offThePool { try server.requests(bucket) }.isEmpty)
        let withBlobs = copy + ["--blobs", "s3://\(bucket)/nestory"]
        let first = try await offThePool { try CLI.run(withBlobs, environment: environment) }
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Home: copied again (it had changed), verified: 15 items"), "\(first.stdout)")
        let puts = try await offThePool { try server.requests(bucket) }.filter { $0.hasPrefix("PUT /\(bucket)/nestory/") }
        #expect(Set(puts.map { String($0.split(separator: "/").last ?? "") }) == referenced, "\(puts)")
        #expect(puts.count == referenced.count)

        // Again: every file is there, so nothing is put; the check read them back from the store.
        let before = try await offThePool { try server.requests(bucket) }.count
        let second = try await offThePool { try CLI.run(withBlobs, environment: environment) }
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("Home: already copied, verified."), "\(second.stdout)")
        #expect(second.stdout.contains("Nothing changed: everything was already there."), "\(second.stdout)")
        let after = try await offThePool { try server.requests(bucket) }.dropFirst(before)
        #expect(!after.contains { $0.hasPrefix("PUT") } && after.filter { $0.hasPrefix("GET") }.count >= referenced.count, "\(after)")

        // The PostgreSQL stores opened with the object store read a photo's bytes from it.
        let sha = try #require(referenced.first)
        let bytes = try await Self.withTarget(url, schema: schema, folder: path, backend: S3BlobBackend(
            location: S3Location(bucket: bucket, prefix: "nestory/", endpoint: server.proxy, region: "us-east-1", pathStyle: true,
                                 accessKey: server.accessKey, secretKey: server.secretKey), timeout: 5, retry: RetryPolicy(maxAttempts: 2))) { stores in
            try await offThePool { try stores.files.read(sha) }
        }
        #expect(bytes == (try Data(contentsOf: URL(fileURLWithPath: path + "/blobs/\(sha.prefix(2))/\(sha.dropFirst(2).prefix(2))/\(sha)"))))

        let missing = try await offThePool { try CLI.run(withBlobs, environment: [:]) }
        #expect(missing.status != 0 && missing.stderr.contains("storage.s3.accessKey"), "\(missing.stderr)")
    }

    @Test("a SQLite server whose files are in an object store (storage.blobs): copied without --blobs, its files stay there and are read from it",
          .enabled(if: postgresURL != nil || postgresRequired))
    func filesAlreadyInAnObjectStoreStayThere() async throws {
        let url = try #require(Self.postgresURL, "run through scripts/with-postgres.sh")
        let server = try await S3TestServer.get()
        let bucket = try await offThePool { try server.makeBucket() }
        let folder = CLI.Folder()
        defer { withExtendedLifetime(folder) {} }
        let path = folder.path
        let environment = ObjectStorageCommandTests.environment(server, bucket: bucket)
        let demo = try await offThePool { try CLI.run(["demo", "--data", path, "--items", "10", "--seed", "9", "--name", "Flat"], environment: environment) }
        #expect(demo.status == 0, "\(demo.stderr)")
        let before = try await offThePool { try server.requests(bucket) }
        #expect(before.contains { $0.hasPrefix("PUT") })
        let copy = ["copy", "--from", "sqlite:\(path)", "--to", url, "--to-schema"]
        let copied = try await offThePool { try CLI.run(copy + [Self.schema()], environment: environment) }
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout.contains("Flat: copied, verified: 10 items"), "\(copied.stdout)")
        let during = try await offThePool { try server.requests(bucket) }.dropFirst(before.count)
        #expect(!during.contains { $0.hasPrefix("PUT") } && during.contains { $0.hasPrefix("GET") }, "\(during)")
        // Without the settings the files are not in the data folder: the copy stops and says which file.
        let without = try await offThePool { try CLI.run(copy + [Self.schema()]) }
        #expect(without.status != 0 && without.stderr.contains("A stored file is missing: \(path)/blobs/"), "\(without.stderr)")
    }

    @Test("an account made on PostgreSQL with an e-mail address SQLite has too stops the copy before anything is written, saying which",
          .enabled(if: postgresURL != nil || postgresRequired))
    func anAccountOfTheSameAddressOnPostgreSQLIsNamed() async throws {
        let url = try #require(Self.postgresURL, "run through scripts/with-postgres.sh")
        let folder = CLI.Folder()
        defer { withExtendedLifetime(folder) {} }
        let path = folder.path
        let demo = try await offThePool { try CLI.run(["demo", "--data", path, "--items", "3", "--seed", "2", "--owner", "ann@example.com"]) }
        #expect(demo.status == 0, "\(demo.stderr)")
        let schema = Self.schema()
        try await Self.withTarget(url, schema: schema, folder: path) { (stores: Stores) async throws -> Void in
            _ = try await stores.accounts.createAccount(email: "ann@example.com", displayName: "Other Ann", passwordHash: "h",
                                                        household: .new(name: "Theirs", currency: .usd), role: .owner, onlyIfFirst: false, now: Date())
        }
        let copy = try await offThePool { try CLI.run(["copy", "--from", "sqlite:\(path)", "--to", url, "--to-schema", schema]) }
        #expect(copy.status != 0 && copy.stderr.contains("ann@example.com has another account on PostgreSQL"), "\(copy.stderr)")
        try await Self.withTarget(url, schema: schema, folder: path) { (stores: Stores) async throws -> Void in
            #expect(try await stores.accounts.allHouseholds().map(\.name) == ["Theirs"])
        }
    }

    @Test("a source that is not sqlite:PATH, or a folder without a database, is refused")
    func refusals() throws {
        let folder = CLI.Folder()
        let bad = try CLI.run(["copy", "--from", folder.path, "--to", "postgres://u:p@127.0.0.1:1/db"])
        #expect(bad.status != 0 && bad.stderr.contains("--from is sqlite:PATH"), "\(bad.stderr)")
        let empty = try CLI.run(["copy", "--from", "sqlite:\(folder.path)", "--to", "postgres://u:p@127.0.0.1:1/db"])
        #expect(empty.status != 0 && empty.stderr.contains("There is no Nestory database"), "\(empty.stderr)")
    }
}
