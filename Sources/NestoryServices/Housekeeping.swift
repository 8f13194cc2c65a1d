import Foundation
import Logging
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import ServiceLifecycle

/// Tidies the data folder beside the server: at start, and every `interval` after, it removes stored files
/// no row uses and temporary files (uploads, exports, backups and restores in progress) that nothing will
/// use: a crash mid-upload leaves its file behind, and nothing else would ever remove it. It also removes
/// responses kept for idempotency keys once they are older than their window.
public struct Housekeeping: Service {
    let attachments: any AttachmentStore
    let jobs: any JobStore
    /// Where the idempotency keys' answers are kept.
    let idempotency: any IdempotencyStore
    /// Request counts of minutes gone by are forgotten.
    let requestBudget: any RequestBudget
    /// This server's thumbnails: those of stored files no longer recorded go (another server may have removed them).
    let renditions: RenditionCache?
    /// Stored files, and this server's temporary files.
    let files: any BlobFiles
    let interval: Duration
    /// How long responses to requests with an `Idempotency-Key` are kept.
    let idempotencyWindow: TimeInterval
    let logger: Logger
    let now: @Sendable () -> Date
    /// Files in tmp/web/ still wanted: uploads waiting for the person's choice.
    let pendingUploads: @Sendable () -> Set<String>

    public init(stores: Stores, renditions: RenditionCache? = nil, interval: Duration = .seconds(600),
                idempotencyWindow: TimeInterval = 86_400,
                logger: Logger = Logger(label: "nestory.housekeeping"),
                pendingUploads: @escaping @Sendable () -> Set<String>, now: @escaping @Sendable () -> Date = Date.init) {
        attachments = stores.attachments
        jobs = stores.jobs
        idempotency = stores.idempotency
        requestBudget = stores.requestBudget
        self.renditions = renditions
        files = stores.files
        self.interval = interval
        self.idempotencyWindow = idempotencyWindow
        self.logger = logger
        self.pendingUploads = pendingUploads
        self.now = now
    }

    public func run() async throws {
        await sweep(atStart: true)
        // Sleeps are cut short by a graceful shutdown, which ends the loop.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await sweep(atStart: false)
            }
        }
    }

    /// One pass. At start every file in tmp/web/ that no unfinished job or recent backup names is an
    /// orphan; later, uploads and archives live for `BackupService.lifetime`.
    public func sweep(atStart: Bool) async {
        let (attachments, jobs, idempotency, files, requestBudget, renditions) = (attachments, jobs, idempotency, files, requestBudget, renditions)
        let (at, pending, window) = (now(), pendingUploads(), idempotencyWindow)
        await Task.detached(priority: .background) {
            do {
                let keep = try await Self.wanted(jobs, now: at).union(pending)
                let swept = files.sweepTemporaryFiles(olderThan: BackupService.lifetime, now: at, keep: keep, orphans: atStart)
                let removed = try await attachments.collectGarbage(now: at)
                let expired = try await idempotency.deleteStoredResponses(before: at.addingTimeInterval(-window))
                try await requestBudget.forgetCounts(now: at)
                var thumbnails = 0
                if let renditions { thumbnails = try await Self.sweep(renditions, attachments, now: at) }
                if swept.entries + removed + expired + thumbnails > 0 {
                    logger.info("tidied the data folder", metadata: [
                        "temporary_entries": .stringConvertible(swept.entries), "temporary_bytes": .stringConvertible(swept.bytes),
                        "unused_stored_files": .stringConvertible(removed), "expired_idempotency_keys": .stringConvertible(expired),
                        "thumbnails_of_removed_files": .stringConvertible(thumbnails)])
                }
            } catch {
                logger.warning("tidying the data folder failed", metadata: ["error": .string(String(describing: error))])
            }
        }.value
    }

    /// Removes the renditions of stored files the store no longer records, once an hour old; how many files' went.
    static func sweep(_ renditions: RenditionCache, _ attachments: any AttachmentStore, now: Date) async throws -> Int {
        let cached = renditions.hashes(writtenBefore: now.addingTimeInterval(-3600))
        var removed = 0
        for start in stride(from: 0, to: cached.count, by: 1000) {
            let chunk = Array(cached[start..<min(start + 1000, cached.count)])
            let recorded = try await attachments.recordedFiles(among: chunk)
            for sha256 in chunk where !recorded.contains(sha256) {
                renditions.remove(sha256)
                removed += 1
            }
        }
        return removed
    }

    /// Names of tmp/web/ files that jobs still need: archives of backups made within their lifetime, and the
    /// uploads that queued restores and imports will read.
    static func wanted(_ jobs: any JobStore, now: Date) async throws -> Set<String> {
        struct NamesAFile: Decodable { let file: String }
        let texts = try await jobs.recentJobResults(since: now.addingTimeInterval(-BackupService.lifetime)) + jobs.unfinishedJobPayloads()
        return Set(texts.compactMap { (try? JSONDecoder().decode(NamesAFile.self, from: Data($0.utf8)))?.file })
    }
}
