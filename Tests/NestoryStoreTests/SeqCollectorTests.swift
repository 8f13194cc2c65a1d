import Foundation
import GRDB
import Testing
@testable import NestoryStore

/// `nestory_seqs`: the aggregate that hands a search's matches over in one blob.
@Suite struct SeqCollectorTests {
    private func gather(_ sql: String, limit: Int) throws -> SeqCollector.Gathered {
        let queue = try DatabaseQueue()
        return try queue.inDatabase { db in
            try SeqCollector.register(db)
            try db.execute(sql: "CREATE TABLE t(x INTEGER)")
            for x in [5, -3, 1 << 40, 0, 9_007_199_254_740_993] { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [x]) }
            return try SeqCollector.gather(db.makeStatement(sql: sql), [limit])
        }
    }

    @Test func itGathersEveryRowInTheOrderGiven() throws {
        guard case .values(let values) = try gather("SELECT nestory_seqs(x, ?) FROM (SELECT x FROM t ORDER BY x)", limit: -1) else {
            Issue.record("no limit was given")
            return
        }
        #expect(values == [-3, 0, 5, 1 << 40, 9_007_199_254_740_993])
        guard case .values(let none) = try gather("SELECT nestory_seqs(x, ?) FROM t WHERE x > 1e300", limit: -1) else {
            Issue.record("no row, no limit passed")
            return
        }
        #expect(none.isEmpty)
    }

    @Test func itStopsPastItsLimit() throws {
        guard case .values(let five) = try gather("SELECT nestory_seqs(x, ?) FROM t", limit: 5) else {
            Issue.record("five rows are within a limit of five")
            return
        }
        #expect(five.count == 5)
        guard case .tooMany = try gather("SELECT nestory_seqs(x, ?) FROM t", limit: 4) else {
            Issue.record("five rows are more than four")
            return
        }
    }

    @Test func anythingButAnIntegerIsAnError() throws {
        #expect(throws: DatabaseError.self) { try gather("SELECT nestory_seqs(NULL, ?)", limit: -1) }
        #expect(throws: DatabaseError.self) { try gather("SELECT nestory_seqs('7', ?)", limit: -1) }
    }
}
