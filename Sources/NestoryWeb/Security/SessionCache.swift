import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces

/// Recent sessions' lookups (user, household, role), so a busy client does not cost a database
/// query per request. Sessions stay stored only as hashes: the cache is keyed by the token's hash.
///
/// An entry is used only while the database's `dataVersion` is the one read before the entry was
/// loaded: any commit, by this server or by another process (`nestory user password` from the command
/// line, say), changes it and empties the cache, so a session ended by sign-out, a password change or
/// removal from the household stops working with the next request. Expiry is checked on every use.
final class SessionCache: @unchecked Sendable {
    typealias Found = (session: SessionRecord, household: Household, role: MemberRole)

    private let lock = NSLock()
    private var entries: [String: Found] = [:]
    /// The data version the entries belong to.
    private var version = Int64.min
    private let capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    /// The live session for a token hash: from the cache while the database is unchanged, else
    /// from the database (and then kept).
    func session(_ database: AppDatabase, tokenHash: String, now: Date) throws -> Found? {
        // Read before the lookup: a commit after this read moves the version on, so what the lookup
        // below loads is never kept for longer than the state it was loaded from.
        let version = try? database.dataVersion()
        if let version, let found = cached(tokenHash, version: version), found.session.expiresAt > now {
            return found
        }
        guard let found = try database.sessionWithMembership(tokenHash: tokenHash, now: now) else { return nil }
        if let version { keep(found, for: tokenHash, version: version) }
        return found
    }

    private func cached(_ tokenHash: String, version: Int64) -> Found? {
        lock.withLock {
            if version > self.version {
                entries.removeAll(keepingCapacity: true)
                self.version = version
                return nil
            }
            return version == self.version ? entries[tokenHash] : nil
        }
    }

    private func keep(_ found: Found, for tokenHash: String, version: Int64) {
        lock.withLock {
            guard version == self.version else { return }  // the database changed meanwhile
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[tokenHash] = found
        }
    }
}
