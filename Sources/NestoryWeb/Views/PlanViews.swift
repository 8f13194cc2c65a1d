import Foundation
import NestoryDomain
import NestoryServices

/// Settings → Account & Pro: the household's plan, what Free allows and Pro unlocks (the spec's honest
/// paywall copy), the licences installed and, for the owner, a form to install one.
enum PlanViews {
    static func section(viewer: Viewer, overview: PlanService.Overview, form: [String: String] = [:], errors: [FieldError] = []) -> SettingsSection {
        let entitlement = overview.entitlement
        let isOwner = viewer.role == .owner
        let status: HTML
        switch entitlement.source {
        case .free:
            status = """
                <p><strong>Nestory Free</strong> <span class="badge">Upgrade</span></p>
                <p>\(overview.itemCount) of \(PlanLimits.freeItems) items. Free keeps up to \(PlanLimits.freeItems) items, makes loss lists of up to \
                \(PlanLimits.freeLossListItems) items and the full inventory PDF without photos, and has no CSV export. Nothing over a limit is ever \
                deleted or hidden.</p>
                <p>\(PlanLimits.paywall)</p>
                <p><strong>What Pro unlocks</strong></p>
                <ul class="facts">\(ProFeature.allCases.map { HTML("<li>\($0.label)</li>") })</ul>
                """
        case .instanceSetting:
            status = """
                <p><strong>Nestory Pro</strong> <span class="badge ok">Active</span></p>
                <p>Every household on this server has Pro: its operator turned it on (licence.instancePro).</p>
                """
        case .licence(let licence):
            status = """
                <p><strong>Nestory Pro</strong> <span class="badge ok">Active</span></p>
                \(details(licence, viewer: viewer))
                """
        }
        let installed: [HTML] = overview.licences.compactMap { entry in
            // The active one is described above; the others say why they do not apply.
            guard let problem = entry.problem else { return nil }
            let who = entry.summary.map { "Issued to \($0.licensee)" } ?? "A licence key"
            return HTML("<li>\(who), installed \(viewer.moment(entry.installed.installedAt)): \(problem)</li>")
        }
        let message = errors.first { $0.field == "licence" }?.message
        let form: HTML = """
            <form class="licence" method="post" action="/settings/licence#pro" novalidate>
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              <div class="field\(message == nil ? "" : " invalid")">
                <label for="f-licence">Licence key</label>
                <textarea id="f-licence" name="licence" rows="3" autocomplete="off" spellcheck="false" autocapitalize="off" \
            aria-describedby="f-licence-hint\(message == nil ? "" : " f-licence-error")"\(message == nil ? HTML.empty : HTML(raw: " aria-invalid=\"true\""))>\(form["licence"] ?? "")</textarea>
                <p class="hint" id="f-licence-hint">Paste the key as issued (it starts with nestory1.); it is checked here, offline. \
            A household licence names this household’s id: <code>\(viewer.household.id.description)</code>.</p>
                \(message.map { HTML("<p class=\"error\" id=\"f-licence-error\">\($0)</p>") })
              </div>
              <button type="submit" class="small">Install licence</button>
            </form>
            """
        // With Pro in force the form is folded away (open again when a key came back refused).
        let install: HTML = !isOwner ? HTML("<p class=\"hint\">The household’s owner installs a licence.</p>")
            : entitlement.plan == .free ? form
            : "<details class=\"licence\"\(errors.isEmpty ? HTML.empty : HTML(raw: " open"))><summary>Install another licence key</summary>\(form)</details>"
        let summary = switch entitlement.source {
        case .free: "Nestory Free · \(overview.itemCount) of \(PlanLimits.freeItems) items"
        case .instanceSetting: "Nestory Pro, for every household on this server"
        case .licence(let licence): "Nestory Pro, licensed to \(licence.licensee)"
        }
        return SettingsSection(id: "pro", title: "Account & Pro", summary: summary, html: """
            <section class="card" id="pro">
            <h2>Account &amp; Pro</h2>
            \(status)
            \(installed.isEmpty ? HTML.empty : HTML("<ul class=\"facts\">\(installed)</ul>"))
            \(install)
            </section>
            """)
    }

    private static func details(_ licence: LicenceSummary, viewer: Viewer) -> HTML {
        let scope: String = switch licence.scope {
        case .household: "this household"
        case .instance: "every household on this server"
        }
        let features = Set(ProFeature.allCases) == licence.features ? "everything in Pro"
            : ProFeature.allCases.filter(licence.features.contains).map(\.label).joined(separator: "; ")
        return """
            <dl class="facts">
              <dt>Issued to</dt><dd>\(licence.licensee)</dd>
              <dt>For</dt><dd>\(scope)</dd>
              <dt>Since</dt><dd>\(viewer.day(licence.issued))</dd>
              <dt>Until</dt><dd>\(licence.expires.map(viewer.day) ?? "No end date")</dd>
              <dt>Unlocks</dt><dd>\(features)</dd>
            </dl>
            """
    }
}
