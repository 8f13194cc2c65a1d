import Foundation
import NestoryDomain

/// The page shell: head, the four sections (tab bar on phones, side bar on wide screens), content.
enum Layout {
    enum Section: String, CaseIterable {
        case inventory, capture, reports, settings

        static let available: [Section] = [.inventory, .capture, .reports, .settings]

        var title: String { rawValue.capitalized }
        var path: String { self == .inventory ? "/" : "/\(rawValue)" }
        var icon: HTML {
            switch self {
            case .inventory: return #"<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M3 10.5 12 3l9 7.5V21h-6v-6H9v6H3z"/></svg>"#
            case .capture: return #"<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 7h3l2-3h6l2 3h3v13H4z"/><circle cx="12" cy="13" r="4"/></svg>"#
            case .reports: return #"<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 2h9l5 5v15H6z"/><path d="M9 13h8M9 17h8M9 9h4"/></svg>"#
            case .settings: return #"<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="3"/><path d="M12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9l2.1 2.1M17 17l2.1 2.1M4.9 19.1 7 17M17 7l2.1-2.1"/></svg>"#
            }
        }
    }

    /// A full page. `viewer` nil means a signed-out page (no navigation).
    /// `head` adds to the document's head (e.g. a refresh for browsers without script).
    static func page(title: String, viewer: Viewer?, section: Section? = nil, actions: HTML = .empty, head: HTML = .empty, body: HTML) -> HTML {
        let nav: HTML = viewer == nil ? .empty : """
            <nav class="tabs" aria-label="Sections">
            \(Section.available.map { s -> HTML in
                """
                <a href="\(s.path)" class="tab\(s == section ? " active" : "")"\(s == section ? HTML(raw: " aria-current=\"page\"") : .empty)>\(s.icon)<span>\(s.title)</span></a>
                """
            })
            </nav>
            """
        let account: HTML = viewer.map { v in
            """
            <form method="post" action="/signout" class="signout">
              <input type="hidden" name="_csrf" value="\(v.csrfToken)">
              <span class="who">\(v.household.name)</span>
              <button type="submit" class="link">Sign out</button>
            </form>
            """
        } ?? .empty
        return """
            <!doctype html>
            <html lang="en"\(viewer.map { $0.theme == .system ? HTML.empty : HTML(" data-theme=\"\($0.theme.rawValue)\"") } ?? .empty)>
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
            <meta name="color-scheme" content="\(viewer.map { $0.theme == .system ? "light dark" : $0.theme.rawValue } ?? "light dark")">
            <meta name="theme-color" content="#0f766e">
            <link rel="manifest" href="/manifest.webmanifest">
            <link rel="icon" href="\(Assets.icon.url)" type="image/svg+xml">
            <link rel="apple-touch-icon" href="\(Assets.touchIcon.url)">
            <meta name="mobile-web-app-capable" content="yes">
            <meta name="apple-mobile-web-app-title" content="Nestory">
            \(viewer.map { HTML(raw: "<meta name=\"csrf-token\" content=\"\(HTML.escape($0.csrfToken))\">") } ?? .empty)
            \(viewer.map { HTML("<meta name=\"nestory-photos\" content=\"\($0.photos.longSide) \($0.photos.quality) \($0.photos.maxBytes)\">") } ?? .empty)
            <title>\(title) · Nestory</title>
            <link rel="stylesheet" href="\(Assets.css.url)">
            <script src="\(Assets.js.url)" defer></script>
            \(head)
            </head>
            <body class="\(viewer == nil ? "signed-out" : "signed-in")">
            \(nav)
            <div class="page">
            <header class="bar"><h1>\(title)</h1><div class="actions">\(actions)\(viewer.map(ReminderViews.bell) ?? .empty)</div></header>
            <main id="main">
            \(viewer == nil ? HTML.empty : queue)
            \(body)
            </main>
            \(account)
            </div>\(viewer.map(LockViews.template) ?? .empty)
            </body>
            </html>
            """
    }

    /// A tip of the spec's §10 where it helps, with a close button that remembers (nothing once dismissed).
    /// `back` is where a post without script returns to.
    static func tip(_ tip: Tip, viewer: Viewer, back: String) -> HTML {
        guard !viewer.dismissedTips.contains(tip) else { return .empty }
        return """
            <aside class="tip" data-tip="\(tip.rawValue)" role="note" aria-label="Tip">
              <p>\(tip.text)</p>
              <form method="post" action="/tips/\(tip.rawValue)/dismiss" data-tip-dismiss>
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)"><input type="hidden" name="back" value="\(back)">
                <button type="submit" class="link small">Got it</button>
              </form>
            </aside>
            """
    }

