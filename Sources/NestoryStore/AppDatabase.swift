import Foundation
#if canImport(Glibc)
import Glibc
#endif
package import GRDB
import NestoryDomain
import NestoryStoreInterfaces

/// The only way into Nestory's data: named reads and writes that keep the invariants, every one
/// of them scoped to a household.
public final class AppDatabase: Sendable {
    let writer: DatabasePool
    public let folder: DataFolder
    public let blobs: BlobStore
    public let renditions: RenditionCache
    /// Requests counted per key per minute (`RequestBudget`): in this process, since one server holds a SQLite database.
    public let requestBudget = ProcessRequestBudget()
    let changes: ChangeMonitor
    /// Large households' sort keys in memory, for searches that many items match.
    let listCache: ItemListCache
    let gate = UseGate()

    /// How `open` treats a folder without a database.
    public enum OpenMode: Sendable {
        /// Create the folder and database if needed, and migrate to the current schema.
        case createAndMigrate
        /// The database must exist; migrate it to the current schema.
        case migrateExisting
        /// The database must exist and be current; nothing is changed.
        case readCurrent
    }

    /// Opens (and by default creates and migrates) the database in a data folder.
    /// - Parameter busyTimeout: how long a write waits for another process's lock before failing.
    /// - Parameter blobBackend: where photos and files are kept; nil: the data folder's `blobs/`.
    public static func open(_ folder: DataFolder, mode: OpenMode = .createAndMigrate, busyTimeout: TimeInterval = 5,
                            blobBackend: (any BlobBackend)? = nil) throws -> AppDatabase {
        try folder.prepare(create: mode == .createAndMigrate)
        let path = folder.databaseURL.path
        if mode != .createAndMigrate, !FileManager.default.fileExists(atPath: path) {
            throw StoreError.noDatabase(path: folder.path)
        }
        if FileManager.default.fileExists(atPath: path) {
            try checkHeader(path, folder: folder)
        }
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(busyTimeout)
        config.maximumReaderCount = 4
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Statement journals (a write whose triggers touch several rows keeps one, to undo just that
            // statement) and sorts' scratch space stay in memory: on disk they cost a temporary file's
            // pwrite calls for every item a bulk write inserts.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // The writer's page cache (SQLite's default is 2 MB): a bulk write touches pages of every index of
            // `item` and of the search index; with 2 MB they were read and spilled again for each batch. It
            // fills only while such writes run; readers keep the default.
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA cache_size = \(Self.writerCacheSize)")
                // After a checkpoint, a WAL file that a large write grew is cut back to this (SQLite otherwise keeps it
                // at its largest: about 2 GB after a million items were loaded).
                try db.execute(sql: "PRAGMA journal_size_limit = \(Self.walSizeLimit)")
            }
            try addFunctions(db)
        }
        // Opening (which may switch a new file to WAL) and migrating happen one process at a time:
        // a file lock beside the database, held across processes. A second process waits, then finds
        // the schema complete. (GRDB reads which migrations are applied before it takes the write
        // lock, so without this two first opens could both run one.)
        let lock = mode == .readCurrent ? nil : try MigrationLock(folder.url.appendingPathComponent(".migrate.lock"))
        defer { lock?.release() }
        do {
            let pool = try DatabasePool(path: path, configuration: config)
            let copy = try checkSchema(pool, folder: folder, migrate: mode != .readCurrent)
            return AppDatabase(writer: pool, folder: folder, blobBackend: blobBackend, upgradeCopy: copy)
        } catch {
            throw StoreError.translate(error, path: folder.path)
        }
    }

    /// The most a WAL file keeps between checkpoints, in bytes (64 MiB).
    static let walSizeLimit = 64 << 20

    /// The writer's page cache: 64 MB (negative: in KiB).
    static let writerCacheSize = -65536

    /// The copy of the database kept before this open upgraded it (`nestory.sqlite.before-MIGRATION`); nil when
    /// nothing was upgraded.
    public let upgradeCopy: URL?

    private init(writer: DatabasePool, folder: DataFolder, blobBackend: (any BlobBackend)?, upgradeCopy: URL?) {
        self.writer = writer
        self.folder = folder
        self.upgradeCopy = upgradeCopy
        self.blobs = BlobStore(folder: folder, backend: blobBackend)
        self.renditions = RenditionCache(folder: folder)
        self.changes = ChangeMonitor(path: folder.databaseURL.path)
        self.listCache = ItemListCache(pool: writer, gate: gate)
    }

    /// SQLite reports a foreign file only on first use; check its header first for a clear message.
    private static func checkHeader(_ path: String, folder: DataFolder) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError.unusableDataFolder(path: folder.path, reason: "nestory.sqlite cannot be read")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty { return }  // an empty file is a new database
        guard header == Data("SQLite format 3\0".utf8) else {
            throw StoreError.corrupt(path: folder.path, detail: "nestory.sqlite is not an SQLite database")
        }
    }

    /// Checks the schema and, when `migrate`, applies what is pending. An existing database is copied first (the
    /// returned URL), so an upgrade that goes wrong can be undone by putting the copy back.
    private static func checkSchema(_ writer: DatabasePool, folder: DataFolder, migrate: Bool) throws -> URL? {
        let migrator = Migrations.migrator
        let (superseded, applied, complete) = try writer.read { db in
            (try migrator.hasBeenSuperseded(db), try migrator.appliedIdentifiers(db), try migrator.hasCompletedMigrations(db))
        }
        if superseded {
            let known = Set(migrator.migrations)
            throw StoreError.schemaTooNew(path: folder.path, unknownMigrations: applied.filter { !known.contains($0) }.sorted())
        }
        if !complete {
            guard migrate else {
                throw StoreError.schemaOutdated(path: folder.path, pendingMigrations: migrator.migrations.filter { !applied.contains($0) })
            }
            let copy = applied.isEmpty ? nil : try keepCopy(writer, folder: folder, before: migrator.migrations.last!)
            try migrator.migrate(writer)
            return copy
        }
        return nil
    }

    /// How many copies kept before upgrades stay in the data folder (the newest).
    static let upgradeCopiesKept = 2

    /// A consistent copy of the database (SQLite's online backup) beside it, named for the schema it is about to
    /// reach, written under a temporary name and renamed into place; older such copies beyond the newest
    /// `upgradeCopiesKept` are removed.
    private static func keepCopy(_ writer: DatabasePool, folder: DataFolder, before target: String) throws -> URL {
        let name = "nestory.sqlite.before-\(target)"
        let url = folder.url.appendingPathComponent(name)
        let partial = folder.url.appendingPathComponent(".\(name).partial")
        try? FileManager.default.removeItem(at: partial)
        do {
            let copy = try DatabaseQueue(path: partial.path)
            try writer.backup(to: copy)
            try copy.close()
            // Readable by no one the database itself is not readable by (it holds password hashes).
            let mode = (try FileManager.default.attributesOfItem(atPath: folder.databaseURL.path)[.posixPermissions] as? NSNumber)?.intValue ?? 0o600
            try FileManager.default.setAttributes([.posixPermissions: mode & 0o600], ofItemAtPath: partial.path)
            guard rename(partial.path, url.path) == 0 else { throw StoreError.io("\(name): \(String(cString: strerror(errno)))") }
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw StoreError.upgradeCopyFailed(path: folder.path, detail: String(describing: error))
        }
        // Newest first by when each was made (migration names do not sort in their order).
        let copies = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasPrefix("nestory.sqlite.before-") }
            .map { folder.url.appendingPathComponent($0) }
            .map { (url: $0, made: (try? FileManager.default.attributesOfItem(atPath: $0.path)[.modificationDate] as? Date) ?? .distantPast) }
            .sorted { $0.made > $1.made }
        for old in copies.dropFirst(upgradeCopiesKept) { try? FileManager.default.removeItem(at: old.url) }
        return url
    }

    /// The SQL functions the store's statements call, on every connection that runs them.
    static func addFunctions(_ db: Database) throws {
        db.add(function: searchFold)
        db.add(function: try SearchMatcher(db).function())
        try SeqCollector.register(db)
    }

    /// `nestory_fold(text)`: the search index's letter folding (Text.searchFold), for what it indexes.
    static let searchFold = DatabaseFunction("nestory_fold", argumentCount: 1, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) else { return nil }
        return Text.searchFold(text)
    }

    /// Whether a write can start now (takes the write lock, then gives it back): for readiness checks.
    public func checkWritable() throws {
        do {
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                defer { try? db.execute(sql: "ROLLBACK") }
                try db.execute(sql: "CREATE TABLE nestory_ready_check (x)")
            }
        } catch {
            throw StoreError.translate(error, path: folder.path)
        }
    }

    /// Runs SQLite's structural check of the whole file (proportional to its size: for `migrate`, and for
    /// `serve` once it answers; not for every command).
    public func checkIntegrity() throws {
        try read { db in
            let problems = try String.fetchAll(db, sql: "PRAGMA quick_check(5)")
            if problems != ["ok"] { throw StoreError.corrupt(path: folder.path, detail: problems.joined(separator: "; ")) }
        }
    }

    /// The names of the migrations applied, in the order they apply.
    public func appliedMigrations() throws -> [String] {
        let applied = try writer.read { db in try Migrations.migrator.appliedIdentifiers(db) }
        return Migrations.migrator.migrations.filter(applied.contains)
    }

    /// All migrations this version knows, in order.
    public static var knownMigrations: [String] { Migrations.migrator.migrations }

    // MARK: - Transactions with translated errors

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try gate.enter(path: folder.path)
        defer { gate.leave() }
        do { return try writer.read(body) } catch { throw StoreError.translate(error, path: folder.path) }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try gate.enter(path: folder.path)
        defer { gate.leave() }
        do { return try writer.write(body) } catch { throw StoreError.translate(error, path: folder.path) }
    }

    /// Runs one of this store's synchronous methods for an async caller, on a thread of its own rather than the
    /// caller's (an event loop or the cooperative pool), as GRDB's async API does. GRDB's pool bounds how many
    /// touch the file at once (one writer, its readers); the rest wait here, off the cooperative pool.
    package func offload<T: Sendable>(_ body: @escaping @Sendable (AppDatabase) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Self.offloadQueue.async { continuation.resume(with: Result { try body(self) }) }
        }
    }

    private static let offloadQueue = DispatchQueue(label: "nestory.store", attributes: .concurrent)

    /// Runs raw SQL read-only: for benchmarks that compare the facade with the query it runs.
    package func unsafeRawRead<T>(_ body: (Database) throws -> T) throws -> T {
        try read(body)
    }

    /// A connection of its own on the same file, read-only, with the functions the facade's SQL calls: for
    /// benchmarks that prepare the facade's statements once and run them bare.
    package func rawConnection() throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = true
        config.prepareDatabase { db in try Self.addFunctions(db) }
        return try DatabaseQueue(path: folder.databaseURL.path, configuration: config)
    }

    /// Frees the connections (the file stays).
    public func close() throws {
        listCache.close()
        gate.close()
        try changes.close()
        // GRDB closes the writer before the readers, so the writer is not the last connection and SQLite keeps the WAL
        // file as large as the largest write made it (1.98 GB after a million-item demo). Emptied first; a store
        // opened read-only, or a reader still in a transaction, leaves it as it is.
        _ = try? writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try writer.close()
    }
}

