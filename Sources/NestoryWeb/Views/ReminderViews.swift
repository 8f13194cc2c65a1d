import Foundation
import NestoryDomain
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces

/// The reminders list, and Settings → Notifications.
enum ReminderViews {
    /// The bell in every signed-in page's bar, with the number of reminders when there are any.
    static func bell(_ viewer: Viewer) -> HTML {
        let label = viewer.reminders == 0 ? "Reminders" : "Reminders: \(viewer.reminders)"
        return """
            <a class="bell" href="/reminders" aria-label="\(label)" title="\(label)"><svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4z"/><path d="M10 20a2 2 0 0 0 4 0"/></svg>\(viewer.reminders > 0 ? HTML("<span class=\"count\">\(viewer.reminders > 99 ? "99+" : String(viewer.reminders))</span>") : .empty)</a>
            """
    }

    static func list(viewer: Viewer, overview: RemindersService.Overview, notice: String?) -> HTML {
        let warranties: [HTML] = overview.warranties.map { reminder in
            HTML("""
                <li class="row"><div><a href="/items/\(reminder.itemID)"><strong>\(reminder.itemName)</strong></a><br>
                <span class="\(reminder.daysLeft <= 7 ? "warn" : "muted")">\(reminder.when)</span> · <time datetime="\(reminder.expiry.iso)">\(viewer.day(reminder.expiry))</time></div></li>
                """)
        }
        let off: [String] = [overview.preferences.warranties ? nil : "warranty reminders", overview.preferences.weeklyNudge ? nil : "the weekly nudge"]
            .compactMap { $0 }
        return Layout.page(title: "Reminders", viewer: viewer, body: """
            \(Layout.notice(notice))
            \(overview.nudge.map { nudge in HTML("""
                <section class="card nudge">
                <h2>This week</h2>
                <p><strong>\(nudge.message).</strong> A photo is the first proof an adjuster asks for.</p>
                <p><a class="button primary" href="/?filter=photo#browse">Show them</a></p>
                </section>
                """) })
            \(overview.preferences.warranties ? HTML("""
                <section class="card">
                <h2>Warranties ending soon</h2>
                \(warranties.isEmpty ? HTML("<p class=\"muted\">No warranty ends in the next \(ReminderRules.horizonDays) days.</p>") : HTML("<ul class=\"list\">\(warranties)</ul>"))
                <p class="hint">Reminders come 30 and 7 days before a warranty ends, and on its last day.</p>
                </section>
                """) : .empty)
            \(overview.count == 0 && overview.preferences.warranties && overview.preferences.weeklyNudge ? HTML("<p class=\"muted\">Nothing needs your attention.</p>") : .empty)
            \(off.isEmpty ? HTML.empty : HTML("<p class=\"muted\">Turned off: \(off.joined(separator: " and ")). <a href=\"/settings#notifications\">Settings → Notifications</a></p>"))
            """)
    }

