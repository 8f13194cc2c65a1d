import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NestoryDomain
import Testing
@testable import NestoryStore
@testable import NestoryWeb

/// Request ids, /metrics access, /health/ready.
@Suite struct OperationsTests {
    static func app(_ app: TestApp, operations: Operations) -> Application<RouterResponder<AppRequestContext>> {
        let base = app.dependencies
        let dependencies = WebDependencies(services: base.services, imaging: base.imaging, limits: base.limits,
                                           productProviders: [], operations: operations)
        return Application(router: buildRouter(dependencies))
    }

    @Test func everyResponseCarriesARequestIDThatErrorsQuote() async throws {
        let app = try TestApp()
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            let health = try await client.execute(uri: "/health", method: .get)
            let generated = try #require(health.headers[RequestLogMiddleware.header])
            #expect(UUID(uuidString: generated) != nil)
            // HEAD is answered wherever GET is, headers without the body (it was 404: an uptime check asking with HEAD
            // saw the server as down).
            let head = try await client.execute(uri: "/health", method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0 && head.headers[.contentType] == health.headers[.contentType])
            #expect(try await client.execute(uri: "/signin", method: .head).status == .ok)
            #expect(try await client.execute(uri: "/nope", method: .head).status == .notFound)
            let kept = try await client.execute(uri: "/nope", method: .get, headers: [RequestLogMiddleware.header: "edge-42.a_b"])
            #expect(kept.status == .notFound && kept.headers[RequestLogMiddleware.header] == "edge-42.a_b")
            let replaced = try await client.execute(uri: "/health", method: .get, headers: [RequestLogMiddleware.header: "bad id\u{1}<script>"])
            #expect(replaced.headers[RequestLogMiddleware.header].map { UUID(uuidString: $0) != nil } == true)
            // A server error quotes the same id in its body as in the header.
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            try FileManager.default.removeItem(atPath: app.database.folder.tmpURL.path)
            try Data("not a folder".utf8).write(to: app.database.folder.tmpURL)
            let failed = try await ann.request(.get, "/reports/export.csv", headers: [RequestLogMiddleware.header: "trace-me"])
            #expect(failed.status == .internalServerError && failed.headers[RequestLogMiddleware.header] == "trace-me")
            #expect(failed.body.contains("\"requestID\":\"trace-me\""))
        }
    }

    /// A request that reaches the store after it closed (the server stopping) is told to try again, not a server error.
    @Test func aRequestAfterTheStoreClosedIsAskedToComeBack() async throws {
        let app = try TestApp()
        try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var browser = Browser(client)
            _ = try await browser.signIn("ann@example.com")
            #expect(try await browser.request(.get, "/api/v1/summary").status == .ok)
            try app.database.close()
            let reply = try await browser.request(.get, "/api/v1/summary")
            #expect(reply.status == .serviceUnavailable && reply.errorCode == "shutting_down", "\(reply.status)")
        }
    }

    /// A write the disk has no room for is 507 with a message that says nothing was saved and who can help, on a page
    /// and in the API (it was a 500 "try again", which cannot help), and the same request works once there is room.
    @Test func aWriteWithNoRoomLeftSaysSoAndWorksOnceThereIs() async throws {
        let app = try TestApp()
        try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            // The database may not grow past the pages it has: SQLite's answer is then the one of a full disk (SQLITE_FULL).
            func limitPages(_ limit: Int?) throws {
                try app.database.writer.write { db in
                    let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                    try db.execute(sql: "PRAGMA max_page_count = \(limit ?? pages)")
                }
            }
            let notes = String(repeating: "A long note about the piano's history. ", count: 200)
            let json = #"{"name":"Piano","notes":"\#(notes)"}"#
            try limitPages(nil)
            let api = try await ann.request(.post, "/api/v1/items", json: json)
            #expect(api.status.code == 507 && api.errorCode == "no_space", "\(api.status)")
            #expect(api.body.contains("nothing was saved"))
            let page = try await ann.request(.post, "/items", form: ["name": "Piano", "notes": notes], headers: [.accept: "text/html"])
            #expect(page.status.code == 507 && page.body.contains("No space left") && page.body.contains("nothing was saved"))
            try limitPages(1_073_741_823)
            #expect(try await ann.request(.get, "/api/v1/items").body.contains("Piano") == false)
            #expect(try await ann.request(.post, "/api/v1/items", json: json).status == .created)
        }
    }

    @Test func metricsAreOffLoopbackOnlyOrBehindAToken() async throws {
        let app = try TestApp()
        let emit: @Sendable () -> String = { "nestory_test_total 1\n" }
        try await Self.app(app, operations: Operations(metrics: .off, emitMetrics: emit)).test(.router) { client in
            let status = try await client.execute(uri: "/metrics", method: .get).status
            #expect(status == .notFound)
        }
        // The test client has no socket address: loopback-only refuses it as it refuses any other machine.
        try await Self.app(app, operations: Operations(metrics: .loopback, emitMetrics: emit)).test(.router) { client in
            let status = try await client.execute(uri: "/metrics", method: .get).status
            #expect(status == .notFound)
        }
        try await Self.app(app, operations: Operations(metrics: .token("0123456789abcdef-token"), emitMetrics: emit)).test(.router) { client in
            #expect(try await client.execute(uri: "/metrics", method: .get).status == .unauthorized)
            let wrong = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer 0123456789abcdef-tokeN"])
            #expect(wrong.status == .unauthorized)
            let right = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer 0123456789abcdef-token"])
            #expect(right.status == .ok && String(buffer: right.body) == "nestory_test_total 1\n")
        }
    }

    @Test func readinessReportsEachCheckAndFailsWhenOneDoes() async throws {
        let app = try TestApp()
        let ok = Operations.Check(name: "disk") { nil }
        let broken = Operations.Check(name: "ocr") { "tesseract's English data is not installed" }
        try await Self.app(app, operations: Operations(checks: [ok])).test(.router) { client in
            let ready = try await client.execute(uri: "/health/ready", method: .get)
            #expect(ready.status == .ok && String(buffer: ready.body).contains(#""status":"ready""#))
        }
        try await Self.app(app, operations: Operations(checks: [ok, broken])).test(.router) { client in
            let notReady = try await client.execute(uri: "/health/ready", method: .get)
            let body = String(buffer: notReady.body)
            #expect(notReady.status == .serviceUnavailable && body.contains("not_ready") && body.contains("English data is not installed"))
            #expect(body.contains(#""name":"database","ok":true"#) || body.contains(#""ok":true,"name":"database""#))
            // /health stays cheap and up whatever the checks say.
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
        }
    }
}
