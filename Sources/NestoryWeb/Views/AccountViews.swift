import Foundation
import NestoryDomain

/// Set-up, sign-in and settings pages.
enum AccountViews {
    static func setup(csrf: String, form: [String: String], errors: [FieldError]) -> HTML {
        let selected = form["currency"] ?? "USD"
        return Layout.page(title: "Welcome to Nestory", viewer: nil, body: """
            <section class="card narrow">
            <p class="lead">Create your household and the owner’s account. You can invite the rest of the household afterwards.</p>
            \(Layout.errorSummary(errors))
            <form method="post" action="/setup" novalidate>
              <input type="hidden" name="_csrf" value="\(csrf)">
              \(Layout.field("household", label: "Household name", value: form["household"], errors: errors, attributes: "required autocomplete=\"organization\" placeholder=\"The Smiths\""))
              \(Layout.currencySelect(label: "Currency", selected: selected, errors: errors))
              \(Layout.field("name", label: "Your name", value: form["name"], errors: errors, attributes: "autocomplete=\"name\""))
              \(Layout.field("email", label: "Email", value: form["email"], type: "email", errors: errors, attributes: "required autocomplete=\"email\""))
              \(Layout.field("password", label: "Password", value: nil, type: "password", errors: errors, attributes: "required autocomplete=\"new-password\" minlength=\"\(PasswordPolicy.minimumLength)\"", hint: "At least \(PasswordPolicy.minimumLength) characters. A long passphrase is best."))
              \(Layout.field("confirm", label: "Password again", value: nil, type: "password", errors: errors, attributes: "required autocomplete=\"new-password\""))
              <button type="submit" class="primary wide">Create household</button>
            </form>
            </section>
            """)
    }

    /// After a household was deleted, for a person who now has none: what went, and the way back in.
    static func householdDeleted(name: String, accounts: Int) -> HTML {
        Layout.page(title: "Household deleted", viewer: nil, body: """
            <section class="card narrow">
            <h2>\(name) was deleted</h2>
            <p>Its items, photos, receipts, reports and values are gone from this server, with \(accounts == 1 ? "your account" : "your account and \(accounts - 1) other member\(accounts == 2 ? "’s" : "s’")"). You are signed out.</p>
            <p><a class="button" href="/signin">Sign in</a></p>
            </section>
            """)
    }

    /// The owner's household form: name, currency (never converting amounts, and saying so) and the
    /// high-value threshold (in the chosen currency; the "High value" filter and count follow it).
    static func householdEditor(_ viewer: Viewer, form: [String: String], errors: [FieldError]) -> HTML {
        let household = viewer.household
        return """
            <form method="post" action="/settings/household#household" novalidate>
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              \(Layout.field("name", label: "Name", value: form["name"] ?? household.name, errors: errors, attributes: "required maxlength=\"120\"", id: "f-household-name"))
              \(Layout.currencySelect(label: "Currency", selected: form["currency"] ?? household.currency.code, errors: errors, locale: viewer.locale,
                                      hint: "For new items and totals. Changing it never converts amounts: items keep the amounts and currencies they were entered in.",
                                      id: "f-household-currency"))
              \(Layout.field("threshold", label: "High value above", value: form["threshold"] ?? household.highValueThreshold.plainAmount, errors: errors,
                             attributes: "inputmode=\"decimal\" autocomplete=\"off\" required", hint: "Items worth more than this are “high value” (a filter and a count in the inventory).",
                             id: "f-household-threshold"))
              \(timeZoneSelect(selected: form["timeZone"] ?? household.timeZone ?? "", browser: viewer.timeZone, errors: errors))
              <button type="submit" class="small">Save</button>
            </form>
            """
    }

    /// A time zone's name as people read it: "America/New York" for `America/New_York`.
    static func zoneName(_ name: String) -> String { name.replacingOccurrences(of: "_", with: " ") }

