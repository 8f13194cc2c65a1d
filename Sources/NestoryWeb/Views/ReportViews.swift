import Foundation
import NestoryDomain
import NestoryServices
import NestoryReports

/// The Reports tab: report cards, the options sheet, the loss-list flow, progress and the history.
enum ReportViews {
    static func index(viewer: Viewer, plan: Entitlement, summary: InventorySummary, history: [StoredReport], running: [Job], notice: String?) -> HTML {
        let inProgress: [HTML] = running.map { job in
            let progress = job.total > 0 ? " · \(job.done * 100 / job.total)%" : ""
            let title = (try? job.decodedPayload(as: ReportRequest.self))?.kind.title ?? "Report"
            return "<li class=\"row\"><a href=\"/reports/jobs/\(job.id)\">\(title): being made\(progress)</a></li>"
        }
        let score = summary.score
        let rows: [HTML] = history.map { report in
            let kind = ReportKind(rawValue: report.kind)
            return """
                <li class="row report" data-report="\(report.id.uuidString.lowercased())">
                  <span class="text"><span class="name">\(kind?.title ?? report.kind)</span>
                  <span class="sub">\(viewer.moment(report.createdAt)) · \(ByteCount.text(report.byteCount)) · \(optionsSummary(report))</span></span>
                  <span class="actions">
                    <a class="button small" href="/reports/\(report.id.uuidString.lowercased())/download">Download</a>
                    <form method="post" action="/reports/\(report.id.uuidString.lowercased())/delete" data-confirm="Delete this report? Your items are not affected.">
                      <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                      <button type="submit" class="small danger">Delete</button>
                    </form>
                  </span>
                </li>
                """
        }
        return Layout.page(title: "Reports", viewer: viewer, section: .reports, body: """
            \(Layout.notice(notice))
            <section class="card">
              <p>Create inventory summaries and loss lists for insurance.</p>
              <p class="stats"><span>Total items: <strong>\(summary.itemCount)</strong></span>
                <span>Documented items: <strong>\(score.documented)</strong>\(score.percent.map { HTML(" (\($0)%)") })</span></p>
            </section>
            <section class="report-cards">
              <article class="card">
                <h2>Full Inventory Report</h2>
                <p class="muted">All items with values and documentation status.</p>
                \(Layout.tip(.reports, viewer: viewer, back: "/reports"))
                <a class="primary button" href="/reports/inventory">Generate</a>
              </article>
              <article class="card">
                <h2>Loss List</h2>
                <p class="muted">Select items for a specific incident.</p>
                <a class="primary button" href="/reports/loss">Start</a>
              </article>
              <article class="card">
                <h2>Valuation history</h2>
                <p class="muted">What items were worth, by the day each value is for, with the day’s totals.</p>
                <a class="button" href="/valuations">Open</a>
              </article>
              <article class="card">
                <h2>Export data</h2>
                <p class="muted">Every item as a spreadsheet (CSV) or as JSON for other tools.</p>
                \(plan.allows(.csvExport) ? HTML("<a class=\"button\" href=\"/reports/export.csv\" download>Download CSV</a>")
                    : HTML("<a class=\"button\" href=\"/settings#pro\">CSV: Nestory Pro</a>"))
                <a class="button" href="/reports/export.json" download>Download JSON</a>
              </article>
            </section>
            <section class="card" aria-labelledby="history-title">
              <h2 id="history-title">Report history</h2>
              \(inProgress.isEmpty ? HTML.empty : HTML("<ul class=\"list running\">\(inProgress)</ul>"))
              \(rows.isEmpty ? HTML("<p class=\"muted\">No reports yet. Reports you generate are kept here to download again.</p>") : HTML("<ul class=\"list history\">\(rows)</ul>"))
            </section>
            """)
    }

    static func optionsSummary(_ report: StoredReport) -> String {
        let data = Data(report.options.utf8)
        if let options = try? JSONDecoder().decode(InventoryReportOptions.self, from: data) { return options.summary }
        if let options = try? JSONDecoder().decode(LossListOptions.self, from: data) { return options.summary }
        return ""
    }

    static func paperSelect(_ selected: PaperSize) -> HTML {
        """
        <div class="field"><label for="f-paper">Paper</label><select id="f-paper" name="paper">\(PaperSize.allCases.map { paper in
            HTML("<option value=\"\(paper.rawValue)\"\(paper == selected ? HTML(raw: " selected") : .empty)>\(paper.label)</option>")
        })</select></div>
        """
    }

