import Foundation
import NestoryStoreInterfaces
import PostgresNIO

/// Request budgets on PostgreSQL: one row per key and clock minute in `request_count`, so every server on the
/// database counts the same requests. Admitting a request is one statement: it counts the request only when the
/// estimate (`RequestWindow`) is under the limit, and concurrent requests on several servers serialise on the row.
extension PostgresStore: RequestBudget {
    public func admit(_ key: String, limit: Int, at: Date) async throws -> Int? {
        let window = RequestWindow(at)
        let (minute, weight, limit) = (window.minute, window.previousWeight, Int64(limit))
        return try await withStoreErrors {
            let counted = try await client.execute(CountRequest(key: key, minute: minute, weight: weight, limit: limit), logger: logger)
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

    /// Counts one request when it fits (prepared once per connection: planning this statement cost more than
    /// running it, and it runs on every request made with a token).
    struct CountRequest: PostgresPreparedStatement {
        static let sql = """
            WITH before AS (SELECT coalesce((SELECT count FROM request_count WHERE key = $1 AND minute = $2 - 1), 0) AS n)
            INSERT INTO request_count AS c (key, minute, count)
            SELECT $1, $2, 1 FROM before WHERE before.n * $3 < $4
            ON CONFLICT (key, minute) DO UPDATE SET count = c.count + 1
            WHERE (SELECT n FROM before) * $3 + c.count < $4
            RETURNING c.count
            """
        typealias Row = Int32
        let key: String
        let minute: Int64
        let weight: Double
        let limit: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(key)
            bindings.append(minute)
            bindings.append(weight)
            bindings.append(limit)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Int32 { try row.decode(Int32.self) }
    }

    public func forgetCounts(now: Date) async throws {
        let before = RequestWindow(now).minute - 1
        try await withStoreErrors { try await client.query("DELETE FROM request_count WHERE minute < \(before)", logger: logger) }
    }
}