    /// The household's time zone: every zone this system knows, with its offset now, and first the server's clock (no zone
    /// of its own, as a household made before households had one). The hint names the browser's zone when it differs.
    static func timeZoneSelect(selected: String, browser: TimeZone, errors: [FieldError], now: Date = Date()) -> HTML {
        let id = "f-household-timezone"
        let message = errors.first { $0.field == "timeZone" }?.message
        func offset(_ zone: TimeZone) -> String {
            let seconds = zone.secondsFromGMT(for: now), minutes = abs(seconds) / 60
            return "UTC" + (seconds < 0 ? "−" : "+") + (minutes % 60 == 0 ? "\(minutes / 60)" : String(format: "%d:%02d", minutes / 60, minutes % 60))
        }
        // The browser's and the saved zone are listed even where the system's list has another name for the place
        // (it lists Asia/Calcutta, browsers say Asia/Kolkata).
        let names = Set(TimeZone.knownTimeZoneIdentifiers + [selected, browser.identifier].filter { (try? Household.validatedTimeZone($0)) != nil && !$0.isEmpty })
            .sorted()
        let server = TimeZone.current
        var options: [HTML] = ["<option value=\"\"\(selected.isEmpty ? HTML(raw: " selected") : .empty)>The server’s clock (\(zoneName(server.identifier)), \(offset(server)))</option>"]
        options += names.map { name in
            let label = TimeZone(identifier: name).map { "\(zoneName(name)) (\(offset($0)))" } ?? zoneName(name)
            return "<option value=\"\(name)\"\(name == selected ? HTML(raw: " selected") : .empty)>\(label)</option>"
        }
        var hint = "The household’s days follow this clock: “today” for dates bought, warranty reminders, valuations and reports."
        if browser.identifier != (selected.isEmpty ? server.identifier : selected) {
            hint += " This browser is in \(zoneName(browser.identifier))."
        }
        return """
            <div class="field\(message == nil ? "" : " invalid")"><label for="\(id)">Time zone</label>
            <select id="\(id)" name="timeZone" aria-describedby="\(id)-hint">\(options)</select>
            <p class="hint" id="\(id)-hint">\(hint)</p>
            \(message.map { HTML("<p class=\"error\">\($0)</p>") })</div>
            """
    }

    static func signIn(csrf: String, email: String, next: String?, message: String?) -> HTML {
        Layout.page(title: "Sign in", viewer: nil, body: """
            <section class="card narrow">
            \(message.map { HTML("<div class=\"alert\" role=\"alert\">\($0)</div>") })
            <form method="post" action="/signin">
              <input type="hidden" name="_csrf" value="\(csrf)">
              \(next.map { HTML("<input type=\"hidden\" name=\"next\" value=\"\($0)\">") })
              \(Layout.field("email", label: "Email", value: email, type: "email", errors: [], attributes: "required autocomplete=\"username\" autofocus"))
              \(Layout.field("password", label: "Password", value: nil, type: "password", errors: [], attributes: "required autocomplete=\"current-password\""))
              <button type="submit" class="primary wide">Sign in</button>
            </form>
            <div class="passkey-signin" data-passkey-signin hidden>
              <p class="or"><span>or</span></p>
              <button type="button" class="wide passkey-button">Sign in with a passkey</button>
            </div>
            </section>
            """)
    }

    /// The Settings page: an index of its sections, each with what is set in it now (the spec's grouped cells; on a
    /// phone the page is many screens long), then the sections in the index's order. `errors` are the add-member
    /// form's; `passwordErrors` the change-password form's; `householdErrors` and `householdForm` the household form's
    /// (the owner's). `pro`, `security`, `notifications`, `valuation`, `tokens` and `about` are made by their own views.
    static func settings(viewer: Viewer, members: [(user: User, role: MemberRole)], form: [String: String], errors: [FieldError],
                         passwordErrors: [FieldError] = [], notice: String?, onlineLookup: Bool = false,
                         scanning: (operator: Bool, household: Bool) = (true, true),
                         captureCounts: [(day: CalendarDate, counts: [CaptureEvent: Int])] = [],
                         householdForm: [String: String] = [:], householdErrors: [FieldError] = [], storage: String? = nil,
                         pro: SettingsSection, security: SettingsSection, notifications: SettingsSection, valuation: SettingsSection,
                         tokens: SettingsSection, about: SettingsSection) -> HTML {
        let isOwner = viewer.role == .owner
        let sections: [SettingsSection?] = [
            pro,
            household(viewer, form: householdForm, errors: householdErrors),
            membersSection(viewer, members: members, form: form, errors: errors),
            storage.map { dataSection(storage: $0) },
            appearance(viewer),
            security,
            password(viewer, errors: passwordErrors),
            notifications,
            isOwner ? scanningSection(viewer, onlineLookup: onlineLookup, scanning: scanning, counts: captureCounts) : nil,
            valuation,
            tokens,
            about,
        ]
        let shown = sections.compactMap { $0 }
        return Layout.page(title: "Settings", viewer: viewer, section: .settings, body: """
            \(Layout.notice(notice))
            \(settingsIndex(shown))
            \(shown.map(\.html))
            """)
    }

    /// The list at the top of Settings: each section's name and what is set in it, linking to it.
    static func settingsIndex(_ sections: [SettingsSection]) -> HTML {
        let rows: [HTML] = sections.compactMap { section in
            section.title.map { HTML("<li><a href=\"#\(section.id)\"><strong>\($0)</strong><span class=\"muted\">\(section.summary)</span></a></li>") }
        }
        return """
            <nav class="card settings-index" aria-label="Settings sections">
            <ul class="list">\(rows)</ul>
            </nav>
            """
    }