/// Lets calls into the store through until it closes, and `close` wait for those under way: GRDB's connections must
/// not be used once closed (SQLite then reads freed memory: a job runner or a background read still going when a
/// test or the server closed the store crashed the process). Calls after that throw `StoreError.closed`.
final class UseGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var closed = false
    private var inFlight = 0

    func enter(path: String) throws {
        condition.lock()
        defer { condition.unlock() }
        if closed { throw StoreError.closed(path: path) }
        inFlight += 1
    }

    func leave() {
        condition.lock()
        inFlight -= 1
        if inFlight == 0 { condition.broadcast() }
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        while inFlight > 0 { condition.wait() }
        condition.unlock()
    }
}

// MARK: - Column helpers

// Times are whole milliseconds since 1970 (`Date.millis`, in NestoryStoreInterfaces, the same for every engine).

extension Row {
    func id<T>(_ column: String) -> EntityID<T> {
        EntityID<T>(string: self[column])!
    }

    func optionalID<T>(_ column: String) -> EntityID<T>? {
        (self[column] as String?).flatMap { EntityID<T>(string: $0) }
    }

    func date(_ column: String) -> Date { Date(millis: self[column]) }

    func calendarDate(_ column: String) -> CalendarDate? {
        (self[column] as String?).flatMap { try? CalendarDate(iso: $0) }
    }

    func currency(_ column: String) -> CurrencyCode {
        (try? CurrencyCode(self[column] as String)) ?? .usd
    }

    func money(_ minorColumn: String, currency: CurrencyCode) -> Money? {
        (self[minorColumn] as Int64?).flatMap { try? Money(minorUnits: $0, currency: currency) }
    }
}

/// An exclusive `flock` on a file, for work only one process may do at a time.
final class MigrationLock {
    private var fd: Int32

    init(_ url: URL) throws {
        fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError.unusableDataFolder(path: url.deletingLastPathComponent().path, reason: "the migration lock cannot be created") }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            close(fd)
            fd = -1
            throw StoreError.io("cannot lock \(url.path)")
        }
    }

    func release() {
        if fd >= 0 {
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }

    deinit { release() }
}
