import Foundation

/// What a person wants to be reminded of (Settings → Notifications), kept per user.
public struct ReminderPreferences: Hashable, Sendable {
    /// Warranty expiries, 30, 7 and 0 days ahead.
    public var warranties: Bool
    /// The weekly documentation nudge ("12 items still need a photo").
    public var weeklyNudge: Bool

    public init(warranties: Bool = true, weeklyNudge: Bool = true) {
        self.warranties = warranties
        self.weeklyNudge = weeklyNudge
    }
}

/// A warranty about to end, as the reminders list and the webhooks say it.
public struct WarrantyReminder: Hashable, Sendable {
    public let itemID: ItemID
    public let itemName: String
    public let expiry: CalendarDate
    /// Days from today to the expiry: 0 is today.
    public let daysLeft: Int
    /// The reminder this is: 30, 7 or 0 days ahead.
    public let stage: Int

    public init(itemID: ItemID, itemName: String, expiry: CalendarDate, daysLeft: Int, stage: Int) {
        self.itemID = itemID
        self.itemName = itemName
        self.expiry = expiry
        self.daysLeft = daysLeft
        self.stage = stage
    }

    /// "Warranty ends today", "Warranty ends tomorrow", "Warranty ends in 12 days".
    public var when: String {
        switch daysLeft {
        case 0: return "Warranty ends today"
        case 1: return "Warranty ends tomorrow"
        default: return "Warranty ends in \(daysLeft) days"
        }
    }
}

/// The weekly nudge: how many items still lack a photo, the first proof an adjuster asks for.
public struct DocumentationNudge: Hashable, Sendable {
    public let needsPhoto: Int

    public init(needsPhoto: Int) { self.needsPhoto = needsPhoto }

    /// "12 items still need a photo".
    public var message: String {
        needsPhoto == 1 ? "1 item still needs a photo" : "\(needsPhoto) items still need a photo"
    }
}

/// The rules of reminders: when a warranty reminder is due, and which week a nudge belongs to.
public enum ReminderRules {
    /// Days before a warranty's last day at which a reminder is given, furthest first.
    public static let warrantyStages = [30, 7, 0]
    /// How far ahead the reminders list and the badge look.
    public static var horizonDays: Int { warrantyStages[0] }

    /// The reminder a warranty ending on `expiry` is at on `today`: the nearest stage already reached
    /// (12 days left is the 30-day reminder, 5 days the 7-day one, the last day the 0-day one), or nil when
    /// the expiry is further than 30 days away or already past.
    public static func stage(expiry: CalendarDate, today: CalendarDate) -> Int? {
        let left = expiry.daysSinceEpoch - today.daysSinceEpoch
        guard left >= 0 else { return nil }
        return warrantyStages.last { left <= $0 }
    }

    /// The ISO 8601 week a day belongs to, as "2026-W48": a nudge is sent at most once per week.
    public static func isoWeek(_ day: CalendarDate) -> String {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12))!
        let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
        let week = parts.weekOfYear!
        return "\(parts.yearForWeekOfYear!)-W\(week < 10 ? "0" : "")\(week)"
    }
}
