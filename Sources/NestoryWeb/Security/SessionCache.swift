import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// Recent sessions' lookups (user, household, role), so a busy client does not cost a database
/// query per request. Sessions stay stored only as hashes: the cache is keyed by the token's hash.
///
/// The entries belong to one account version (`AccountStore.accountVersion`): a number the store moves on with every
/// change to sessions, users, passkeys, memberships and households, by any writer (this server, another server on the
/// same database, `nestory user password` from the command line). An entry is used only while that number holds, so a
/// session ended by sign-out, a password change or removal from the household stops working with the next request, on
/// every server. Writes to anything else (items, photos, receipts) leave the entries alone. Expiry is checked on every use.
///
/// Where the store can also say cheaply that nothing at all was committed (SQLite's `data_version`), the account
/// version is not even read while that holds.
final class SessionCache: @unchecked Sendable {
    typealias Found = (session: SessionRecord, household: Household, role: MemberRole)

    private let lock = NSLock()
    private var entries: [String: Found] = [:]
    /// The account version the entries belong to.
    private var version = Int64.min
    /// The store-wide commit counter at which `version` was last confirmed (nil: none yet, or the store has none).
    private var confirmed: Int64?
    private let capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    /// The live session for a token hash, from the cache while the account version holds, else from `lookup` (and then
    /// kept). `committed` is the store's commit counter if it has one (read first, cheap), `accountVersion` reads the
    /// account version.
    func session(tokenHash: String, now: Date, committed: Int64?, accountVersion: () async throws -> Int64,
                 lookup: () async throws -> Found?) async throws -> Found? {
        if let committed, let found = lock.withLock({ confirmed == committed ? entries[tokenHash] : nil }), found.session.expiresAt > now {
            return found
        }
        // Read before the lookup: a change committed after this read moves the version on, so what the lookup below
        // loads is never kept for longer than the state it was loaded from.
        let version = try? await accountVersion()
        if let version, let found = cached(tokenHash, version: version, committed: committed), found.session.expiresAt > now {
            return found
        }
        guard let found = try await lookup() else { return nil }
        if let version { keep(found, for: tokenHash, version: version) }
        return found
    }

    private func cached(_ tokenHash: String, version: Int64, committed: Int64?) -> Found? {
        lock.withLock {
            if version > self.version {
                entries.removeAll(keepingCapacity: true)
                self.version = version
                confirmed = committed
                return nil
            }
            guard version == self.version else { return nil }
            // `committed` was read before `version`: nothing was committed since then that this version does not cover.
            if let committed, committed > (confirmed ?? .min) { confirmed = committed }
            return entries[tokenHash]
        }
    }

    private func keep(_ found: Found, for tokenHash: String, version: Int64) {
        lock.withLock {
            guard version == self.version else { return }  // the accounts changed meanwhile
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[tokenHash] = found
        }
    }
}
