import Foundation
import NestoryDomain

/// A calendar (RFC 5545, iCalendar) of warranty expiries, which calendar apps subscribe to by URL: one
/// all-day event per item on the warranty's last day, with alarms 30 and 7 days before and on the morning
/// of the day. Lines end in CRLF and are folded at 75 octets without splitting a UTF-8 character.
public struct CalendarFeed: Sendable {
    public struct Entry: Sendable {
        public let itemID: ItemID
        public let itemName: String
        public let expiry: CalendarDate
        /// When the item last changed: the event's DTSTAMP, so an unchanged event reads the same each time.
        public let updatedAt: Date

        public init(itemID: ItemID, itemName: String, expiry: CalendarDate, updatedAt: Date) {
            self.itemID = itemID
            self.itemName = itemName
            self.expiry = expiry
            self.updatedAt = updatedAt
        }
    }

    public let name: String
    public let entries: [Entry]
    /// The server's address as the subscriber reaches it (`https://nestory.example`), for each event's link;
    /// nil leaves the links out.
    public let origin: String?

    public init(name: String, entries: [Entry], origin: String?) {
        self.name = name
        self.entries = entries
        self.origin = origin
    }

    public static let contentType = "text/calendar; charset=utf-8"

    /// The whole calendar, as the bytes a calendar app reads.
    public func render() -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Nestory//Nestory \(NestoryVersion.current)//EN",
            "CALSCALE:GREGORIAN", "METHOD:PUBLISH", "X-WR-CALNAME:\(Self.text(name))",
            "REFRESH-INTERVAL;VALUE=DURATION:PT12H", "X-PUBLISHED-TTL:PT12H",
        ]
        for entry in entries {
            let end = (try? entry.expiry.adding(days: 1)) ?? entry.expiry
            let summary = "Warranty ends: \(entry.itemName)"
            lines += [
                "BEGIN:VEVENT",
                "UID:warranty-\(entry.itemID)@nestory",
                "DTSTAMP:\(entry.updatedAt.basicUTC)",
                "DTSTART;VALUE=DATE:\(Self.basic(entry.expiry))",
                "DTEND;VALUE=DATE:\(Self.basic(end))",
                "SUMMARY:\(Self.text(summary))",
                "DESCRIPTION:\(Self.text("The warranty of \(entry.itemName) ends on \(entry.expiry.iso). Claim or extend it before then."))",
                "TRANSP:TRANSPARENT",
            ]
            if let origin { lines.append("URL:\(origin)/items/\(entry.itemID)") }
            // 30 and 7 days before, and 9:00 on the day (all-day events start at midnight).
            for trigger in ["-P30D", "-P7D", "PT9H"] {
                lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;RELATED=START:\(trigger)", "DESCRIPTION:\(Self.text(summary))", "END:VALARM"]
            }
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return lines.map(Self.fold).joined(separator: "\r\n") + "\r\n"
    }

    /// TEXT values escaped (backslash, semicolon, comma, newline); other control characters dropped.
    static func text(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": out += "\\n"
            case "\r": continue
            default:
                if scalar.properties.generalCategory == .control { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A content line folded so no line exceeds 75 octets: a CRLF and one space before each continuation,
    /// never inside a UTF-8 sequence.
    static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        guard bytes.count > 75 else { return line }
        var parts: [String] = []
        var start = 0
        var limit = 75
        while start < bytes.count {
            var end = min(start + limit, bytes.count)
            // Back up to the start of a character (continuation bytes are 10xxxxxx).
            while end < bytes.count, end > start, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            parts.append(String(decoding: bytes[start..<end], as: UTF8.self))
            start = end
            limit = 74  // the leading space counts
        }
        return parts.joined(separator: "\r\n ")
    }

    static func basic(_ day: CalendarDate) -> String { day.iso.replacingOccurrences(of: "-", with: "") }
}
