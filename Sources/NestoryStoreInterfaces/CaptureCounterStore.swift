import Foundation
import NestoryDomain

/// The capture screen's counters: one number per household, UTC day and event, capped per day.
///
/// Every engine keeps the same rules (checked by the conformance suite): a counter never passes its cap, however many
/// servers count at once; counters belong to their household; they are read oldest first, then by event name.
public protocol CaptureCounterStore: Sendable {
    /// Adds one to the household's counter for `event` on `day`, unless it already reached `cap`. Returns whether it
    /// was counted.
    func countCaptureEvent(_ householdID: HouseholdID, _ event: CaptureEvent, day: CalendarDate, cap: Int) async throws -> Bool
    /// The household's counters from `since` on (UTC days), oldest first.
    func captureCounts(_ householdID: HouseholdID, since: CalendarDate) async throws -> [CaptureCount]
}
