import Foundation

/// The folder that holds everything a Nestory server keeps: the database and the stored files.
///
///     nestory-data/
///       nestory.sqlite (+ -wal, -shm)
///       blobs/ab/cd/abcd…   photos and receipts, named by SHA-256
///       tmp/                files being written
///       renditions/ab/…     thumbnails and display sizes (a cache: derived, metadata stripped)
///       reports/<id>.pdf    generated reports, listed in the `report` table (the export history)
public struct DataFolder: Sendable, Hashable {
    public let url: URL

    public static let defaultPath = "./nestory-data"

    public init(path: String) {
        url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
    }

    public var path: String { url.path }
    public var databaseURL: URL { url.appendingPathComponent("nestory.sqlite") }
    public var blobsURL: URL { url.appendingPathComponent("blobs", isDirectory: true) }
    public var tmpURL: URL { url.appendingPathComponent("tmp", isDirectory: true) }
    /// Thumbnails and display sizes made from stored photos: a cache, rebuilt when missing.
    public var renditionsURL: URL { url.appendingPathComponent("renditions", isDirectory: true) }
    /// Generated reports (PDFs), one file per row of the `report` table.
    public var reportsURL: URL { url.appendingPathComponent("reports", isDirectory: true) }
    /// The key that encrypts secrets kept in the database (providers' API keys): a file of its own, owner-only,
    /// never in the database or a backup.
    public var secretsKeyURL: URL { url.appendingPathComponent("secrets.key") }

    /// The bytes free for this server on the folder's disk (what an unprivileged writer may still use); nil when the
    /// folder cannot be asked.
    public var freeBytes: Int64? {
        var stats = statvfs()
        return statvfs(path, &stats) == 0 ? Int64(stats.f_bavail) * Int64(stats.f_frsize) : nil
    }

    /// Creates the folder (and its parents) when `create` is true; checks it is a writable folder.
    public func prepare(create: Bool) throws {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StoreError.unusableDataFolder(path: path, reason: "it is a file, not a folder")
            }
        } else if create {
            do {
                try fm.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw StoreError.unusableDataFolder(path: path, reason: "it could not be created (\(Self.reason(error)))")
            }
        } else {
            throw StoreError.noDatabase(path: path)
        }
        guard access(path, W_OK) == 0 else {
            throw StoreError.unusableDataFolder(path: path, reason: errno == EROFS ? "it is on a file system mounted read-only"
                                                                                   : "this user may not write to it")
        }
        for sub in [blobsURL, tmpURL, renditionsURL, reportsURL] {
            do {
                try fm.createDirectory(at: sub, withIntermediateDirectories: true)
            } catch {
                throw StoreError.unusableDataFolder(path: path, reason: "\(sub.lastPathComponent)/ could not be created (\(Self.reason(error)))")
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
