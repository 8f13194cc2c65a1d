import Foundation
internal import GRDB
import NestoryDomain
import NestoryStoreInterfaces

/// Reminders on SQLite, as the async interface the services call: each call runs the store's own method off the
/// caller's thread (`AppDatabase.offload`).
public struct SQLiteReminderStore: ReminderStore {
    public let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    private func run<T: Sendable>(_ body: @escaping @Sendable (AppDatabase) throws -> T) async throws -> T {
        try await database.offload(body)
    }

    public func reminderPreferences(_ userID: UserID) async throws -> ReminderPreferences { try await run { try $0.reminderPreferences(userID) } }
    public func pagePreferences(_ userID: UserID) async throws -> (reminders: ReminderPreferences, dismissedTips: Set<Tip>) {
        try await run { try $0.pagePreferences(userID) }
    }
    public func dismissTip(_ userID: UserID, _ tip: Tip) async throws { try await run { try $0.dismissTip(userID, tip) } }
    public func resetTips(_ userID: UserID) async throws { try await run { try $0.resetTips(userID) } }
    public func setReminderPreferences(_ userID: UserID, _ preferences: ReminderPreferences) async throws {
        try await run { try $0.setReminderPreferences(userID, preferences) }
    }
    public func warrantyReminders(_ householdID: HouseholdID, today: CalendarDate, limit: Int) async throws -> [WarrantyReminder] {
        try await run { try $0.warrantyReminders(householdID, today: today, limit: limit) }
    }
    public func itemsNeedingPhoto(_ householdID: HouseholdID) async throws -> Int { try await run { try $0.itemsNeedingPhoto(householdID) } }
    public func calendarFeedToken(_ userID: UserID) async throws -> String? { try await run { try $0.calendarFeedToken(userID) } }
    public func setCalendarFeed(_ userID: UserID, token: String, tokenHash: String, now: Date) async throws {
        try await run { try $0.setCalendarFeed(userID, token: token, tokenHash: tokenHash, now: now) }
    }
    public func deleteCalendarFeed(_ userID: UserID) async throws { try await run { try $0.deleteCalendarFeed(userID) } }
    public func calendarFeed(tokenHash: String, limit: Int) async throws -> CalendarFeedContent? {
        try await run { try $0.calendarFeed(tokenHash: tokenHash, limit: limit) }
    }
    public func webhook(_ householdID: HouseholdID) async throws -> WebhookRecord? { try await run { try $0.webhook(householdID) } }
    public func setWebhook(_ householdID: HouseholdID, url: String, newSecret secret: String, replaceSecret: Bool, now: Date) async throws {
        try await run { try $0.setWebhook(householdID, url: url, newSecret: secret, replaceSecret: replaceSecret, now: now) }
    }
    public func deleteWebhook(_ householdID: HouseholdID) async throws { try await run { try $0.deleteWebhook(householdID) } }
    public func recordWebhookAttempt(_ householdID: HouseholdID, status: Int?, error: String?, at: Date) async throws {
        try await run { try $0.recordWebhookAttempt(householdID, status: status, error: error, at: at) }
    }
    public func householdsWithWebhooks() async throws -> [(id: HouseholdID, timeZone: String?)] { try await run { try $0.householdsWithWebhooks() } }
    public func unsentEvents(_ householdID: HouseholdID, among ids: [String]) async throws -> Set<String> {
        try await run { try $0.unsentEvents(householdID, among: ids) }
    }
    public func markEventSent(_ householdID: HouseholdID, eventID: String, now: Date) async throws {
        try await run { try $0.markEventSent(householdID, eventID: eventID, now: now) }
    }
    public func deleteSentEvents(before date: Date) async throws { try await run { try $0.deleteSentEvents(before: date) } }
}

extension AppDatabase {
    // MARK: Preferences

