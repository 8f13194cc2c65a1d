import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MetricsTestKit
import NestoryDomain
import NestoryServices
import NestoryStore
import Testing
@testable import NestoryWeb

/// Issue 16: the capture screen's counters (per household and UTC day, in Settings and /metrics) and the
/// page's error reports (to the log, without personal data).
@Suite struct CaptureCounterTests {
    @Test func eventsAreCountedPerDayShownToTheOwnerAndMeasured() async throws {
        let metrics = TestMetrics()
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try await withMetricsFactory(metrics) {
            try await app.run { client in
                var ann = Browser(client)
                _ = try await ann.signIn("ann@example.com")
                for event in ["scan_open", "scan_open", "queued"] {
                    #expect(try await ann.request(.post, "/api/v1/events", json: #"{"event": "\#(event)"}"#).status == .noContent)
                }
                let unknown = try await ann.request(.post, "/api/v1/events", json: #"{"event": "bob@example.com"}"#)
                #expect(unknown.status == .unprocessableContent && unknown.body.contains("scan_open"))
                #expect(try await ann.request(.post, "/api/v1/events", json: #"{"what": 1}"#).status == .badRequest)
                let settings = try await ann.request(.get, "/settings")
                #expect(settings.body.contains("<caption>Capture counters (last 7 days)</caption>"))
                let scanRow = try #require(settings.body.range(of: "<th scope=\"row\">Scan opened</th>"))
                #expect(settings.body[scanRow.upperBound...].hasPrefix("<td>0</td><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td><td>2</td><td>2</td>"))
            }
        }
        let today = CalendarDate(Date(), in: TimeZone(identifier: "UTC")!)
        let counts = try app.database.captureCounts(household.id, since: today)
        #expect(Set(counts) == [CaptureCount(day: today, event: .scanOpen, count: 2), CaptureCount(day: today, event: .queued, count: 1)])
        #expect(metrics.counterTotal(label: "nestory_capture_events_total", dimensions: [("event", "scan_open")]) == 2)
        #expect(metrics.counterTotal(label: "nestory_capture_events_total", dimensions: [("event", "queued")]) == 1)
    }

    @Test func aCounterStopsAtItsDailyCap() throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let day = try CalendarDate(iso: "2026-11-25")
        #expect(try app.database.countCaptureEvent(household.id, .scanRetry, day: day, cap: 2))
        #expect(try app.database.countCaptureEvent(household.id, .scanRetry, day: day, cap: 2))
        #expect(try !app.database.countCaptureEvent(household.id, .scanRetry, day: day, cap: 2))
        #expect(try app.database.captureCounts(household.id, since: day) == [CaptureCount(day: day, event: .scanRetry, count: 2)])
    }

    @Test func membersDoNotSeeTheCounters() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let user = try app.database.createUser(email: "kid@example.com", displayName: "Kid", passwordHash: try app.hasher.hash("correct horse battery"), now: Date())
        try app.database.addMember(household.id, user: user.id, role: .member, now: Date())
        try await app.run { client in
            var kid = Browser(client)
            _ = try await kid.signIn("kid@example.com")
            #expect(try await kid.request(.post, "/api/v1/events", json: #"{"event": "scan_open"}"#).status == .noContent)
            #expect(!(try await kid.request(.get, "/settings")).body.contains("Capture counters"))
        }
    }
}

@Suite struct ClientErrorTests {
    @Test func aReportIsLoggedWithoutPersonalDataAndLimited() async throws {
        // The budget is a sliding estimate over clock minutes: on a real clock a slow run whose requests straddle a
        // minute's end is let through sooner (seen in a loaded full run). The test's clock moves only by hand.
        let clock = TestClock()
        let app = try TestApp(now: { clock.now })
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let report = #"{"kind": "upload", "message": "Upload failed for ann@example.com", "page": "/items/1?q=x"}"#
            #expect(try await ann.request(.post, "/api/v1/client-errors", json: report).status == .noContent)
            let wrongKind = try await ann.request(.post, "/api/v1/client-errors", json: #"{"kind": "fatal", "message": "", "page": "/"}"#)
            #expect(wrongKind.status == .unprocessableContent)
            #expect(try await ann.request(.post, "/api/v1/client-errors", json: #"{"kind": "uncaught"}"#).status == .badRequest)
            for _ in 0..<4 { _ = try await ann.request(.post, "/api/v1/client-errors", json: report) }
            let limited = try await ann.request(.post, "/api/v1/client-errors", json: report)
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] != nil)
            // Two minutes on, the page may report again.
            clock.advance(120)
            #expect(try await ann.request(.post, "/api/v1/client-errors", json: report).status == .noContent)
        }
    }

    @Test func theMessageAndPageAreScrubbed() {
        let message = ClientReport.message("""
            TypeError at /items/3f2a9c1e-7b4d-4e8a-9f00-1234567890ab for Ann.Lee+home@mail.example.co.uk
            card 4111111111111111 ref 12345, see /api/v1/items?q=jewellery&room=bedroom
            """)
        #expect(message == "TypeError at /items/[id] for [email] card [number] ref 12345, see /api/v1/items?[query]")
        #expect(!message.contains("\n"))
        #expect(ClientReport.message(String(repeating: "x", count: 1_000)).count == 300)
        #expect(ClientReport.page("/items/3f2a9c1e-7b4d-4e8a-9f00-1234567890ab?q=ring#photos") == "/items/[id]")
        #expect(ClientReport.page("https://nestory.example/capture?code=4006381333931") == "/capture")
        #expect(ClientReport.page("javascript:alert(1)") == "/")
        #expect(ClientReport.page("/search/ann@example.com") == "/search/[email]")
    }
}
