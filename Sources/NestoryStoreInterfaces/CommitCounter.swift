/// What a store may offer beside its interfaces: a number, read without a query or a wait, that changes whenever
/// anything at all is committed, by any connection or process (SQLite's `PRAGMA data_version`). While it holds, nothing
/// read before can have changed, so a cache need not even read its own version (the session cache
/// `AccountStore.accountVersion`, the JSON list's answers `ItemStore.itemContentVersion`). SQLite's account and item
/// stores offer it; PostgreSQL offers none: there the caches read their version, one row by its key, each time.
public protocol CommitCounter: Sendable {
    /// The same number twice means nothing was committed in between.
    func commitCount() throws -> Int64
}
