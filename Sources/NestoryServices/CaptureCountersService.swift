import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// The capture screen's counters (scan opened, photo captured, ... queued, replayed): one number per
/// household, UTC day and event, capped per day (`CaptureEvent.dailyCap`). Nothing else is kept.
public struct CaptureCountersService: Sendable {
    let store: any CaptureCounterStore
    let now: @Sendable () -> Date

    public init(store: any CaptureCounterStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    /// Counts one event for today (UTC). Returns false when today's counter was already at the cap.
    @discardableResult
    public func record(_ event: CaptureEvent, household: HouseholdID) async throws -> Bool {
        try await store.countCaptureEvent(household, event, day: Self.today(now()), cap: CaptureEvent.dailyCap)
    }

    /// The last `days` UTC days, today included, oldest first: each day with every event's count (0 when none).
    public func recent(_ household: HouseholdID, days: Int = 7) async throws -> [(day: CalendarDate, counts: [CaptureEvent: Int])] {
        let today = Self.today(now())
        let first = (try? today.adding(days: -(days - 1))) ?? today
        var byDay: [CalendarDate: [CaptureEvent: Int]] = [:]
        for count in try await store.captureCounts(household, since: first) { byDay[count.day, default: [:]][count.event] = count.count }
        return (0..<days).compactMap { offset in
            guard let day = try? first.adding(days: offset) else { return nil }
            return (day, byDay[day] ?? [:])
        }
    }

    static func today(_ instant: Date) -> CalendarDate {
        CalendarDate(instant, in: TimeZone(identifier: "UTC")!)
    }
}
