import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import PostgresNIO

extension PostgresStore: ReminderStore {
    // MARK: Preferences

    public func reminderPreferences(_ userID: UserID) async throws -> ReminderPreferences {
        try await pagePreferences(userID).reminders
    }

    public func pagePreferences(_ userID: UserID) async throws -> (reminders: ReminderPreferences, dismissedTips: Set<Tip>) {
        try await withStoreErrors {
            for try await (warranties, nudge, tips) in try await client.query("""
                SELECT warranty_reminders, weekly_nudge, tips_dismissed FROM app_user WHERE id = \(userID.rawValue)
                """, logger: logger).decode((Bool, Bool, Int64).self) {
                return (ReminderPreferences(warranties: warranties, weeklyNudge: nudge), Tip.dismissed(in: tips))
            }
            throw DomainError.notFound("The account")
        }
    }

    public func dismissTip(_ userID: UserID, _ tip: Tip) async throws {
        try await withStoreErrors {
            try await client.query("UPDATE app_user SET tips_dismissed = tips_dismissed | \(tip.bit) WHERE id = \(userID.rawValue)", logger: logger)
        }
    }

    public func resetTips(_ userID: UserID) async throws {
        try await withStoreErrors {
            try await client.query("UPDATE app_user SET tips_dismissed = 0 WHERE id = \(userID.rawValue)", logger: logger)
        }
    }

    public func setReminderPreferences(_ userID: UserID, _ preferences: ReminderPreferences) async throws {
        try await withStoreErrors {
            for try await _ in try await client.query("""
                UPDATE app_user SET warranty_reminders = \(preferences.warranties), weekly_nudge = \(preferences.weeklyNudge)
                WHERE id = \(userID.rawValue) RETURNING id
                """, logger: logger) {
                return
            }
            throw DomainError.notFound("The account")
        }
    }

    // MARK: What is due

    public func warrantyReminders(_ householdID: HouseholdID, today: CalendarDate, limit: Int) async throws -> [WarrantyReminder] {
        let last = (try? today.adding(days: ReminderRules.horizonDays)) ?? today
        return try await withStoreErrors {
            var reminders: [WarrantyReminder] = []
            for try await (id, name, expiryText) in try await client.query("""
                SELECT id, name, warranty_expiry FROM item
                WHERE household_id = \(householdID.rawValue) AND warranty_expiry IS NOT NULL
                  AND warranty_expiry >= \(today.iso) AND warranty_expiry <= \(last.iso)
                ORDER BY warranty_expiry COLLATE "C", name_key, seq LIMIT \(Int64(limit))
                """, logger: logger).decode((UUID, String, String).self) {
                guard let expiry = try? CalendarDate(iso: expiryText), let stage = ReminderRules.stage(expiry: expiry, today: today) else { continue }
                reminders.append(WarrantyReminder(itemID: ItemID(id), itemName: name, expiry: expiry,
                                                  daysLeft: expiry.daysSinceEpoch - today.daysSinceEpoch, stage: stage))
            }
            return reminders
        }
    }

    public func itemsNeedingPhoto(_ householdID: HouseholdID) async throws -> Int {
        try await withStoreErrors {
            for try await count in try await client.query("SELECT no_photo FROM item_stats WHERE household_id = \(householdID.rawValue)",
                                                          logger: logger).decode(Int64.self) {
                return Int(count)
            }
            return 0
        }
    }

    // MARK: Calendar feed

    public func calendarFeedToken(_ userID: UserID) async throws -> String? {
        try await withStoreErrors {
            for try await token in try await client.query("SELECT token FROM calendar_feed WHERE user_id = \(userID.rawValue)", logger: logger)
                .decode(String.self) {
                return token
            }
            return nil
        }
    }

    public func setCalendarFeed(_ userID: UserID, token: String, tokenHash: String, now: Date) async throws {
        try await withStoreErrors {
            try await client.query("""
                INSERT INTO calendar_feed (user_id, token, token_hash, created_at) VALUES (\(userID.rawValue), \(token), \(tokenHash), \(now.millis))
                ON CONFLICT (user_id) DO UPDATE SET token = EXCLUDED.token, token_hash = EXCLUDED.token_hash, created_at = EXCLUDED.created_at
                """, logger: logger)
        }
    }

    public func deleteCalendarFeed(_ userID: UserID) async throws {
        try await withStoreErrors {
            try await client.query("DELETE FROM calendar_feed WHERE user_id = \(userID.rawValue)", logger: logger)
        }
    }

