import Foundation
import NestoryDomain

/// A household's webhook as stored: where events go, the secret that signs them, and how the last
/// delivery went.
public struct WebhookRecord: Hashable, Sendable {
    public let url: String
    public let secret: String
    public let createdAt: Date
    public let lastAttemptAt: Date?
    /// The HTTP status the receiver answered last time (nil: never tried, or no answer).
    public let lastStatus: Int?
    public let lastError: String?

    public init(url: String, secret: String, createdAt: Date, lastAttemptAt: Date?, lastStatus: Int?, lastError: String?) {
        (self.url, self.secret, self.createdAt, self.lastAttemptAt, self.lastStatus, self.lastError) = (url, secret, createdAt, lastAttemptAt, lastStatus, lastError)
    }
}

/// What a calendar feed shows: whose it is and the warranties of their households.
public struct CalendarFeedContent: Sendable {
    public let userID: UserID
    public let householdName: String
    public let warranties: [(itemID: ItemID, name: String, expiry: CalendarDate, updatedAt: Date)]

    public init(userID: UserID, householdName: String, warranties: [(itemID: ItemID, name: String, expiry: CalendarDate, updatedAt: Date)]) {
        (self.userID, self.householdName, self.warranties) = (userID, householdName, warranties)
    }
}

/// Reminders: each user's choices (and the tips they dismissed, kept beside them and read with them), what is due
/// (warranties ending soon, items without a photo), the calendar feed, the household's webhook and which events it
/// was already sent.
///
/// Every engine keeps the same rules (checked by the conformance suite): what is due is read from the household's
/// items only; a feed is found only by its token's hash and shows its user's first household; an event is marked
/// sent once per household; times are kept to the millisecond.
public protocol ReminderStore: Sendable {
    func reminderPreferences(_ userID: UserID) async throws -> ReminderPreferences
    /// The user's reminder choices and the tips they dismissed, in one read (every page asks).
    func pagePreferences(_ userID: UserID) async throws -> (reminders: ReminderPreferences, dismissedTips: Set<Tip>)
    /// Remembers that the user dismissed a tip.
    func dismissTip(_ userID: UserID, _ tip: Tip) async throws
    /// Shows every tip again.
    func resetTips(_ userID: UserID) async throws
    func setReminderPreferences(_ userID: UserID, _ preferences: ReminderPreferences) async throws

    /// Warranties of the household ending between `today` and the reminders' horizon, soonest first (then by name).
    func warrantyReminders(_ householdID: HouseholdID, today: CalendarDate, limit: Int) async throws -> [WarrantyReminder]
    /// How many of the household's items have no photo.
    func itemsNeedingPhoto(_ householdID: HouseholdID) async throws -> Int

    /// The user's feed token, if they made one.
    func calendarFeedToken(_ userID: UserID) async throws -> String?
    /// Makes the user's feed address, or replaces it (the old one stops working at once).
    func setCalendarFeed(_ userID: UserID, token: String, tokenHash: String, now: Date) async throws
    func deleteCalendarFeed(_ userID: UserID) async throws
    /// The warranties a feed shows (its user's first household, every warranty with a date, soonest first), or nil for
    /// an unknown token.
    func calendarFeed(tokenHash: String, limit: Int) async throws -> CalendarFeedContent?

    func webhook(_ householdID: HouseholdID) async throws -> WebhookRecord?
    /// Sets the household's webhook address; a new secret only when there was no webhook (so changing the address
    /// does not break a receiver that checks signatures), or when `replaceSecret`.
    func setWebhook(_ householdID: HouseholdID, url: String, newSecret secret: String, replaceSecret: Bool, now: Date) async throws
    func deleteWebhook(_ householdID: HouseholdID) async throws
    /// Notes how a delivery went (shown to the owner); the error is kept to 300 characters.
    func recordWebhookAttempt(_ householdID: HouseholdID, status: Int?, error: String?, at: Date) async throws
    /// Households that have a webhook, each with its time zone (`Household.timeZone`: the day its reminders are due on).
    func householdsWithWebhooks() async throws -> [(id: HouseholdID, timeZone: String?)]
    /// Of these event ids, the ones not yet sent for the household.
    func unsentEvents(_ householdID: HouseholdID, among ids: [String]) async throws -> Set<String>
    /// Remembers that an event was handed to the job system, so it is sent once.
    func markEventSent(_ householdID: HouseholdID, eventID: String, now: Date) async throws
    /// Forgets sent events older than `date` (their warranties are past).
    func deleteSentEvents(before date: Date) async throws
}

extension ReminderStore {
    public func warrantyReminders(_ householdID: HouseholdID, today: CalendarDate) async throws -> [WarrantyReminder] {
        try await warrantyReminders(householdID, today: today, limit: 500)
    }

    public func calendarFeed(tokenHash: String) async throws -> CalendarFeedContent? {
        try await calendarFeed(tokenHash: tokenHash, limit: 10_000)
    }
}
