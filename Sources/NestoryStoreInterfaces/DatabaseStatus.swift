import Foundation

/// What an operator asks of the database itself (`/health`, `/health/ready`, `nestory migrate`): where it is, the
/// schema it is at, and whether it takes writes now.
public protocol DatabaseStatus: Sendable {
    /// Where the database is, for messages, never with a password: a file's path, or `postgres://USER@HOST:PORT/DB`.
    var displayLocation: String { get }
    /// The changes applied to the schema, in order (the last one is its version).
    func appliedMigrations() async throws -> [String]
    /// Returns when a write would succeed now; else throws saying why (a read-only file or standby server, a full
    /// disk, a lost connection). Writes nothing that stays.
    func checkWritable() async throws
}