    /// The options sheet of the full inventory report.
    static func inventoryOptions(viewer: Viewer, plan: Entitlement, summary: InventorySummary) -> HTML {
        let photos: HTML = plan.allows(.reportPhotos)
            ? "<label class=\"choice\"><input type=\"checkbox\" name=\"photos\" value=\"1\" checked> Include photos</label>"
            : """
                <label class="choice"><input type="checkbox" name="photos" value="1" disabled aria-describedby="photos-pro"> Include photos</label>
                <p class="hint" id="photos-pro">Nestory Free makes the inventory PDF without photos. <a href="/settings#pro">Nestory Pro</a> adds them.</p>
                """
        return Layout.page(title: "Full Inventory Report", viewer: viewer, section: .reports, body: """
            <form class="card" method="post" action="/reports/inventory">
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              <p class="muted">\(summary.itemCount) items, \(summary.score.documented) documented. Large inventories take a little while; you can watch the progress.</p>
              <fieldset class="field"><legend>Group by</legend>
                <label class="choice"><input type="radio" name="group" value="room" checked> Room</label>
                <label class="choice"><input type="radio" name="group" value="category"> Category</label>
              </fieldset>
              \(photos)
              <label class="choice"><input type="checkbox" name="undocumented" value="1" checked> Include undocumented items</label>
              <p class="hint">\(DocumentationScore.explanation) Leave this off to list only those.</p>
              \(paperSelect(.usual(for: viewer.household.currency)))
              <div class="form-actions"><a class="button" href="/reports">Cancel</a><button type="submit" class="primary">Generate PDF</button></div>
            </form>
            """)
    }

    /// Progress of a report being generated; finished: the download.
    static func job(viewer: Viewer, job: Job) -> HTML {
        let title = (try? job.decodedPayload(as: ReportRequest.self))?.kind.title ?? "Report"
        let body: HTML
        var head: HTML = .empty
        switch job.state {
        case .queued, .running:
            let percent = job.total > 0 ? job.done * 100 / job.total : 0
            head = "<noscript><meta http-equiv=\"refresh\" content=\"2\"></noscript>"
            body = """
                <section class="card" data-job-status="/api/v1/jobs/\(job.id)" data-progress-text="Rendering {done} of {total} items…">
                  <p class="job-status" role="status" aria-live="polite">\(job.total > 0 ? "Rendering \(job.done) of \(job.total) items…" : "Starting…")</p>
                  <progress class="job-progress" max="100" value="\(percent)">\(percent)%</progress>
                  <p class="muted">You can leave this page: the report will be in your report history when it is ready.</p>
                </section>
                """
        case .succeeded:
            let download = JobJSON(job).links.download ?? "/reports"
            body = """
                <section class="card">
                  <p class="job-status" role="status">Your report is ready.</p>
                  <p><a class="primary button" href="\(download)">Download PDF</a>
                  <a class="button" href="/reports">Back to reports</a></p>
                </section>
                """
        case .failed, .cancelled, .interrupted:
            body = """
                <section class="card"><div class="alert" role="alert">\(job.message ?? "The report could not be made. Try again.")</div><a class="button" href="/reports">Back to reports</a></section>
                """
        }
        return Layout.page(title: title, viewer: viewer, section: .reports, head: head, body: body)
    }

    // MARK: - Loss list

