internal import GRDB
internal import GRDBSQLite
import Foundation

/// `nestory_seqs(x, limit)`: an aggregate that gathers its integer arguments, in the order it is given them, into one
/// blob of native-endian 64-bit integers (an empty blob for no rows; a NULL argument is an error). Given more than
/// `limit` rows (a negative limit: none), it stops the statement with `SQLITE_TOOBIG` at once, so a word too common to
/// gather costs no more than its limit (a `LIMIT` in a subquery would cost about 40 ns a row more on every read).
///
/// The search index's matches for a common word are read this way instead of row by row: SQLite hands the rowids to
/// the aggregate without leaving its loop, about 40 ns a match from FTS5, where stepping a statement for each row and
/// reading its column costs about 190 ns (76,642 matches of "walnut" at a million items: 14.7 ms row by row). The
/// function is registered on each connection through the C API: GRDB's functions box every argument in a
/// `DatabaseValue` array, a cost of the same size as the one saved.
enum SeqCollector {
    static let name = "nestory_seqs"

    /// The running gather, kept in SQLite's per-aggregate memory (zeroed at the first row).
    private struct Gather {
        var values: UnsafeMutablePointer<Int64>?
        var count: Int
        var capacity: Int
    }

    /// What a read of the matches gave: every one, or more than the limit.
    enum Gathered {
        case values([Int64])
        case tooMany
    }

    /// Runs `sql`, whose one column is `nestory_seqs(…, ?)` with the limit as its last argument.
    static func gather(_ statement: Statement, _ arguments: StatementArguments) throws -> Gathered {
        do {
            return .values(values(try Data.fetchOne(statement, arguments: arguments) ?? Data()))
        } catch let error as DatabaseError where error.resultCode == .SQLITE_TOOBIG && error.message == tooMany {
            return .tooMany
        }
    }

    private static let tooMany = "\(name): more rows than its limit"

    static func register(_ db: Database) throws {
        let code = sqlite3_create_function_v2(db.sqliteConnection, name, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, nil,
                                              step, final, nil)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "registering \(name) failed") }
    }

    private static let step: @convention(c) (OpaquePointer?, CInt, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let raw = sqlite3_aggregate_context(context, CInt(MemoryLayout<Gather>.size)) else {
            sqlite3_result_error_nomem(context)
            return
        }
        let value = arguments![0]
        guard sqlite3_value_type(value) == SQLITE_INTEGER else {
            sqlite3_result_error(context, "\(name) takes integers", -1)
            return
        }
        let gather = raw.assumingMemoryBound(to: Gather.self)
        let limit = sqlite3_value_int64(arguments![1])
        if limit >= 0, gather.pointee.count >= limit {
            sqlite3_result_error(context, tooMany, -1)
            sqlite3_result_error_code(context, SQLITE_TOOBIG)
            return
        }
        if gather.pointee.count == gather.pointee.capacity {
            let capacity = max(1024, gather.pointee.capacity * 2)
            guard let grown = realloc(gather.pointee.values, capacity * MemoryLayout<Int64>.stride) else {
                sqlite3_result_error_nomem(context)
                return
            }
            gather.pointee.values = grown.assumingMemoryBound(to: Int64.self)
            gather.pointee.capacity = capacity
        }
        gather.pointee.values![gather.pointee.count] = sqlite3_value_int64(value)
        gather.pointee.count += 1
    }

    private static let final: @convention(c) (OpaquePointer?) -> Void = { context in
        // No row: no memory was asked for, and none is made now.
        guard let raw = sqlite3_aggregate_context(context, 0) else {
            sqlite3_result_zeroblob(context, 0)
            return
        }
        let gather = raw.assumingMemoryBound(to: Gather.self)
        guard let values = gather.pointee.values else {
            sqlite3_result_zeroblob(context, 0)
            return
        }
        // SQLite frees the buffer once it has no more use for the blob (no copy).
        sqlite3_result_blob64(context, values, sqlite3_uint64(gather.pointee.count * MemoryLayout<Int64>.stride), free)
        gather.pointee.values = nil
    }

    private static func values(_ blob: Data) -> [Int64] {
        let count = blob.count / MemoryLayout<Int64>.stride
        return [Int64](unsafeUninitializedCapacity: count) { buffer, initialized in
            _ = blob.copyBytes(to: buffer)
            initialized = count
        }
    }
}
