import Foundation
import NestoryDomain

/// A date as printed, before the day/month order of the receipt is known.
struct PrintedDate: Hashable, Sendable {
    enum Form: Hashable, Sendable {
        /// Year first (`2018-10-19`) or a month name (`19 OCT 2018`): no ambiguity.
        case unambiguous(CalendarDate)
        /// Two numbers and a year (`19/10/2018`, `10-19-18`): the order decides.
        case numeric(first: Int, second: Int, year: Int)
    }

    var form: Form
    /// Character offsets in the line.
    var start: Int
    var end: Int

    func date(_ order: DateOrder) -> CalendarDate? {
        switch form {
        case let .unambiguous(date): return date
        case let .numeric(first, second, year):
            let (day, month) = order == .dayFirst ? (first, second) : (second, first)
            return try? CalendarDate(year: year, month: month, day: day)
        }
    }

    /// What this date says about the receipt's order on its own, if anything.
    var impliedOrder: DateOrder? {
        guard case let .numeric(first, second, _) = form else { return nil }
        if first > 12, second <= 12 { return .dayFirst }
        if second > 12, first <= 12 { return .monthFirst }
        return nil
    }
}

/// Finds dates in a line of receipt text.
enum DateScanner {
    static let months: [(String, Int)] = [
        ("JANUARY", 1), ("FEBRUARY", 2), ("MARCH", 3), ("APRIL", 4), ("MAY", 5), ("JUNE", 6), ("JULY", 7),
        ("AUGUST", 8), ("SEPTEMBER", 9), ("OCTOBER", 10), ("NOVEMBER", 11), ("DECEMBER", 12),
        ("JANVIER", 1), ("FEVRIER", 2), ("MARS", 3), ("AVRIL", 4), ("MAI", 5), ("JUIN", 6), ("JUILLET", 7),
        ("AOUT", 8), ("SEPTEMBRE", 9), ("OCTOBRE", 10), ("NOVEMBRE", 11), ("DECEMBRE", 12),
        ("JANUAR", 1), ("FEBRUAR", 2), ("MÄRZ", 3), ("MAERZ", 3), ("JUNI", 6), ("JULI", 7), ("OKTOBER", 10), ("DEZEMBER", 12),
        ("JAN", 1), ("FEB", 2), ("MAR", 3), ("APR", 4), ("JUN", 6), ("JUL", 7), ("AUG", 8), ("SEPT", 9),
        ("SEP", 9), ("OCT", 10), ("OKT", 10), ("NOV", 11), ("DEC", 12), ("DEZ", 12), ("MEI", 5), ("AGO", 8), ("AGU", 8), ("DIS", 12),
    ]

