import Foundation
import NestoryAuth
import NestoryBackup
import NestoryDomain

/// Uploads waiting for a decision (an archive to restore, a CSV to map), per household and person.
/// Files live in the data folder's tmp/web/ and are removed when they expire (an hour) or are replaced.
public final class DataTransfers: @unchecked Sendable {
    /// An uploaded file waiting for the next step (restore's mode, CSV's column mapping).
    public struct Upload: Sendable {
        public let token: String
        public let householdID: HouseholdID
        public let userID: UserID
        public let file: URL
        public let originalName: String
        public let createdAt: Date
        /// For a backup archive: its manifest, once the whole archive has been checked.
        public var manifest: BackupManifest?
    }

    private let lock = NSLock()
    private var uploads: [String: Upload] = [:]
    static let lifetime: TimeInterval = 3600

    public init() {}

    static func token() -> String { SessionToken.generate() }

    // MARK: - Uploads

    func addUpload(_ upload: Upload) {
        lock.withLock {
            expire(now: upload.createdAt)
            // One pending upload of each kind per person: a new one replaces the old.
            for (token, old) in uploads where old.userID == upload.userID && old.file.pathExtension == upload.file.pathExtension {
                try? FileManager.default.removeItem(at: old.file)
                uploads[token] = nil
            }
            uploads[upload.token] = upload
        }
    }

    func upload(_ token: String, household: HouseholdID, user: UserID) -> Upload? {
        lock.withLock { uploads[token].flatMap { $0.householdID == household && $0.userID == user ? $0 : nil } }
    }

    /// Records what checking an upload found (the confirm page shows it without reading the archive again).
    func setManifest(_ manifest: BackupManifest, for token: String) {
        lock.withLock { uploads[token]?.manifest = manifest }
    }

    func removeUpload(_ token: String) {
        lock.withLock {
            if let upload = uploads.removeValue(forKey: token) { try? FileManager.default.removeItem(at: upload.file) }
        }
    }

    /// Forgets an upload whose file a job now owns (the job removes it when done).
    func handOver(_ token: String) {
        lock.withLock { _ = uploads.removeValue(forKey: token) }
    }

    /// The files of uploads still waiting (the temporary-file sweep keeps them).
    func pendingFiles() -> Set<String> {
        lock.withLock { Set(uploads.values.map(\.file.lastPathComponent)) }
    }

    private func expire(now: Date) {
        for (token, upload) in uploads where now.timeIntervalSince(upload.createdAt) > Self.lifetime {
            try? FileManager.default.removeItem(at: upload.file)
            uploads[token] = nil
        }
    }
}
