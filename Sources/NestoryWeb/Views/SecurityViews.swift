import Foundation
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces

/// The lock screen: the page a locked session gets, and the same card in a template on every signed-in page with a
/// lock, which the script lays over the page when the lock comes (so nothing typed there is lost).
enum LockViews {
    /// The lock page (423): unlocking returns to `next`.
    static func page(viewer: Viewer, next: String, message: String? = nil) -> HTML {
        Layout.page(title: "Locked", viewer: nil, body: """
            <div class="lock-page" data-lock-page>\(screen(viewer: viewer, next: next, message: message))</div>
            """)
    }

    /// The template the script clones over the page when the lock comes, with the timeout it counts (seconds);
    /// nothing without a lock.
    static func template(_ viewer: Viewer) -> HTML {
        guard viewer.lock.minutes > 0 else { return .empty }
        return """
            <template id="lock-screen" data-timeout="\(Int(viewer.lock.timeout))">\(screen(viewer: viewer, next: nil, message: nil))</template>
            """
    }

    static func screen(viewer: Viewer, next: String?, message: String?) -> HTML {
        let minutes = viewer.lock.minutes
        return """
            <section class="card narrow lock-card" role="dialog" aria-modal="true" aria-labelledby="lock-title">
              <svg class="lock-icon" viewBox="0 0 24 24" aria-hidden="true"><rect x="5" y="10" width="14" height="11" rx="2"/><path d="M8 10V7a4 4 0 0 1 8 0v3"/></svg>
              <h2 id="lock-title">Nestory is locked</h2>
              <p class="muted">\(minutes > 0 ? "After \(minutes) minute\(minutes == 1 ? "" : "s") without use, " : "")unlock to go on where you were. Signed in as \(viewer.user.email).</p>
              <div class="alert" role="alert" data-lock-error\(message == nil ? HTML(raw: " hidden") : .empty)>\(message ?? "")</div>
              <form method="post" action="/unlock" data-unlock>
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                \(next.map { HTML("<input type=\"hidden\" name=\"next\" value=\"\($0)\">") })
                <div class="field"><label for="f-unlock-password">Password</label>
                <input id="f-unlock-password" name="password" type="password" required autocomplete="current-password"\(next == nil ? HTML.empty : HTML(raw: " autofocus"))></div>
                <button type="submit" class="primary wide">Unlock</button>
              </form>
              \(viewer.lock.passkeys > 0 ? HTML("<button type=\"button\" class=\"wide passkey-button\" data-unlock-passkey hidden>Unlock with a passkey</button>") : .empty)
              <form method="post" action="/signout" class="lock-signout">
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                <button type="submit" class="link">Sign out</button>
              </form>
            </section>
            """
    }

