import ArgumentParser
import Foundation
import NestoryBackup
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres

/// `nestory copy --from sqlite:PATH --to postgres://…`: moves a SQLite data folder's households to PostgreSQL through
/// the archive (`ArchiveStore`), one household per transaction, each checked by backing it up from both stores and
/// comparing the archives byte for byte (they are made at one time, so nothing may differ).
struct CopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy every household, with its members' accounts, from a SQLite data folder to PostgreSQL, and verify each.",
        discussion: """
            Each household goes in one transaction with everything its backup holds (rooms, categories, items, photos, \
            receipts, valuations, reports, valuation settings, members and their password hashes). Its photos, receipts \
            and reports stay in the data folder, which the PostgreSQL deployment keeps using. Run it again to resume: a \
            household already copied is verified and skipped, one changed since is copied again. Not copied: sign-in \
            sessions (everyone signs in again), passkeys, API tokens, reminder and calendar settings, webhooks, licences, \
            the product catalogue, jobs, and accounts that belong to no household.
            """)

    @Option(help: "The SQLite data folder to copy from, as sqlite:PATH.")
    var from: String

    @Option(help: "The PostgreSQL database to copy to (postgres://USER:PASSWORD@HOST:PORT/DB?sslmode=…).")
    var to: String

    @Option(help: "A schema of its own inside the PostgreSQL database (made when missing).")
    var toSchema: String?

    func run() async throws {
        guard from.hasPrefix("sqlite:"), from.count > "sqlite:".count else { throw CLIError("--from is sqlite:PATH (a data folder).") }
        let folder = DataFolder(path: String(from.dropFirst("sqlite:".count)))
        guard FileManager.default.fileExists(atPath: folder.databaseURL.path) else {
            throw CLIError("There is no Nestory database in \(folder.url.path).")
        }
        let location: PostgresLocation
        do { location = try PostgresLocation(url: to) } catch { throw CLIError("--to: \(error)") }
        let source = try reportingErrors { try AppDatabase.open(folder, mode: .readCurrent) }
        // The copy keeps its files where the source has them: the same data folder.
        let files = BlobStore(folder: folder)
        let target = try await reportingErrors {
            try await PostgresStore.open(.init(location: location, schema: toSchema, maximumConnections: 4, blobs: files, reports: folder.reportsURL))
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
                try await targetWriter.write(household: household.id, to: check, now: made, includePasswordHashes: true, includeProviderKeys: true)
                if try Data(contentsOf: check) == expected {
                    print("\(household.name): already copied, verified.")
                    skipped += 1
                    continue
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
    }
}
