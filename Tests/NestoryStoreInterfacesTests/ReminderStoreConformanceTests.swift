import Foundation
import NestoryDomain
import NestoryStoreInterfaces
import Testing

/// Reminders behave the same on every engine.
@Suite struct ReminderStoreConformanceTests {
    let now = Date(millis: 1_763_800_000_123)
    let today = try! CalendarDate(iso: "2026-11-26")

    func day(_ offset: Int) -> CalendarDate { try! today.adding(days: offset) }

    func owner(_ stores: Stores, _ email: String, household: String, timeZone: String? = nil) async throws -> (User, Household) {
        let (user, home, _) = try await stores.accounts.createAccount(email: email, displayName: "", passwordHash: "h",
                                                                      household: .new(name: household, currency: .usd, timeZone: timeZone), role: .member,
                                                                      onlyIfFirst: false, now: now)
        return (user, home)
    }

    @discardableResult
    func item(_ stores: Stores, _ household: Household, _ name: String, warranty: CalendarDate?, at time: Date? = nil) async throws -> Item {
        try await stores.items.createItem(household.id, ItemDraft(name: name, currency: .usd, warrantyExpiry: warranty), now: time ?? now,
                                          today: today, plan: nil)
    }

    @Test(arguments: Engine.available)
    func choicesAndDismissedTipsAreKeptPerUser(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let reminders = stores.reminders
            let (ana, _) = try await owner(stores, "ana@example.com", household: "Home")
            let (bea, _) = try await owner(stores, "bea@example.com", household: "Away")
            #expect(try await reminders.reminderPreferences(ana.id) == ReminderPreferences(warranties: true, weeklyNudge: true))
            try await reminders.setReminderPreferences(ana.id, ReminderPreferences(warranties: false, weeklyNudge: true))
            try await reminders.dismissTip(ana.id, .reports)
            try await reminders.dismissTip(ana.id, .pro)
            try await reminders.dismissTip(ana.id, .pro)
            let page = try await reminders.pagePreferences(ana.id)
            #expect(page.reminders == ReminderPreferences(warranties: false, weeklyNudge: true))
            #expect(page.dismissedTips == [.reports, .pro])
            // Bea's are her own.
            #expect(try await reminders.pagePreferences(bea.id).dismissedTips.isEmpty)
            #expect(try await reminders.reminderPreferences(bea.id) == ReminderPreferences())
            try await reminders.resetTips(ana.id)
            #expect(try await reminders.pagePreferences(ana.id).dismissedTips.isEmpty)
            #expect(try await reminders.reminderPreferences(ana.id).warranties == false)

            let nobody = UserID()
            await #expect(throws: DomainError.notFound("The account")) { try await reminders.reminderPreferences(nobody) }
            await #expect(throws: DomainError.notFound("The account")) { try await reminders.setReminderPreferences(nobody, ReminderPreferences()) }
        }
    }

    @Test(arguments: Engine.available)
    func dueWarrantiesAreTheHouseholdsWithinThirtyDaysSoonestFirst(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let (_, home) = try await owner(stores, "ana@example.com", household: "Home")
            let (_, away) = try await owner(stores, "bea@example.com", household: "Away")
            let kettle = try await item(stores, home, "Kettle", warranty: day(7))
            let zebra = try await item(stores, home, "Zebra lamp", warranty: day(12))
            let apple = try await item(stores, home, "Apple TV", warranty: day(12))
            let today0 = try await item(stores, home, "Toaster", warranty: day(0))
            try await item(stores, home, "Past", warranty: day(-1))
            try await item(stores, home, "Far", warranty: day(31))
            try await item(stores, home, "None", warranty: nil)
            try await item(stores, away, "Their kettle", warranty: day(3))

            let due = try await stores.reminders.warrantyReminders(home.id, today: today)
            #expect(due.map(\.itemID) == [today0.id, kettle.id, apple.id, zebra.id])
            #expect(due.map(\.stage) == [0, 7, 30, 30])
            #expect(due.map(\.daysLeft) == [0, 7, 12, 12])
            #expect(due.first?.itemName == "Toaster" && due.first?.expiry == day(0))
            #expect(try await stores.reminders.warrantyReminders(home.id, today: today, limit: 2).map(\.itemID) == [today0.id, kettle.id])
            #expect(try await stores.reminders.warrantyReminders(away.id, today: today).map(\.itemName) == ["Their kettle"])

            // No item has a photo: every one of the household's needs one.
            #expect(try await stores.reminders.itemsNeedingPhoto(home.id) == 7)
            #expect(try await stores.reminders.itemsNeedingPhoto(away.id) == 1)
            #expect(try await stores.reminders.itemsNeedingPhoto(HouseholdID()) == 0)
        }
    }

    @Test(arguments: Engine.available)
    func aFeedIsFoundByItsHashShowsItsUsersWarrantiesAndAResetEndsTheOldOne(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let reminders = stores.reminders
            let (ana, home) = try await owner(stores, "ana@example.com", household: "Home")
            let (_, away) = try await owner(stores, "bea@example.com", household: "Away")
            let later = now.addingTimeInterval(60)
            let kettle = try await item(stores, home, "Kettle", warranty: day(400), at: later)
            let old = try await item(stores, home, "Old radio", warranty: day(-400))
            try await item(stores, home, "No warranty", warranty: nil)
            try await item(stores, away, "Their kettle", warranty: day(5))

            #expect(try await reminders.calendarFeedToken(ana.id) == nil)
            try await reminders.setCalendarFeed(ana.id, token: "token-1", tokenHash: "hash-1", now: now)
            #expect(try await reminders.calendarFeedToken(ana.id) == "token-1")
            let feed = try #require(try await reminders.calendarFeed(tokenHash: "hash-1"))
            #expect(feed.userID == ana.id && feed.householdName == "Home")
            // Every warranty with a date, past ones too, soonest first; with the item's last change.
            #expect(feed.warranties.map(\.itemID) == [old.id, kettle.id])
            #expect(feed.warranties.map(\.expiry) == [day(-400), day(400)])
            #expect(feed.warranties.last?.updatedAt == later && feed.warranties.last?.name == "Kettle")
            #expect(try await reminders.calendarFeed(tokenHash: "hash-1", limit: 1)?.warranties.count == 1)
            #expect(try await reminders.calendarFeed(tokenHash: "token-1") == nil)

            try await reminders.setCalendarFeed(ana.id, token: "token-2", tokenHash: "hash-2", now: later)
            #expect(try await reminders.calendarFeed(tokenHash: "hash-1") == nil)
            #expect(try await reminders.calendarFeed(tokenHash: "hash-2")?.userID == ana.id)
            try await reminders.deleteCalendarFeed(ana.id)
            #expect(try await reminders.calendarFeed(tokenHash: "hash-2") == nil)
            #expect(try await reminders.calendarFeedToken(ana.id) == nil)
        }
    }

    @Test(arguments: Engine.available)
    func aWebhookKeepsItsSecretUnlessAskedAndRecordsItsLastDelivery(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let reminders = stores.reminders
            let (_, home) = try await owner(stores, "ana@example.com", household: "Home")
            let (_, away) = try await owner(stores, "bea@example.com", household: "Away", timeZone: "Pacific/Kiritimati")
            #expect(try await reminders.webhook(home.id) == nil)
            #expect(try await reminders.householdsWithWebhooks().isEmpty)
            try await reminders.setWebhook(home.id, url: "https://example.com/a", newSecret: "whsec_1", replaceSecret: false, now: now)
            try await reminders.setWebhook(home.id, url: "https://example.com/b", newSecret: "whsec_2", replaceSecret: false, now: now.addingTimeInterval(5))
            #expect(try await reminders.webhook(home.id) == WebhookRecord(url: "https://example.com/b", secret: "whsec_1", createdAt: now,
                                                                          lastAttemptAt: nil, lastStatus: nil, lastError: nil))
            try await reminders.setWebhook(home.id, url: "https://example.com/b", newSecret: "whsec_3", replaceSecret: true, now: now)
            #expect(try await reminders.webhook(home.id)?.secret == "whsec_3")

            let attempt = now.addingTimeInterval(30)
            try await reminders.recordWebhookAttempt(home.id, status: nil, error: String(repeating: "é", count: 400), at: attempt)
            let failed = try #require(try await reminders.webhook(home.id))
            #expect(failed.lastAttemptAt == attempt && failed.lastStatus == nil && failed.lastError == String(repeating: "é", count: 300))
            try await reminders.recordWebhookAttempt(home.id, status: 204, error: nil, at: attempt.addingTimeInterval(1))
            #expect(try await reminders.webhook(home.id)?.lastStatus == 204)
            #expect(try await reminders.webhook(home.id)?.lastError == nil)
            #expect(try await reminders.webhook(away.id) == nil)

            try await reminders.setWebhook(away.id, url: "https://example.org/", newSecret: "whsec_4", replaceSecret: false, now: now)
            #expect(Set(try await reminders.householdsWithWebhooks().map(\.id)) == [home.id, away.id])
            // Each with its time zone: the day its reminders are due on.
            #expect(Set(try await reminders.householdsWithWebhooks().map(\.timeZone)) == [nil, "Pacific/Kiritimati"])
            try await reminders.deleteWebhook(home.id)
            #expect(try await reminders.householdsWithWebhooks().map(\.id) == [away.id])
        }
    }

    @Test(arguments: Engine.available)
    func eachEventIsSentOncePerHouseholdUntilItIsForgotten(engine: Engine) async throws {
        try await withStores(engine) { stores in
            let reminders = stores.reminders
            let (_, home) = try await owner(stores, "ana@example.com", household: "Home")
            let (_, away) = try await owner(stores, "bea@example.com", household: "Away")
            #expect(try await reminders.unsentEvents(home.id, among: []) == [])
            #expect(try await reminders.unsentEvents(home.id, among: ["a", "b", "c"]) == ["a", "b", "c"])
            try await reminders.markEventSent(home.id, eventID: "a", now: now)
            try await reminders.markEventSent(home.id, eventID: "b", now: now.addingTimeInterval(100))
            try await reminders.markEventSent(home.id, eventID: "a", now: now.addingTimeInterval(200))  // again: no error, kept once
            #expect(try await reminders.unsentEvents(home.id, among: ["a", "b", "c"]) == ["c"])
            #expect(try await reminders.unsentEvents(away.id, among: ["a", "b"]) == ["a", "b"])
            try await reminders.deleteSentEvents(before: now.addingTimeInterval(50))
            #expect(try await reminders.unsentEvents(home.id, among: ["a", "b"]) == ["a"])
        }
    }
}
