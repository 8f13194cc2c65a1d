import Foundation
import NestoryDomain

/// Settings → API tokens: make one (shown once), the list with each token's scope, expiry and last use, and revoking.
enum TokenViews {
    static func section(viewer: Viewer, tokens: [APITokenSummary], now: Date, form: [String: String] = [:], errors: [FieldError] = [],
                        newToken: (token: String, summary: APITokenSummary)? = nil) -> SettingsSection {
        let csrf = HTML("<input type=\"hidden\" name=\"_csrf\" value=\"\(viewer.csrfToken)\">")
        let rows: [HTML] = tokens.map { token in
            let expiry: String
            if let at = token.expiresAt {
                expiry = token.isExpired(at: now) ? "expired \(viewer.moment(at))" : "expires \(viewer.moment(at))"
            } else {
                expiry = "no expiry"
            }
            return HTML("""
                <li class="row"><div class="grow"><strong>\(token.name)</strong> <span class="badge">\(token.scope.label)</span><br>
                <span class="muted">Made \(viewer.moment(token.createdAt)) · \(expiry) · \(token.lastUsedAt.map { "last used \(viewer.moment($0))" } ?? "never used")</span></div>
                <form method="post" action="/settings/tokens/\(token.id)/revoke#tokens" data-confirm="Revoke the token “\(token.name)”? Whatever uses it stops working at once.">\(csrf)<button type="submit" class="danger small">Revoke</button></form></li>
                """)
        }
        let scope = form["scope"] ?? "read"
        let shown: HTML = newToken.map { made in
            HTML("""
                <div class="notice" role="status" data-new-token><strong>Your new token “\(made.summary.name)”</strong>
                <p>Copy it now: it is shown only this once (Nestory keeps only a fingerprint of it).</p>
                <p><code class="token" data-token>\(made.token)</code></p></div>
                """)
        } ?? .empty
        let working = tokens.filter { !$0.isExpired(at: now) }.count
        return SettingsSection(id: "tokens", title: "API tokens", summary: working == 0 ? "None" : working == 1 ? "1 token" : "\(working) tokens", html: """
            <section class="card tokens" id="tokens">
            <h2>API tokens</h2>
            <p class="hint">For scripts and assistants (the API at /api/v1 and MCP at /mcp): send a token as <code>Authorization: Bearer TOKEN</code>. It acts as you in \(viewer.household.name), and stops at once when revoked or when you leave the household.</p>
            \(shown)
            \(tokens.isEmpty ? HTML("<p class=\"muted\">No tokens yet.</p>") : HTML("<ul class=\"list\">\(rows)</ul>"))
            <form method="post" action="/settings/tokens#tokens">
              \(csrf)
              \(Layout.errorSummary(errors))
              \(Layout.field("name", label: "Name", value: form["name"], errors: errors, attributes: "maxlength=\"100\" autocomplete=\"off\" placeholder=\"Home Assistant\"", id: "f-token-name"))
              <fieldset class="field"><legend>Access</legend>
                <label class="choice"><input type="radio" name="scope" value="read"\(scope == "read" ? HTML(raw: " checked") : .empty)> Read only</label>
                <label class="choice"><input type="radio" name="scope" value="write"\(scope == "write" ? HTML(raw: " checked") : .empty)> Read and write</label>
              </fieldset>
              \(Layout.field("expires", label: "Expires (optional)", value: form["expires"], type: "date", errors: errors, hint: "It works through that day; empty: until you revoke it.", id: "f-token-expires"))
              <button type="submit" class="primary">Make a token</button>
            </form>
            </section>
            """)
    }
}
