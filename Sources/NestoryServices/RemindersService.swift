import Foundation
import Logging
import NestoryAuth
import NestoryDomain
import struct NestoryHTTP.PublicAddressGuard
import enum NestoryHTTP.PublicAddressError
import NestoryJobs
import NestoryReminders
import NestoryStore
import NestoryStoreInterfaces
import ServiceLifecycle

/// Reminders: warranty expiries (30, 7 and 0 days ahead) and the weekly documentation nudge, shown in the
/// app to the users who keep them on; a calendar feed of warranty expiries per user at a secret address;
/// and the household's optional webhook, which receives the same events as signed JSON, through the job
/// system (retried with backoff, once per event).
public struct RemindersService: Sendable {
    let store: any ReminderStore
    /// Where the webhook's address is checked (resolving its host name blocks).
    let blocking: BlockingPool
    let queue: JobQueue
    /// Where webhooks may go (public addresses only, unless the operator allows private ones).
    public let addressGuard: PublicAddressGuard
    let now: @Sendable () -> Date

    public init(store: any ReminderStore, blocking: BlockingPool, queue: JobQueue, addressGuard: PublicAddressGuard,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.blocking = blocking
        self.queue = queue
        self.addressGuard = addressGuard
        self.now = now
    }

    /// What a user's reminders list shows.
    public struct Overview: Sendable {
        public let preferences: ReminderPreferences
        public let warranties: [WarrantyReminder]
        public let nudge: DocumentationNudge?
        public var count: Int { warranties.count + (nudge == nil ? 0 : 1) }
    }

    /// The user's choices (Settings → Notifications).
    public func preferences(_ user: UserID) async throws -> ReminderPreferences { try await store.reminderPreferences(user) }

    /// The user's choices and the tips they dismissed, in one read (every page asks).
    public func pagePreferences(_ user: UserID) async throws -> (reminders: ReminderPreferences, dismissedTips: Set<Tip>) {
        try await store.pagePreferences(user)
    }

    /// The user's reminders: only the kinds they keep on.
    public func overview(user: UserID, household: Household) async throws -> Overview {
        try await overview(preferences: try await store.reminderPreferences(user), household: household)
    }

    /// The reminders for choices already read (the page middleware reads them with the dismissed tips).
    /// Warranties are due on the household's day (`Household.clock`).
    public func overview(preferences: ReminderPreferences, household: Household) async throws -> Overview {
        let warranties = preferences.warranties ? try await store.warrantyReminders(household.id, today: household.day(at: now())) : []
        let needsPhoto = preferences.weeklyNudge ? try await store.itemsNeedingPhoto(household.id) : 0
        return Overview(preferences: preferences, warranties: warranties, nudge: needsPhoto > 0 ? DocumentationNudge(needsPhoto: needsPhoto) : nil)
    }

    /// Settings → Notifications.
    public func setPreferences(_ user: UserID, _ preferences: ReminderPreferences) async throws {
        try await store.setReminderPreferences(user, preferences)
    }

    // MARK: Calendar feed

    public func calendarToken(_ user: UserID) async throws -> String? { try await store.calendarFeedToken(user) }

    /// A new secret address for the user's feed; the old one stops working.
    public func resetCalendarFeed(_ user: UserID) async throws -> String {
        let token = SessionToken.generate()
        try await store.setCalendarFeed(user, token: token, tokenHash: SessionToken.hash(token), now: now())
        return token
    }

    public func removeCalendarFeed(_ user: UserID) async throws {
        try await store.deleteCalendarFeed(user)
    }

    /// The feed's iCalendar text for a token, or nil when no feed has it. `origin` makes the events' links.
    public func calendar(token: String, origin: String?) async throws -> String? {
        guard token.count >= 16, token.count <= 128 else { return nil }
        guard let content = try await store.calendarFeed(tokenHash: SessionToken.hash(token)) else { return nil }
        let entries = content.warranties.map { CalendarFeed.Entry(itemID: $0.itemID, itemName: $0.name, expiry: $0.expiry, updatedAt: $0.updatedAt) }
        return CalendarFeed(name: "\(content.householdName): warranties", entries: entries, origin: origin).render()
    }

    // MARK: Webhook

    public func webhook(_ household: HouseholdID) async throws -> WebhookRecord? { try await store.webhook(household) }

    /// The owner sets where events go; the address is checked now (and again before each delivery).
    /// A secret is made the first time, or when `newSecret` asks.
    public func setWebhook(_ household: HouseholdID, by role: MemberRole, url: String, newSecret: Bool = false) async throws {
        guard role == .owner else { throw DomainError.forbidden("Only the household’s owner can set the webhook.") }
        let addressGuard = addressGuard
        let checked: URL
        do {
            checked = try await blocking.run { () throws(PublicAddressError) -> URL in try addressGuard.check(url).url }
        } catch let error as PublicAddressError {
            throw DomainError.invalid(field: "url", message: error.message)
        }
        try await store.setWebhook(household, url: checked.absoluteString, newSecret: "whsec_" + SessionToken.generate(), replaceSecret: newSecret,
                                   now: now())
    }

    public func removeWebhook(_ household: HouseholdID, by role: MemberRole) async throws {
        guard role == .owner else { throw DomainError.forbidden("Only the household’s owner can remove the webhook.") }
        try await store.deleteWebhook(household)
    }

