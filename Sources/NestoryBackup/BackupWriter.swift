import Crypto
import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces

/// Writes one household's backup archive.
///
/// Order: pin the stored files (so none is unlinked meanwhile), read every row in one read
/// transaction into JSON Lines files in the data folder's tmp/, then stream the ZIP: data files, every
/// stored file (its SHA-256 checked on the way, so a damaged file fails the backup instead of being
/// copied), and the manifest last. The archive is written beside its destination and renamed into
/// place only when complete and fsynced.
public struct BackupWriter: Sendable {
    /// The household's rows, on whichever engine the bootstrap chose.
    public let archive: any ArchiveStore
    /// The household's valuation settings (kept beside its rows).
    public let valuations: any ValuationStore
    /// The stored files' bytes.
    public let blobs: any BlobFiles
    /// The data folder: its tmp/ for the work files, its key for the providers' keys.
    public let folder: DataFolder
    /// Where the PDFs of reports that are not stored files are (SQLite's reports/).
    public let reports: URL
    /// The key the stored providers' keys are sealed with (the data folder's `secrets.key` unless given).
    public let secrets: SecretKeys

    public init(archive: any ArchiveStore, valuations: any ValuationStore, blobs: any BlobFiles, folder: DataFolder, reports: URL? = nil,
                secrets: SecretKeys? = nil) {
        self.archive = archive
        self.valuations = valuations
        self.blobs = blobs
        self.folder = folder
        self.reports = reports ?? folder.reportsURL
        self.secrets = secrets ?? .folder(folder)
    }

    /// A writer over one SQLite database and its files.
    public init(database: AppDatabase) {
        self.init(archive: SQLiteArchiveStore(database), valuations: SQLiteValuationStore(database), blobs: database.blobs, folder: database.folder)
    }

    public struct Result: Sendable {
        public var manifest: BackupManifest
        public var archiveBytes: Int64
    }

