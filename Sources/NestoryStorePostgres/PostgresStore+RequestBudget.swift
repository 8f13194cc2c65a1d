import Foundation
import NestoryStoreInterfaces
import PostgresNIO

/// Request budgets on PostgreSQL: one row per key and clock minute in `request_count`, so every server on the
/// database counts the same requests. Admitting a request is one statement: it counts the request only when the
/// estimate (`RequestWindow`) is under the limit, and concurrent requests on several servers serialise on the row.
extension PostgresStore: SharedRequestCounts {
    public func admit(_ key: String, limit: Int, at: Date) async throws -> Int? {
        let window = RequestWindow(at)
        let (minute, weight, limit) = (window.minute, window.previousWeight, Int64(limit))
        return try await withStoreErrors {
            let counted = try await client.query("""
                WITH before AS (SELECT coalesce((SELECT count FROM request_count WHERE key = \(key) AND minute = \(minute - 1)), 0) AS n)
                INSERT INTO request_count AS c (key, minute, count)
                SELECT \(key), \(minute), 1 FROM before WHERE before.n * \(weight) < \(limit)
                ON CONFLICT (key, minute) DO UPDATE SET count = c.count + 1
                WHERE (SELECT n FROM before) * \(weight) + c.count < \(limit)
                RETURNING c.count
                """, logger: logger)
            for try await _ in counted { return nil }
            // Refused: how long until one more fits, from the two counts as they are now.
            var (previous, current) = (0, 0)
            for try await (rowMinute, count) in try await client.query(
                "SELECT minute, count FROM request_count WHERE key = \(key) AND minute IN (\(minute - 1), \(minute))", logger: logger)
                .decode((Int64, Int32).self) {
                if rowMinute == minute { current = Int(count) } else { previous = Int(count) }
            }
            return window.retryAfter(previous: previous, current: current, limit: Int(limit))
        }
    }

    public func addRequests(_ key: String, count: Int, at: Date) async throws -> (previous: Int, current: Int) {
        let minute = RequestWindow(at).minute
        return try await withStoreErrors {
            for try await (current, previous) in try await client.query("""
                INSERT INTO request_count AS c (key, minute, count) VALUES (\(key), \(minute), \(Int32(clamping: count)))
                ON CONFLICT (key, minute) DO UPDATE SET count = c.count + excluded.count
                RETURNING c.count, coalesce((SELECT count FROM request_count WHERE key = \(key) AND minute = \(minute - 1)), 0)
                """, logger: logger).decode((Int32, Int32).self) {
                return (Int(previous), Int(current))
            }
            return (0, count)
        }
    }

    public func forgetCounts(now: Date) async throws {
        let before = RequestWindow(now).minute - 1
        try await withStoreErrors { try await client.query("DELETE FROM request_count WHERE minute < \(before)", logger: logger) }
    }
}
