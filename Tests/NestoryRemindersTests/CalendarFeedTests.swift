import Foundation
import NestoryDomain
import Testing
@testable import NestoryReminders

@Suite("The calendar feed (RFC 5545)")
struct CalendarFeedTests {
    let item = ItemID(UUID(uuidString: "6F1C2A3B-0000-4000-8000-000000000001")!)

    func feed(_ name: String, expiry: String = "2027-02-28") throws -> String {
        CalendarFeed(name: "The Smiths: warranties",
                     entries: [.init(itemID: item, itemName: name, expiry: try CalendarDate(iso: expiry), updatedAt: Date(timeIntervalSince1970: 1_764_000_000))],
                     origin: "https://nestory.example").render()
    }

    @Test("one all-day event per warranty, with its UID, DTSTAMP, alarms and link; every line ends in CRLF")
    func structure() throws {
        let text = try feed("Espresso machine")
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Nestory//"))
        #expect(text.hasSuffix("END:VCALENDAR\r\n"))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "a bare LF")
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.contains("UID:warranty-\(item)@nestory"))
        #expect(lines.contains("DTSTAMP:20251124T160000Z"))
        #expect(lines.contains("DTSTART;VALUE=DATE:20270228"))
        #expect(lines.contains("DTEND;VALUE=DATE:20270301"))
        #expect(lines.contains("SUMMARY:Warranty ends: Espresso machine"))
        #expect(lines.contains("URL:https://nestory.example/items/\(item)"))
        #expect(lines.filter { $0 == "BEGIN:VALARM" }.count == 3)
        #expect(lines.contains("TRIGGER;RELATED=START:-P30D") && lines.contains("TRIGGER;RELATED=START:-P7D"))
        #expect(lines.filter { $0 == "BEGIN:VEVENT" }.count == 1 && lines.filter { $0 == "END:VEVENT" }.count == 1)
    }

    @Test("text is escaped: backslash, semicolon, comma, newline; control characters dropped")
    func escaping() throws {
        #expect(CalendarFeed.text("a\\b;c,d\ne\r\u{07}f") == "a\\\\b\\;c\\,d\\nef")
        let text = try feed("Sofa, grey; \"L\" shape\nwith\tchaise")
        #expect(text.contains("SUMMARY:Warranty ends: Sofa\\, grey\\; \"L\" shape\\nwithchaise"))
    }

    @Test("long lines fold at 75 octets, never inside a UTF-8 character, and unfold to the same text")
    func folding() throws {
        let name = String(repeating: "Überkühlschrank 冷蔵庫 🧊 ", count: 12)
        let text = try feed(name)
        for line in text.components(separatedBy: "\r\n") {
            #expect(line.utf8.count <= 75, "\(line.utf8.count) octets: \(line)")
        }
        let unfolded = text.replacingOccurrences(of: "\r\n ", with: "")
        #expect(unfolded.contains("SUMMARY:Warranty ends: \(CalendarFeed.text(name))"))
        // Short lines are untouched.
        #expect(CalendarFeed.fold("SUMMARY:short") == "SUMMARY:short")
        let exact = "X:" + String(repeating: "a", count: 73)
        #expect(CalendarFeed.fold(exact) == exact)
        #expect(CalendarFeed.fold(exact + "b") == exact + "\r\n b")
    }

    @Test("no entries is still a valid, empty calendar")
    func empty() {
        let text = CalendarFeed(name: "Empty", entries: [], origin: nil).render()
        #expect(text.contains("X-WR-CALNAME:Empty\r\n") && !text.contains("VEVENT"))
    }
}

@Suite("Webhooks: signatures and the address guard")
struct WebhookTests {
    @Test("a signature verifies with the secret, and fails for another body, secret or an old time")
    func signatures() throws {
        let event = WebhookEvent(type: "webhook.test", id: "test-1", createdAt: Date(timeIntervalSince1970: 1_764_000_000),
                                 household: "h", data: ["message": "hi"])
        let body = try event.body()
        #expect(String(decoding: body, as: UTF8.self) == #"{"created_at":"2025-11-24T16:00:00Z","data":{"message":"hi"},"household":"h","id":"test-1","type":"webhook.test"}"#)
        let now = Date(timeIntervalSince1970: 1_764_000_100)
        let header = WebhookSignature.sign(body, secret: "whsec_abc", time: now)
        #expect(header.hasPrefix("t=1764000100,v1=") && header.count == "t=1764000100,v1=".count + 64)
        #expect(WebhookSignature.verify(header, body: body, secret: "whsec_abc", now: now))
        #expect(!WebhookSignature.verify(header, body: body + Data(" ".utf8), secret: "whsec_abc", now: now))
        #expect(!WebhookSignature.verify(header, body: body, secret: "whsec_abd", now: now))
        #expect(!WebhookSignature.verify(header, body: body, secret: "whsec_abc", now: now.addingTimeInterval(301)))
        #expect(!WebhookSignature.verify("v1=deadbeef", body: body, secret: "whsec_abc", now: now))
    }
}
