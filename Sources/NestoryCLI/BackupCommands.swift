import ArgumentParser
import Foundation
import NestoryBackup
import NestoryDomain
import NestoryImport
import NestoryStore
import NestoryStoreInterfaces
import NestoryServices

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a household's backup: one ZIP with all its data and every photo and receipt, byte-exact.",
        discussion: """
            Safe while the server runs: the data is read as one consistent snapshot. With --all, every household is \
            backed up into a folder, each to an archive named by its id and the time (nestory-ID-20261128T020000Z.zip), \
            and --keep N then deletes each household's older archives there beyond its N newest: what a nightly timer \
            runs (deploy/nestory-backup.timer).
            """)

    @OptionGroup var data: DataOptions

    @Option(help: "The household's name or id (not needed when there is only one).")
    var household: String?

    @Flag(help: "Back up every household, each to its own archive in the folder given instead of a file (made when missing).")
    var all = false

    @Option(help: "With --all: keep each household's newest N archives in the folder and delete its older ones (default: keep every one).")
    var keep: Int?

    @Flag(help: "Leave the members' password hashes out (restored accounts then need `nestory user password`).")
    var withoutPasswords = false

    @Flag(help: "Put the valuation providers' API keys in the archive, in clear (off: the other valuation settings only).")
    var withProviderKeys = false

    @Argument(help: "The archive to write (.zip), or with --all the folder to write the archives in.")
    var file: String

    func validate() throws {
        if all, household != nil { throw ValidationError("--all backs up every household: leave out --household.") }
        if let keep, !all { throw ValidationError("--keep \(keep) is for --all, which writes archives into a folder.") }
        if let keep, keep < 1 { throw ValidationError("--keep must be at least 1 (it is \(keep)): the archive just written is always kept.") }
    }

    func run() async throws {
        let folder = all ? try BackupFolder(file) : nil
        let destination = all ? nil : try OutputFile.url(file)
        let secrets = try await reportingErrors { try await data.settings().secretKeys() }
        try await data.withDatabase(.readCurrent) { database in
            let maker = try database.stores.backupMaker(folder: data.folder, secrets: secrets)
            func write(_ household: Household, to url: URL, shown: String) async throws {
                let started = Date()
                let result = try await maker.write(household: household.id, to: url, includePasswordHashes: !withoutPasswords,
                                                   includeProviderKeys: withProviderKeys)
                let c = result.manifest.counts
                print("""
                    Backed up \(household.name) to \(shown) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s:
                      \(c.items) items, \(c.photos) photos, \(c.receipts) receipts, \(c.rooms) rooms, \(c.categories) categories, \(c.members) members
                      \(c.files) files (\(ByteCount.text(c.fileBytes))), archive \(ByteCount.text(result.archiveBytes))
                    """)
            }
            guard let folder else {
                return try await write(try await resolveHousehold(database.stores.accounts, household), to: destination!, shown: file)
            }
            let households = try await database.stores.accounts.allHouseholds()
            guard !households.isEmpty else { throw CLIError("There is no household yet. Create one with `nestory user add` or `nestory demo`.") }
            // Every household is tried, so one that fails does not leave the others without tonight's archive; the
            // command then fails, naming it, for the timer's unit to show as failed.
            var failed: [String] = []
            for household in households {
                let url = folder.archive(for: household.id, at: Date())
                do {
                    try await write(household, to: url, shown: url.path)
                    if let keep {
                        for old in try folder.prune(household.id, keeping: keep) { print("  deleted the older \(old.lastPathComponent)") }
                    }
                } catch {
                    let message = "\(household.name) (\(household.id)): \(String(describing: cliError(error)))"
                    FileHandle.standardError.write(Data("Could not back up \(message)\n".utf8))
                    failed.append(message)
                }
            }
            if !failed.isEmpty {
                throw CLIError("\(failed.count) of \(households.count) households were not backed up: \(failed.joined(separator: "; "))")
            }
        }
    }
}

/// The folder `backup --all` writes into: one archive per household and run, named so that a household's archives
/// sort by time (`nestory-ID-20261128T020000Z.zip`), and pruned by that name only (nothing else there is touched).
struct BackupFolder {
    let url: URL