    /// Sends a `webhook.test` event now (through the job system, like any other).
    @discardableResult
    public func sendTest(_ household: HouseholdID, by role: MemberRole) async throws -> Job {
        guard role == .owner else { throw DomainError.forbidden("Only the household’s owner can test the webhook.") }
        guard try await store.webhook(household) != nil else { throw DomainError.invalid(field: "url", message: "Set the webhook’s address first.") }
        let at = now()
        let event = WebhookEvent(type: "webhook.test", id: "test-\(UUID().uuidString.lowercased())", createdAt: at,
                                 household: household.description, data: ["message": "A test from Nestory. Webhooks work."])
        return try await queue.enqueue(household, kind: JobKind.webhook, subject: "webhook", payload: event)
    }

    /// Queues each due event that was not sent yet, for every household with a webhook: the warranty
    /// reminder each expiring item is at, and once per ISO week the documentation nudge. Returns how many
    /// were queued.
    @discardableResult
    public func dispatchDue() async throws -> Int {
        let at = now()
        var queued = 0
        for (household, zone) in try await store.householdsWithWebhooks() {
            // Each household's events are due on its own day: a warranty that ends today there, not where the server is.
            let day = CalendarDate(at, in: Household.clock(named: zone))
            var events = try await store.warrantyReminders(household, today: day).map { WebhookEvent.warranty($0, household: household, now: at) }
            let needsPhoto = try await store.itemsNeedingPhoto(household)
            if needsPhoto > 0 {
                events.append(.nudge(DocumentationNudge(needsPhoto: needsPhoto), week: ReminderRules.isoWeek(day), household: household, now: at))
            }
            let unsent = try await store.unsentEvents(household, among: events.map(\.id))
            for event in events where unsent.contains(event.id) {
                // Queued before it is marked: a crash between the two sends it twice (receivers drop a repeated id),
                // never not at all.
                let queue = queue
                _ = try await queue.enqueue(household, kind: JobKind.webhook, subject: "webhook", payload: event)
                try await store.markEventSent(household, eventID: event.id, now: at)
                queued += 1
            }
        }
        try await store.deleteSentEvents(before: at.addingTimeInterval(-400 * 86_400))
        return queued
    }
}

/// Delivers one webhook event: checks the address again, signs the body, POSTs it, and records the answer.
/// 2xx is done; 408, 429 and 5xx and no answer are retried with backoff; other answers fail for good.
public struct WebhookJobHandler: JobHandler {
    let store: any ReminderStore
    let sender: any WebhookSending
    let addressGuard: PublicAddressGuard
    let now: @Sendable () -> Date
    public let kind = JobKind.webhook
    public let concurrency = 2
    public let retry: RetryPolicy

    public init(store: any ReminderStore, sender: any WebhookSending, addressGuard: PublicAddressGuard, retryDelay: TimeInterval = 30,
                now: @escaping @Sendable () -> Date = Date.init) {
        retry = RetryPolicy(maxAttempts: 6, baseDelay: retryDelay, maxDelay: 3600, resumesAfterStop: true)
        self.store = store
        self.sender = sender
        self.addressGuard = addressGuard
        self.now = now
    }

    public struct Delivered: Codable, Sendable {
        public let status: Int
    }

    public func run(_ job: Job, context: JobContext) async throws -> String {
        let event = try job.decodedPayload(as: WebhookEvent.self)
        guard let webhook = try await store.webhook(job.householdID) else {
            throw JobFailure(code: "no_webhook", message: "The household no longer has a webhook.")
        }
        let checked: PublicAddressGuard.Checked
        do { checked = try addressGuard.check(webhook.url) } catch {
            try? await store.recordWebhookAttempt(job.householdID, status: nil, error: error.message, at: now())
            throw JobFailure(code: "webhook_refused", message: error.message)
        }
        let url = checked.url
        let body = try event.body()
        let headers = ["Content-Type": "application/json", WebhookSignature.header: WebhookSignature.sign(body, secret: webhook.secret, time: now()),
                       "Nestory-Event": event.type, "Nestory-Delivery": event.id]
        let status: Int
        do {
            // To the address just checked, so a name pointed inside meanwhile reaches nothing.
            status = try await sender.post(url, connectingTo: checked.address, body: body, headers: headers)
        } catch {
            let message = "No answer from \(url.host ?? "the address"): \(error.localizedDescription)"
            try? await store.recordWebhookAttempt(job.householdID, status: nil, error: message, at: now())
            throw JobFailure(code: "webhook_unreachable", message: message, retryable: true)
        }
        try? await store.recordWebhookAttempt(job.householdID, status: status, error: (200..<300).contains(status) ? nil : "HTTP \(status)", at: now())
        guard (200..<300).contains(status) else {
            throw JobFailure(code: "webhook_status", message: "The webhook answered HTTP \(status).",
                             retryable: status == 408 || status == 429 || status >= 500)
        }
        return try JSONEncoder.jobText(Delivered(status: status))
    }
}

/// Looks for due reminders at start and then every `interval`, and queues their webhooks.
public struct ReminderDispatcher: Service {
    let reminders: RemindersService
    let interval: Duration
    let logger: Logger

    public init(reminders: RemindersService, interval: Duration = .seconds(3600), logger: Logger = Logger(label: "nestory.reminders")) {
        self.reminders = reminders
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let queued = try await reminders.dispatchDue()
                    if queued > 0 { logger.info("queued reminder webhooks", metadata: ["events": .stringConvertible(queued)]) }
                } catch {
                    logger.warning("looking for due reminders failed", metadata: ["error": .string(String(describing: error))])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
