import Foundation
import NestoryDomain

/// The archive's table of contents: `manifest.json` at the root of the ZIP.
///
///     manifest.json           this file
///     data/household.json     the household (one object)
///     data/valuation-settings.json   its valuation settings, if any (providers' keys only when asked for)
///     data/<table>.jsonl      one JSON object per line: users, memberships, rooms, categories,
///                             items, blobs, photos, receipts, reports, valuations
///     files/<sha256>          every photo and receipt image, byte-exact, stored (not recompressed)
///     reports/<id>.pdf        the generated reports of the export history
///
/// Every other entry is listed in `files` with its SHA-256 and size; a restore refuses an archive
/// whose entries and manifest disagree in any way.
public struct BackupManifest: Codable, Hashable, Sendable {
    public static let formatName = "nestory-backup"
    /// The newest format this version writes and reads. Raise it when the format changes.
    public static let currentFormatVersion = 1

    public struct HouseholdRef: Codable, Hashable, Sendable {
        public var id: String
        public var name: String
    }

    public struct Counts: Codable, Hashable, Sendable {
        public var items = 0
        public var rooms = 0
        public var categories = 0
        public var photos = 0
        public var receipts = 0
        public var reports = 0
        public var valuations = 0
        public var members = 0
        public var files = 0
        public var fileBytes: Int64 = 0

        enum CodingKeys: String, CodingKey {
            case items, rooms, categories, photos, receipts, reports, valuations, members, files, fileBytes = "file_bytes"
        }

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            items = try c.decode(Int.self, forKey: .items)
            rooms = try c.decode(Int.self, forKey: .rooms)
            categories = try c.decode(Int.self, forKey: .categories)
            photos = try c.decode(Int.self, forKey: .photos)
            receipts = try c.decode(Int.self, forKey: .receipts)
            reports = try c.decodeIfPresent(Int.self, forKey: .reports) ?? 0
            valuations = try c.decodeIfPresent(Int.self, forKey: .valuations) ?? 0
            members = try c.decode(Int.self, forKey: .members)
            files = try c.decode(Int.self, forKey: .files)
            fileBytes = try c.decode(Int64.self, forKey: .fileBytes)
        }
    }

    public struct FileEntry: Codable, Hashable, Sendable {
        public var path: String
        public var sha256: String
        public var size: Int64
    }

    public var format: String
    public var formatVersion: Int
    public var appVersion: String
    public var createdAt: String
    public var household: HouseholdRef
    public var counts: Counts
    public var files: [FileEntry]

    enum CodingKeys: String, CodingKey {
        case format, formatVersion = "format_version", appVersion = "app_version", createdAt = "created_at", household, counts, files
    }
}

/// The data files of format version 1, in the order they are written.
enum DataFile: String, CaseIterable {
    case household = "data/household.json"
    case users = "data/users.jsonl"
    case memberships = "data/memberships.jsonl"
    case rooms = "data/rooms.jsonl"
    case categories = "data/categories.jsonl"
    case items = "data/items.jsonl"
    case blobs = "data/blobs.jsonl"
    case photos = "data/photos.jsonl"
    case receipts = "data/receipts.jsonl"
    /// The export history (added after the first archives were written: optional when reading).
    case reports = "data/reports.jsonl"
    /// The items' valuation histories (added later still: optional when reading).
    case valuations = "data/valuations.jsonl"
    /// The household's valuation settings, one object (optional: absent when none were set).
    case valuationSettings = "data/valuation-settings.json"

    var isOptional: Bool { self == .reports || self == .valuations || self == .valuationSettings }
}

/// Limits a restore enforces before and while reading an archive (hostile or damaged ones).
public struct ArchiveLimits: Sendable {
    /// Most entries in one archive.
    public var maxEntries = 500_000
    /// Largest single entry, uncompressed.
    public var maxEntryBytes: Int64 = 1 << 30
    /// Largest total, uncompressed.
    public var maxTotalBytes: Int64 = 256 << 30
    /// Largest manifest.
    public var maxManifestBytes: Int64 = 256 << 20
    /// A compressed entry expanding more than this many times is refused as a bomb.
    public var maxCompressionRatio: Double = 100

    public init() {}
}

/// Everything that can go wrong writing or reading a backup, worded for the person restoring.
public enum BackupError: Error, Equatable, Sendable, CustomStringConvertible {
    case io(String)
    case missingFile(String)
    case damagedStoredFile(sha256: String)
    case notAZip(String)
    case unsafeEntry(name: String, reason: String)
    case tooManyEntries(Int, limit: Int)
    case tooLarge(name: String, limit: Int64)
    case bomb(name: String)
    case duplicateEntry(String)
    case noManifest
    case notABackup(String)
    case newerFormat(Int)
    case mismatch(String)
    case invalidData(file: String, line: Int, message: String)

    public var description: String {
        switch self {
        case .io(let detail): return "The backup could not be written or read: \(detail)."
        case .missingFile(let path): return "A stored file is missing: \(path)."
        case .damagedStoredFile(let sha): return "The stored file \(sha.prefix(12))… no longer matches its checksum (the disk may be damaged); the backup was not written."
        case .notAZip(let detail): return "This file is not a readable ZIP archive (\(detail)). Nothing was changed."
        case .unsafeEntry(let name, let reason): return "The archive has an unsafe entry “\(name)” (\(reason)). Nothing was changed."
        case .tooManyEntries(let count, let limit): return "The archive has \(count) entries, more than the limit of \(limit). Nothing was changed."
        case .tooLarge(let name, let limit): return "The entry “\(name)” is larger than the limit of \(limit) bytes. Nothing was changed."
        case .bomb(let name): return "The entry “\(name)” expands far beyond its compressed size (a ZIP bomb?). Nothing was changed."
        case .duplicateEntry(let name): return "The archive holds “\(name)” twice. Nothing was changed."
        case .noManifest: return "The archive has no manifest.json: it is not a Nestory backup. Nothing was changed."
        case .notABackup(let detail): return "The archive is not a Nestory backup (\(detail)). Nothing was changed."
        case .newerFormat(let version): return "The backup was made by a newer Nestory (format \(version); this version reads up to \(BackupManifest.currentFormatVersion)). Upgrade Nestory to restore it. Nothing was changed."
        case .mismatch(let detail): return "The archive does not match its manifest: \(detail). Nothing was changed."
        case .invalidData(let file, let line, let message): return "\(file), line \(line): \(message). Nothing was changed."
        }
    }
}

/// Progress of a long backup or restore: bytes done of bytes expected.
public typealias BackupProgress = @Sendable (_ done: Int64, _ total: Int64) -> Void
