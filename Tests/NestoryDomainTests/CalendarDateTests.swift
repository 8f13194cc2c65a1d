import Foundation
import Testing
@testable import NestoryDomain

@Suite struct CalendarDateTests {
    @Test func parsesAndPrintsISO() throws {
        let date = try CalendarDate(iso: "2018-10-19")
        #expect(date.year == 2018 && date.month == 10 && date.day == 19)
        #expect(date.iso == "2018-10-19")
    }

    @Test func theDirectPathAgreesWithTheGeneralOne() throws {
        for text in ["1800-01-01", "9999-12-31", "2024-02-29", "2001-09-09"] {
            let date = try CalendarDate(iso: text)
            #expect(date.iso == text)
            #expect(try CalendarDate(iso: " \(text)\t") == date)  // surrounding blanks: the general path
        }
        #expect(try CalendarDate(year: 1800, month: 1, day: 2).iso == "1800-01-02")
    }

    @Test(arguments: ["2019-02-29", "2018-13-01", "2018-00-10", "2018-04-31", "18-10-19", "2018/10/19", "2018-1-9",
                      "", "2018-10-19T10:00", "１９９９-01-01", "0999-01-01", "10000-01-01", "2018-10-1a"])
    func rejectsImpossibleOrAmbiguousDates(_ text: String) {
        #expect(throws: DomainError.self) { try CalendarDate(iso: text) }
    }

    @Test func leapYears() throws {
        #expect(try CalendarDate(iso: "2020-02-29").day == 29)
        #expect(try CalendarDate(iso: "2000-02-29").day == 29)
        #expect(throws: DomainError.self) { try CalendarDate(iso: "1900-02-29") }
    }

    @Test func dayArithmeticRoundTrips() throws {
        #expect(try CalendarDate(iso: "1970-01-01").daysSinceEpoch == 0)
        #expect(try CalendarDate(iso: "2000-03-01").daysSinceEpoch == 11_017)
        #expect(try CalendarDate(iso: "1969-12-31").daysSinceEpoch == -1)
        for days in stride(from: -60_000, through: 60_000, by: 997) {
            #expect(try CalendarDate(daysSinceEpoch: days).daysSinceEpoch == days)
        }
        #expect(try CalendarDate(iso: "2020-02-28").adding(days: 1).iso == "2020-02-29")
        #expect(try CalendarDate(iso: "2020-12-31").adding(days: 1).iso == "2021-01-01")
    }

    @Test func wholeYearsForAge() throws {
        let bought = try CalendarDate(iso: "2020-02-29")
        #expect(bought.wholeYears(until: try CalendarDate(iso: "2021-02-28")) == 0)
        #expect(bought.wholeYears(until: try CalendarDate(iso: "2021-03-01")) == 1)
        #expect(bought.wholeYears(until: try CalendarDate(iso: "2030-06-01")) == 10)
        #expect(bought.wholeYears(until: try CalendarDate(iso: "2019-02-28")) == -1)
    }

    @Test func theDayOfAnInstantDependsOnTheTimeZone() throws {
        // 2024-03-10 03:30 UTC is still March 9 in Los Angeles and already March 10 in Tokyo.
        let instant = Date(timeIntervalSince1970: 1_710_041_400)
        #expect(CalendarDate(instant, in: TimeZone(identifier: "UTC")!).iso == "2024-03-10")
        #expect(CalendarDate(instant, in: TimeZone(identifier: "America/Los_Angeles")!).iso == "2024-03-09")
        #expect(CalendarDate(instant, in: TimeZone(identifier: "Asia/Tokyo")!).iso == "2024-03-10")
    }

    @Test func sortsChronologically() throws {
        let dates = try ["2021-01-02", "2020-12-31", "2021-01-01"].map { try CalendarDate(iso: $0) }
        #expect(dates.sorted().map(\.iso) == ["2020-12-31", "2021-01-01", "2021-01-02"])
    }

    @Test func codableUsesISOText() throws {
        let date = try CalendarDate(iso: "2024-07-04")
        #expect(String(decoding: try JSONEncoder().encode([date]), as: UTF8.self) == #"["2024-07-04"]"#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([CalendarDate].self, from: Data(#"["2024-02-30"]"#.utf8)) }
    }
}
