import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NestoryDomain
import NestoryReminders
import NestoryServices
import NestoryStore
import Testing
@testable import NestoryWeb

/// A local server on 127.0.0.1 that receives webhooks and keeps what came (headers and body).
final class WebhookReceiver: @unchecked Sendable {
    struct Received: Sendable { let headers: [String: String]; let body: Data }
    private let lock = NSLock()
    private var list: [Received] = []
    private var task: Task<Void, any Error>?
    private(set) var port = 0
    /// Statuses to answer, in turn (then 200).
    private var statuses: [Int]

    init(statuses: [Int] = []) async throws {
        self.statuses = statuses
        let router = Router()
        router.post("hook") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1_000_000)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }  // lower-case names
            headers["host"] = request.head.authority  // HTTP/1's Host, as HTTPTypes keeps it
            let status = lock.withLock { () -> Int in
                list.append(Received(headers: headers, body: Data(buffer: body)))
                return self.statuses.isEmpty ? 200 : self.statuses.removeFirst()
            }
            return Response(status: .init(code: status))
        }
        let ready = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in ready.continuation.yield(channel.localAddress?.port ?? 0) })
        task = Task { try await app.run() }
        var iterator = ready.stream.makeAsyncIterator()
        port = await iterator.next() ?? 0
    }

    var received: [Received] { lock.withLock { list } }
    var url: String { "http://127.0.0.1:\(port)/hook" }
    func stop() { task?.cancel() }

    /// Waits (at most 20 s) until `count` requests came.
    func wait(for count: Int) async throws -> [Received] {
        let deadline = Date().addingTimeInterval(20)
        while received.count < count, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return received
    }
}

@Suite("Reminders: the list and badge, preferences, the calendar feed, webhooks")
struct RemindersTests {
    let today = CalendarDate(Date(), in: .current)

    func item(_ app: TestApp, _ household: HouseholdID, _ name: String, warrantyIn days: Int?) throws {
        var draft = ItemDraft(name: name, currency: .usd)
        draft.warrantyExpiry = try days.map { try today.adding(days: $0) }
        _ = try app.database.createItem(household, draft, now: Date())
    }

    @Test("the list shows warranties ending within 30 days, soonest first, and the nudge; the bell counts them; each user chooses")
    func listBadgeAndPreferences() async throws {
        let app = try TestApp()
        let (household, owner) = try app.household("The Smiths", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        try item(app, household.id, "Television", warrantyIn: 20)
        try item(app, household.id, "Kettle", warrantyIn: 0)
        try item(app, household.id, "Laptop", warrantyIn: 5)
        try item(app, household.id, "Fridge", warrantyIn: 45)
        try item(app, household.id, "Radio", warrantyIn: -1)
        try item(app, household.id, "Chair", warrantyIn: nil)
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let page = try await ann.request(.get, "/reminders")
            #expect(page.status == .ok)
            let kettle = try #require(page.body.range(of: "Kettle")), laptop = try #require(page.body.range(of: "Laptop")),
                tv = try #require(page.body.range(of: "Television"))
            #expect(kettle.lowerBound < laptop.lowerBound && laptop.lowerBound < tv.lowerBound, "soonest first")
            #expect(!page.body.contains("Fridge") && !page.body.contains("Radio"))
            #expect(page.body.contains("Warranty ends today") && page.body.contains("Warranty ends in 5 days") && page.body.contains("Warranty ends in 20 days"))
            #expect(page.body.contains("6 items still need a photo"))
            // Three warranties and the nudge: the bell on every page says 4.
            let home = try await ann.request(.get, "/")
            #expect(home.body.contains(#"aria-label="Reminders: 4""#) && home.body.contains(#"<span class="count">4</span>"#))

            // Ann turns the warranty reminders off: only the nudge is left, for her alone.
            let saved = try await ann.request(.post, "/settings/notifications", form: ["nudge": "on"])
            #expect(saved.status == .seeOther)
            #expect(try app.database.reminderPreferences(owner.id) == ReminderPreferences(warranties: false, weeklyNudge: true))
            let after = try await ann.request(.get, "/reminders")
            #expect(!after.body.contains("Kettle") && after.body.contains("6 items still need a photo") && after.body.contains("Turned off: warranty reminders"))
            #expect(try await ann.request(.get, "/settings").body.contains(#"aria-label="Reminders: 1""#))
            var bob = Browser(client)
            try await bob.signIn("bob@example.com")
            #expect(try await bob.request(.get, "/reminders").body.contains("Kettle"))
            // Both off: no badge.
            try await ann.request(.post, "/settings/notifications", form: [:])
            let none = try await ann.request(.get, "/")
            #expect(none.body.contains(#"aria-label="Reminders""#) && !none.body.contains(#"<span class="count">"#))
        }
    }

