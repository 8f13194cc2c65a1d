import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore: CaptureCounterStore {
    public func countCaptureEvent(_ householdID: HouseholdID, _ event: CaptureEvent, day: CalendarDate, cap: Int) async throws -> Bool {
        // One statement: a counter at its cap is not updated (and returns no row), however many servers count at once.
        try await withStoreErrors {
            for try await _ in try await client.query("""
                INSERT INTO capture_counter AS c (household_id, day, event, count) VALUES (\(householdID.rawValue), \(day.iso), \(event.rawValue), 1)
                ON CONFLICT (household_id, day, event) DO UPDATE SET count = c.count + 1 WHERE c.count < \(Int32(clamping: cap))
                RETURNING 1
                """, logger: logger) {
                return true
            }
            return false
        }
    }

    public func captureCounts(_ householdID: HouseholdID, since: CalendarDate) async throws -> [CaptureCount] {
        try await withStoreErrors {
            var counts: [CaptureCount] = []
            for try await (dayText, eventText, count) in try await client.query("""
                SELECT day, event, count FROM capture_counter WHERE household_id = \(householdID.rawValue) AND day >= \(since.iso)
                ORDER BY day, event
                """, logger: logger).decode((String, String, Int32).self) {
                guard let day = try? CalendarDate(iso: dayText), let event = CaptureEvent(rawValue: eventText) else { continue }
                counts.append(CaptureCount(day: day, event: event, count: Int(count)))
            }
            return counts
        }
    }
}