    /// Captures kept in this browser until they can be uploaded (app.js fills it; hidden while empty).
    static let queue: HTML = """
        <section class="card queue" data-queue hidden aria-labelledby="queue-title">
          <h2 id="queue-title">Waiting to upload</h2>
          <p class="hint queue-note" hidden>This browser may clear what waits here if Nestory isn’t opened for a while (Safari: after
          7 days, unless it is on your home screen). Open Nestory again once you’re back online.</p>
          <ul class="list" aria-live="polite"></ul>
        </section>
        """

    /// What the page says just happened (`?notice=`): a sentence from a redirect, or one of the short
    /// codes the script uses. Escaped like any text; nothing when there is none.
    static func notice(_ raw: String?) -> HTML {
        guard let raw = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return .empty }
        let codes = ["added": "Item added.", "saved": "Changes saved.", "deleted": "Deleted."]
        return HTML("<div class=\"notice\" role=\"status\">\(codes[raw] ?? String(raw.prefix(300)))</div>")
    }

    /// A labelled text field with its error message, if any.
    /// `id` defaults to `f-NAME`; give one when a page has two forms with a field of the same name.
    static func field(_ name: String, label: String, value: String?, type: String = "text", errors: [FieldError],
                      attributes: String = "", hint: String? = nil, id: String? = nil) -> HTML {
        let message = errors.first { $0.field == name }?.message
        let id = id ?? "f-\(name)"
        return """
            <div class="field\(message == nil ? "" : " invalid")">
              <label for="\(id)">\(label)</label>
              <input id="\(id)" name="\(name)" type="\(type)" value="\(value ?? "")" \(HTML(raw: attributes))\(message == nil ? HTML.empty : HTML(raw: " aria-invalid=\"true\" aria-describedby=\"\(id)-error\""))>
              \(hint.map { HTML("<p class=\"hint\">\($0)</p>") })
              \(message.map { HTML("<p class=\"error\" id=\"\(id)-error\">\($0)</p>") })
            </div>
            """
    }

    /// A choice of the ISO currencies in use, by code and name ("EUR — Euro"); a current value outside them
    /// (an old row) stays listed, so saving the form never changes it by surprise.
    static func currencySelect(_ name: String = "currency", label: String, selected: String, errors: [FieldError],
                               locale: Locale = Locale(identifier: "en_US"), hint: String? = nil, id: String? = nil) -> HTML {
        let id = id ?? "f-\(name)"
        let message = errors.first { $0.field == name }?.message
        var codes = CurrencyCode.common.map(\.code)
        if !selected.isEmpty, !codes.contains(selected) { codes.insert(selected, at: 0) }
        let options: [HTML] = codes.map { code in
            let title = (try? CurrencyCode(code)).map { $0.name(in: locale) } ?? code
            return "<option value=\"\(code)\"\(code == selected ? HTML(raw: " selected") : .empty)>\(code) — \(title)</option>"
        }
        return """
            <div class="field\(message == nil ? "" : " invalid")"><label for="\(id)">\(label)</label>
            <select id="\(id)" name="\(name)"\(hint == nil ? HTML.empty : HTML(raw: " aria-describedby=\"\(id)-hint\""))>\(options)</select>
            \(hint.map { HTML("<p class=\"hint\" id=\"\(id)-hint\">\($0)</p>") })
            \(message.map { HTML("<p class=\"error\">\($0)</p>") })</div>
            """
    }

    /// `labels` names the fields whose messages would read alike (every useful life's is the same sentence): each of
    /// those is said with its field's label first.
    static func errorSummary(_ errors: [FieldError], labels: [String: String] = [:]) -> HTML {
        guard !errors.isEmpty else { return .empty }
        // A Free limit is not a mistake in the form: say what the limit is and where Pro is, above what was typed.
        if let limit = errors.first(where: { $0.field == "plan" }) {
            return """
                <div class="alert" role="alert"><strong>Part of Nestory Pro</strong>
                <p>\(limit.message)</p><p><a href="/settings#pro">See Nestory Pro</a></p></div>
                """
        }
        // A save that met someone else's (the "edit" message) is not a mistake in the form either.
        let heading = errors.contains { $0.field == "edit" } ? "Not saved yet." : "Please check the form."
        return """
            <div class="alert" role="alert"><strong>\(heading)</strong>
            <ul>\(errors.map { error in labels[error.field].map { HTML("<li>\($0): \(error.message)</li>") } ?? HTML("<li>\(error.message)</li>") })</ul></div>
            """
    }
}
