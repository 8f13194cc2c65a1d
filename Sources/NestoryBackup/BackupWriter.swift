import Crypto
import Foundation
import NestoryDomain
import NestoryStore

/// Writes one household's backup archive.
///
/// Order: pin the stored files (so none is unlinked meanwhile), read every row in one read
/// transaction into JSON Lines files in the data folder's tmp/, then stream the ZIP: data files, every
/// stored file (its SHA-256 checked on the way, so a damaged file fails the backup instead of being
/// copied), and the manifest last. The archive is written beside its destination and renamed into
/// place only when complete and fsynced.
public struct BackupWriter: Sendable {
    public let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public struct Result: Sendable {
        public var manifest: BackupManifest
        public var archiveBytes: Int64
    }

    @discardableResult
    /// - Parameter includePasswordHashes: members' password hashes, so a restored server signs them
    ///   in again (the command line's backups); the web app's exports leave them out.
    public func write(household householdID: HouseholdID, to destination: URL, now: Date = Date(),
                      includePasswordHashes: Bool = true, includeProviderKeys: Bool = false, progress: BackupProgress? = nil) throws -> Result {
        let pin = try database.blobs.pinForBackup()
        defer { pin.release() }
        let work = database.folder.tmpURL.appendingPathComponent("backup-\(UUID().uuidString.lowercased())", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        // 1. Rows, from one snapshot.
        var counts = BackupManifest.Counts()
        var blobs: [ArchiveRecord.Blob] = []
        var reports: [ArchiveRecord.Report] = []
        // Read before the rows' snapshot (a read of its own; the settings are not part of the household's rows).
        let valuationSettings = try database.archivedValuationSettings(householdID, withKeys: includeProviderKeys)
        let household = try database.exportHousehold(householdID) { export -> ArchiveRecord.Household in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try Data(encoder.encode(export.household)).write(to: work.appendingPathComponent("household.json"))
            if let settings = valuationSettings {
                try Data(encoder.encode(settings)).write(to: work.appendingPathComponent(DataFile.valuationSettings.localName))
            }
            func lines<T: Encodable>(_ file: DataFile, _ produce: ((T) throws -> Void) throws -> Void) throws -> Int {
                let out = try LineWriter(url: work.appendingPathComponent(file.localName))
                var n = 0
                try produce { record in
                    try out.append(encoder.encode(record))
                    n += 1
                }
                try out.close()
                return n
            }
            let users = try export.users(includePasswordHashes: includePasswordHashes)
            counts.members = try lines(.users) { emit in for u in users { try emit(u) } }
            _ = try lines(.memberships) { emit in for m in try export.memberships() { try emit(m) } }
            counts.rooms = try lines(.rooms) { emit in for r in try export.rooms() { try emit(r) } }
            counts.categories = try lines(.categories) { emit in for c in try export.categories() { try emit(c) } }
            counts.items = try lines(.items) { emit in try export.forEachItem(emit) }
            _ = try lines(.blobs) { (emit: (ArchiveRecord.Blob) throws -> Void) in
                try export.forEachBlob { blob in
                    blobs.append(blob)
                    try emit(blob)
                }
            }
            counts.photos = try lines(.photos) { emit in try export.forEachPhoto(emit) }
            counts.receipts = try lines(.receipts) { emit in try export.forEachReceipt(emit) }
            reports = try export.reports()
            counts.reports = try lines(.reports) { emit in for r in reports { try emit(r) } }
            counts.valuations = try lines(.valuations) { emit in try export.forEachValuation(emit) }
            return export.household
        }

        // 2. The archive.
        let partial = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).partial-\(UUID().uuidString.prefix(8))")
        defer { unlink(partial.path) }
        let zip = try ZipWriter(url: partial, date: now)
        var entries: [BackupManifest.FileEntry] = []
        let dataBytes = DataFile.allCases.reduce(Int64(0)) { sum, file in
            sum + ((try? FileManager.default.attributesOfItem(atPath: work.appendingPathComponent(file.localName).path)[.size] as? Int64) ?? 0)
        }
        let total = dataBytes + blobs.reduce(Int64(0)) { $0 + $1.byteCount } + reports.reduce(Int64(0)) { $0 + $1.byteCount }
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
                try database.blobs.withLocalFile(blob.sha256) { source in
                    guard FileManager.default.fileExists(atPath: source.path) else { throw BackupError.missingFile(source.path) }
                    try zip.addFile(named: "files/\(blob.sha256)", from: source, expectedSize: blob.byteCount) { hasher.update(bufferPointer: $0) }
                }
            } catch StoreError.attachmentMissing(let sha) {
                throw BackupError.missingFile("\(sha) in \(database.blobs.backend.location)")
            }
            guard BlobStore.hex(hasher.finalize()) == blob.sha256 else { throw BackupError.damagedStoredFile(sha256: blob.sha256) }
            entries.append(.init(path: "files/\(blob.sha256)", sha256: blob.sha256, size: blob.byteCount))
            done += blob.byteCount
            progress?(done, total)
        }
        for report in reports {
            var hasher = SHA256()
            let source = database.folder.reportsURL.appendingPathComponent(report.fileName)
            guard FileManager.default.fileExists(atPath: source.path) else { throw BackupError.missingFile(source.path) }
            let size = try zip.addFile(named: "reports/\(report.fileName)", from: source, expectedSize: report.byteCount) {
                hasher.update(bufferPointer: $0)
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