    @Test("the calendar feed: made, read without a session, replaced (the old address stops), removed")
    func calendarFeed() async throws {
        let app = try TestApp()
        let (household, owner) = try app.household("The Smiths", email: "ann@example.com")
        try item(app, household.id, "Television", warrantyIn: 200)
        try item(app, household.id, "Kettle; \"two\", litres", warrantyIn: -30)
        try item(app, household.id, "Chair", warrantyIn: nil)
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            #expect(try await ann.request(.post, "/settings/calendar", form: [:]).status == .seeOther)
            let token = try #require(try app.database.calendarFeedToken(owner.id))
            let settings = try await ann.request(.get, "/settings")
            #expect(settings.body.contains("/calendar/\(token).ics"))

            var visitor = Browser(client)
            let feed = try await visitor.request(.get, "/calendar/\(token).ics")
            #expect(feed.status == .ok && feed.headers[.contentType] == "text/calendar; charset=utf-8")
            #expect(feed.body.components(separatedBy: "BEGIN:VEVENT").count - 1 == 2, "both warranties, past ones too; not the chair")
            #expect(feed.body.contains("SUMMARY:Warranty ends: Kettle\\; \"two\"\\, litres"))
            #expect(try await visitor.request(.get, "/calendar/\(token.dropLast())x.ics").status == .notFound)
            #expect(try await visitor.request(.get, "/calendar/short.ics").status == .notFound)

            try await ann.request(.post, "/settings/calendar", form: [:])
            let replaced = try #require(try app.database.calendarFeedToken(owner.id))
            #expect(replaced != token)
            #expect(try await visitor.request(.get, "/calendar/\(token).ics").status == .notFound)
            #expect(try await visitor.request(.get, "/calendar/\(replaced).ics").status == .ok)
            try await ann.request(.post, "/settings/calendar", form: ["action": "remove"])
            #expect(try app.database.calendarFeedToken(owner.id) == nil)
            #expect(try await visitor.request(.get, "/calendar/\(replaced).ics").status == .notFound)
        }
    }

    @Test("a webhook to 127.0.0.1 or 10.x is refused unless the operator allows private addresses; only the owner sets one")
    func webhookGuard() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            for url in ["http://127.0.0.1:9/hook", "http://10.0.0.8/hook", "http://localhost:8080/", "http://[::1]/", "http://169.254.169.254/latest"] {
                let refused = try await ann.request(.post, "/settings/webhook", form: ["url": url])
                #expect(refused.status == .unprocessableContent, "\(url)")
                #expect(refused.body.contains("inside this server’s network") || refused.body.contains("inside this server&#39;s network")
                        || refused.body.contains("inside this server's network"), "\(url)")
                #expect(refused.body.contains("value=\"\(url)\""), "the typed address is kept")
            }
            #expect(try app.database.webhook(household.id) == nil)
            var bob = Browser(client)
            try await bob.signIn("bob@example.com")
            #expect(try await bob.request(.post, "/settings/webhook", form: ["url": "https://93.184.216.34/hook"]).status == .forbidden)
            #expect(!(try await bob.request(.get, "/settings").body.contains("Signing secret")))
        }
        // Even a webhook stored before (or whose name now resolves inside) is checked again at delivery.
        try app.database.setWebhook(household.id, url: "http://127.0.0.1:9/hook", newSecret: "whsec_x", replaceSecret: true, now: Date())
        let job = try await app.dependencies.services.reminders.sendTest(household.id, by: .owner)
        let done = try await app.waitForJob(job.id)
        #expect(done.state == .failed)
        #expect(try app.database.webhook(household.id)?.lastError?.contains("inside this server") == true)
    }

    @Test("allowed, events are POSTed signed, each once: the due warranty stages, the weekly nudge and a test")
    func webhookDelivery() async throws {
        let receiver = try await WebhookReceiver(statuses: [503])
        defer { receiver.stop() }
        let app = try TestApp(webhooks: .init(sender: LiveWebhookSender(timeout: 5), allowPrivateAddresses: true, retryDelay: 0.05))
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        try item(app, household.id, "Kettle", warrantyIn: 3)
        try item(app, household.id, "Fridge", warrantyIn: 60)
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            #expect(try await ann.request(.post, "/settings/webhook", form: ["url": receiver.url]).status == .seeOther)
        }
        let secret = try #require(try app.database.webhook(household.id)?.secret)
        #expect(secret.hasPrefix("whsec_") && secret.count > 30)
        let reminders = app.dependencies.services.reminders
        #expect(try await reminders.dispatchDue() == 2, "the kettle's 7-day reminder and the nudge")
        #expect(try await reminders.dispatchDue() == 0, "each event once")
        // The first delivery is answered 503 and tried again (after at most 50 ms here).
        let got = try await receiver.wait(for: 3)
        #expect(got.count == 3)
        var types: [String] = []
        for delivery in got {
            let signature = try #require(delivery.headers["nestory-signature"])
            #expect(WebhookSignature.verify(signature, body: delivery.body, secret: secret, now: Date()))
            #expect(delivery.headers["content-type"] == "application/json")
            let object = try #require(try JSONSerialization.jsonObject(with: delivery.body) as? [String: Any])
            types.append(object["type"] as? String ?? "")
            #expect(object["household"] as? String == household.id.description)
        }
        #expect(Set(types) == ["warranty.expiring", "documentation.nudge"])
        let warranty = try #require(got.first { $0.headers["nestory-event"] == "warranty.expiring" })
        let data = try #require((try JSONSerialization.jsonObject(with: warranty.body) as? [String: Any])?["data"] as? [String: String])
        #expect(data["item_name"] == "Kettle" && data["days_left"] == "3" && data["message"] == "Warranty ends in 3 days: Kettle")

        let test = try await reminders.sendTest(household.id, by: .owner)
        #expect(try await app.waitForJob(test.id).state == .succeeded)
        #expect(try await receiver.wait(for: 4).last?.headers["nestory-event"] == "webhook.test")
        #expect(try app.database.webhook(household.id)?.lastStatus == 200)
    }

    /// The live sender connects to the address the webhook's host was checked at, whatever the name resolves to when it
    /// sends (here a name that resolves nowhere), and names the host in the Host header.
    @Test func aDeliveryGoesToTheAddressChecked() async throws {
        let receiver = try await WebhookReceiver()
        defer { receiver.stop() }
        let url = try #require(URL(string: "http://hooks.invalid:\(receiver.port)/hook"))
        // A patient timeout: a clean clone's first full run timed a 5 s one out (the receiver shares a loaded process).
        let status = try await LiveWebhookSender(timeout: 60).post(url, connectingTo: "127.0.0.1", body: Data("{}".utf8),
                                                                   headers: ["Content-Type": "application/json"])
        #expect(status == 200)
        #expect(receiver.received.first?.headers["host"] == "hooks.invalid:\(receiver.port)")
    }
}