    init(_ path: String) throws {
        switch PathKind(path) {
        case .folder: break
        case .absent(errno: ENOENT):
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) } catch {
                throw CLIError("The folder \(path) could not be made: \(error.localizedDescription)")
            }
        case .absent(let code): throw CLIError("\(path) cannot be opened: \(String(cString: strerror(code))).")
        default: throw CLIError("\(path) is not a folder: with --all, give the folder to write the archives in.")
        }
        url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
    }

    func archive(for household: HouseholdID, at date: Date) -> URL {
        url.appendingPathComponent("nestory-\(household)-\(date.basicUTC).zip")
    }

    /// The household's archives in the folder, newest first.
    func archives(of household: HouseholdID) throws -> [URL] {
        let prefix = "nestory-\(household)-"
        return try FileManager.default.contentsOfDirectory(atPath: url.path).filter { name in
            guard name.hasPrefix(prefix), name.hasSuffix(".zip") else { return false }
            let stamp = name.dropFirst(prefix.count).dropLast(4)
            return stamp.count == 16 && stamp.allSatisfy { $0.isNumber || $0 == "T" || $0 == "Z" }
        }.sorted(by: >).map { url.appendingPathComponent($0) }
    }

    /// Deletes the household's archives beyond its `keeping` newest; returns those deleted.
    func prune(_ household: HouseholdID, keeping: Int) throws -> [URL] {
        let older = Array(try archives(of: household).dropFirst(keeping))
        for archive in older { try FileManager.default.removeItem(at: archive) }
        return older
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a household from a backup archive.",
        discussion: """
            The whole archive is checked first (manifest, checksums, every row, every file); nothing changes \
            unless all of it is sound, and the data is then changed in one transaction. A household this \
            server does not have is created with its members. For one it has, choose --mode replace (its \
            data becomes exactly the archive's) or --mode merge (new rows added, newer items win).
            """)

    @OptionGroup var data: DataOptions

    @Option(help: "replace or merge, for a household that already exists here.")
    var mode: RestoreMode?

    @Option(help: "Restore into this household (name or id) instead of the archive's own.")
    var into: String?

    @Flag(help: "Only check the archive; change nothing.")
    var check = false

    @Argument(help: "The archive to restore (.zip).")
    var file: String

    func run() async throws {
        let url = try InputFile.url(file, .file)
        let settings = try await data.settings()
        try await data.withDatabase(.createAndMigrate) { database in
            try await restore(url, with: try data.dataService(database, settings), accounts: database.stores.accounts)
        }
    }

    private func restore(_ url: URL, with service: DataService, accounts: any AccountStore) async throws {
        if check {
            let manifest = try await reportingErrors { try await service.checkArchive(url) }
            let c = manifest.counts
            print("The archive is sound: \(manifest.household.name), \(c.items) items, \(c.files) files, made by Nestory \(manifest.appVersion) on \(manifest.createdAt).")
            return
        }
        var target: HouseholdID?
        if let into { target = try await resolveHousehold(accounts, into).id }
        let started = Date()
        let (manifest, summary): (BackupManifest, RestoreSummary)
        do {
            (manifest, summary) = try await service.restore(url, into: target, mode: mode)
        } catch DomainError.conflict {
            let name = (try? await service.checkArchive(url))?.household.name ?? "in this archive"
            throw CLIError("This server already has the household \(name): choose --mode replace (its data becomes the archive's) or --mode merge (add what is new, newer items win). Nothing was changed.")
        } catch {
            throw cliError(error)
        }
        print("Restored \(manifest.household.name) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s\(summary.householdCreated ? " (a new household here)" : ""):")
        print(Self.describe(summary))
        if !summary.accountsNeedingPassword.isEmpty {
            print("These accounts came without a password and cannot sign in until given one (`nestory user password EMAIL`): \(summary.accountsNeedingPassword.joined(separator: ", "))")
        }
    }

    static func describe(_ s: RestoreSummary) -> String {
        func line(_ label: String, _ c: RestoreSummary.Counts) -> String {
            "  \(label.padding(toLength: 11, withPad: " ", startingAt: 0)) \(c.added) added, \(c.updated) updated, \(c.skipped) kept, \(c.removed) removed"
        }
        return [line("Items", s.items), line("Photos", s.photos), line("Receipts", s.receipts), line("Rooms", s.rooms),
                line("Categories", s.categories), line("Members", s.members)].joined(separator: "\n")
    }
}

