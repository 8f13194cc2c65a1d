import Foundation
import NestoryStoreInterfaces
internal import GRDB

/// Failures of the data folder or the database file itself, worded for the person running Nestory.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data folder is missing, not a folder, or not writable.
    case unusableDataFolder(path: String, reason: String)
    /// `mustExist` was asked and there is no database yet.
    case noDatabase(path: String)
    /// Another process holds the database's write lock for too long.
    case locked(path: String)
    /// The file is not an SQLite database, or it is damaged.
    case corrupt(path: String, detail: String)
    /// The database was migrated by a newer Nestory than this one.
    case schemaTooNew(path: String, unknownMigrations: [String])
    /// The database is from an older version and this command does not migrate.
    case schemaOutdated(path: String, pendingMigrations: [String])
    /// A stored file that a row points at is missing or does not match its checksum.
    case attachmentMissing(sha256: String)
    /// A file that could not be written or read (permissions, a failing disk).
    case io(String)
    /// An upload larger than allowed.
    case tooLarge(limit: Int64)
    /// The object store that keeps photos and files refused Nestory (HTTP 403: wrong key or secret, no permission
    /// on the bucket, or no such bucket): the operator's settings need fixing.
    case blobStorageRefused(location: String, detail: String)
    /// The object store did not answer in time or answered with a server error, after its retries.
    case blobStorageUnavailable(location: String, detail: String)
    /// The store was closed (the server is stopping); nothing was read or written.
    case closed(path: String)
    /// The copy of the database kept before an upgrade could not be made (no room on the disk, most often): the
    /// database was left as it was, not upgraded.
    case upgradeCopyFailed(path: String, detail: String)

    public var description: String {
        switch self {
        case .unusableDataFolder(let path, let reason):
            return "The data folder \(path) cannot be used: \(reason)."
        case .noDatabase(let path):
            return "There is no Nestory database in \(path). Run `nestory migrate --data \(path)` to create one."
        case .locked(let path):
            return "The database in \(path) is locked by another process (is another `nestory` running?). Try again when it has finished."
        case .corrupt(let path, let detail):
            return "The database in \(path) is damaged or is not a Nestory database (\(detail)). Restore it from a backup; the file was left untouched."
        case .schemaTooNew(let path, let unknown):
            return "The database in \(path) was written by a newer version of Nestory (it has migrations this version does not know: \(unknown.joined(separator: ", "))). Upgrade Nestory; the database was left untouched."
        case .schemaOutdated(let path, let pending):
            return "The database in \(path) needs upgrading (\(pending.count) migration\(pending.count == 1 ? "" : "s") to apply). Run `nestory migrate --data \(path)` (it keeps a copy of the database as it was)."
        case .attachmentMissing(let sha):
            return "A stored file (\(sha.prefix(12))…) is missing from where photos and files are kept (the data folder, or the object store of storage.blobs)."
        case .io(let detail):
            return "A file could not be written: \(detail)."
        case .tooLarge(let limit):
            return "The file is larger than the limit of \(limit / 1_000_000) MB."
        case .blobStorageRefused(let location, let detail):
            return "The object store refused access to \(location) (\(detail)). Check the bucket, storage.s3.accessKey and storage.s3.secretKey, and the key's permissions on the bucket."
        case .blobStorageUnavailable(let location, let detail):
            return "The object store holding \(location) cannot be reached (\(detail)). Try again in a moment."
        case .closed(let path):
            return "The database in \(path) was closed (Nestory is stopping); nothing was changed."
        case .upgradeCopyFailed(let path, let detail):
            return "The database in \(path) was not upgraded: the copy of it kept before an upgrade could not be made (\(detail)). "
                + "Make room on the disk (the copy is as large as nestory.sqlite), then start again."
        }
    }

    /// A system call about `what` failed with `code` (errno, read straight after the call): `NoSpaceLeft` when the disk
    /// or quota is full, else `.io`.
    static func failed(_ what: String, code: Int32) -> any Error {
        let detail = "\(what): \(String(cString: strerror(code)))"
        return code == ENOSPC || code == EDQUOT ? NoSpaceLeft(detail) : StoreError.io(detail)
    }

    /// `error` from writing `what` through Foundation (FileHandle, Data.write): `NoSpaceLeft` when the disk was full,
    /// else `error` itself.
    public static func writing(_ what: String, _ error: any Error) -> any Error {
        let full: Bool
        switch error {
        case let error as CocoaError: full = error.code == .fileWriteOutOfSpace
        case let error as POSIXError: full = error.code == .ENOSPC || error.code == .EDQUOT
        default: full = false
        }
        return full ? NoSpaceLeft("\(what): no space left on device") : error
    }

    /// Turns SQLite's own errors into the ones above where they mean one of them.
    static func translate(_ error: any Error, path: String) -> any Error {
        guard let dbError = error as? DatabaseError else { return error }
        switch dbError.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return StoreError.locked(path: path)
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return StoreError.corrupt(path: path, detail: dbError.message ?? "\(dbError.resultCode)")
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM:
            return StoreError.unusableDataFolder(path: path, reason: dbError.message ?? "\(dbError.resultCode)")
        case .SQLITE_FULL:
            return NoSpaceLeft("\(path): \(dbError.message ?? "the database cannot grow")")
        case .SQLITE_IOERR:
            return StoreError.io(dbError.message ?? "\(dbError.resultCode)")
        default:
            return error
        }
    }
}
