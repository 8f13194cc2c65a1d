import Foundation
import NestoryDomain
import Testing

@Suite struct HouseholdTests {
    /// 2026-11-28 20:00 UTC: already the 29th in Kolkata (01:30), still the 28th in New York (15:00).
    let evening = Date(timeIntervalSince1970: 1_795_896_000)

    @Test func aHouseholdsDayIsOnItsOwnClock() throws {
        let kolkata = Household(name: "Home", currency: .usd, createdAt: evening, timeZone: "Asia/Kolkata")
        let newYork = Household(name: "Home", currency: .usd, createdAt: evening, timeZone: "America/New_York")
        #expect(kolkata.day(at: evening) == (try CalendarDate(iso: "2026-11-29")))
        #expect(newYork.day(at: evening) == (try CalendarDate(iso: "2026-11-28")))
        // No zone of its own (a household made before households had one): the server's clock.
        let older = Household(name: "Home", currency: .usd, createdAt: evening)
        #expect(older.clock == TimeZone.current)
        #expect(older.day(at: evening) == CalendarDate(evening, in: .current))
        // A name this system does not know (from another system's database) is the server's clock too, not a crash.
        #expect(Household.clock(named: "Mars/Olympus_Mons") == TimeZone.current)
    }

    @Test func aTimeZoneMustBeOneThisSystemKnows() throws {
        #expect(try Household.validatedTimeZone("Europe/Paris") == "Europe/Paris")
        #expect(try Household.validatedTimeZone("  Asia/Tokyo\n") == "Asia/Tokyo")
        #expect(try Household.validatedTimeZone("UTC") == "UTC")
        // Empty: none (the server's clock).
        #expect(try Household.validatedTimeZone("") == nil)
        #expect(try Household.validatedTimeZone("   ") == nil)
        #expect(try Household.validatedTimeZone("Etc/UTC") == "Etc/UTC")
        #expect(try Household.validatedTimeZone("Asia/Kolkata") == "Asia/Kolkata")
        for bad in ["Mars/Olympus_Mons", "GMT+5", "GMT+0500", "EST", "europe/paris", "Europe/Paris\u{0}", String(repeating: "A", count: 65), "Europe/ Paris", "../etc/passwd"] {
            #expect(throws: DomainError.invalid(field: "timeZone", message: "Choose a time zone from the list, such as Europe/London.")) {
                try Household.validatedTimeZone(bad)
            }
        }
    }
}
