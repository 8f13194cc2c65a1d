import Foundation

/// A day on the calendar (a purchase date, a warranty expiry), not an instant: it does not move
/// when the server or the user changes time zone.
public struct CalendarDate: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Years outside this range are typing mistakes rather than dates a household means.
    public static let supportedYears = 1800...9999

    public init(year: Int, month: Int, day: Int) throws(DomainError) {
        guard Self.supportedYears.contains(year) else {
            throw .invalid(field: "date", message: "Enter a year between 1800 and 9999.")
        }
        guard (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day) else {
            throw .invalid(field: "date", message: "That day does not exist on the calendar.")
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD` exactly (the form of HTML date inputs, JSON and CSV exports).
    public init(iso text: String) throws(DomainError) {
        // `YYYY-MM-DD` with nothing around it (the stored form) is read directly: lists read thousands a second.
        let utf8 = text.utf8
        if utf8.count == 10 {
            var digits: [Int] = []
            digits.reserveCapacity(8)
            for (index, byte) in utf8.enumerated() {
                if index == 4 || index == 7 {
                    if byte != UInt8(ascii: "-") { break }
                } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    digits.append(Int(byte - UInt8(ascii: "0")))
                } else {
                    break
                }
            }
            if digits.count == 8 {
                try self.init(year: digits[0] * 1000 + digits[1] * 100 + digits[2] * 10 + digits[3],
                              month: digits[4] * 10 + digits[5], day: digits[6] * 10 + digits[7])
                return
            }
        }
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else {
            throw .invalid(field: "date", message: "Enter a date as YYYY-MM-DD.")
        }
        try self.init(year: y, month: m, day: d)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(iso: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso)
    }

    /// `YYYY-MM-DD`, which also sorts correctly as text.
    public var iso: String {
        func digits(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return digits(year, 4) + "-" + digits(month, 2) + "-" + digits(day, 2)
    }

    public var description: String { iso }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    public static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (negative before), by the proleptic Gregorian calendar.
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = (month + 9) % 12
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `daysSinceEpoch`.
    public init(daysSinceEpoch days: Int) throws(DomainError) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let d = dayOfYear - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        try self.init(year: yearOfEra + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d)
    }

    public func adding(days: Int) throws(DomainError) -> CalendarDate {
        try CalendarDate(daysSinceEpoch: daysSinceEpoch + days)
    }

    /// Whole years from `self` to `other` (an item bought 2020-02-29 is 1 year old on 2021-02-28? No:
    /// on 2021-03-01). Negative when `other` is earlier.
    public func wholeYears(until other: CalendarDate) -> Int {
        if other < self { return -other.wholeYears(until: self) }
        var years = other.year - year
        if (other.month, other.day) < (month, day) { years -= 1 }
        return years
    }

    /// The date an instant falls on in a time zone.
    public init(_ instant: Date, in timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        // A Foundation date always maps to a valid day; clamp years far outside the supported range.
        let year = min(max(parts.year!, Self.supportedYears.lowerBound), Self.supportedYears.upperBound)
        self = try! CalendarDate(year: year, month: parts.month!, day: parts.day!)
    }
}

extension Date {
    /// The moment in ISO 8601's basic format in UTC, `20261128T020000Z`: iCalendar's DATE-TIME, and a file name's time
    /// that sorts as it reads.
    public var basicUTC: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let p = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: self)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", p.year!, p.month!, p.day!, p.hour!, p.minute!, p.second!)
    }
}
