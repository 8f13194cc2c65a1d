import Foundation
import NestoryBackup
import NestoryDomain
import NestoryImport
import NestoryStore

/// Moving data in: checking and restoring backups, importing spreadsheets (and Homebox exports). The web
/// app's Settings → Your data and `nestory restore` / `nestory import csv` share these rules; the work runs
/// on the blocking pool.
public struct DataService: Sendable {
    let database: AppDatabase
    let blocking: BlockingPool
    let now: @Sendable () -> Date

    public init(database: AppDatabase, blocking: BlockingPool, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.blocking = blocking
        self.now = now
    }

    /// Checks a whole archive (every file against its checksum) and says what it holds; changes nothing.
    public func checkArchive(_ url: URL) async throws -> BackupManifest {
        let database = database
        return try await blocking.run {
            let checked = try BackupReader(database: database).validate(url)
            defer { checked.discard() }
            return checked.manifest
        }
    }

    /// Restores an archive, all or nothing. Without a mode, restoring over a household that exists here is
    /// refused: the person must say whether to replace its data or merge into it.
    public func restore(_ url: URL, into target: HouseholdID?, mode: RestoreMode?) async throws -> (manifest: BackupManifest, summary: RestoreSummary) {
        let database = database
        return try await blocking.run {
            let reader = BackupReader(database: database)
            let checked = try reader.validate(url)
            defer { checked.discard() }
            if mode == nil, try target != nil || database.householdExists(checked.manifest.household.id) {
                throw DomainError.conflict("This server already has the household \(checked.manifest.household.name): choose to replace its data with the archive's, or to merge the archive into it. Nothing was changed.")
            }
            return (checked.manifest, try reader.apply(checked, into: target, mode: mode ?? .replace))
        }
    }

    /// The items a table would become (every row checked; any problem fails the whole file with its lines).
    public func plannedItems(_ table: CSVTable, mapping: ColumnMapping, options: ImportOptions) async throws -> [ImportedItem] {
        try await blocking.run { try ItemImport.items(from: table, mapping: mapping, options: options) }
    }

    /// Imports a table's rows as items in one transaction (all or nothing), creating the rooms and categories
    /// they name.
    public func importItems(_ household: HouseholdID, _ table: CSVTable, mapping: ColumnMapping, options: ImportOptions) async throws -> ImportSummary {
        let (database, at) = (database, now())
        return try await blocking.run {
            let items = try ItemImport.items(from: table, mapping: mapping, options: options)
            return try database.importItems(household, items.map {
                NamedPlaceDraft(draft: $0.draft, roomName: $0.roomName, categoryName: $0.categoryName)
            }, now: at, today: options.today)
        }
    }
}