    @discardableResult
    /// - Parameter includePasswordHashes: members' password hashes, so a restored server signs them
    ///   in again (the command line's backups); the web app's exports leave them out.
    public func write(household householdID: HouseholdID, to destination: URL, now: Date = Date(),
                      includePasswordHashes: Bool = true, includeProviderKeys: Bool = false, progress: BackupProgress? = nil) async throws -> Result {
        let pin = try blobs.backupPin()
        defer { pin.release() }
        let work = folder.tmpURL.appendingPathComponent("backup-\(UUID().uuidString.lowercased())", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        // 1. Rows, from one snapshot.
        // Read before the rows' snapshot (a read of its own; the settings are not part of the household's rows).
        let valuationSettings = try await ArchivedValuationSettings.read(valuations, householdID, withKeys: includeProviderKeys, secrets: secrets)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let sink = try DataFiles(work: work, encoder: encoder)
        let household: ArchiveRecord.Household
        do {
            household = try await archive.exportHousehold(householdID, includePasswordHashes: includePasswordHashes, to: sink)
            try sink.close()
        } catch {
            sink.abandon()
            throw error
        }
        try Data(encoder.encode(household)).write(to: work.appendingPathComponent(DataFile.household.localName))
        if let settings = valuationSettings {
            try Data(encoder.encode(settings)).write(to: work.appendingPathComponent(DataFile.valuationSettings.localName))
        }
        let (counts, blobs, reports) = (sink.counts, sink.blobs, sink.reports)
        return try await Self.offThread { [self] in
            try zip(household: household, counts: counts, blobs: blobs, reports: reports, work: work, to: destination, now: now, progress: progress)
        }
    }

    /// Runs file work on a thread of its own, off the caller's (the cooperative pool or an event loop).
    static func offThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            fileQueue.async { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    private static let fileQueue = DispatchQueue(label: "nestory.backup", attributes: .concurrent)

    /// The archive from the data files in `work`, the stored files and the reports' PDFs.
    private func zip(household: ArchiveRecord.Household, counts: BackupManifest.Counts, blobs: [ArchiveRecord.Blob],
                     reports: [(record: ArchiveRecord.Report, storedAs: String?)], work: URL, to destination: URL, now: Date, progress: BackupProgress?) throws -> Result {
        // 2. The archive.
        let partial = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).partial-\(UUID().uuidString.prefix(8))")
        defer { unlink(partial.path) }
        let zip = try ZipWriter(url: partial, date: now)
        var entries: [BackupManifest.FileEntry] = []
        var counts = counts
        let dataBytes = DataFile.allCases.reduce(Int64(0)) { sum, file in
            sum + ((try? FileManager.default.attributesOfItem(atPath: work.appendingPathComponent(file.localName).path)[.size] as? Int64) ?? 0)
        }
        let total = dataBytes + blobs.reduce(Int64(0)) { $0 + $1.byteCount } + reports.reduce(Int64(0)) { $0 + $1.record.byteCount }
        var done: Int64 = 0
        for file in DataFile.allCases {
            if file.isOptional, !FileManager.default.fileExists(atPath: work.appendingPathComponent(file.localName).path) { continue }
            var hasher = SHA256()
            let size = try zip.addFile(named: file.rawValue, from: work.appendingPathComponent(file.localName)) { hasher.update(bufferPointer: $0) }
            entries.append(.init(path: file.rawValue, sha256: BlobStore.hex(hasher.finalize()), size: Int64(size)))
            done += Int64(size)
            progress?(done, total)
        }
        for blob in blobs {
            var hasher = SHA256()
            // A file in the data folder is read where it is; one in an object store is fetched to tmp/ first.
            do {
                try self.blobs.withLocalFile(blob.sha256) { source in
                    guard FileManager.default.fileExists(atPath: source.path) else { throw BackupError.missingFile(source.path) }
                    try zip.addFile(named: "files/\(blob.sha256)", from: source, expectedSize: blob.byteCount) { hasher.update(bufferPointer: $0) }
                }
            } catch StoreError.attachmentMissing(let sha) {
                throw BackupError.missingFile("\(sha) in \(self.blobs.location)")
            }
            guard BlobStore.hex(hasher.finalize()) == blob.sha256 else { throw BackupError.damagedStoredFile(sha256: blob.sha256) }
            entries.append(.init(path: "files/\(blob.sha256)", sha256: blob.sha256, size: blob.byteCount))
            done += blob.byteCount
            progress?(done, total)
        }
        for (report, storedAs) in reports {
            var hasher = SHA256()
            // A stored file as the stored files above (pinned with them); else the file in the reports folder.
            func add(_ source: URL) throws -> UInt64 {
                guard FileManager.default.fileExists(atPath: source.path) else { throw BackupError.missingFile(source.path) }
                return try zip.addFile(named: "reports/\(report.fileName)", from: source, expectedSize: report.byteCount) {
                    hasher.update(bufferPointer: $0)
                }
            }
            let size: UInt64
            do {
                size = try storedAs.map { try self.blobs.withLocalFile($0, add) } ?? add(self.reports.appendingPathComponent(report.fileName))
            } catch StoreError.attachmentMissing(let sha) {
                throw BackupError.missingFile("\(sha) in \(self.blobs.location)")
            }
            entries.append(.init(path: "reports/\(report.fileName)", sha256: BlobStore.hex(hasher.finalize()), size: Int64(size)))
            done += Int64(size)
            progress?(done, total)
        }
        counts.files = blobs.count
        counts.fileBytes = blobs.reduce(0) { $0 + $1.byteCount }
        let manifest = BackupManifest(
            format: BackupManifest.formatName, formatVersion: BackupManifest.currentFormatVersion,
            appVersion: NestoryVersion.current, createdAt: ISO8601DateFormatter().string(from: now),
            household: .init(id: household.id, name: household.name), counts: counts, files: entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try zip.addData(named: "manifest.json", encoder.encode(manifest))
        try zip.finish()
        let bytes = Int64(zip.bytesWritten)
        guard rename(partial.path, destination.path) == 0 else {
            throw BackupError.io("cannot move the archive to \(destination.path): \(String(cString: strerror(errno)))")
        }
        return Result(manifest: manifest, archiveBytes: bytes)
    }
}

/// The data files of an export, written as the rows come (`HouseholdArchiveSink`): every table's file is made at
/// once, so a table without rows is an empty file; the stored files and reports the rows name are kept for the archive.
final class DataFiles: HouseholdArchiveSink, @unchecked Sendable {
    private let writers: [DataFile: LineWriter]
    private let encoder: JSONEncoder
    private(set) var counts = BackupManifest.Counts()
    private(set) var blobs: [ArchiveRecord.Blob] = []
    private(set) var reports: [(record: ArchiveRecord.Report, storedAs: String?)] = []

    init(work: URL, encoder: JSONEncoder) throws {
        var writers: [DataFile: LineWriter] = [:]
        for file in DataFile.allCases where file != .household && file != .valuationSettings {
            writers[file] = try LineWriter(url: work.appendingPathComponent(file.localName))
        }
        self.writers = writers
        self.encoder = encoder
    }

    func append(_ row: ArchiveRow) throws {
        switch row {
        case .user(let user): try line(.users, user); counts.members += 1
        case .membership(let membership): try line(.memberships, membership)
        case .room(let room): try line(.rooms, room); counts.rooms += 1
        case .category(let category): try line(.categories, category); counts.categories += 1
        case .item(let item): try line(.items, item); counts.items += 1
        case .blob(let blob): try line(.blobs, blob); blobs.append(blob)
        case .photo(let photo): try line(.photos, photo); counts.photos += 1
        case .receipt(let receipt): try line(.receipts, receipt); counts.receipts += 1
        case .report(let report, let storedAs): try line(.reports, report); reports.append((report, storedAs)); counts.reports += 1
        case .valuation(let valuation): try line(.valuations, valuation); counts.valuations += 1
        }
    }

    private func line(_ file: DataFile, _ record: some Encodable) throws {
        try writers[file]!.append(encoder.encode(record))
    }

    func close() throws {
        for file in DataFile.allCases { try writers[file]?.close() }
    }

    func abandon() {
        for writer in writers.values { try? writer.close() }
    }
}

extension DataFile {
    /// The name of the file in a working folder.
    var localName: String { String(rawValue.dropFirst("data/".count)) }
}


/// Appends JSON lines to a file through a buffer.
final class LineWriter {
    private let file: EntryFile
    private var buffer = Data()

    init(url: URL) throws {
        file = try EntryFile(url: url)
    }

    func append(_ line: Data) throws {
        buffer.append(line)
        buffer.append(0x0A)
        if buffer.count >= 1 << 20 { try flush() }
    }

    private func flush() throws {
        try buffer.withUnsafeBytes { try file.write($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws {
        try flush()
        try file.close()
    }
}