extension RestoreMode: ExpressibleByArgument {}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import items from a file.",
        subcommands: [ImportCSV.self])
}

struct ImportCSV: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "csv",
        abstract: "Import items from a CSV file (Homebox's export is recognised by its HB.* columns).",
        discussion: """
            Every row is checked first; if any has a problem, each is listed with its line and nothing is \
            imported. Rooms and categories are created as needed. Fields: \(ImportField.allCases.map(\.rawValue).joined(separator: ", ")).
            """)

    @OptionGroup var data: DataOptions

    @Option(help: "The household's name or id (not needed when there is only one).")
    var household: String?

    @Option(help: "Which column fills which field, e.g. name=Title,price=Cost,room=Location (guessed from the header otherwise).")
    var map: String?

    @Option(help: "How to read dates like 03/04/2024: mdy or dmy.")
    var dateOrder: String = "mdy"

    @Flag(help: "Show what would be imported; change nothing.")
    var dryRun = false

    @Argument(help: "The CSV file.")
    var file: String

    func run() async throws {
        let url = try InputFile.url(file, .file)
        let settings = try await data.settings()
        try await data.withDatabase(.readCurrent) { database in
            let target = try await resolveHousehold(database.stores.accounts, household)
            try await importItems(url, into: target, with: try data.dataService(database, settings))
        }
    }

    private func importItems(_ url: URL, into target: Household, with service: DataService) async throws {
        guard let order = ImportOptions.DateOrder(rawValue: dateOrder) else { throw CLIError("--date-order is mdy or dmy.") }
        let options = ImportOptions(currency: target.currency, dateOrder: order, today: target.day(at: Date()))
        let spec = map
        let mapping: @Sendable ([String]) throws(ImportError) -> ColumnMapping = { header throws(ImportError) in
            if let spec { return try ColumnMapping.parse(spec, header: header) }
            return ColumnMapping.guess(header: header)
        }
        do {
            // The header alone, to say how the columns are read; the rows are read (twice) by the import itself.
            var source = try ImportSource(url, mapping: mapping, options: options)
            if !HomeboxImport.isHomebox(source.header) {
                let columns = try mapping(source.header)
                let used = ImportField.allCases.compactMap { f in columns.columns[f].map { "\(f.rawValue)=\(source.header[$0])" } }
                print("Columns: \(used.joined(separator: ", "))")
                // What the file holds that no field takes, so a column left out is seen before the import, not after.
                let unread = source.header.indices.filter { !columns.columns.values.contains($0) }.map { source.header[$0] }
                if !unread.isEmpty { print("Not read: \(unread.joined(separator: ", "))") }
            } else {
                print("Homebox export recognised.")
            }
            if dryRun {
                let count = try ItemImport.check(&source)
                print("\(count) item\(count == 1 ? "" : "s") would be imported into \(target.name); nothing was changed.")
                return
            }
            let summary = try await reportingErrors { try await service.importItems(target.id, file: url, mapping: mapping, options: options) }
            print("Imported \(summary.items) item\(summary.items == 1 ? "" : "s") into \(target.name).")
            if !summary.roomsCreated.isEmpty { print("New rooms: \(summary.roomsCreated.joined(separator: ", "))") }
            if !summary.categoriesCreated.isEmpty { print("New categories: \(summary.categoriesCreated.joined(separator: ", "))") }
        } catch let error as ImportError {
            throw CLIError(error.description)
        }
    }
}

extension DataOptions {
    /// Restores and imports in the foreground, on the database's stores and this data folder, under the settings' plan.
    func dataService(_ database: OpenDatabase, _ settings: Settings) throws -> DataService {
        DataService(stores: database.stores, blobs: database.files, folder: folder, secrets: try settings.secretKeys(),
                    blocking: BlockingPool(label: "nestory.cli", width: 1), plan: settings.plan(database.stores.licences))
    }
}

