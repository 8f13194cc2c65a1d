import Crypto
import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import ZIPFoundation

/// Reads, checks and restores a backup archive.
///
/// Validation comes first and changes nothing: the entry list (names, types, duplicates, counts,
/// sizes, compression ratios), the manifest (format and version), every entry against the manifest
/// (SHA-256 and size, counted while reading so a lying header cannot hide a bomb), every data row
/// against the format, and every file a row refers to. Stored files are staged in the data folder's
/// tmp/ while they are checked. Only then does one database transaction apply the rows, so a
/// failure or a crash at any point leaves the data as it was (staged files are swept later).
public struct BackupReader: Sendable {
    /// Where the rows go, on whichever engine the bootstrap chose.
    public let archive: any ArchiveStore
    /// The household's valuation settings (restored beside its rows).
    public let valuations: any ValuationStore
    /// Where the archive's files are staged, then kept.
    public let blobs: any BlobFiles
    /// The data folder: its tmp/ for the work files.
    public let folder: DataFolder
    /// The key restored providers' keys are sealed with (the data folder's `secrets.key` unless given).
    public let secrets: SecretKeys
    public var limits: ArchiveLimits

    public init(archive: any ArchiveStore, valuations: any ValuationStore, blobs: any BlobFiles, folder: DataFolder, secrets: SecretKeys? = nil,
                limits: ArchiveLimits = ArchiveLimits()) {
        self.archive = archive
        self.valuations = valuations
        self.blobs = blobs
        self.folder = folder
        self.secrets = secrets ?? .folder(folder)
        self.limits = limits
    }

    /// A reader over one SQLite database and its files.
    public init(database: AppDatabase, limits: ArchiveLimits = ArchiveLimits()) {
        self.init(archive: SQLiteArchiveStore(database), valuations: SQLiteValuationStore(database), blobs: database.blobs,
                  folder: database.folder, limits: limits)
    }

    /// Checks an archive completely (on a thread of its own) and restores it. See `ArchiveStore.restoreHousehold` for `target`.
    public func restore(_ url: URL, into target: HouseholdID?, mode: RestoreMode,
                        progress: BackupProgress? = nil) async throws -> (manifest: BackupManifest, summary: RestoreSummary) {
        let checked = try await BackupWriter.offThread { [self] in try validate(url, progress: progress) }
        defer { checked.discard() }
        return (checked.manifest, try await apply(checked, into: target, mode: mode))
    }

    /// Applies an archive `validate` has checked, in one transaction.
    /// `plan`: the target household's plan, checked in the restore's transaction (Free's item limit).
    /// The household's valuation settings follow (its providers' keys only if the archive has them, sealed here):
    /// a merge keeps the settings a household already has.
    public func apply(_ checked: Checked, into target: HouseholdID?, mode: RestoreMode, plan: Entitlement? = nil) async throws -> RestoreSummary {
        let summary = try await archive.restoreHousehold(checked.contents, files: checked.staged, reportFiles: checked.stagedReports,
                                                         into: target, mode: mode, plan: plan)
        if let settings = checked.contents.valuationSettings, let household = HouseholdID(string: summary.householdID) {
            try await ArchivedValuationSettings.restore(valuations, household, settings, onlyIfUnset: mode == .merge && !summary.householdCreated,
                                                        secrets: secrets, now: Date())
        }
        return summary
    }

    /// A checked archive: its manifest, its rows (from files in tmp/), and its stored files, staged.
    public final class Checked: @unchecked Sendable {
        public let manifest: BackupManifest
        let contents: ArchiveContents
        let staged: [String: StagedBlob]
        let stagedReports: [String: StagedBlob]
        private let work: URL
        private let blobs: any BlobFiles

        init(manifest: BackupManifest, contents: ArchiveContents, staged: [String: StagedBlob],
             stagedReports: [String: StagedBlob], work: URL, blobs: any BlobFiles) {
            self.manifest = manifest
            self.contents = contents
            self.staged = staged
            self.stagedReports = stagedReports
            self.work = work
            self.blobs = blobs
        }

        /// Removes what was staged and not used.
        public func discard() {
            for file in staged.values { blobs.discard(file) }
            for file in stagedReports.values { blobs.discard(file) }
            try? FileManager.default.removeItem(at: work)
        }
    }

