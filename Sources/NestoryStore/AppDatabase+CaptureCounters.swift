import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

/// The capture counters on SQLite, as the async interface the services call: each call runs the store's own method
/// off the caller's thread (`AppDatabase.offload`).
public struct SQLiteCaptureCounterStore: CaptureCounterStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    public func countCaptureEvent(_ householdID: HouseholdID, _ event: CaptureEvent, day: CalendarDate, cap: Int) async throws -> Bool {
        try await database.offload { try $0.countCaptureEvent(householdID, event, day: day, cap: cap) }
    }
    public func captureCounts(_ householdID: HouseholdID, since: CalendarDate) async throws -> [CaptureCount] {
        try await database.offload { try $0.captureCounts(householdID, since: since) }
    }
}

extension AppDatabase {
    /// Adds one to the household's counter for `event` on `day`, unless it already reached `cap`.
    /// Returns whether it was counted.
    public func countCaptureEvent(_ householdID: HouseholdID, _ event: CaptureEvent, day: CalendarDate, cap: Int) throws -> Bool {
        try write { db in
            try db.execute(sql: """
                INSERT INTO capture_counter (household_id, day, event, count) VALUES (?, ?, ?, 1)
                ON CONFLICT (household_id, day, event) DO UPDATE SET count = count + 1 WHERE count < ?
                """, arguments: [householdID.description, day.iso, event.rawValue, cap])
            return db.changesCount == 1
        }
    }

    /// The household's counters from `since` on (UTC days), oldest first.
    public func captureCounts(_ householdID: HouseholdID, since: CalendarDate) throws -> [CaptureCount] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT day, event, count FROM capture_counter WHERE household_id = ? AND day >= ? ORDER BY day, event
                """, arguments: [householdID.description, since.iso]).compactMap { row in
                guard let day = row.calendarDate("day"), let event = CaptureEvent(rawValue: row["event"]) else { return nil }
                return CaptureCount(day: day, event: event, count: row["count"])
            }
        }
    }
}
