import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// The capture counters behave the same on every engine.
@Suite struct CaptureCounterStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_000)
    let today = try! CalendarDate(iso: "2026-11-26")

    func day(_ offset: Int) -> CalendarDate { try! today.adding(days: offset) }

    @Test(arguments: Engine.available)
    func countersStopAtTheirCapAndAreReadOldestFirstPerHousehold(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: now).id
            let away = try await stores.accounts.createHousehold(name: "Away", currency: .usd, now: now).id
            let counters = stores.captureCounters
            #expect(try await counters.countCaptureEvent(home, .scanRetry, day: day(0), cap: 2))
            #expect(try await counters.countCaptureEvent(home, .scanRetry, day: day(0), cap: 2))
            #expect(try await counters.countCaptureEvent(home, .scanRetry, day: day(0), cap: 2) == false)
            #expect(try await counters.countCaptureEvent(home, .capturePhoto, day: day(0), cap: 2))
            #expect(try await counters.countCaptureEvent(home, .scanOpen, day: day(-2), cap: 2))
            #expect(try await counters.countCaptureEvent(home, .queued, day: day(-9), cap: 2))
            #expect(try await counters.countCaptureEvent(away, .scanRetry, day: day(0), cap: 2))

            #expect(try await counters.captureCounts(home, since: day(-2)) == [
                CaptureCount(day: day(-2), event: .scanOpen, count: 1),
                CaptureCount(day: day(0), event: .capturePhoto, count: 1),
                CaptureCount(day: day(0), event: .scanRetry, count: 2),
            ])
            #expect(try await counters.captureCounts(away, since: day(-30)) == [CaptureCount(day: day(0), event: .scanRetry, count: 1)])
        }
    }

    /// Many counts at once on one store never pass the cap.
    @Test(arguments: Engine.available)
    func simultaneousCountsNeverPassTheCap(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let home = try await stores.accounts.createHousehold(name: "Home", currency: .usd, now: now).id
            let counted = try await Self.countTogether([stores.captureCounters], home, day: day(0), times: 40, cap: 25)
            #expect(counted == 25)
            #expect(try await stores.captureCounters.captureCounts(home, since: day(0)).map(\.count) == [25])
        }
    }

    static func countTogether(_ stores: [any CaptureCounterStore], _ home: HouseholdID, day: CalendarDate, times: Int, cap: Int) async throws -> Int {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<times {
                let store = stores[index % stores.count]
                group.addTask { try await store.countCaptureEvent(home, .scanRetry, day: day, cap: cap) }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }
}

/// Two PostgreSQL stores on one schema: counts made on both at once share one cap.
@Suite(.enabled(if: Engine.available.contains(.postgres)))
struct CaptureCountersAcrossServersTests {
    @Test func twoServersCountingAtOnceShareOneCap() async throws {
        try await withTwoPostgresStores { first, second in
            let today = try CalendarDate(iso: "2026-11-26")
            let home = try await first.createHousehold(name: "Home", currency: .usd, now: Date(millis: 1_763_800_000_000)).id
            let counted = try await CaptureCounterStoreConformanceTests.countTogether([first, second], home, day: today, times: 60, cap: 40)
            #expect(counted == 40)
            #expect(try await second.captureCounts(home, since: today).map(\.count) == [40])
        }
    }
}
