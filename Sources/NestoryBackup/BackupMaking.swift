import Foundation
import NestoryDomain

/// Writes a household's backup archive (the streaming ZIP writer in production); returns its size.
public protocol BackupMaking: Sendable {
    /// `includeProviderKeys`: the valuation providers' keys, in clear, because the owner asked for them.
    func writeBackup(household: HouseholdID, to file: URL, now: Date, includeProviderKeys: Bool,
                     progress: @escaping @Sendable (_ done: Int64, _ total: Int64) -> Void) async throws -> Int64
}

extension BackupWriter: BackupMaking {
    /// A backup without password hashes (what the web app offers: the archive leaves the server).
    public func writeBackup(household: HouseholdID, to file: URL, now: Date, includeProviderKeys: Bool,
                            progress: @escaping @Sendable (_ done: Int64, _ total: Int64) -> Void) async throws -> Int64 {
        try await write(household: household, to: file, now: now, includePasswordHashes: false, includeProviderKeys: includeProviderKeys,
                  progress: progress).archiveBytes
    }
}
