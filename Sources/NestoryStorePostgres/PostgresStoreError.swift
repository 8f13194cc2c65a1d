import Foundation

/// What can stop Nestory from using a PostgreSQL database, each with a message an operator can act on. Errors of
/// the data itself (a duplicate e-mail, a missing household) are the domain's and are thrown as such.
public enum PostgresStoreError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The database URL cannot be read.
    case invalidURL(String)
    /// Nothing answered, or the connection broke before PostgreSQL spoke.
    case unreachable(location: String, reason: String)
    /// TLS was required and could not be set up, or the certificate was refused.
    case tls(location: String, reason: String)
    /// The server refused the user name or password.
    case authenticationFailed(location: String, user: String)
    /// The server has no database of that name.
    case databaseMissing(location: String, database: String)
    /// The server refused for another reason (no permission, too many connections, ...): its own words.
    case refused(location: String, message: String)
    /// The database holds changes from a newer Nestory than this one.
    case schemaTooNew(unknown: [String])
    /// The database is missing changes this Nestory needs, and was opened without migrating.
    case schemaTooOld(missing: [String])
    /// The store was opened without a place for stored files (photos, receipts, reports), and one was asked for.
    case noBlobFiles

    public var description: String {
        switch self {
        case .invalidURL(let why):
            return "The PostgreSQL URL cannot be read: \(why)."
        case .unreachable(let location, let reason):
            return "Cannot reach PostgreSQL at \(location): \(reason). Is the server running, and is the host and port right?"
        case .tls(let location, let reason):
            return "Cannot set up TLS with PostgreSQL at \(location): \(reason). Check sslmode and sslrootcert in the URL."
        case .authenticationFailed(let location, let user):
            return "PostgreSQL at \(location) refused the password for user \(user)."
        case .databaseMissing(let location, let database):
            return "PostgreSQL at \(location) has no database named \(database). Create it first (createdb \(database))."
        case .refused(let location, let message):
            return "PostgreSQL at \(location) refused the connection: \(message)"
        case .schemaTooNew(let unknown):
            return "The database was changed by a newer Nestory (\(unknown.joined(separator: ", "))). Run that version, or restore a backup made for this one."
        case .schemaTooOld(let missing):
            return "The database needs \(missing.count) change(s) that have not been applied (\(missing.joined(separator: ", "))). Start Nestory with migrations allowed."
        case .noBlobFiles:
            return "The PostgreSQL store was opened without a place for stored files (photos, receipts and reports)."
        }
    }

    public var errorDescription: String? { description }
}