    /// Everything short of changing data: returns the checked archive, or throws what is wrong.
    public func validate(_ url: URL, progress: BackupProgress? = nil) throws -> Checked {
        // ZIPFoundation scans a folder or a device for the end of its central directory without end.
        var status = stat()
        guard stat(url.path, &status) == 0 else { throw BackupError.notAZip("it cannot be opened: \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw BackupError.notAZip(status.st_mode & S_IFMT == S_IFDIR ? "it is a folder" : "it is not a regular file")
        }
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw BackupError.notAZip("\(error)")
        }

        // 1. The entry list.
        var entries: [String: Entry] = [:]
        var declaredTotal: Int64 = 0
        for entry in archive {
            let name = entry.path
            try Self.checkName(name)
            guard entry.type == .file else {
                throw BackupError.unsafeEntry(name: name, reason: entry.type == .symlink ? "a symbolic link" : "a folder")
            }
            guard entries[name] == nil else { throw BackupError.duplicateEntry(name) }
            entries[name] = entry
            guard entries.count <= limits.maxEntries else { throw BackupError.tooManyEntries(entries.count, limit: limits.maxEntries) }
            let size = Int64(clamping: entry.uncompressedSize)
            guard size <= limits.maxEntryBytes else { throw BackupError.tooLarge(name: name, limit: limits.maxEntryBytes) }
            if entry.isCompressed, size > 1 << 20,
               Double(size) > Double(max(entry.compressedSize, 1)) * limits.maxCompressionRatio {
                throw BackupError.bomb(name: name)
            }
            declaredTotal += size
            guard declaredTotal <= limits.maxTotalBytes else { throw BackupError.tooLarge(name: "the archive", limit: limits.maxTotalBytes) }
        }

        // 2. The manifest.
        guard let manifestEntry = entries.removeValue(forKey: "manifest.json") else {
            throw entries.isEmpty ? BackupError.notAZip("no entries could be read") : BackupError.noManifest
        }
        var manifestBytes = Data()
        try extract(archive, manifestEntry, name: "manifest.json", limit: limits.maxManifestBytes) { manifestBytes.append(contentsOf: $0) }
        let manifest = try Self.decodeManifest(manifestBytes)

        // 3. The manifest and the entries name the same files.
        var listed: [String: BackupManifest.FileEntry] = [:]
        for file in manifest.files {
            try Self.checkName(file.path)
            guard listed.updateValue(file, forKey: file.path) == nil else { throw BackupError.mismatch("it lists \(file.path) twice") }
            guard entries[file.path] != nil else { throw BackupError.mismatch("\(file.path) is missing from the archive") }
        }
        for name in entries.keys where listed[name] == nil {
            throw BackupError.mismatch("\(name) is in the archive but not in the manifest")
        }
        for file in DataFile.allCases where listed[file.rawValue] == nil && !file.isOptional {
            throw BackupError.mismatch("\(file.rawValue) is missing")
        }
        for name in listed.keys {
            let known = DataFile(rawValue: name) != nil
                || (name.hasPrefix("files/") && Self.isSHA256(String(name.dropFirst("files/".count))))
                || (name.hasPrefix("reports/") && Self.isReportName(String(name.dropFirst("reports/".count))))
            guard known else { throw BackupError.unsafeEntry(name: name, reason: "not a name a Nestory backup uses") }
        }

        // 4. Every entry read, counted and checked against the manifest.
        let work = folder.tmpURL.appendingPathComponent("restore-\(UUID().uuidString.lowercased())", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var staged: [String: StagedBlob] = [:]
        var stagedReports: [String: StagedBlob] = [:]
        do {
            let total = manifest.files.reduce(Int64(0)) { $0 + $1.size }
            guard total <= limits.maxTotalBytes else { throw BackupError.tooLarge(name: "the archive", limit: limits.maxTotalBytes) }
            var done: Int64 = 0
            for file in DataFile.allCases {
                guard let expected = listed[file.rawValue] else { continue }  // an optional file this archive lacks
                let out = try EntryFile(url: work.appendingPathComponent(file.localName))
                var hasher = SHA256()
                let count = try extract(archive, entries[file.rawValue]!, name: file.rawValue, limit: min(expected.size, limits.maxEntryBytes)) { chunk in
                    hasher.update(bufferPointer: chunk)
                    try out.write(chunk)
                }
                try out.close()
                try Self.check(file.rawValue, count: count, sha: BlobStore.hex(hasher.finalize()), against: expected)
                done += count
                progress?(done, total)
            }
            // Stored files and reports: staged in tmp/ (fsynced), each checked against the manifest.
            func stage(_ file: BackupManifest.FileEntry) throws -> StagedBlob {
                let writer = try blobs.makeWriter(maxBytes: file.size)
                let count: Int64
                do {
                    count = try extract(archive, entries[file.path]!, name: file.path, limit: min(file.size, limits.maxEntryBytes)) { try writer.append($0) }
                } catch {
                    writer.abandon()
                    throw error
                }
                let result = try writer.finish()
                done += count
                progress?(done, total)
                do {
                    try Self.check(file.path, count: count, sha: result.sha256, against: file)
                } catch {
                    blobs.discard(result)
                    throw error
                }
                return result
            }
            for file in manifest.files where file.path.hasPrefix("reports/") {
                stagedReports[String(file.path.dropFirst("reports/".count))] = try stage(file)
            }
            for file in manifest.files where file.path.hasPrefix("files/") {
                let sha = String(file.path.dropFirst("files/".count))
                let result = try stage(file)
                staged[sha] = result
                guard result.sha256 == sha else { throw BackupError.mismatch("\(file.path) does not hold the file its name says") }
            }

            // 5. The rows.
            let contents = try ArchiveContents(folder: work, manifest: manifest, files: Set(staged.keys))
            return Checked(manifest: manifest, contents: contents, staged: staged, stagedReports: stagedReports, work: work, blobs: blobs)
        } catch {
            for file in staged.values { blobs.discard(file) }
            for file in stagedReports.values { blobs.discard(file) }
            try? FileManager.default.removeItem(at: work)
            throw error
        }
    }

    /// Streams an entry to `consume`, refusing more than `limit` bytes whatever the headers say.
    private func extract(_ archive: Archive, _ entry: Entry, name: String, limit: Int64,
                         _ consume: (UnsafeRawBufferPointer) throws -> Void) throws -> Int64 {
        var count: Int64 = 0
        do {
            _ = try archive.extract(entry, bufferSize: 1 << 20, skipCRC32: !entry.isCompressed) { data in
                count += Int64(data.count)
                guard count <= limit else { throw BackupError.tooLarge(name: name, limit: limit) }
                try data.withUnsafeBytes { try consume($0) }
            }
        } catch let error as BackupError {
            throw error
        } catch let error as StoreError {
            throw error
        } catch {
            throw BackupError.notAZip("\(name) cannot be read: \(error)")
        }
        return count
    }

    private static func check(_ name: String, count: Int64, sha: String, against expected: BackupManifest.FileEntry) throws {
        guard count == expected.size else { throw BackupError.mismatch("\(name) has \(count) bytes, the manifest says \(expected.size)") }
        guard sha == expected.sha256 else { throw BackupError.mismatch("\(name) does not match its checksum") }
    }

    static func decodeManifest(_ data: Data) throws -> BackupManifest {
        struct Probe: Decodable {
            var format: String?
            var formatVersion: Int?
            enum CodingKeys: String, CodingKey { case format, formatVersion = "format_version" }
        }
        guard let probe = try? JSONDecoder().decode(Probe.self, from: data) else {
            throw BackupError.notABackup("manifest.json is not valid JSON")
        }
        guard probe.format == BackupManifest.formatName, let version = probe.formatVersion else {
            throw BackupError.notABackup("manifest.json does not describe a Nestory backup")
        }
        guard version <= BackupManifest.currentFormatVersion else { throw BackupError.newerFormat(version) }
        guard version >= 1 else { throw BackupError.notABackup("format version \(version) does not exist") }
        do {
            return try JSONDecoder().decode(BackupManifest.self, from: data)
        } catch {
            throw BackupError.notABackup("manifest.json is incomplete: \(ArchiveContents.describe(error))")
        }
    }

    /// Entry names a restore accepts: relative, no `..`, no backslashes or control characters.
    static func checkName(_ name: String) throws {
        if name.isEmpty { throw BackupError.unsafeEntry(name: name, reason: "an empty name") }
        if name.hasPrefix("/") || name.hasPrefix("\\") { throw BackupError.unsafeEntry(name: name, reason: "an absolute path") }
        if name.contains("\\") { throw BackupError.unsafeEntry(name: name, reason: "a backslash in the path") }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw BackupError.unsafeEntry(name: name, reason: "a control character in the path")
        }
        if name.count >= 2, Array(name)[1] == ":" { throw BackupError.unsafeEntry(name: name, reason: "a drive letter") }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains(where: { $0 == ".." }) { throw BackupError.unsafeEntry(name: name, reason: "a path that leaves the folder") }
        if parts.contains(where: { $0.isEmpty || $0 == "." }) { throw BackupError.unsafeEntry(name: name, reason: "an empty or '.' path part") }
    }

    /// `<uuid>.pdf`, as the export history names its files.
    static func isReportName(_ text: String) -> Bool {
        text.hasSuffix(".pdf") && ArchiveContents.isUUID(String(text.dropLast(4)))
    }

    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}

/// Writes bytes to a new working file (an archive entry being checked, a data file being made).
final class EntryFile {
    private let fd: Int32
    private let path: String

    init(url: URL) throws {
        path = url.path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BackupError.io("cannot create \(path)") }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws { try ZipWriter.writeFully(fd, bytes, path: path) }
    func close() throws { Glibc.close(fd) }
}
