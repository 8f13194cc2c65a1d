import Foundation
import NestoryStoreInterfaces
import Testing

/// `RequestBudget` on both engines: the same sliding-window estimate, a refused request not counted, keys apart.
@Suite struct RequestBudgetConformanceTests {
    /// 10:00:00 UTC on some day: the start of a clock minute.
    static let minuteStart = Date(timeIntervalSince1970: 1_795_000_000 - 1_795_000_000.truncatingRemainder(dividingBy: 60))

    @Test(arguments: Engine.available)
    func countsUpToTheLimitThenSaysHowLongToWait(_ engine: Engine) async throws {
        try await withStores(engine) { stores in
            let budget = stores.requestBudget
            let start = Self.minuteStart.addingTimeInterval(10)
            for second in 0..<3 { #expect(try await budget.admit("token:a", limit: 3, at: start.addingTimeInterval(Double(second))) == nil) }
            // The fourth in the same minute waits until just after the next minute starts, when these three weigh less
            // than three: from 10:00:13, 47 s and a little, so 48 whole seconds.
            #expect(try await budget.admit("token:a", limit: 3, at: start.addingTimeInterval(3)) == 48)
            // Another key has its own budget.
            #expect(try await budget.admit("token:b", limit: 3, at: start.addingTimeInterval(3)) == nil)
            // A refused request was not counted: in the next minute, at 10:01:30, 3 × 0.5 + 0 < 3 lets one through, and
            // a second (1.5 + 1 < 3), but not a third (1.5 + 2).
            let next = Self.minuteStart.addingTimeInterval(90)
            #expect(try await budget.admit("token:a", limit: 3, at: next) == nil)
            #expect(try await budget.admit("token:a", limit: 3, at: next) == nil)
            let wait = try #require(try await budget.admit("token:a", limit: 3, at: next))
            // 3 × (1 − t/60) + 2 < 3 once t > 40 s into the minute: 10 s after 10:01:30, so 11 whole seconds.
            #expect(wait == 11)
            // Two minutes on, nothing is left of them.
            let later = Self.minuteStart.addingTimeInterval(180)
            for _ in 0..<3 { #expect(try await budget.admit("token:a", limit: 3, at: later) == nil) }
        }
    }

    @Test(arguments: Engine.available)
    func forgettingOldMinutesKeepsTheCurrentCounts(_ engine: Engine) async throws {
        try await withStores(engine) { stores in
            let budget = stores.requestBudget
            let at = Self.minuteStart.addingTimeInterval(5)
            #expect(try await budget.admit("k", limit: 1, at: at) == nil)
            try await budget.forgetCounts(now: at.addingTimeInterval(1))
            #expect(try await budget.admit("k", limit: 1, at: at.addingTimeInterval(2)) != nil)
            // Once the minute is two minutes behind, forgetting it changes nothing that counts.
            try await budget.forgetCounts(now: at.addingTimeInterval(125))
            #expect(try await budget.admit("k", limit: 1, at: at.addingTimeInterval(125)) == nil)
        }
    }

    /// Two servers on one PostgreSQL database count against one budget, including requests that race.
    @Test(.enabled(if: Engine.available.contains(.postgres)))
    func twoServersShareOneBudget() async throws {
        try await withTwoPostgresStores { first, second in
            let at = Self.minuteStart.addingTimeInterval(20)
            let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<40 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await store.admit("token:shared", limit: 25, at: at) == nil }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(admitted == 25)
        }
    }
}

@Suite struct RequestWindowTests {
    @Test func theMinuteBeforeWeighsWhatIsLeftOfIt() {
        let window = RequestWindow(RequestBudgetConformanceTests.minuteStart.addingTimeInterval(45))
        #expect(window.elapsed == 45)
        #expect(window.previousWeight == 0.25)
        // 8 × 0.25 + 1 = 3 is not under 3; 8 × 0.25 + 0 is.
        #expect(!window.admits(previous: 8, current: 1, limit: 3))
        #expect(window.admits(previous: 8, current: 0, limit: 3))
        #expect(RequestWindow(RequestBudgetConformanceTests.minuteStart.addingTimeInterval(60)).minute == window.minute + 1)
    }

    @Test func waitIsTheFirstWholeSecondThatFits() {
        let window = RequestWindow(RequestBudgetConformanceTests.minuteStart.addingTimeInterval(30))
        // 4 × (1 − t/60) + 1 < 2 once t > 45: 15 s from now, so 16 whole seconds.
        #expect(window.retryAfter(previous: 4, current: 1, limit: 2) == 16)
        // This minute alone is over: the rest of it (30 s), then 6 × (1 − s/60) < 3 once s > 30.
        #expect(window.retryAfter(previous: 0, current: 6, limit: 3) == 61)
        // At the limit within this minute alone: the rest of it, and a little.
        #expect(window.retryAfter(previous: 0, current: 1, limit: 1) == 31)
    }
}