    public func calendarFeed(tokenHash: String, limit: Int) async throws -> CalendarFeedContent? {
        try await withStoreErrors {
            try await client.withConnection { connection in
                var owner: (UUID, UUID, String)?
                for try await row in try await connection.query("""
                    SELECT f.user_id, h.id, h.name FROM calendar_feed f
                    JOIN membership m ON m.user_id = f.user_id JOIN household h ON h.id = m.household_id
                    WHERE f.token_hash = \(tokenHash) ORDER BY h.created_at, h.id LIMIT 1
                    """, logger: logger).decode((UUID, UUID, String).self) {
                    owner = row
                }
                guard let (userID, householdID, householdName) = owner else { return nil }
                var warranties: [(itemID: ItemID, name: String, expiry: CalendarDate, updatedAt: Date)] = []
                for try await (id, name, expiryText, updated) in try await connection.query("""
                    SELECT id, name, warranty_expiry, updated_at FROM item
                    WHERE household_id = \(householdID) AND warranty_expiry IS NOT NULL
                    ORDER BY warranty_expiry COLLATE "C", name_key, seq LIMIT \(Int64(limit))
                    """, logger: logger).decode((UUID, String, String, Int64).self) {
                    guard let expiry = try? CalendarDate(iso: expiryText) else { continue }
                    warranties.append((ItemID(id), name, expiry, Date(millis: updated)))
                }
                return CalendarFeedContent(userID: UserID(userID), householdName: householdName, warranties: warranties)
            }
        }
    }

    // MARK: Webhooks

    public func webhook(_ householdID: HouseholdID) async throws -> WebhookRecord? {
        try await withStoreErrors {
            for try await (url, secret, created, attempt, status, error) in try await client.query("""
                SELECT url, secret, created_at, last_attempt_at, last_status, last_error FROM household_webhook
                WHERE household_id = \(householdID.rawValue)
                """, logger: logger).decode((String, String, Int64, Int64?, Int32?, String?).self) {
                return WebhookRecord(url: url, secret: secret, createdAt: Date(millis: created), lastAttemptAt: attempt.map(Date.init(millis:)),
                                     lastStatus: status.map(Int.init), lastError: error)
            }
            return nil
        }
    }

    public func setWebhook(_ householdID: HouseholdID, url: String, newSecret secret: String, replaceSecret: Bool, now: Date) async throws {
        try await withStoreErrors {
            try await client.query("""
                INSERT INTO household_webhook AS w (household_id, url, secret, created_at) VALUES (\(householdID.rawValue), \(url), \(secret), \(now.millis))
                ON CONFLICT (household_id) DO UPDATE SET url = EXCLUDED.url,
                    secret = CASE WHEN \(replaceSecret) THEN EXCLUDED.secret ELSE w.secret END
                """, logger: logger)
        }
    }

    public func deleteWebhook(_ householdID: HouseholdID) async throws {
        try await withStoreErrors {
            try await client.query("DELETE FROM household_webhook WHERE household_id = \(householdID.rawValue)", logger: logger)
        }
    }

    public func recordWebhookAttempt(_ householdID: HouseholdID, status: Int?, error: String?, at: Date) async throws {
        try await withStoreErrors {
            try await client.query("""
                UPDATE household_webhook SET last_attempt_at = \(at.millis), last_status = \(status.map { Int32(clamping: $0) }),
                    last_error = \(error.map { String($0.prefix(300)) })
                WHERE household_id = \(householdID.rawValue)
                """, logger: logger)
        }
    }

    public func householdsWithWebhooks() async throws -> [(id: HouseholdID, timeZone: String?)] {
        try await withStoreErrors {
            var households: [(id: HouseholdID, timeZone: String?)] = []
            for try await (id, zone) in try await client.query("""
                SELECT w.household_id, h.time_zone FROM household_webhook w JOIN household h ON h.id = w.household_id
                ORDER BY w.household_id::text
                """, logger: logger).decode((UUID, String?).self) {
                households.append((HouseholdID(id), zone))
            }
            return households
        }
    }

    public func unsentEvents(_ householdID: HouseholdID, among ids: [String]) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try await withStoreErrors {
            var sent: Set<String> = []
            for try await id in try await client.query("""
                SELECT event_id FROM reminder_sent WHERE household_id = \(householdID.rawValue) AND event_id = ANY(\(ids)::text[])
                """, logger: logger).decode(String.self) {
                sent.insert(id)
            }
            return Set(ids).subtracting(sent)
        }
    }

    public func markEventSent(_ householdID: HouseholdID, eventID: String, now: Date) async throws {
        try await withStoreErrors {
            try await client.query("""
                INSERT INTO reminder_sent (household_id, event_id, sent_at) VALUES (\(householdID.rawValue), \(eventID), \(now.millis))
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }
    }

    public func deleteSentEvents(before date: Date) async throws {
        try await withStoreErrors {
            try await client.query("DELETE FROM reminder_sent WHERE sent_at < \(date.millis)", logger: logger)
        }
    }
}
