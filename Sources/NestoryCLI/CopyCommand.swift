import ArgumentParser
import Foundation
import NestoryBackup
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres

/// `nestory copy --from sqlite:PATH --to postgres://… [--blobs s3://…]`: moves a SQLite data folder to PostgreSQL. The
/// accounts first (`ServerRecordStore`, keeping their ids), then each household through the archive (`ArchiveStore`), one
/// per transaction, checked by backing it up from both stores and comparing the archives byte for byte (they are made
/// at one time, so nothing may differ), then the rest of `ServerRecords`, checked by reading it back and comparing it
/// row by row. Each step writes only what differs, so a second run changes nothing.
struct CopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy everything from a SQLite data folder to PostgreSQL (and its files to an object store), and verify it.",
        discussion: """
            Copied: every account (those in no household too, with their password hashes, passkeys, API tokens as their \
            hashes, calendar feeds and their settings for reminders, look and the app lock); every household (rooms, \
            categories, items, photos, receipts, valuations, reports, valuation settings, members, its webhook with its \
            secret, and the webhook events already sent); licences, with this server's id so that a licence for the whole \
            server still applies; the product table (the catalogue and providers' cached answers).

            Not copied: sign-in sessions (everyone signs in again); jobs (finished ones are history, and a running one \
            belongs to the old server: let it finish first); passkey challenges, sign-in failures, idempotency keys and the \
            capture counters.

            Verified: each household goes in one transaction and is checked by backing it up from both stores and comparing \
            the archives byte for byte; every other kind is read back from PostgreSQL and compared row by row with SQLite. \
            Run it again to resume, or to catch up just before switching: what is there and the same is left (a run with \
            nothing to do says so); a household or a row changed in SQLite since is copied again; a passkey, token, \
            calendar feed or webhook removed in SQLite since is removed. SQLite is the truth here: once people use the \
            PostgreSQL server, do not copy again (a household changed there would be replaced, a token made there removed).

            Files: with --blobs s3://BUCKET[/PREFIX], photos, receipts and report PDFs are put in that object store (each \
            file once: one already there is skipped), using the storage.s3.* settings (endpoint, region, pathStyle, \
            accessKey, secretKey), and read back from it to verify; serve with storage.blobs set to the same address. \
            Without --blobs they go where the settings' storage.blobs keeps the SQLite server's stored files (the data \
            folder's blobs/ by default, report PDFs moved there from its reports/), which the PostgreSQL deployment keeps \
            using.
            """)

    @Option(help: "The SQLite data folder to copy from, as sqlite:PATH.")
    var from: String

    @Option(help: "The PostgreSQL database to copy to (postgres://USER:PASSWORD@HOST:PORT/DB?sslmode=…).")
    var to: String

    @Option(help: "A schema of its own inside the PostgreSQL database (made when missing).")
    var toSchema: String?

    @Option(help: "Put photos and receipts in this S3-compatible object store, s3://BUCKET[/PREFIX] (storage.s3.* settings for the rest).")
    var blobs: String?

    func run() async throws {
        guard from.hasPrefix("sqlite:"), from.count > "sqlite:".count else { throw CLIError("--from is sqlite:PATH (a data folder).") }
        let folder = DataFolder(path: String(from.dropFirst("sqlite:".count)))
        guard FileManager.default.fileExists(atPath: folder.databaseURL.path) else {
            throw CLIError("There is no Nestory database in \(folder.url.path).")
        }
        let location: PostgresLocation
        do { location = try PostgresLocation(url: to) } catch { throw CLIError("--to: \(error)") }
        // The source's files are where its settings keep them (storage.blobs: the data folder by default, or an object
        // store); without --blobs the copy keeps them there too.
        func settings(_ flags: [String: String], _ what: String) async throws -> Settings {
            do { return try await Settings.read(flags: flags.merging(["data": folder.url.path]) { own, _ in own }) } catch let error as Settings.Invalid {
                throw CLIError("\(what)\(error.description)")
            }
        }
        let sourceBackend = try await settings([:], "").blobBackend
        let source = try reportingErrors { try AppDatabase.open(folder, mode: .readCurrent, blobBackend: sourceBackend) }
        var files = BlobStore(folder: folder, backend: sourceBackend)
        if let blobs {
            guard let backend = try await settings(["storage.blobs": blobs], "--blobs: ").blobBackend else {
                throw CLIError("--blobs is s3://BUCKET[/PREFIX], not \(blobs).")
            }
            files = BlobStore(folder: folder, backend: backend)
        }
        let target = try await reportingErrors {
            try await PostgresStore.open(.init(location: location, schema: toSchema, maximumConnections: 4, blobs: files))
        }
        do {
            try await copy(from: .sqlite(source), sourceFiles: source.blobs, to: .postgres(target, files: files), targetFiles: files, folder: folder)
            await target.close()
        } catch {
            await target.close()
            throw cliError(error)
        }
    }

    func copy(from source: Stores, sourceFiles: any BlobFiles, to target: Stores, targetFiles: any BlobFiles, folder: DataFolder) async throws {
        // Both stores share the data folder's files: while the copy runs, a replaced household's rows on PostgreSQL go
        // but no file does (another household still to be copied, or SQLite itself, may use it).
        let pin = try targetFiles.backupPin()
        defer { pin.release() }
        // Accounts first, with their ids, so the households' members are these accounts.
        let server = try await source.serverRecords.serverRecords()
        var (written, removed) = (ServerRecords(), ServerRecords())
        let before = try await target.serverRecords.serverRecords()
        written.accounts = Self.changed(server.accounts, on: before.accounts)
        let emails = Dictionary(before.accounts.map { ($0.email, $0.id) }, uniquingKeysWith: { first, _ in first })
        if let clash = written.accounts.first(where: { account in emails[account.email].map { $0 != account.id } ?? false }) {
            throw CLIError("\(clash.email) has another account on PostgreSQL, not made by this copy: nothing was copied. Copy into an empty database (or a new --to-schema), or remove that account there first.")
        }
        if server.instanceID != before.instanceID { written.instanceID = server.instanceID }
        try await target.serverRecords.applyServerRecords(put: written, delete: ServerRecords())

        let households = try await source.accounts.allHouseholds()
        let made = Date()
        let work = folder.tmpURL.appendingPathComponent("copy-\(UUID().uuidString.lowercased())", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let sourceWriter = BackupWriter(archive: source.archive, valuations: source.valuations, blobs: sourceFiles, folder: folder)
        let targetWriter = BackupWriter(archive: target.archive, valuations: target.valuations, blobs: targetFiles, folder: folder)
        let reader = BackupReader(archive: target.archive, valuations: target.valuations, blobs: targetFiles, folder: folder)
        var (copied, skipped, again) = (0, 0, 0)
        for household in households {
            let archive = work.appendingPathComponent("\(household.id)-from.zip")
            let check = work.appendingPathComponent("\(household.id)-to.zip")
            defer { for url in [archive, check] { try? FileManager.default.removeItem(at: url) } }
            try await sourceWriter.write(household: household.id, to: archive, now: made, includePasswordHashes: true, includeProviderKeys: true)
            let expected = try Data(contentsOf: archive)
            let exists = try await target.archive.householdExists(household.id.description)
            if exists {
                do {
                    try await targetWriter.write(household: household.id, to: check, now: made, includePasswordHashes: true, includeProviderKeys: true)
                    if try Data(contentsOf: check) == expected {
                        print("\(household.name): already copied, verified.")
                        skipped += 1
                        continue
                    }
                } catch let error where Self.isMissingFile(error) {
                    // Copied before without its files where they go now (another --blobs): copied again, which puts them there.
                }
            }
            let checked = try reader.validate(archive)
            defer { checked.discard() }
            let summary = try await reader.apply(checked, into: exists ? household.id : nil, mode: .replace, plan: .everything)
            try await targetWriter.write(household: household.id, to: check, now: made, includePasswordHashes: true, includeProviderKeys: true)
            guard try Data(contentsOf: check) == expected else {
                throw CLIError("\(household.name) was copied, but its backup from PostgreSQL differs from the one from SQLite: nothing else was copied after it. Run the copy again; if it says this again, report it.")
            }
            print("\(household.name): \(exists ? "copied again (it had changed)" : "copied"), verified: \(summary.items.added) items, \(summary.photos.added) photos, \(summary.receipts.added) receipts, \(summary.members.added) members.")
            if exists { again += 1 } else { copied += 1 }
        }
        print("\(households.count) households: \(copied) copied, \(again) copied again, \(skipped) already there. Each verified byte for byte.")

        // The rest, now that every household is there. What SQLite no longer has of its accounts and households (a
        // revoked token, a removed passkey) goes; rows only PostgreSQL has otherwise (made there) stay.
        let now = try await target.serverRecords.serverRecords()
        let (users, homes) = (Set(server.accounts.map(\.id)), Set(households.map(\.id.description)))
        written.passkeys = Self.changed(server.passkeys, on: now.passkeys)
        written.apiTokens = Self.changed(server.apiTokens, on: now.apiTokens)
        written.calendarFeeds = Self.changed(server.calendarFeeds, on: now.calendarFeeds)
        written.webhooks = Self.changed(server.webhooks, on: now.webhooks)
        written.sentEvents = Self.changed(server.sentEvents, on: now.sentEvents)
        written.licences = Self.changed(server.licences, on: now.licences)
        written.products = Self.changed(server.products, on: now.products)
        // Of SQLite's accounts and households, what PostgreSQL has and SQLite no longer has.
        func leftOver(_ there: ServerRecords) -> ServerRecords {
            ServerRecords(passkeys: Self.gone(server.passkeys, from: there.passkeys.filter { users.contains($0.userID) }),
                          apiTokens: Self.gone(server.apiTokens, from: there.apiTokens.filter { users.contains($0.userID) }),
                          calendarFeeds: Self.gone(server.calendarFeeds, from: there.calendarFeeds.filter { users.contains($0.userID) }),
                          webhooks: Self.gone(server.webhooks, from: there.webhooks.filter { homes.contains($0.householdID) }))
        }
        removed = leftOver(now)
        var rest = written
        (rest.accounts, rest.instanceID) = ([], nil)
        try await target.serverRecords.applyServerRecords(put: rest, delete: removed)

        // Verified, from a fresh read: every row SQLite has is on PostgreSQL, the same, and its accounts and households have
        // no passkey, token, feed or webhook SQLite does not have.
        let after = try await target.serverRecords.serverRecords()
        var faults: [String] = []
        func check<Row: Hashable>(_ kind: String, _ rows: [Row], _ there: [Row], left: [Row] = [], key: (Row) -> String) -> String {
            let found = Dictionary(there.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
            let differ = rows.filter { found[key($0)] != $0 }.count
            if differ + left.count > 0 { faults.append("\(kind): \(differ) differ\(left.isEmpty ? "" : ", \(left.count) not removed")") }
            return "\(rows.count) \(kind)"
        }
        let left = leftOver(after)
        let kinds = [
            check("accounts", server.accounts, after.accounts, key: \.key),
            check("passkeys", server.passkeys, after.passkeys, left: left.passkeys, key: \.key),
            check("API tokens", server.apiTokens, after.apiTokens, left: left.apiTokens, key: \.key),
            check("calendar feeds", server.calendarFeeds, after.calendarFeeds, left: left.calendarFeeds, key: \.key),
            check("webhooks", server.webhooks, after.webhooks, left: left.webhooks, key: \.key),
            check("webhook events sent", server.sentEvents, after.sentEvents, key: \.key),
            check("licences", server.licences, after.licences, key: \.key),
            check("products", server.products, after.products, key: \.key),
        ]
        if after.instanceID != server.instanceID { faults.append("the server's id") }
        guard faults.isEmpty else {
            throw CLIError("Copied, but PostgreSQL differs from SQLite in \(faults.joined(separator: "; ")). Run the copy again; if it says this again, report it.")
        }
        let changes = written.count + removed.count + (written.instanceID == nil ? 0 : 1)
        let rows = { (count: Int) in count == 1 ? "1 row" : "\(count) rows" }
        print("\(kinds.joined(separator: ", ")): \(rows(written.count)) copied\(written.instanceID == nil ? "" : " and the server's id"), \(rows(removed.count)) removed. Each verified against SQLite.")
        if changes == 0 && copied + again == 0 {
            print("Nothing changed: everything was already there.")
        }
    }

    /// A stored file the check could not find where the target keeps files.
    static func isMissingFile(_ error: any Error) -> Bool {
        switch error {
        case BackupError.missingFile, StoreError.attachmentMissing: true
        default: false
        }
    }

    /// The rows of `rows` that `there` lacks or holds otherwise.
    static func changed<Row: Hashable>(_ rows: [Row], on there: [Row]) -> [Row] {
        let have = Set(there)
        return rows.filter { !have.contains($0) }
    }

    /// The rows of `there` whose key `rows` has no longer (removed since).
    static func gone<Row: Hashable & Keyed>(_ rows: [Row], from there: [Row]) -> [Row] {
        let keys = Set(rows.map(\.key))
        return there.filter { !keys.contains($0.key) }
    }
}

/// A row of `ServerRecords` named by its key.
protocol Keyed { var key: String { get } }
extension ServerRecords.Passkey: Keyed {}
extension ServerRecords.APIToken: Keyed {}
extension ServerRecords.CalendarFeed: Keyed {}
extension ServerRecords.Webhook: Keyed {}