    private static func household(_ viewer: Viewer, form: [String: String], errors: [FieldError]) -> SettingsSection {
        let household = viewer.household
        let zone = household.timeZone.map(zoneName) ?? "the server’s clock"
        return SettingsSection(id: "household", title: "Household", summary: "\(household.name) · \(household.currency.code) · \(zone)", html: """
            <section class="card" id="household">
            <h2>Household</h2>
            \(viewer.role == .owner ? householdEditor(viewer, form: form, errors: errors) : HTML("""
                <p>\(household.name) · \(household.currency.code) · high value over \(household.highValueThreshold.formatted) · \(zone)</p>
                """))
            <p><a href="/rooms">Rooms</a> · <a href="/categories">Categories</a></p>
            </section>
            """)
    }

    private static func appearance(_ viewer: Viewer) -> SettingsSection {
        let name = switch viewer.theme {
        case .system: "as this device is set"
        case .light: "light"
        case .dark: "dark"
        }
        return SettingsSection(id: "appearance", title: "Appearance", summary: "Theme: \(name)", html: """
            <section class="card" id="appearance">
            <h2>Appearance</h2>
            <form method="post" action="/settings/theme#appearance">
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              <fieldset class="field"><legend>Theme</legend>
              \(Theme.allCases.map { theme in
                  HTML("<label class=\"choice\"><input type=\"radio\" name=\"theme\" value=\"\(theme.rawValue)\"\(theme == viewer.theme ? HTML(raw: " checked") : .empty)> \(theme.label)</label>")
              })
              </fieldset>
              <p class="hint">Remembered for your account, on every device.</p>
              <button type="submit" class="small">Save</button>
            </form>
            \(viewer.dismissedTips.isEmpty ? HTML.empty : HTML("""
                <form method="post" action="/settings/tips/reset#appearance">
                  <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                  <p class="hint">You closed \(viewer.dismissedTips.count) tip\(viewer.dismissedTips.count == 1 ? "" : "s").</p>
                  <button type="submit" class="small">Show tips again</button>
                </form>
                """))
            </section>
            """)
    }

    private static func membersSection(_ viewer: Viewer, members: [(user: User, role: MemberRole)], form: [String: String], errors: [FieldError]) -> SettingsSection {
        let isOwner = viewer.role == .owner
        let rows: [HTML] = members.map { member in
            let remove: HTML = isOwner && member.user.id != viewer.user.id ? """
                <form method="post" action="/settings/members/\(member.user.id)/remove#members" data-confirm="Remove \(member.user.email)? They will be signed out everywhere.">
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)"><button type="submit" class="danger small">Remove</button></form>
                """ : .empty
            return """
                <li class="row"><div><strong>\(member.user.displayName)</strong><br><span class="muted">\(member.user.email) · \(member.role.rawValue)</span></div>\(remove)</li>
                """
        }
        let addForm: HTML = isOwner ? """
            <h3>Add a member</h3>
            <form method="post" action="/settings/members#members" novalidate>
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              \(Layout.field("name", label: "Name", value: form["name"], errors: errors, id: "f-member-name"))
              \(Layout.field("email", label: "Email", value: form["email"], type: "email", errors: errors, attributes: "required", id: "f-member-email"))
              \(Layout.field("password", label: "First password", value: nil, type: "password", errors: errors, attributes: "required autocomplete=\"new-password\"", hint: "Tell them in person; they can change it in Settings.", id: "f-member-password"))
              <button type="submit" class="primary">Add member</button>
            </form>
            """ : .empty
        return SettingsSection(id: "members", title: "Members", summary: members.count == 1 ? "Only you" : "\(members.count) people", html: """
            <section class="card" id="members">
            <h2>Members</h2>
            <ul class="list">\(rows)</ul>
            \(addForm)
            </section>
            """)
    }

    private static func dataSection(storage: String) -> SettingsSection {
        SettingsSection(id: "data", title: "Your data", summary: "Backup, restore, import · \(storage)", html: """
            <section class="card" id="data">
            <h2>Your data</h2>
            <p>Back up everything to one file, restore a backup, or import a spreadsheet or a Homebox export.</p>
            <p class="muted">\(storage) · <a href="/settings/data#storage">details</a></p>
            <p><a class="button" href="/settings/data">Export or import data</a></p>
            </section>
            """)
    }

