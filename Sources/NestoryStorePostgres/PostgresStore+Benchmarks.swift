import Foundation
import NestoryDomain
import PostgresNIO

/// Hooks for `nestory-bench postgres`: the statements the store runs, run bare beside it.
extension PostgresStore {
    /// A statement as the store would send it, to run again and again.
    package struct RawStatement: Sendable {
        let query: PostgresQuery
        /// How many rows the store reads of it at most.
        let rowLimit: Int
    }

    /// The statements `items` runs for this query, in order (it runs them to find out which).
    package func rawPage(_ householdID: HouseholdID, _ query: ItemQuery) async throws -> [RawStatement] {
        let rowLimit = query.limit + 1
        guard Self.searchQuery(query.search) != nil else {
            return [RawStatement(query: try Self.pageQuery(householdID, query), rowLimit: rowLimit)]
        }
        var statements: [RawStatement] = []
        if query.sort == .name {
            // The statements `wordSearch` ran, then as `wordPage` runs them.
            let (words, ran) = try await withStoreErrors {
                try await client.withConnection { try await Self.wordSearchRecorded($0, householdID, query.search, logger: logger) }
            }
            statements += ran.map { RawStatement(query: $0, rowLimit: .max) }
            if let words {
                let page = RawStatement(query: try Self.wordQuery(householdID, query, words, budget: Self.wordBudget), rowLimit: rowLimit)
                statements.append(page)
                guard try await run([page]) <= query.limit else { return statements }
                let count = RawStatement(query: try Self.wordQuery(householdID, query, words, budget: Self.wordBudget, count: true), rowLimit: 1)
                statements.append(count)
                var read = 0
                for try await value in try await client.query(count.query, logger: logger).decode(Int.self) { read = value }
                guard read >= Self.wordBudget else { return statements }
            }
        }
        // The walk, and when it finds less than a page before the filters' items run out, the longer walk, then the matches.
        var budget = Self.walkBudget(query)
        var longer = true
        while true {
            let walk = RawStatement(query: try Self.pageQuery(householdID, query, plan: .walk(budget: budget)), rowLimit: rowLimit)
            statements.append(walk)
            let found = try await run([walk])
            guard found <= query.limit else { return statements }
            let candidates = RawStatement(query: try Self.walkCandidates(householdID, query, budget: budget), rowLimit: 1)
            statements.append(candidates)
            var count = 0
            for try await value in try await client.query(candidates.query, logger: logger).decode(Int.self) { count = value }
            guard count >= budget else { return statements }
            guard longer, let next = Self.longerWalk(query, budget: budget, found: found) else { break }
            (budget, longer) = (next, false)
        }
        return statements + [RawStatement(query: try Self.pageQuery(householdID, query, plan: .searchFirst), rowLimit: rowLimit)]
    }

    /// The statements `summary` runs, in order.
    package static func rawSummary(_ householdID: HouseholdID) -> [RawStatement] {
        [
            RawStatement(query: "SELECT \(unescaped: householdColumns) FROM household h WHERE h.id = \(householdID.rawValue)", rowLimit: 1),
            RawStatement(query: "SELECT items, documented, no_photo, no_receipt, no_value, high_value FROM item_stats WHERE household_id = \(householdID.rawValue)", rowLimit: 1),
            RawStatement(query: "SELECT currency, total FROM value_total WHERE household_id = \(householdID.rawValue) AND items > 0", rowLimit: .max),
            RawStatement(query: "SELECT count(*) FROM room_total WHERE household_id = \(householdID.rawValue) AND room_id IS NOT NULL AND items > 0", rowLimit: 1),
        ]
    }

    /// Runs statements on one connection, reading their rows without decoding them; how many rows were read.
    package func run(_ statements: [RawStatement]) async throws -> Int {
        try await withStoreErrors {
            try await client.withConnection { connection in
                var read = 0
                for statement in statements {
                    var rows = 0
                    for try await _ in try await connection.query(statement.query, logger: logger) {
                        rows += 1
                        if rows >= statement.rowLimit { break }
                    }
                    read += rows
                }
                return read
            }
        }
    }

    /// The plan PostgreSQL runs a statement by, with its timings (`EXPLAIN (ANALYZE, BUFFERS)`).
    package func explain(_ statement: RawStatement) async throws -> String {
        try await withStoreErrors {
            var lines: [String] = []
            let query = PostgresQuery(unsafeSQL: "EXPLAIN (ANALYZE, BUFFERS) " + statement.query.sql, binds: statement.query.binds)
            for try await line in try await client.query(query, logger: logger).decode(String.self) { lines.append(line) }
            return lines.joined(separator: "\n")
        }
    }

    /// Brings the planner's statistics up to date (after a bulk load).
    package func analyze() async throws {
        try await withStoreErrors { _ = try await client.query("ANALYZE", logger: logger) }
    }

    /// Removes a benchmark's schema and everything in it.
    package func dropSchemaForBenchmarks(_ schema: String) async throws {
        precondition(schema.hasPrefix("bench_") && schema.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }, "not a benchmark's schema")
        try await withStoreErrors { try await client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"), logger: logger) }
    }
}
