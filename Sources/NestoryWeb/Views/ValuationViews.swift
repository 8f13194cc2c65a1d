import Foundation
import NestoryDomain
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces
import NestoryValuation

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
        // Every earlier value, as the summary counts them: an item's history is part of its proof.
        let history: [HTML] = valuations.dropFirst().map { valuation in
            let figure = valuation.actualCashValue.map { "ACV \($0.value.formatted)" } ?? valuation.replacementCost.map { "RCV \($0.value.formatted)" } ?? ""
            return HTML("<li class=\"row\"><span>\(viewer.day(valuation.valuedOn)) · \(valuation.method.label)</span><span>\(figure)</span></li>")
        }
        let failed = !errors.isEmpty
        return """
            <section class="card" id="value">
              <h2>Value</h2>
              \(current)
              \(history.isEmpty ? HTML.empty : HTML("<details><summary>Earlier values (\(valuations.count - 1))</summary><ul class=\"list\">\(history)</ul></details>"))
              <form method="post" action="/items/\(item.id)/valuations/offline#value">
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                \(errors.first { $0.field == "estimate" }.map { HTML("<p class=\"error\" role=\"alert\">\($0.message)</p>") })
                <button type="submit" class="small">Estimate offline</button>
                <p class="hint">From the purchase price (or a value entered), the age, the category’s useful life and the condition.</p>
              </form>
              <details\(failed && errors.contains { $0.field != "estimate" } ? HTML(raw: " open") : .empty)>
                <summary>Enter a value</summary>
                <form method="post" action="/items/\(item.id)/valuations#value" novalidate>
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
    static func settingsSection(viewer: Viewer, settings: ValuationProviderSettings, form: [String: String], errors: [FieldError]) -> SettingsSection {
        func status(_ hint: String?, byOperator: Bool) -> String {
            hint.map { "Set, ending in …\($0)" } ?? (byOperator ? "Set by the server’s operator" : "Not set")
        }
        let summary = switch (settings.analysisConfigured, settings.searchConfigured) {
        case (true, true): "Photo analysis and market search"
        case (true, false): "Photo analysis; no market search"
        case (false, true): "Market search; no photo analysis"
        case (false, false): "Offline estimates only"
        }
        func section(_ html: HTML) -> SettingsSection { SettingsSection(id: "valuation", title: "Valuation", summary: summary, html: html) }
        guard viewer.role == .owner else {
            return section("""
                <section class="card" id="valuation"><h2>Valuation</h2>
                <p>Photo analysis: \(status(settings.analysisKeyHint, byOperator: settings.operatorAnalysis)) · \
                Market search: \(status(settings.searchKeyHint, byOperator: settings.operatorSearch))</p>
                <p class="hint">The household’s owner sets them. Without them, values come from the offline estimate.</p>
                <p><a href="/settings/valuation/depreciation">Depreciation table</a></p></section>
                """)
        }
        func keyField(_ name: String, label: String, hint: String?, byOperator: Bool, help: String, remove: String) -> HTML {
            """
            \(Layout.field(name, label: label, value: nil, type: "password", errors: errors,
                           attributes: "autocomplete=\"off\" spellcheck=\"false\" placeholder=\"\(status(hint, byOperator: byOperator))\"",
                           hint: help))
            \(hint == nil ? HTML.empty : HTML("<label class=\"choice\"><input type=\"checkbox\" name=\"\(remove)\" value=\"1\"> Forget this key</label>"))
            """
        }
        return section("""
            <section class="card" id="valuation">
              <h2>Valuation</h2>
              <p class="muted">Optional. With no key, every value comes from the offline estimate, and nothing leaves this server. With a key, \
            an item’s photos (downsized, without location data) go to the analysis endpoint, and its brand and model to the market search.</p>
              \(Layout.errorSummary(errors))
              <form method="post" action="/settings/valuation#valuation" novalidate>
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                <h3>Photo analysis</h3>
                \(Layout.field("analysisBaseURL", label: "Endpoint", value: form["analysisBaseURL"] ?? settings.analysisBaseURL, errors: errors,
                               attributes: "inputmode=\"url\" autocomplete=\"off\" spellcheck=\"false\"",
                               hint: "Any OpenAI-compatible chat-completions endpoint: OpenAI, or your own (vLLM, Ollama, llama.cpp), e.g. http://localhost:11434/v1 where whoever runs this server allows private addresses."))
                \(Layout.field("analysisModel", label: "Model", value: form["analysisModel"] ?? settings.analysisModel, errors: errors,
                               attributes: "autocomplete=\"off\" spellcheck=\"false\"", hint: "A model that reads images and follows a JSON schema."))
                \(keyField("analysisKey", label: "API key", hint: settings.analysisKeyHint, byOperator: settings.operatorAnalysis, help: "Kept encrypted on this server; never shown again.",
                           remove: "removeAnalysisKey"))
                <h3>Market search (Tavily)</h3>
                \(keyField("searchKey", label: "API key", hint: settings.searchKeyHint, byOperator: settings.operatorSearch, help: "Kept encrypted on this server; never shown again.",
                           remove: "removeSearchKey"))
                \(Layout.field("searchCountry", label: "Country", value: form["searchCountry"] ?? settings.searchCountry ?? "", errors: errors,
                               attributes: "maxlength=\"2\" autocomplete=\"off\" autocapitalize=\"characters\"", hint: "Two letters (US, DE…) to prefer that country’s shops; empty for anywhere."))
                <div class="field\(errors.contains { $0.field == "exchangeRates" } ? " invalid" : "")">
                  <label for="f-exchangeRates">Exchange rates</label>
                  <textarea id="f-exchangeRates" name="exchangeRates" rows="3" autocomplete="off" spellcheck="false" \
            aria-describedby="f-exchangeRates-hint">\(form["exchangeRates"] ?? settings.exchangeRates)</textarea>
                  <p class="hint" id="f-exchangeRates-hint">One currency a line, what one unit is worth in \(viewer.household.currency.code): “EUR 1.08”. \
            Prices in a currency without a rate are left out; none is fetched.</p>
                  \(errors.first { $0.field == "exchangeRates" }.map { HTML("<p class=\"error\">\($0.message)</p>") })
                </div>
                <button type="submit" class="small">Save</button>
              </form>
              <p><a href="/settings/valuation/depreciation">Depreciation table</a> (useful lives, floor, condition factors)</p>
            </section>
            """)
    }

    /// The household's depreciation table: each category's useful life with its source, the floor and Nestory's
    /// condition factors; the owner edits them, everyone else reads them.
    static func depreciation(viewer: Viewer, table: DepreciationTable, form: [String: String], errors: [FieldError], notice: String?) -> HTML {
        let owner = viewer.role == .owner
        let disabled: HTML = owner ? .empty : HTML(raw: " disabled")
        func years(_ key: String, _ rule: DepreciationRule) -> HTML {
            Layout.field(key, label: rule.category, value: form[key] ?? rule.usefulLifeYears.map(String.init) ?? "", errors: errors,
                         attributes: "inputmode=\"numeric\" placeholder=\"Does not depreciate\"" + (owner ? "" : " disabled"),
                         hint: "Years. \(rule.source)", id: "f-\(key)")
        }
        let rules: [HTML] = table.rules.enumerated().map { index, rule in years("life-\(index)", rule) }
        // The summary says which field each problem is on: the message is the same for every life, and for every factor.
        var labels = Dictionary(uniqueKeysWithValues: table.rules.enumerated().map { ("life-\($0.offset)", $0.element.category) })
        labels["life-other"] = table.fallback.category
        labels["floor"] = "Floor"
        for condition in ItemCondition.allCases { labels["condition-\(condition.rawValue)"] = "Condition “\(condition.label)”" }
        let conditions: [HTML] = ItemCondition.allCases.map { condition in
            let key = "condition-\(condition.rawValue)"
            return Layout.field(key, label: condition.label, value: form[key] ?? String((table.conditionBasisPoints[condition] ?? 10_000) / 100), errors: errors,
                                attributes: "inputmode=\"numeric\"" + (owner ? "" : " disabled"), id: "f-\(key)")
        }
        return Layout.page(title: "Depreciation table", viewer: viewer, section: .settings, body: """
            \(Layout.notice(notice))
            <section class="card">
              <p class="muted">The offline estimate: actual cash value = replacement cost × max(floor, 1 − age ÷ useful life) × condition factor. \
            An empty life means the category does not lose value with age (jewellery, art, collectibles).</p>
              \(Layout.errorSummary(errors, labels: labels))
              <form method="post" action="/settings/valuation/depreciation" novalidate>
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                <h2>Useful life by category</h2>
                \(rules)
                \(years("life-other", table.fallback))
                <h2>Floor</h2>
                \(Layout.field("floor", label: "An item still in use keeps at least (%)", value: form["floor"] ?? String(table.floorBasisPoints / 100), errors: errors,
                               attributes: "inputmode=\"numeric\"" + (owner ? "" : " disabled"), hint: "10% is the common rule of claims tables."))
                <h2>Condition factors (%)</h2>
                <p class="hint">Nestory’s own factors: no public table gives them. Set your insurer’s if it has some.</p>
                \(conditions)
                <button type="submit" class="primary"\(disabled)>Save</button>
              </form>
              \(owner ? HTML("""
                <form method="post" action="/settings/valuation/depreciation/reset" data-confirm="Put back the table Nestory ships?">
                  <input type="hidden" name="_csrf" value="\(viewer.csrfToken)"><button type="submit" class="small">Put back the standard table</button>
                </form>
                """) : .empty)
            </section>
            """)
    }

    /// Value new things from photos: each photo goes up as it is chosen (downsized, without location data), then one
    /// batch identifies and prices them; items are made only when their proposals are saved.
    static func photos(viewer: Viewer, providers: ValuationProviderSettings) -> HTML {
        Layout.page(title: "Value from photos", viewer: viewer, section: .reports, body: """
            <section class="card">
              <p class="muted">Take or choose photos of things not yet in your inventory, one thing a photo. \
            \(providers.analysisConfigured ? "Each is identified from its photo" : "Photo analysis is not set in Settings → Valuation: you will say what each is")\
            \(providers.searchConfigured ? " and priced from market listings" : "")\
            ; you review each one, and only then is it added to your inventory.</p>
              <form method="post" action="/valuations/batches" data-intake-form>
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                <div class="field"><label for="f-intake">Photos</label>
                  <input id="f-intake" type="file" accept="image/*" multiple data-intake-upload="/api/v1/valuations/photos"></div>
                <ul class="thumbs" data-intake-list></ul>
                <p class="upload-status" role="status" aria-live="polite" data-intake-status></p>
                <div class="form-actions"><a class="button" href="/valuations">Cancel</a>\
            <button type="submit" class="primary" disabled data-intake-submit>Value these photos</button></div>
              </form>
            </section>
            """)
    }

    /// What the batch's items are, in words: "12 items without a value yet", "3 items matching “tv”", "All 60 items".
    static func selectionLine(count: Int, query: [String: String]) -> HTML {
        let items = "\(count) item\(count == 1 ? "" : "s")"
        if query["missing"] == "1" { return "<strong>\(items)</strong> without a value yet." }
        let filters = query.filter { !$0.value.isEmpty }
        if let q = filters["q"], filters.count == 1 { return "<strong>\(items)</strong> matching “\(q)”." }
        if filters.isEmpty { return count == 1 ? "<strong>The household’s one item</strong>." : "<strong>All \(items)</strong> of the household." }
        return "<strong>\(items)</strong> from the search."
    }

    /// What a batch would value, before it starts.
    static func newBatch(viewer: Viewer, query: [String: String], items: [ItemListing], providers: ValuationProviderSettings) -> HTML {
        let over = items.count > ValuationService.batchLimit
        let hidden: [HTML] = query.sorted { $0.key < $1.key }.map { HTML("<input type=\"hidden\" name=\"\($0.key)\" value=\"\($0.value)\">") }
        let how = [providers.analysisConfigured ? "photos analysed" : nil, providers.searchConfigured ? "market prices searched" : nil].compactMap { $0 }
        let rows: [HTML] = items.prefix(20).map { HTML("<li class=\"row\"><span>\($0.item.name)</span><span class=\"muted\">\($0.item.totalValue?.formatted ?? "no price")</span></li>") }
        return Layout.page(title: "Value items", viewer: viewer, section: .reports, body: """
            <section class="card">
              <p>\(selectionLine(count: items.count, query: query))</p>
              <p class="muted">\(how.isEmpty ? "Offline estimates (no provider is set in Settings → Valuation)." : "With " + how.joined(separator: " and ") + ", else the offline estimate.") \
            Each value waits for your review before it is kept; the purchase prices stay as they are.</p>
              <ul class="list">\(rows)</ul>
              \(items.count > 20 ? HTML("<p class=\"muted\">and \(items.count - 20) more.</p>") : .empty)
              \(over ? HTML("<p class=\"error\" role=\"alert\">A batch values at most \(ValuationService.batchLimit) items: narrow the search.</p>") : .empty)
              <form method="post" action="/valuations/batches">
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                \(hidden)
                <div class="form-actions"><a class="button" href="/valuations">Cancel</a>\
            <button type="submit" class="primary"\(items.isEmpty || over ? HTML(raw: " disabled") : .empty)>Value \(items.count) item\(items.count == 1 ? "" : "s")</button></div>
              </form>
            </section>
            """)
    }

    /// A batch: its progress while it runs, then each item's proposal to review (edit, recalculate, save), the
    /// failed ones with their reasons and a retry.
    static func batch(viewer: Viewer, job: Job, entries: [(id: ItemID, outcome: ValuationBatchItem?)],
                      photos: [(id: UUID, photo: IntakePhoto?, outcome: ValuationBatchItem?)], listings: [ItemID: ItemListing],
                      notice: String?, editing: String?, form: [String: String], errors: [FieldError]) -> HTML {
        let running = job.state == .queued || job.state == .running
        let outcomes = entries.map(\.outcome) + photos.map(\.outcome)
        let failed = outcomes.filter { $0?.status == .failed }.count
        let toRetry = outcomes.filter { $0?.status == .failed && $0?.retriedIn == nil }.count
        let saved = outcomes.filter { $0?.status == .saved }.count
        let proposed = entries.filter { $0.outcome?.status == .proposed }.count
        let done = outcomes.filter { $0 != nil }.count
        let total = outcomes.count
        var head: HTML = .empty
        let status: HTML
        if running {
            head = "<noscript><meta http-equiv=\"refresh\" content=\"3\"></noscript>"
            let percent = total == 0 ? 0 : done * 100 / total
            status = """
                <section class="card" data-job-status="/api/v1/jobs/\(job.id)" data-progress-text="Valuing {done} of {total}…">
                  <p class="job-status" role="status" aria-live="polite">Valuing \(done) of \(total)…</p>
                  <progress class="job-progress" max="100" value="\(percent)">\(percent)%</progress>
                  <p class="muted">You can leave this page or follow it from another device: the batch goes on, and survives a restart.</p>
                  <form method="post" action="/valuations/batches/\(job.id)/cancel"><input type="hidden" name="_csrf" value="\(viewer.csrfToken)">\
                <button type="submit" class="small">Cancel</button></form>
                </section>
                """
        } else {
            let ended: String = switch job.state {
            case .succeeded: "Done: \(done - failed - saved) to review\(saved > 0 ? ", \(saved) saved" : "")\(failed > 0 ? ", \(failed) failed" : "")."
            case .cancelled: "Cancelled after \(done) of \(total)."
            default: job.message ?? "The batch stopped."
            }
            status = """
                <section class="card"><p class="job-status" role="status">\(ended)</p>
                \(job.state == .failed ? HTML("<p class=\"error\" role=\"alert\">\(job.message ?? "")</p>") : .empty)
                \(proposed > 1 ? HTML("""
                    <form method="post" action="/valuations/batches/\(job.id)/save-all"><input type="hidden" name="_csrf" value="\(viewer.csrfToken)">\
                    <button type="submit" class="primary small">Save all \(proposed) as proposed</button></form>
                    <p class="muted">Or look at each below: edit, recalculate, then save it.</p>
                    """) : .empty)
                \(toRetry > 0 ? HTML("""
                    <form method="post" action="/valuations/batches/\(job.id)/retry"><input type="hidden" name="_csrf" value="\(viewer.csrfToken)">\
                    <button type="submit" class="small">Retry the \(toRetry) failed</button></form>
                    """) : .empty)
                </section>
                """
        }
        let itemRows: [HTML] = entries.map { entry in
            let listing = listings[entry.id]
            let photo = listing?.primaryPhoto.map { HTML("<img src=\"/files/\($0.sha256)?size=thumb\" alt=\"\" width=\"64\" height=\"64\">") } ?? .empty
            let heading: HTML = "<h3>\(photo)<a href=\"/items/\(entry.id)#value\">\(listing?.item.name ?? entry.outcome?.name ?? "An item")</a></h3>"
            let saved: HTML = "<p>Saved. <a href=\"/items/\(entry.id)#value\">See its values</a></p>"
            return card(viewer: viewer, anchor: "item-\(entry.id)", suffix: "-\(entry.id)", heading: heading, outcome: entry.outcome, saved: saved,
                        action: "/valuations/batches/\(job.id)/items/\(entry.id)", saveLabel: "Save",
                        editing: editing == entry.id.description, form: form, errors: errors)
        }
        let photoRows: [HTML] = photos.map { entry in
            let key = "photo-\(entry.id.uuidString.lowercased())"
            let image = entry.photo.map { HTML("<img src=\"/files/\($0.attachment.sha256)?size=thumb\" alt=\"\" width=\"64\" height=\"64\">") } ?? .empty
            let heading: HTML = "<h3>\(image)<span>\(entry.outcome?.name ?? "New item")</span></h3>"
            let saved: HTML = entry.outcome?.createdItem.map { HTML("<p>Added to your inventory. <a href=\"/items/\($0)#value\">Open it</a></p>") } ?? .empty
            return card(viewer: viewer, anchor: key, suffix: "-" + key, heading: heading, outcome: entry.outcome, saved: saved,
                        action: "/valuations/batches/\(job.id)/photos/\(entry.id.uuidString.lowercased())", saveLabel: "Add to inventory",
                        editing: editing == key, form: form, errors: errors)
        }
        let rows = itemRows + photoRows
        return Layout.page(title: "Valuing \(entries.count + photos.count) item\(entries.count + photos.count == 1 ? "" : "s")", viewer: viewer, section: .reports, head: head, body: """
            \(Layout.notice(notice))
            \(status)
            <ul class="batch">\(rows)</ul>
            <p><a href="/valuations">Valuation history</a></p>
            """)
    }

    /// One entry of a batch: waiting, failed (with why), saved, or its proposal to review.
    static func card(viewer: Viewer, anchor: String, suffix: String, heading: HTML, outcome: ValuationBatchItem?, saved: HTML, action: String, saveLabel: String,
                     editing: Bool, form: [String: String], errors: [FieldError]) -> HTML {
        guard let outcome else { return "<li class=\"card batch-item\" id=\"\(anchor)\">\(heading)<p class=\"muted\">Waiting…</p></li>" }
        switch outcome.status {
        case .failed:
            let retried: HTML = outcome.retriedIn.map { HTML("<p>Tried again in <a href=\"/valuations/batches/\($0)\">another batch</a>.</p>") } ?? .empty
            return "<li class=\"card batch-item failed\" id=\"\(anchor)\">\(heading)<p class=\"error\">\(outcome.error ?? "Not valued.")</p>\(retried)</li>"
        case .saved:
            return "<li class=\"card batch-item saved\" id=\"\(anchor)\">\(heading)\(saved)</li>"
        case .proposed:
            let fieldErrors = editing ? errors : []
            func value(_ key: String, _ fallback: String?) -> String { editing ? (form[key] ?? "") : (fallback ?? "") }
            let identification = outcome.identification
            let proposal = outcome.proposal
            let condition = value("condition", identification?.condition?.rawValue)
            let options: [HTML] = ItemCondition.allCases.map { c in
                HTML("<option value=\"\(c.rawValue)\"\(c.rawValue == condition ? HTML(raw: " selected") : .empty)>\(c.label)</option>")
            }
            return """
                <li class="card batch-item" id="\(anchor)">
                  \(heading)
                  \(proposal.map { HTML("<p class=\"muted\">\($0.method.label) · \($0.confidence.rawValue) confidence</p>") })
                  \(outcome.error.map { HTML("<p class=\"hint\">\($0)</p>") })
                  \(proposal?.explanation.map { HTML("<p class=\"formula\">\($0)</p>") })
                  \(proposal?.offlineActualCashValue.map { HTML("<p class=\"hint\">Few prices were found; the offline estimate says \($0.formatted).</p>") })
                  \(sources(proposal?.sources ?? [], viewer: viewer))
                  <form method="post" action="\(action)#\(anchor)" novalidate>
                    <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                    \(Layout.errorSummary(fieldErrors.filter { $0.field == "form" || $0.field == "plan" }))
                    <div class="two">
                    \(Layout.field("brand", label: "Brand", value: value("brand", identification?.brand), errors: fieldErrors, id: "f-brand\(suffix)"))
                    \(Layout.field("productName", label: "Product", value: value("productName", identification?.productName), errors: fieldErrors, attributes: "required", id: "f-product\(suffix)"))
                    </div>
                    <div class="two">
                    \(Layout.field("model", label: "Model", value: value("model", identification?.model), errors: fieldErrors, id: "f-model\(suffix)"))
                    <div class="field"><label for="f-condition\(suffix)">Condition</label><select id="f-condition\(suffix)" name="condition">\(options)</select></div>
                    </div>
                    <div class="two">
                    \(Layout.field("replacementCost", label: "Replacement cost", value: value("replacementCost", proposal?.replacementCost?.value.plainAmount), errors: fieldErrors,
                                   attributes: "inputmode=\"decimal\"", id: "f-rcv\(suffix)"))
                    \(Layout.field("actualCashValue", label: "Actual cash value", value: value("actualCashValue", proposal?.actualCashValue?.value.plainAmount), errors: fieldErrors,
                                   attributes: "inputmode=\"decimal\"", id: "f-acv\(suffix)"))
                    </div>
                    <div class="form-actions"><button type="submit" name="action" value="recalculate" class="small">Recalculate</button>\
                <button type="submit" name="action" value="save" class="primary small">\(saveLabel)</button></div>
                  </form>
                </li>
                """
        }
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
              <h2>Value many items</h2>
              <p class="muted">A batch proposes a value for each item (from its photos and market prices when Settings → Valuation has them, \
            else the offline estimate), for you to review and save.</p>
              <p class="actions wrap"><a class="button" href="/valuations/batches/new?missing=1">Value the items without a value</a>
              <a class="button" href="/valuations/photos">Value new things from photos</a></p>
              <form method="get" action="/valuations/batches/new" class="inline">
                \(Layout.field("q", label: "Or the items of a search", value: nil, errors: [], attributes: "placeholder=\"e.g. kitchen\"", id: "f-batch-q"))
                <button type="submit" class="small">Choose</button>
              </form>
            </section>
            <section class="card">
              <h2>Values by day</h2>
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