    /// Multi-select with the inventory's search and filters. The selection travels in the form
    /// (`item=` for each), so it survives searching and works without script.
    static func lossSelect(viewer: Viewer, state: InventoryState, selected: [ItemID], page: Page<ItemListing>,
                           rooms: [Room], categories: [NestoryDomain.Category], threshold: Money) -> HTML {
        let selectedSet = Set(selected)
        let shown = Set(page.elements.map(\.item.id))
        let hidden: [HTML] = selected.filter { !shown.contains($0) }.map { "<input type=\"hidden\" name=\"item\" value=\"\($0)\">" }
        let rows: [HTML] = page.elements.map { listing in
            let item = listing.item
            let room = item.roomID.flatMap { id in rooms.first { $0.id == id } }
            let sub = [room?.name, item.totalValue?.formatted, item.serialNumber.map { "Serial \($0)" }].compactMap { $0 }.joined(separator: " · ")
            return """
                <li><label class="pick"><input type="checkbox" name="item" value="\(item.id)"\(selectedSet.contains(item.id) ? HTML(raw: " checked") : .empty)>
                <span class="text"><span class="name">\(item.name)</span><span class="sub">\(sub)</span></span></label></li>
                """
        }
        let chips: [HTML] = InventoryState.Chip.allCases.map { chip in
            "<option value=\"\(chip.rawValue)\"\(chip == state.chip ? HTML(raw: " selected") : .empty)>\(chip.label(threshold: threshold))</option>"
        }
        let roomOptions: [HTML] = rooms.map { room in
            "<option value=\"\(room.id)\"\(room.id == state.roomID ? HTML(raw: " selected") : .empty)>\(room.name)</option>"
        }
        let categoryOptions: [HTML] = categories.map { category in
            "<option value=\"\(category.id)\"\(category.id == state.categoryID ? HTML(raw: " selected") : .empty)>\(category.name)</option>"
        }
        return Layout.page(title: "Loss List", viewer: viewer, section: .reports, body: """
            <form class="card loss-select" method="get" action="/reports/loss">
              <p class="muted">Choose the items lost or damaged. Search and filter as in the inventory; your choices are kept.</p>
              <div class="search">
                <label class="visually-hidden" for="q">Search items</label>
                <input id="q" type="search" name="q" value="\(state.search)" placeholder="Search name, brand, serial…" autocomplete="off">
                <label class="visually-hidden" for="f-filter">Filter</label>
                <select id="f-filter" name="filter">\(chips)</select>
                <label class="visually-hidden" for="f-room">Room</label>
                <select id="f-room" name="room"><option value="">All rooms</option>\(roomOptions)</select>
                <label class="visually-hidden" for="f-category">Category</label>
                <select id="f-category" name="category"><option value="">All categories</option>\(categoryOptions)</select>
                <button type="submit">Search</button>
              </div>
              \(hidden)
              <p class="toolbar"><span class="count" role="status"><strong data-selected-count>\(selected.count)</strong> selected</span>
                <button type="submit" name="all" value="1" class="small">Select all shown</button></p>
              \(rows.isEmpty ? HTML("<p class=\"muted\">No items match.</p>") : HTML("<ul class=\"list picks\">\(rows)</ul>"))
              \(page.nextCursor == nil ? HTML.empty : HTML("<p class=\"hint\">Showing the first \(page.elements.count) matches: search or filter to find others.</p>"))
              <div class="form-actions sticky"><a class="button" href="/reports">Cancel</a>
                <button type="submit" class="primary" formaction="/reports/loss/confirm">Continue</button></div>
            </form>
            """)
    }

    /// The confirm screen: count and total of the chosen items, then the incident's details.
    static func lossConfirm(viewer: Viewer, items: [ItemListing], total: MoneyTotals, values: [String: String], errors: [FieldError]) -> HTML {
        let hidden: [HTML] = items.map { "<input type=\"hidden\" name=\"item\" value=\"\($0.item.id)\">" }
        let list: [HTML] = items.prefix(50).map { listing in
            "<li class=\"row\"><span>\(listing.item.name)</span><span class=\"muted\">\(listing.item.totalValue?.formatted ?? "no value")</span></li>"
        }
        let back = "/reports/loss" + queryString(items.map { ("item", $0.item.id.description) })
        let types: [HTML] = IncidentType.allCases.map { type in
            "<option value=\"\(type.rawValue)\"\(values["type"] == type.rawValue ? HTML(raw: " selected") : .empty)>\(type.label)</option>"
        }
        let paper = values["paper"].flatMap(PaperSize.init(rawValue:)) ?? .usual(for: viewer.household.currency)
        return Layout.page(title: "Loss List", viewer: viewer, section: .reports, body: """
            <section class="card confirm">
              <h2><span data-loss-count>\(items.count)</span> item\(items.count == 1 ? "" : "s") · <span data-loss-total>\(ReportFormat.money(total, preferred: viewer.household.currency))</span></h2>
              <p class="muted">Total purchase price (price × quantity) of the chosen items. <a href="\(back)">Change the selection</a></p>
              <ul class="list">\(list)</ul>
              \(items.count > 50 ? HTML("<p class=\"muted\">and \(items.count - 50) more.</p>") : .empty)
            </section>
            <form class="card" method="post" action="/reports/loss">
              \(Layout.errorSummary(errors))
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              \(hidden)
              <h2>Incident details</h2>
              \(Layout.field("incidentDate", label: "Date of loss", value: values["incidentDate"], type: "date", errors: errors, attributes: "required"))
              <div class="field"><label for="f-type">Type of loss</label><select id="f-type" name="type">\(types)</select></div>
              <div class="field\(errors.contains { $0.field == "description" } ? " invalid" : "")"><label for="f-description">What happened</label>
                <textarea id="f-description" name="description" rows="4">\(values["description"])</textarea></div>
              <div class="two">
              \(Layout.field("policyNumber", label: "Policy number (optional)", value: values["policyNumber"], errors: errors))
              \(Layout.field("claimNumber", label: "Claim number (optional)", value: values["claimNumber"], errors: errors))
              </div>
              <label class="choice"><input type="checkbox" name="photos" value="1"\(values["photos"] == nil || values["photos"] == "1" ? HTML(raw: " checked") : .empty)> Add photo pages</label>
              \(paperSelect(paper))
              <div class="form-actions"><a class="button" href="\(back)">Back</a><button type="submit" class="primary">Generate PDF</button></div>
            </form>
            """)
    }
}