    /// Changing one's password: part of Security & Privacy, so not listed in the index on its own.
    private static func password(_ viewer: Viewer, errors: [FieldError]) -> SettingsSection {
        SettingsSection(id: "password", title: nil, summary: "", html: """
            <section class="card" id="password">
            <h2>Change your password</h2>
            <p class="muted">You will stay signed in here; every other device is signed out.</p>
            <form method="post" action="/settings/password#password">
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              \(Layout.field("current", label: "Current password", value: nil, type: "password", errors: errors, attributes: "required autocomplete=\"current-password\""))
              \(Layout.field("password", label: "New password", value: nil, type: "password", errors: errors, attributes: "required autocomplete=\"new-password\"", id: "f-new-password"))
              <button type="submit" class="primary">Change password</button>
            </form>
            </section>
            """)
    }

    /// The owner's barcode settings (online product lookups, scanning in Capture) and the capture screen's counters.
    private static func scanningSection(_ viewer: Viewer, onlineLookup: Bool, scanning: (operator: Bool, household: Bool),
                                        counts: [(day: CalendarDate, counts: [CaptureEvent: Int])]) -> SettingsSection {
        let scanningState = !scanning.operator ? "Scanning off for this server" : scanning.household ? "Scanning on" : "Scanning off"
        return SettingsSection(id: "lookups", title: "Barcodes & capture", summary: "\(scanningState) · \(onlineLookup ? "online lookups on" : "no online lookups")", html: """
            <section class="card" id="lookups">
            <h2>Product lookups</h2>
            <p>A scanned barcode is looked up in your items and in this server’s product catalogue. Online databases (Open Food Facts, UPCitemdb) can fill in more products; they then learn which codes this server asks about.</p>
            <form method="post" action="/settings/products#lookups">
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              <label class="choice"><input type="checkbox" name="online"\(onlineLookup ? HTML(raw: " checked") : .empty)><span>Also ask online product databases</span></label>
              <button type="submit" class="small">Save</button>
            </form>
            <h3>Barcode scanning</h3>
            \(scanning.operator ? HTML("""
                <form method="post" action="/settings/scanning#lookups">
                  <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                  <label class="choice"><input type="checkbox" name="scanning"\(scanning.household ? HTML(raw: " checked") : .empty)><span>Offer barcode scanning in Capture</span></label>
                  <p class="hint">Turned off, Capture explains it and offers adding by hand, quick add and import; it takes effect at once, also for anyone scanning now.</p>
                  <button type="submit" class="small">Save</button>
                </form>
                """) : HTML("<p class=\"muted\">Turned off for everyone by whoever runs this server (setting <code>capture.scanning</code>).</p>"))
            </section>
            \(captureCounters(counts, viewer: viewer))
            """)
    }

    /// The capture screen's counters for the owner: one row per event, one column per UTC day, and the total.
    /// Only numbers: nothing about what was scanned or by whom. They stay on this server.
    static func captureCounters(_ days: [(day: CalendarDate, counts: [CaptureEvent: Int])], viewer: Viewer) -> HTML {
        guard !days.isEmpty else { return .empty }
        let formatter = DateFormatter()
        formatter.locale = viewer.locale
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.setLocalizedDateFormatFromTemplate("MMMd")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let headers: [HTML] = days.map { entry in
            let date = calendar.date(from: DateComponents(year: entry.day.year, month: entry.day.month, day: entry.day.day, hour: 12))
            return HTML("<th scope=\"col\"><time datetime=\"\(entry.day.iso)\">\(date.map(formatter.string(from:)) ?? entry.day.iso)</time></th>")
        }
        let rows: [HTML] = CaptureEvent.allCases.map { event in
            let cells: [HTML] = days.map { HTML("<td>\($0.counts[event] ?? 0)</td>") }
            return HTML("<tr><th scope=\"row\">\(event.label)</th>\(cells)<td>\(days.reduce(0) { $0 + ($1.counts[event] ?? 0) })</td></tr>")
        }
        return """
            <section class="card">
            <h2>Capture</h2>
            <p class="muted">How often the capture screen was used, per day (UTC). Only counts are kept, on this server: nothing about what was scanned or by whom.</p>
            <div class="table-wrap"><table class="capture-counters">
            <caption>Capture counters (last 7 days)</caption>
            <thead><tr><th scope="col">Event</th>\(headers)<th scope="col">Total</th></tr></thead>
            <tbody>\(rows)</tbody>
            </table></div>
            </section>
            """
    }
}

/// A part of the Settings page: its anchor, its name in the index at the top (nil: not listed there, as the password
/// form, which belongs to the section before it), what is set in it now, and the section itself.
struct SettingsSection {
    let id: String
    let title: String?
    let summary: String
    let html: HTML
}