    public func reminderPreferences(_ userID: UserID) throws -> ReminderPreferences {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT warranty_reminders, weekly_nudge FROM user WHERE id = ?",
                                             arguments: [userID.description]) else { throw DomainError.notFound("The account") }
            return ReminderPreferences(warranties: row["warranty_reminders"], weeklyNudge: row["weekly_nudge"])
        }
    }

    /// The user's reminder choices and the tips they dismissed, in one read (every page asks).
    public func pagePreferences(_ userID: UserID) throws -> (reminders: ReminderPreferences, dismissedTips: Set<Tip>) {
        try read { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT warranty_reminders, weekly_nudge, tips_dismissed FROM user WHERE id = ?"),
                                             arguments: [userID.description]) else { throw DomainError.notFound("The account") }
            return (ReminderPreferences(warranties: row["warranty_reminders"], weeklyNudge: row["weekly_nudge"]),
                    Tip.dismissed(in: row["tips_dismissed"]))
        }
    }

    /// Remembers that the user dismissed a tip.
    public func dismissTip(_ userID: UserID, _ tip: Tip) throws {
        try write { db in
            try db.execute(sql: "UPDATE user SET tips_dismissed = tips_dismissed | ? WHERE id = ?", arguments: [tip.bit, userID.description])
        }
    }

    /// Shows every tip again.
    public func resetTips(_ userID: UserID) throws {
        try write { db in try db.execute(sql: "UPDATE user SET tips_dismissed = 0 WHERE id = ?", arguments: [userID.description]) }
    }

    public func setReminderPreferences(_ userID: UserID, _ preferences: ReminderPreferences) throws {
        try write { db in
            try db.execute(sql: "UPDATE user SET warranty_reminders = ?, weekly_nudge = ? WHERE id = ?",
                           arguments: [preferences.warranties, preferences.weeklyNudge, userID.description])
            guard db.changesCount == 1 else { throw DomainError.notFound("The account") }
        }
    }

    // MARK: What is due

    /// Warranties of the household ending between `today` and the reminders' horizon, soonest first
    /// (from the warranty index, without reading other items).
    public func warrantyReminders(_ householdID: HouseholdID, today: CalendarDate, limit: Int = 500) throws -> [WarrantyReminder] {
        let last = (try? today.adding(days: ReminderRules.horizonDays)) ?? today
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, name, warranty_expiry FROM item
                WHERE household_id = ? AND warranty_expiry IS NOT NULL AND warranty_expiry >= ? AND warranty_expiry <= ?
                ORDER BY warranty_expiry, name_key LIMIT ?
                """, arguments: [householdID.description, today.iso, last.iso, limit]).compactMap { row in
                guard let expiry = row.calendarDate("warranty_expiry"),
                      let stage = ReminderRules.stage(expiry: expiry, today: today) else { return nil }
                return WarrantyReminder(itemID: row.id("id"), itemName: row["name"], expiry: expiry,
                                        daysLeft: expiry.daysSinceEpoch - today.daysSinceEpoch, stage: stage)
            }
        }
    }

    /// How many of the household's items have no photo (a kept counter).
    public func itemsNeedingPhoto(_ householdID: HouseholdID) throws -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT no_photo FROM item_stats WHERE household_id = ?", arguments: [householdID.description]) ?? 0
        }
    }

    // MARK: Calendar feed

    /// The user's feed token, if they made one.
    public func calendarFeedToken(_ userID: UserID) throws -> String? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT token FROM calendar_feed WHERE user_id = ?", arguments: [userID.description])
        }
    }

    /// Makes the user's feed address, or replaces it (the old one stops working at once).
    public func setCalendarFeed(_ userID: UserID, token: String, tokenHash: String, now: Date) throws {
        try write { db in
            try db.execute(sql: """
                INSERT INTO calendar_feed (user_id, token, token_hash, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET token = excluded.token, token_hash = excluded.token_hash, created_at = excluded.created_at
                """, arguments: [userID.description, token, tokenHash, now.millis])
        }
    }

    public func deleteCalendarFeed(_ userID: UserID) throws {
        try write { db in try db.execute(sql: "DELETE FROM calendar_feed WHERE user_id = ?", arguments: [userID.description]) }
    }

    /// The warranties a feed shows (its user's household, every warranty with a date), or nil for an unknown
    /// token.
    public func calendarFeed(tokenHash: String, limit: Int = 10_000) throws -> CalendarFeedContent? {
        try read { db in
            guard let owner = try Row.fetchOne(db, sql: """
                SELECT f.user_id, h.id AS household_id, h.name FROM calendar_feed f
                JOIN membership m ON m.user_id = f.user_id JOIN household h ON h.id = m.household_id
                WHERE f.token_hash = ? ORDER BY h.created_at LIMIT 1
                """, arguments: [tokenHash]) else { return nil }
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, name, warranty_expiry, updated_at FROM item
                WHERE household_id = ? AND warranty_expiry IS NOT NULL ORDER BY warranty_expiry, name_key LIMIT ?
                """, arguments: [owner["household_id"] as String, limit])
            return CalendarFeedContent(userID: owner.id("user_id"), householdName: owner["name"], warranties: rows.compactMap { row in
                guard let expiry = row.calendarDate("warranty_expiry") else { return nil }
                return (row.id("id"), row["name"], expiry, row.date("updated_at"))
            })
        }
    }

    // MARK: Webhooks

    public func webhook(_ householdID: HouseholdID) throws -> WebhookRecord? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM household_webhook WHERE household_id = ?", arguments: [householdID.description]).map { row in
                WebhookRecord(url: row["url"], secret: row["secret"], createdAt: row.date("created_at"),
                              lastAttemptAt: (row["last_attempt_at"] as Int64?).map(Date.init(millis:)),
                              lastStatus: row["last_status"], lastError: row["last_error"])
            }
        }
    }

    /// Sets the household's webhook address; a new secret only when there was no webhook (so changing the
    /// address does not break a receiver that checks signatures), or when `secret` is given.
    public func setWebhook(_ householdID: HouseholdID, url: String, newSecret secret: String, replaceSecret: Bool, now: Date) throws {
        try write { db in
            try db.execute(sql: """
                INSERT INTO household_webhook (household_id, url, secret, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (household_id) DO UPDATE SET url = excluded.url,
                    secret = CASE WHEN ? THEN excluded.secret ELSE secret END
                """, arguments: [householdID.description, url, secret, now.millis, replaceSecret])
        }
    }

    public func deleteWebhook(_ householdID: HouseholdID) throws {
        try write { db in try db.execute(sql: "DELETE FROM household_webhook WHERE household_id = ?", arguments: [householdID.description]) }
    }

    /// Notes how a delivery went (shown to the owner).
    public func recordWebhookAttempt(_ householdID: HouseholdID, status: Int?, error: String?, at: Date) throws {
        try write { db in
            try db.execute(sql: "UPDATE household_webhook SET last_attempt_at = ?, last_status = ?, last_error = ? WHERE household_id = ?",
                           arguments: [at.millis, status, error.map { String($0.prefix(300)) }, householdID.description])
        }
    }

    /// Households that have a webhook, each with its time zone.
    public func householdsWithWebhooks() throws -> [(id: HouseholdID, timeZone: String?)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT w.household_id, h.time_zone FROM household_webhook w JOIN household h ON h.id = w.household_id ORDER BY w.household_id
                """).compactMap { row in HouseholdID(string: row[0]).map { ($0, row[1]) } }
        }
    }

    /// Of these event ids, the ones not yet sent for the household.
    public func unsentEvents(_ householdID: HouseholdID, among ids: [String]) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try read { db in
            let sent = try String.fetchSet(db, sql: """
                SELECT event_id FROM reminder_sent WHERE household_id = ? AND event_id IN (\(databaseQuestionMarks(count: ids.count)))
                """, arguments: StatementArguments([householdID.description] + ids))
            return Set(ids).subtracting(sent)
        }
    }

    /// Remembers that an event was handed to the job system, so it is sent once.
    public func markEventSent(_ householdID: HouseholdID, eventID: String, now: Date) throws {
        try write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO reminder_sent (household_id, event_id, sent_at) VALUES (?, ?, ?)",
                           arguments: [householdID.description, eventID, now.millis])
        }
    }

    /// Forgets sent events older than `date` (their warranties are past).
    public func deleteSentEvents(before date: Date) throws {
        try write { db in try db.execute(sql: "DELETE FROM reminder_sent WHERE sent_at < ?", arguments: [date.millis]) }
    }
}
