import Foundation
import NestoryDomain
import NestoryServices

/// What items are worth: the item page's Value card (the latest valuation with how it was reached, the item's
/// history, the offline estimate and a value entered by hand) and the household's history by day.
enum ValuationViews {
    /// The Value card of an item page. `form` and `errors` are the hand-entered value's when it comes back (422).
    static func itemSection(viewer: Viewer, item: Item, valuations: [Valuation], form: [String: String] = [:], errors: [FieldError] = []) -> HTML {
        let latest = valuations.first
        let current: HTML = latest.map { valuation in
            """
            <dl class="facts value">
              \(valuation.replacementCost.map { HTML("<dt>Replacement cost</dt><dd>\($0.formatted)</dd>") })
              \(valuation.actualCashValue.map { HTML("<dt>Actual cash value</dt><dd><strong>\($0.formatted)</strong></dd>") })
              <dt>How</dt><dd>\(valuation.method.label) · \(valuation.confidence.rawValue) confidence</dd>
              <dt>For</dt><dd>\(viewer.day(valuation.valuedOn))</dd>
            </dl>
            \(valuation.explanation.map { text in
                valuation.method == .offline ? HTML("<p class=\"formula\">\(text)</p>") : HTML("<p class=\"muted\">Note: \(text)</p>")
            })
            \(sources(valuation.sources, viewer: viewer))
            """
        } ?? HTML("""
            <p class="muted">No value yet. The purchase price stays as entered; a valuation is kept beside it: what a like item \
            costs new (replacement cost) and what this one was worth (actual cash value).</p>
            """)
        let history: [HTML] = valuations.dropFirst().prefix(20).map { valuation in
            let figure = valuation.actualCashValue.map { "ACV \($0.value.formatted)" } ?? valuation.replacementCost.map { "RCV \($0.value.formatted)" } ?? ""
            return HTML("<li class=\"row\"><span>\(viewer.day(valuation.valuedOn)) · \(valuation.method.label)</span><span>\(figure)</span></li>")
        }
        let failed = !errors.isEmpty
        return """
            <section class="card" id="value">
              <h2>Value</h2>
              \(current)
              \(history.isEmpty ? HTML.empty : HTML("<details><summary>Earlier values (\(valuations.count - 1))</summary><ul class=\"list\">\(history)</ul></details>"))
              <form method="post" action="/items/\(item.id)/valuations/offline">
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                \(errors.first { $0.field == "estimate" }.map { HTML("<p class=\"error\" role=\"alert\">\($0.message)</p>") })
                <button type="submit" class="small">Estimate offline</button>
                <p class="hint">From the purchase price (or a value entered), the age, the category’s useful life and the condition.</p>
              </form>
              <details\(failed && errors.contains { $0.field != "estimate" } ? HTML(raw: " open") : .empty)>
                <summary>Enter a value</summary>
                <form method="post" action="/items/\(item.id)/valuations" novalidate>
                  <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                  <div class="two">
                  \(Layout.field("replacementCost", label: "Replacement cost (\(item.currency.code))", value: form["replacementCost"], errors: errors,
                                 attributes: "inputmode=\"decimal\" autocomplete=\"off\"", hint: item.quantity > 1 ? "What like items cost new, for all \(item.quantity)." : "What a like item costs new."))
                  \(Layout.field("actualCashValue", label: "Actual cash value (\(item.currency.code))", value: form["actualCashValue"], errors: errors,
                                 attributes: "inputmode=\"decimal\" autocomplete=\"off\"", hint: "What it was worth, after wear."))
                  </div>
                  \(Layout.field("date", label: "For the day", value: form["date"], type: "date", errors: errors, hint: "Today if left empty."))
                  \(Layout.field("note", label: "Where it comes from", value: form["note"], errors: errors,
                                 attributes: "maxlength=\"500\" placeholder=\"An appraisal, a quote…\""))
                  <button type="submit" class="small">Save value</button>
                </form>
              </details>
              <p><a href="/valuations">Valuation history</a></p>
            </section>
            """
    }

    static func sources(_ sources: [ValuationSource], viewer: Viewer) -> HTML {
        guard !sources.isEmpty else { return .empty }
        let rows: [HTML] = sources.prefix(20).map { source in
            HTML("<li><a href=\"\(safeURL(source.url))\" rel=\"noopener noreferrer nofollow\">\(source.title)</a> · \(source.amount.formatted) · \(viewer.moment(source.fetchedAt))</li>")
        }
        return "<details><summary>Sources (\(sources.count))</summary><ul class=\"facts\">\(rows)</ul></details>"
    }

    /// Only http(s) links are made clickable (a source's address comes from the web).
    static func safeURL(_ text: String) -> String {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else { return "#" }
        return text
    }

