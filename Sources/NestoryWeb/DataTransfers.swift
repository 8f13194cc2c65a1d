import Foundation
import NestoryAuth
import NestoryBackup
import NestoryDomain

/// Long-running exports (backups) and uploads waiting for a decision (an archive to restore, a CSV
/// to map), per household. Files live in the data folder's tmp/web/ and are removed when they
/// expire (an hour) or are replaced.
public final class DataTransfers: @unchecked Sendable {
    public struct Job: Sendable {
        public enum State: Sendable {
            case running(done: Int64, total: Int64)
            case finished(bytes: Int64)
            case failed(String)
        }
        public let id: String
        public let householdID: HouseholdID
        public let file: URL
        public let downloadName: String
        public let createdAt: Date
        public var state: State
    }

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
    private var jobs: [String: Job] = [:]
    /// Backups are written one at a time (they are disk-bound; several at once only slow each other).
    let queue = DispatchQueue(label: "nestory.backups", qos: .utility)
    private var uploads: [String: Upload] = [:]
    static let lifetime: TimeInterval = 3600

    public init() {}

    func folder(_ tmp: URL) throws -> URL {
        let url = tmp.appendingPathComponent("web", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func token() -> String { SessionToken.generate() }

    // MARK: - Jobs

    func addJob(_ job: Job) {
        lock.withLock {
            expire(now: job.createdAt)
            jobs[job.id] = job
        }
    }

    func update(_ id: String, _ state: Job.State) {
        lock.withLock { jobs[id]?.state = state }
    }

    func job(_ id: String, household: HouseholdID) -> Job? {
        lock.withLock { jobs[id].flatMap { $0.householdID == household ? $0 : nil } }
    }

    /// The household's jobs, newest first.
    func jobs(household: HouseholdID) -> [Job] {
        lock.withLock { jobs.values.filter { $0.householdID == household }.sorted { $0.createdAt > $1.createdAt } }
    }

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

    private func expire(now: Date) {
        for (id, job) in jobs where now.timeIntervalSince(job.createdAt) > Self.lifetime {
            if case .running = job.state { continue }
            try? FileManager.default.removeItem(at: job.file)
            jobs[id] = nil
        }
        for (token, upload) in uploads where now.timeIntervalSince(upload.createdAt) > Self.lifetime {
            try? FileManager.default.removeItem(at: upload.file)
            uploads[token] = nil
        }
    }
}