    /// A browser as a person names it, from its User-Agent: "Chrome on Android", "Safari on iPhone".
    static func device(_ userAgent: String?) -> String {
        guard let ua = userAgent, !ua.isEmpty else { return "Unknown browser" }
        let browser: String? = [("Edg/", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser", "Samsung Internet"), ("Firefox/", "Firefox"),
                                ("FxiOS", "Firefox"), ("CriOS", "Chrome"), ("Chromium", "Chromium"), ("Chrome/", "Chrome"),
                                ("Safari/", "Safari"), ("curl/", "curl")].first { ua.contains($0.0) }?.1
        let system: String? = [("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Windows", "Windows"),
                               ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"), ("Linux", "Linux")].first { ua.contains($0.0) }?.1
        switch (browser, system) {
        case let (browser?, system?): return "\(browser) on \(system)"
        case let (browser?, nil): return browser
        case let (nil, system?): return "A browser on \(system)"
        default: return String(ua.prefix(40))
        }
    }
}

extension AccountViews {
    /// Settings → Security & Privacy: the lock timeout, passkeys (added by the script: WebAuthn needs it) and the
    /// signed-in sessions.
    static func securitySection(viewer: Viewer, sessions: [SessionSummary], passkeys: [PasskeyRecord]) -> SettingsSection {
        let csrf = HTML("<input type=\"hidden\" name=\"_csrf\" value=\"\(viewer.csrfToken)\">")
        let choices: [HTML] = AppLock.choices.map { minutes in
            HTML("<label class=\"choice\"><input type=\"radio\" name=\"lock\" value=\"\(minutes)\"\(minutes == viewer.lock.minutes ? HTML(raw: " checked") : .empty)> \(AppLock.label(minutes: minutes))</label>")
        }
        let keys: [HTML] = passkeys.map { passkey in
            HTML("""
                <li class="row"><div class="grow"><strong>\(passkey.name)</strong><br><span class="muted">Added \(viewer.moment(passkey.createdAt))\(passkey.lastUsedAt.map { " · last used \(viewer.moment($0))" } ?? "")</span></div>
                <form method="post" action="/settings/passkeys/\(passkey.id)/remove#security" data-confirm="Remove the passkey “\(passkey.name)”?">\(csrf)<button type="submit" class="danger small">Remove</button></form></li>
                """)
        }
        // This device first, then the others as most recently seen.
        let ordered = sessions.filter { $0.tokenHash == viewer.sessionTokenHash } + sessions.filter { $0.tokenHash != viewer.sessionTokenHash }
        let rows: [HTML] = ordered.map { session in
            let current = session.tokenHash == viewer.sessionTokenHash
            return HTML("""
                <li class="row"><div class="grow"><strong>\(LockViews.device(session.userAgent))</strong>\(current ? HTML(" <span class=\"badge\">This device</span>") : .empty)<br>
                <span class="muted">Signed in \(viewer.moment(session.createdAt)) · last seen \(viewer.moment(session.lastSeenAt))\(session.locked ? " · locked" : "")</span></div>
                \(current ? HTML.empty : HTML("<form method=\"post\" action=\"/settings/sessions/\(session.id)/signout#security\">\(csrf)<button type=\"submit\" class=\"small\">Sign out</button></form>"))</li>
                """)
        }
        let lock = viewer.lock.minutes == 0 ? "No app lock" : "Locks " + AppLock.label(minutes: viewer.lock.minutes).lowercased()
        let keyCount = passkeys.isEmpty ? "no passkeys" : passkeys.count == 1 ? "1 passkey" : "\(passkeys.count) passkeys"
        let devices = sessions.count == 1 ? "signed in on 1 device" : "signed in on \(sessions.count) devices"
        return SettingsSection(id: "security", title: "Security & Privacy", summary: "\(lock) · \(keyCount) · \(devices)", html: """
            <section class="card security" id="security">
            <h2>Security &amp; Privacy</h2>
            <form method="post" action="/settings/lock#security">
              \(csrf)
              <fieldset class="field"><legend>Lock the app when it is not used</legend>\(choices)</fieldset>
              <p class="hint">Locked, Nestory asks for your password or a passkey, and takes you back to where you were with nothing lost. For your account, on every device.</p>
              <button type="submit" class="small">Save</button>
            </form>
            <h3>Passkeys</h3>
            <p class="hint">A passkey unlocks Nestory and signs you in with your face, fingerprint or device PIN instead of your password.</p>
            \(keys.isEmpty ? HTML("<p class=\"muted\">No passkeys yet.</p>") : HTML("<ul class=\"list\">\(keys)</ul>"))
            <form class="passkey-add" data-passkey-add hidden>
              \(Layout.field("name", label: "Name for a new passkey", value: nil, errors: [], attributes: "maxlength=\"60\" autocomplete=\"off\" placeholder=\"My phone\"", id: "f-passkey-name"))
              <p class="error" data-passkey-error hidden></p>
              <button type="submit" class="primary">Add a passkey</button>
            </form>
            <p class="muted" data-passkey-unsupported>Adding a passkey needs a browser that supports them, at an https address (or localhost).</p>
            <h3>Signed in</h3>
            <ul class="list sessions">\(rows)</ul>
            \(sessions.count > 1 ? HTML("""
                <form method="post" action="/settings/sessions/others/signout#security" data-confirm="Sign out on every other device?">\(csrf)<button type="submit" class="danger">Sign out everywhere else</button></form>
                """) : .empty)
            </section>
            """)
    }
}