    /// Settings → Valuation: the optional providers. Keys are never shown, only "set, ending in …"; an empty key
    /// field keeps the one set. Members see whether they are set.
    static func settingsSection(viewer: Viewer, settings: ValuationProviderSettings, form: [String: String], errors: [FieldError]) -> HTML {
        func status(_ hint: String?) -> String { hint.map { "Set, ending in …\($0)" } ?? "Not set" }
        guard viewer.role == .owner else {
            return """
                <section class="card" id="valuation"><h2>Valuation</h2>
                <p>Photo analysis: \(status(settings.analysisKeyHint)) · Market search: \(status(settings.searchKeyHint))</p>
                <p class="hint">The household’s owner sets them. Without them, values come from the offline estimate.</p></section>
                """
        }
        func keyField(_ name: String, label: String, hint: String?, help: String, remove: String) -> HTML {
            """
            \(Layout.field(name, label: label, value: nil, type: "password", errors: errors,
                           attributes: "autocomplete=\"off\" spellcheck=\"false\" placeholder=\"\(hint == nil ? "Not set" : "Set, ending in …" + hint!)\"",
                           hint: help))
            \(hint == nil ? HTML.empty : HTML("<label class=\"choice\"><input type=\"checkbox\" name=\"\(remove)\" value=\"1\"> Forget this key</label>"))
            """
        }
        return """
            <section class="card" id="valuation">
              <h2>Valuation</h2>
              <p class="muted">Optional. With no key, every value comes from the offline estimate, and nothing leaves this server. With a key, \
            an item’s photos (downsized, without location data) go to the analysis endpoint, and its brand and model to the market search.</p>
              \(Layout.errorSummary(errors))
              <form method="post" action="/settings/valuation" novalidate>
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                <h3>Photo analysis</h3>
                \(Layout.field("analysisBaseURL", label: "Endpoint", value: form["analysisBaseURL"] ?? settings.analysisBaseURL, errors: errors,
                               attributes: "inputmode=\"url\" autocomplete=\"off\" spellcheck=\"false\"",
                               hint: "Any OpenAI-compatible chat-completions endpoint: OpenAI, or your own (vLLM, Ollama, llama.cpp), e.g. http://localhost:11434/v1."))
                \(Layout.field("analysisModel", label: "Model", value: form["analysisModel"] ?? settings.analysisModel, errors: errors,
                               attributes: "autocomplete=\"off\" spellcheck=\"false\"", hint: "A model that reads images and follows a JSON schema."))
                \(keyField("analysisKey", label: "API key", hint: settings.analysisKeyHint, help: "Kept encrypted on this server; never shown again.",
                           remove: "removeAnalysisKey"))
                <h3>Market search (Tavily)</h3>
                \(keyField("searchKey", label: "API key", hint: settings.searchKeyHint, help: "Kept encrypted on this server; never shown again.",
                           remove: "removeSearchKey"))
                \(Layout.field("searchCountry", label: "Country", value: form["searchCountry"] ?? settings.searchCountry ?? "", errors: errors,
                               attributes: "maxlength=\"2\" autocomplete=\"off\" autocapitalize=\"characters\"", hint: "Two letters (US, DE…) to prefer that country’s shops; empty for anywhere."))
                <button type="submit" class="small">Save</button>
              </form>
            </section>
            """
    }

    /// The household's history by day: the values made for each day and their totals.
    static func history(viewer: Viewer, days: [ValuationDay], notice: String?) -> HTML {
        let rows: [HTML] = days.map { day in
            let totals = [("RCV", day.replacementCost), ("ACV", day.actualCashValue)].compactMap { label, amounts -> String? in
                amounts.isEmpty ? nil : "\(label) " + amounts.map(\.formatted).joined(separator: " + ")
            }.joined(separator: " · ")
            return """
                <li class="row"><a href="/valuations?day=\(day.day.iso)">\(viewer.day(day.day))</a>\
                <span>\(day.count) value\(day.count == 1 ? "" : "s")\(totals.isEmpty ? "" : " · \(totals)")</span></li>
                """
        }
        return Layout.page(title: "Valuation history", viewer: viewer, section: .reports, body: """
            \(Layout.notice(notice))
            <section class="card">
              <p class="muted">Every value kept, by the day it is for, with the day’s totals. An item’s page shows its own history.</p>
              \(rows.isEmpty ? HTML("<p class=\"muted\">No values yet. Open an item and choose “Estimate offline” or “Enter a value”.</p>") : HTML("<ul class=\"list\">\(rows)</ul>"))
            </section>
            """)
    }

    /// One day of the history: each value with its item.
    static func day(viewer: Viewer, day: CalendarDate, entries: [(valuation: Valuation, itemName: String)]) -> HTML {
        let rows: [HTML] = entries.map { entry in
            let v = entry.valuation
            let figures = [v.replacementCost.map { "RCV \($0.formatted)" }, v.actualCashValue.map { "ACV \($0.formatted)" }].compactMap { $0 }.joined(separator: " · ")
            return """
                <li class="row"><a href="/items/\(v.itemID)#value">\(entry.itemName)</a><span>\(figures) · \(v.method.label)</span></li>
                """
        }
        return Layout.page(title: "Values for \(viewer.day(day))", viewer: viewer, section: .reports, body: """
            <section class="card">
              <ul class="list">\(rows)</ul>
              <p><a href="/valuations">All days</a></p>
            </section>
            """)
    }
}
