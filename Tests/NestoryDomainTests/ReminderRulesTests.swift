import NestoryDomain
import Testing

@Suite("Reminder rules: when a warranty reminder is due, and the nudge's week")
struct ReminderRulesTests {
    func day(_ text: String) throws -> CalendarDate { try CalendarDate(iso: text) }

    @Test("a warranty is at the nearest stage reached: 30, 7 or 0 days; none before 30 days or once past")
    func stages() throws {
        let today = try day("2026-11-25")
        let cases: [(String, Int?)] = [
            ("2026-12-26", nil),  // 31 days
            ("2026-12-25", 30), ("2026-12-03", 30),  // 30 and 8 days
            ("2026-12-02", 7), ("2026-11-26", 7),  // 7 and 1 days
            ("2026-11-25", 0),  // the last day
            ("2026-11-24", nil),  // ended yesterday
        ]
        for (expiry, stage) in cases {
            #expect(ReminderRules.stage(expiry: try day(expiry), today: today) == stage, "expiry \(expiry)")
        }
        // Across a year's end and a leap day.
        #expect(ReminderRules.stage(expiry: try day("2028-03-01"), today: try day("2028-02-23")) == 7)
        #expect(ReminderRules.stage(expiry: try day("2027-01-24"), today: try day("2026-12-25")) == 30)
    }

    @Test("ISO weeks: Monday starts a week; early January can belong to the year before")
    func isoWeeks() throws {
        #expect(ReminderRules.isoWeek(try day("2026-11-25")) == "2026-W48")
        #expect(ReminderRules.isoWeek(try day("2026-11-29")) == "2026-W48")  // Sunday
        #expect(ReminderRules.isoWeek(try day("2026-11-30")) == "2026-W49")  // Monday
        #expect(ReminderRules.isoWeek(try day("2027-01-01")) == "2026-W53")
        #expect(ReminderRules.isoWeek(try day("2026-01-05")) == "2026-W02")
    }

    @Test("the reminders' wording")
    func wording() throws {
        let item = ItemID()
        #expect(WarrantyReminder(itemID: item, itemName: "TV", expiry: try day("2026-11-25"), daysLeft: 0, stage: 0).when == "Warranty ends today")
        #expect(WarrantyReminder(itemID: item, itemName: "TV", expiry: try day("2026-11-26"), daysLeft: 1, stage: 7).when == "Warranty ends tomorrow")
        #expect(WarrantyReminder(itemID: item, itemName: "TV", expiry: try day("2026-12-07"), daysLeft: 12, stage: 30).when == "Warranty ends in 12 days")
        #expect(DocumentationNudge(needsPhoto: 12).message == "12 items still need a photo")
        #expect(DocumentationNudge(needsPhoto: 1).message == "1 item still needs a photo")
    }
}