    /// Settings → Notifications: this user's choices, their calendar feed, and (for the owner) the household's
    /// webhook.
    static func settingsSection(viewer: Viewer, preferences: ReminderPreferences, calendarToken: String?, webhook: WebhookRecord?,
                                webhookForm: [String: String], webhookErrors: [FieldError]) -> SettingsSection {
        let csrf = HTML("<input type=\"hidden\" name=\"_csrf\" value=\"\(viewer.csrfToken)\">")
        let feedPath = calendarToken.map { "/calendar/\($0).ics" }
        let feedURL = feedPath.map { (viewer.origin ?? "") + $0 }
        let calendar: HTML = if let feedURL {
            """
            <div class="field"><label for="f-calendar">Your calendar address</label>
            <input id="f-calendar" type="text" readonly value="\(feedURL)" data-select-on-focus>
            <p class="hint">Subscribe to it in your calendar app (Apple Calendar: File → New Calendar Subscription; Google Calendar: Other calendars → From URL). Anyone with the address sees your warranty dates: keep it private.</p></div>
            \(feedURL.hasPrefix("http") ? HTML("<p><a class=\"button small\" href=\"webcal\(feedURL.drop { $0 != ":" })\">Open in calendar app</a></p>") : .empty)
            <form method="post" action="/settings/calendar#notifications" class="inline" data-confirm="Make a new address? Calendars subscribed to the old one stop updating.">\(csrf)<button type="submit" class="small">New address</button></form>
            <form method="post" action="/settings/calendar#notifications" class="inline">\(csrf)<input type="hidden" name="action" value="remove"><button type="submit" class="small danger">Remove</button></form>
            """
        } else {
            """
            <form method="post" action="/settings/calendar#notifications">\(csrf)<button type="submit" class="small">Make a calendar address</button></form>
            """
        }
        let webhookPart: HTML = viewer.role != .owner ? .empty : """
            <h3>Webhook</h3>
            <p class="muted">The household’s reminders can also be sent to another service (a home automation hub, a chat): a POST with a JSON body, signed with the secret below (header <code>Nestory-Signature: t=…,v1=…</code>, an HMAC-SHA256 of <code>t.body</code>). Only public addresses are allowed.</p>
            <form method="post" action="/settings/webhook#notifications" novalidate>
              \(csrf)
              \(Layout.field("url", label: "Address", value: webhookForm["url"] ?? webhook?.url, type: "url", errors: webhookErrors, attributes: "inputmode=\"url\" placeholder=\"https://\"", id: "f-webhook-url"))
              \(webhook == nil ? HTML.empty : HTML("<label class=\"choice\"><input type=\"checkbox\" name=\"newSecret\"><span>Make a new secret</span></label>"))
              <button type="submit" class="small">Save webhook</button>
            </form>
            \(webhook.map { hook in HTML("""
                <div class="field"><label for="f-webhook-secret">Signing secret</label><input id="f-webhook-secret" type="text" readonly value="\(hook.secret)" data-select-on-focus></div>
                <p class="hint">\(lastDelivery(hook, viewer: viewer))</p>
                <form method="post" action="/settings/webhook/test#notifications" class="inline">\(csrf)<button type="submit" class="small">Send a test</button></form>
                <form method="post" action="/settings/webhook/remove#notifications" class="inline" data-confirm="Remove the webhook? Nothing more is sent to it.">\(csrf)<button type="submit" class="small danger">Remove webhook</button></form>
                """) })
            """
        let reminders = switch (preferences.warranties, preferences.weeklyNudge) {
        case (true, true): "Warranty and weekly reminders"
        case (true, false): "Warranty reminders"
        case (false, true): "Weekly reminder"
        case (false, false): "No reminders"
        }
        let summary = [reminders, calendarToken == nil ? nil : "calendar address", webhook == nil ? nil : "webhook"].compactMap { $0 }.joined(separator: " · ")
        return SettingsSection(id: "notifications", title: "Notifications", summary: summary, html: """
            <section class="card" id="notifications">
            <h2>Notifications</h2>
            <form method="post" action="/settings/notifications#notifications">
              \(csrf)
              <label class="choice"><input type="checkbox" name="warranties"\(preferences.warranties ? HTML(raw: " checked") : .empty)><span>Warranty reminders (30 and 7 days before, and on the last day)</span></label>
              <label class="choice"><input type="checkbox" name="nudge"\(preferences.weeklyNudge ? HTML(raw: " checked") : .empty)><span>Weekly documentation reminder (“12 items still need a photo”)</span></label>
              <p class="hint">Shown under the bell at the top of every page, for you only.</p>
              <button type="submit" class="small">Save</button>
            </form>
            <h3>Calendar</h3>
            <p class="muted">Warranty end dates in your own calendar app, with alerts 30 and 7 days before and on the day.</p>
            \(calendar)
            \(webhookPart)
            </section>
            """)
    }

    static func lastDelivery(_ hook: WebhookRecord, viewer: Viewer) -> String {
        guard let at = hook.lastAttemptAt else { return "Nothing sent yet." }
        let formatter = DateFormatter()
        formatter.locale = viewer.locale
        formatter.dateStyle = .medium
        formatter.timeStyle = .short
        let when = formatter.string(from: at)
        if let status = hook.lastStatus, (200..<300).contains(status) { return "Last sent \(when): answered \(status)." }
        return "Last try \(when) failed: \(hook.lastError ?? "no answer"). It is tried again a few times, waiting longer each time."
    }
}