    static let numeric = try! NSRegularExpression(
        pattern: #"(?<![0-9])([0-9]{1,4}) ?([/.\-]) ?([0-9]{1,2}) ?\2 ?([0-9]{2,4})(?![0-9])"#)
    static let spaceFirst = try! NSRegularExpression(
        pattern: #"(?<![0-9/.\-] ?)(?<![0-9])([0-9]{1,2}) ([0-9]{1,2})([/.\-])([0-9]{4})(?![0-9])"#)
    static let dayMonthName = try! NSRegularExpression(
        pattern: #"(?<![0-9])([0-9]{1,2})(?:ST|ND|RD|TH)?[ \-./,]*([A-ZÄ]{3,9})\.?[ \-./,']*([0-9]{4}|[0-9]{2})(?![0-9])"#)
    static let monthNameDay = try! NSRegularExpression(
        pattern: #"(?<![A-Z])([A-ZÄ]{3,9})\.?[ \-./]*([0-9]{1,2})(?:ST|ND|RD|TH)?[ ,.\-/]+([0-9]{4}|[0-9]{2})(?![0-9])"#)
    /// `25032018` beside a time, as some tills print it.
    static let compactDayFirst = try! NSRegularExpression(
        pattern: #"(?<![0-9])(0[1-9]|[12][0-9]|3[01])(0[1-9]|1[0-2])(20[0-9]{2})(?![0-9]) +[0-9]{1,2}:[0-9]{2}"#)
    static let compact = try! NSRegularExpression(
        pattern: #"(?<![0-9])(20[0-9]{2})(0[1-9]|1[0-2])([0-2][0-9]|3[01])(?![0-9])"#)

    static func month(named word: String) -> Int? {
        for (name, number) in months where word == name || (word.count >= 3 && name.count > 3 && name.hasPrefix(word) && word.count >= 4) {
            return number
        }
        return nil
    }

    static func fullYear(_ text: String) -> Int? {
        guard let value = Int(text) else { return nil }
        switch text.count {
        case 2: return value < 80 ? 2000 + value : 1900 + value
        case 4: return value
        default: return nil
        }
    }

    /// Every date in `line`, left to right.
    static func scan(_ line: String) -> [PrintedDate] {
        // A time glued to the year (`09/01/20198:01:11PM`, as some recognisers print it) is split off first.
        // Spaces after a date's separators (`24- I1- 17`) first, so the digit repair sees the neighbours it needs.
        let spaced = line.uppercased().replacingOccurrences(of: #"(?<=[0-9])([/\-]) (?=[0-9A-Z@][0-9]?[/\-] ?[0-9])"#, with: "$1", options: .regularExpression)
            .replacingOccurrences(of: #"(?<=[0-9])([/\-]) (?=[0-9]{2,4}(?![0-9]))"#, with: "$1", options: .regularExpression)
        var text = repairDigits(spaced)
            .replacingOccurrences(of: #"([/.\-][0-9]{4})([0-9]{1,2}:[0-9]{2})"#, with: "$1 $2", options: .regularExpression)
            // `17/01/20188.08.53`: the same with a time printed with points (seconds required, so no amount is split).
            .replacingOccurrences(of: #"([/.\-][0-9]{4})([0-9]{1,2}\.[0-9]{2}\.[0-9]{2})(?![0-9])"#, with: "$1 $2", options: .regularExpression)
        // Recognisers that drop spaces glue the time to a whole date whatever its form: `18/03/1815:17` is
        // 18/03/18 at 15:17, `2016/05/0114:11` is 2016/05/01 at 14:11, `05MAY1818:06` is 05 MAY 18 at 18:06.
        for pattern in [#"((?<![0-9])[0-9]{1,2}([/.\-])[0-9]{1,2}\2(?:[0-9]{4}|[0-9]{2}))([0-9]{1,2}:[0-9]{2})"#,
                        #"((?<![0-9])[0-9]{4}([/.\-])[0-9]{1,2}\2[0-9]{2})([0-9]{1,2}:[0-9]{2})"#] {
            text = text.replacingOccurrences(of: pattern, with: "$1 $3", options: .regularExpression)
        }
        text = text.replacingOccurrences(of: #"((?<![0-9])[0-9]{1,2} ?[A-Z]{3,9}\.? ?(?:[0-9]{4}|[0-9]{2}))([0-9]{1,2}:[0-9]{2})"#,
                                         with: "$1 $2", options: .regularExpression)
        // A date glued to the number before it (`ORDER NO. 100021911/03/2018`): with a full year, the last two digits
        // of the run are the day.
        text = text.replacingOccurrences(of: #"(?<=[0-9]{3})([0-9]{2}([/.\-])[0-9]{2}\2(?:19|20)[0-9]{2})(?![0-9])"#,
                                         with: " $1", options: .regularExpression)
        let ns = text as NSString
        let whole = NSRange(location: 0, length: ns.length)
        var found: [PrintedDate] = []
        func group(_ match: NSTextCheckingResult, _ index: Int) -> String { ns.substring(with: match.range(at: index)) }
        func add(_ form: PrintedDate.Form, _ range: NSRange) {
            guard !found.contains(where: { NSIntersectionRange(NSRange(location: $0.start, length: $0.end - $0.start), range).length > 0 }) else { return }
            found.append(PrintedDate(form: form, start: range.location, end: range.location + range.length))
        }

        for match in numeric.matches(in: text, range: whole) {
            let a = group(match, 1), b = group(match, 3), c = group(match, 4)
            guard var first = Int(a), var second = Int(b) else { continue }
            // A misread digit makes a day or month impossible (`92/02/2018`, `61/03/18`): try the usual confusions.
            if a.count <= 2, first > 31, let repaired = repairedNumber(a, within: 1...31) { first = repaired }
            if a.count <= 2, second > 31, let repaired = repairedNumber(b, within: 1...31) { second = repaired }
            if a.count == 4 {
                // 2018-10-19 (year, month, day).
                guard let day = Int(c), c.count <= 2, let date = try? CalendarDate(year: first, month: second, day: day) else { continue }
                add(.unambiguous(date), match.range)
            } else if a.count <= 2, let year = fullYear(c) {
                // A decimal amount such as `12.50.2` cannot reach here; `1.5.20` rarely is a date: need a year that fits.
                guard (1...31).contains(first), (1...31).contains(second) else { continue }
                add(.numeric(first: first, second: second, year: year), match.range)
            }
        }
        // `06 02/2018`: a space read for the first separator, when the year is printed in full.
        for match in spaceFirst.matches(in: text, range: whole) {
            guard let first = Int(group(match, 1)), let second = Int(group(match, 2)), let year = Int(group(match, 4)),
                  (2000...2099).contains(year), (1...31).contains(first), (1...31).contains(second) else { continue }
            add(.numeric(first: first, second: second, year: year), match.range)
        }
        for match in dayMonthName.matches(in: text, range: whole) {
            guard let day = Int(group(match, 1)), let month = month(named: group(match, 2)),
                  let year = fullYear(group(match, 3)), let date = try? CalendarDate(year: year, month: month, day: day) else { continue }
            add(.unambiguous(date), match.range)
        }
        for match in monthNameDay.matches(in: text, range: whole) {
            guard let month = month(named: group(match, 1)), let day = Int(group(match, 2)),
                  let year = fullYear(group(match, 3)), let date = try? CalendarDate(year: year, month: month, day: day) else { continue }
            add(.unambiguous(date), match.range)
        }
        for match in compactDayFirst.matches(in: text, range: whole) {
            guard let day = Int(group(match, 1)), let month = Int(group(match, 2)), let year = Int(group(match, 3)),
                  let date = try? CalendarDate(year: year, month: month, day: day) else { continue }
            add(.unambiguous(date), match.range)
        }
        for match in compact.matches(in: text, range: whole) {
            guard let year = Int(group(match, 1)), let month = Int(group(match, 2)), let day = Int(group(match, 3)),
                  let date = try? CalendarDate(year: year, month: month, day: day) else { continue }
            add(.unambiguous(date), match.range)
        }
        return found.sorted { $0.start < $1.start }
    }

    /// Digits recognisers confuse with one another, most likely first.
    static let confusions: [Character: [Character]] = [
        "7": ["1"], "1": ["7", "4"], "6": ["0", "8", "5"], "0": ["6", "8", "9"], "8": ["0", "6", "3"], "9": ["0", "8"],
        "2": ["1"], "3": ["8"], "5": ["6", "3"], "4": ["1"],
    ]

    /// The number with one digit swapped for a look-alike so that it falls in `range`, if any does.
    static func repairedNumber(_ digits: String, within range: ClosedRange<Int>, preferring target: Int? = nil) -> Int? {
        var candidates: [Int] = []
        let chars = Array(digits)
        for index in chars.indices {
            for replacement in confusions[chars[index]] ?? [] {
                var copy = chars
                copy[index] = replacement
                if let value = Int(String(copy)), range.contains(value) { candidates.append(value) }
            }
        }
        guard let target else { return candidates.first }
        return candidates.min { abs($0 - target) < abs($1 - target) }
    }

    /// Letters OCR often reads in place of digits inside numbers (`2O18`, `1O/1O/2018`, `l9`).
    static func repairDigits(_ text: String) -> String {
        var chars = Array(text)
        func isDigit(_ i: Int) -> Bool { i >= 0 && i < chars.count && chars[i].isASCII && chars[i].isNumber }
        func isSep(_ i: Int) -> Bool { i >= 0 && i < chars.count && "/-.:".contains(chars[i]) }
        for i in chars.indices {
            let replacement: Character?
            switch chars[i] {
            case "O", "D", "Q", "@": replacement = "0"
            case "I", "L", "|", "!": replacement = "1"
            case "S": replacement = "5"
            case "Z": replacement = "2"
            case "B": replacement = "8"
            default: replacement = nil
            }
            guard let replacement else { continue }
            let left = isDigit(i - 1), right = isDigit(i + 1)
            // Only between digits, or between a digit and a date separator.
            // Also at the start of a date, before a digit and a separator (`Z0-12-17`, `@5/09/2017`).
            let leading = right && isSep(i + 2) && isDigit(i + 3) && !(i > 0 && chars[i - 1].isLetter)
            if (left && right) || (left && isSep(i + 1) && isDigit(i + 2)) || (right && isSep(i - 1) && isDigit(i - 2)) || leading {
                chars[i] = replacement
            }
        }
        return String(chars)
    }
}
