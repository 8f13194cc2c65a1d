import Foundation
import NestoryBackup
import NestoryDomain
import NestoryServices
import NestoryImport

/// Settings → Your data: export, restore, import.
enum DataViews {
    static func page(viewer: Viewer, jobs: [Job], storage: StorageSummary, notice: String?, deleteForm: [String: String] = [:],
                     deleteErrors: [FieldError] = []) -> HTML {
        let exports: [HTML] = jobs.prefix(5).map { job in
            let status: HTML
            let made = job.decodedResult(as: BackupService.Made.self)
            switch job.state {
            case .queued, .running:
                let percent = job.total > 0 ? Int(job.done * 100 / job.total) : 0
                status = """
                    <progress max="100" value="\(percent)" class="job-progress" aria-label="Backup progress"></progress>
                    <span class="job-status muted">Writing… \(percent)%</span>
                    """
            case .succeeded:
                status = """
                    <a class="button primary small" href="/settings/data/export/\(job.id)/download" download>Download (\(ByteCount.text(made?.bytes ?? 0)))</a>
                    """
            case .failed, .cancelled, .interrupted:
                status = "<span class=\"error\">\(job.message ?? "The backup could not be made. Try again.")</span>"
            }
            let name = (try? job.decodedPayload(as: BackupService.Request.self))?.downloadName ?? "Backup"
            let poll: HTML = job.state.isFinished ? .empty
                : HTML(" data-job-status=\"/api/v1/jobs/\(job.id)\" data-progress-text=\"Writing… {percent}%\"")
            return """
                <li class="row export"\(poll)>
                  <div><strong>\(name)</strong><br><span class="muted">\(job.createdAt.formatted(date: .abbreviated, time: .shortened))</span></div>
                  <div class="job">\(status)</div>
                </li>
                """
        }
        return Layout.page(title: "Your data", viewer: viewer, section: .settings, body: """
            \(Layout.notice(notice))
            <p><a href="/settings">← Settings</a></p>
            <section class="card">
            <h2>Export data</h2>
            <p>One ZIP file with every item, room, category and receipt of \(viewer.household.name), and every photo and receipt image exactly as stored. Keep it somewhere safe, away from home.</p>
            <form method="post" action="/settings/data/export">
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              <label class="choice"><input type="checkbox" name="providerKeys" value="1"> Include the valuation providers’ API keys</label>
              <p class="hint">Off by default: the keys would be in the file in clear, for anyone who has it. Without them a restore keeps the other valuation settings; enter the keys again.</p>
              <button type="submit" class="primary">Create backup</button>
            </form>
            \(exports.isEmpty ? HTML.empty : HTML("<ul class=\"list exports\">\(exports)</ul>"))
            </section>
            \(storageCard(storage))
            <section class="card">
            <h2>Import data</h2>
            <p>Restore a Nestory backup. The whole file is checked first; you then choose to replace your data or merge the backup into it.</p>
            \(uploadField(id: "archive", label: "Backup file (.zip)", accept: ".zip,application/zip", action: "/settings/data/restore"))
            </section>
            <section class="card">
            <h2>Import a spreadsheet</h2>
            <p>A CSV file with a header row, from a spreadsheet or another inventory app (Homebox exports are recognised). You will see the columns and choose what each one is before anything is imported.</p>
            \(uploadField(id: "csv", label: "CSV file", accept: ".csv,text/csv", action: "/settings/data/csv"))
            </section>
            \(deleteCard(viewer: viewer, form: deleteForm, errors: deleteErrors))
            """)
    }

    /// "Delete this household": the name typed and the owner's password, after saying what goes with it.
    static func deleteCard(viewer: Viewer, form: [String: String], errors: [FieldError]) -> HTML {
        """
        <section class="card" id="delete">
        <h2>Delete this household</h2>
        <p>Deletes \(viewer.household.name) and everything in it from this server: every item, room, category, photo, receipt, report \
        and value, and the accounts of its members who are in no other household. It cannot be undone: create a backup first if \
        you may want any of it again.</p>
        \(Layout.errorSummary(errors))
        <form method="post" action="/settings/data/delete#delete" novalidate>
          <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
          \(Layout.field("confirmName", label: "Type the household’s name, \(viewer.household.name)", value: form["confirmName"], errors: errors,
                         attributes: "required autocomplete=\"off\" spellcheck=\"false\"", id: "f-delete-name"))
          \(Layout.field("password", label: "Your password", value: nil, type: "password", errors: errors,
                         attributes: "required autocomplete=\"current-password\"", id: "f-delete-password"))
          <button type="submit" class="danger">Delete this household</button>
        </form>
        </section>
        """
    }

    private static func uploadField(id: String, label: String, accept: String, action: String) -> HTML {
        """
        <div class="field">
          <label for="upload-\(id)">\(label)</label>
          <input id="upload-\(id)" type="file" accept="\(accept)" data-upload-next="\(action)">
          <progress class="transfer-progress" max="100" value="0" hidden></progress>
          <p class="transfer-status hint" role="status" aria-live="polite"></p>
        </div>
        """
    }

    static func confirmRestore(viewer: Viewer, token: String, name: String, manifest: BackupManifest) -> HTML {
        let c = manifest.counts
        return Layout.page(title: "Restore a backup", viewer: viewer, section: .settings, body: """
            <section class="card">
            <h2>\(name)</h2>
            <p class="notice" role="status">The archive is sound: every file matches its checksum.</p>
            <ul class="facts">
              <li>Household: <strong>\(manifest.household.name)</strong></li>
              <li>Made \(madeOn(manifest, viewer: viewer)) by Nestory \(manifest.appVersion)</li>
              <li>\(c.items) items, \(c.rooms) rooms, \(c.categories) categories</li>
              <li>\(c.photos) photos, \(c.receipts) receipts (\(ByteCount.text(c.fileBytes)) of files)</li>
            </ul>
            <form method="post" action="/settings/data/restore/\(token)">
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              <fieldset class="choices">
                <legend>What should happen to the data you have now?</legend>
                <label class="choice"><input type="radio" name="mode" value="merge" checked>
                  <span><strong>Merge</strong><br><span class="muted">Add what is new; where an item is in both, the newer version wins. Nothing is deleted.</span></span></label>
                <label class="choice"><input type="radio" name="mode" value="replace">
                  <span><strong>Replace</strong><br><span class="muted">Your rooms, categories, items, photos and receipts become exactly the backup’s. Anything added since is removed.</span></span></label>
              </fieldset>
              <div class="form-actions">
                <a class="button" href="/settings/data">Cancel</a>
                <button type="submit" class="primary">Restore</button>
              </div>
            </form>
            </section>
            """)
    }

    static func restored(viewer: Viewer, manifest: BackupManifest, mode: RestoreMode, summary: RestoreSummary) -> HTML {
        func row(_ label: String, _ c: RestoreSummary.Counts) -> HTML {
            "<tr><th scope=\"row\">\(label)</th><td>\(c.added)</td><td>\(c.updated)</td><td>\(c.skipped)</td><td>\(c.removed)</td></tr>"
        }
        return Layout.page(title: "Backup restored", viewer: viewer, section: .settings, body: """
            <section class="card">
            <p class="notice" role="status">\(mode == .replace ? "Your data was replaced by" : "Merged") the backup of \(manifest.household.name) made \(madeOn(manifest, viewer: viewer)).</p>
            <div class="table-wrap"><table class="summary-table">
              <thead><tr><th></th><th scope="col">Added</th><th scope="col">Updated</th><th scope="col">Kept</th><th scope="col">Removed</th></tr></thead>
              <tbody>
              \(row("Items", summary.items))\(row("Photos", summary.photos))\(row("Receipts", summary.receipts))\(row("Rooms", summary.rooms))\(row("Categories", summary.categories))
              </tbody>
            </table></div>
            <p><a class="button primary" href="/">Go to the inventory</a></p>
            </section>
            """)
    }

    static func csvPreview(viewer: Viewer, token: String, name: String, table: CSVTable, mapping: ColumnMapping,
                           dateOrder: ImportOptions.DateOrder, errors: [RowError]) -> HTML {
        if HomeboxImport.isHomebox(table.header) {
            return Layout.page(title: "Import a spreadsheet", viewer: viewer, section: .settings, body: """
                <section class="card">
                <h2>\(name)</h2>
                \(errorList(errors))
                <p>This is a Homebox export with \(table.rowCount) item\(table.rowCount == 1 ? "" : "s"). Locations become rooms, labels become tags, and what Nestory has no field for (descriptions, custom fields, sale details) is kept in each item’s notes.</p>
                \(preview(table))
                <form method="post" action="/settings/data/csv/\(token)">
                  <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                  <div class="form-actions"><a class="button" href="/settings/data">Cancel</a><button type="submit" class="primary">Import \(table.rowCount) item\(table.rowCount == 1 ? "" : "s")</button></div>
                </form>
                </section>
                """)
        }
        let selects: [HTML] = ImportField.allCases.map { field in
            let options: [HTML] = [HTML("<option value=\"\">Not imported</option>")] + table.header.enumerated().map { index, column in
                "<option value=\"\(index)\"\(mapping.columns[field] == index ? HTML(raw: " selected") : .empty)>\(column.isEmpty ? "Column \(index + 1)" : column)</option>"
            }
            return """
                <div class="field"><label for="map-\(field.rawValue)">\(field.label)\(field == .name ? " (required)" : "")</label>
                <select id="map-\(field.rawValue)" name="map_\(field.rawValue)">\(options)</select></div>
                """
        }
        let orders: [HTML] = [("mdy", "Month/day/year (03/31/2024)"), ("dmy", "Day/month/year (31/03/2024)")].map { value, label in
            "<option value=\"\(value)\"\(dateOrder.rawValue == value ? HTML(raw: " selected") : .empty)>\(label)</option>"
        }
        return Layout.page(title: "Import a spreadsheet", viewer: viewer, section: .settings, body: """
            <section class="card">
            <h2>\(name)</h2>
            \(errorList(errors))
            <p>\(table.rowCount) row\(table.rowCount == 1 ? "" : "s") · columns separated by “\(table.delimiter == "\t" ? "tab" : String(table.delimiter))”\(table.decodedAsWindows1252 ? " · read as Windows text (not UTF-8)" : "")</p>
            \(preview(table))
            <form method="post" action="/settings/data/csv/\(token)">
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              <h3>Which column is which?</h3>
              <div class="mapping">\(selects)</div>
              <div class="field"><label for="date-order">Dates written with slashes</label><select id="date-order" name="date_order">\(orders)</select></div>
              <p class="hint">Rooms and categories that do not exist yet are created. Every row is checked first: if any has a problem, nothing is imported.</p>
              <div class="form-actions"><a class="button" href="/settings/data">Cancel</a><button type="submit" class="primary">Import \(table.rowCount) item\(table.rowCount == 1 ? "" : "s")</button></div>
            </form>
            </section>
            """)
    }

    private static func preview(_ table: CSVTable) -> HTML {
        let head: [HTML] = table.header.map { "<th scope=\"col\">\($0)</th>" }
        let rows: [HTML] = table.rows.prefix(5).map { record in
            let cells: [HTML] = record.fields.map { "<td>\($0.count > 60 ? String($0.prefix(60)) + "…" : $0)</td>" }
            return "<tr>\(cells)</tr>"
        }
        return """
            <div class="table-wrap"><table class="preview"><caption class="muted">The first \(min(5, table.rows.count)) rows</caption>
            <thead><tr>\(head)</tr></thead><tbody>\(rows)</tbody></table></div>
            """
    }

    private static func errorList(_ errors: [RowError]) -> HTML {
        guard !errors.isEmpty else { return .empty }
        let items: [HTML] = errors.prefix(50).map { "<li>\($0.description)</li>" }
        return """
            <div class="alert" role="alert"><strong>\(errors.count) problem\(errors.count == 1 ? "" : "s") found; nothing was imported.</strong>
            <ul>\(items)</ul>\(errors.count > 50 ? HTML("<p>…and \(errors.count - 50) more.</p>") : .empty)</div>
            """
    }

    /// A restore or import running in the background (the page reloads when it is done), or why it failed.
    static func working(viewer: Viewer, job: Job) -> HTML {
        let what = job.kind == JobKind.restore ? "Restoring the backup" : "Importing"
        let body: HTML
        if job.state.isFinished {
            body = """
                <section class="card"><div class="alert" role="alert">\(job.message ?? "This could not be done. Nothing was changed.")</div>
                <p><a class="button" href="/settings/data">Back to Your data</a></p></section>
                """
        } else {
            body = """
                <section class="card" data-job-status="/api/v1/jobs/\(job.id)">
                  <p class="job-status" role="status" aria-live="polite">\(what)… This page shows what was done when it is finished.</p>
                  <progress class="job-progress" aria-label="\(what)"></progress>
                  <noscript><p><a href="/settings/data/jobs/\(job.id)">Refresh</a></p></noscript>
                </section>
                """
        }
        return Layout.page(title: what, viewer: viewer, section: .settings,
                           head: job.state.isFinished ? .empty : "<noscript><meta http-equiv=\"refresh\" content=\"2\"></noscript>", body: body)
    }

    static func imported(viewer: Viewer, summary: ImportSummary) -> HTML {
        Layout.page(title: "Imported", viewer: viewer, section: .settings, body: """
            <section class="card">
            <p class="notice" role="status">Imported \(summary.items) item\(summary.items == 1 ? "" : "s").</p>
            \(summary.roomsCreated.isEmpty ? HTML.empty : HTML("<p>New rooms: \(summary.roomsCreated.joined(separator: ", "))</p>"))
            \(summary.categoriesCreated.isEmpty ? HTML.empty : HTML("<p>New categories: \(summary.categoriesCreated.joined(separator: ", "))</p>"))
            <p><a class="button primary" href="/">Go to the inventory</a></p>
            </section>
            """)
    }

    /// "X MB used, Y photos" and its breakdown (a list, which wraps at any text size).
    static func storageCard(_ storage: StorageSummary) -> HTML {
        func row(_ label: String, _ files: StorageSummary.Files, _ noun: (String, String)) -> HTML {
            HTML("<div><dt>\(label)</dt><dd>\(files.count) \(files.count == 1 ? noun.0 : noun.1) · \(ByteCount.text(files.bytes))</dd></div>")
        }
        return """
            <section class="card" id="storage">
            <h2>Storage</h2>
            <p><strong>\(storageLine(storage))</strong></p>
            <dl class="storage" aria-label="What this household keeps on the server">
            <div><dt>Items</dt><dd>\(storage.items)</dd></div>
            \(row("Photos", storage.photos, ("photo", "photos")))
            \(row("Receipts", storage.receipts, ("receipt", "receipts")))
            \(row("Reports", storage.reports, ("report", "reports")))
            <div><dt>Database</dt><dd>\(ByteCount.text(storage.databaseBytes)) <span class="muted">(the whole server’s)</span></dd></div>
            </dl>
            \(storage.freeBytes.map { HTML("<p class=\"hint\">\(ByteCount.text($0)) free on the server’s disk.</p>") })
            </section>
            """
    }

    /// The spec's one line: "X MB used, Y photos".
    static func storageLine(_ storage: StorageSummary) -> String {
        "\(ByteCount.text(storage.householdBytes)) used, \(storage.photos.count) photo\(storage.photos.count == 1 ? "" : "s")"
    }

    /// "on 22 Nov 2026 at 14:01" from the manifest's ISO 8601 time (as written, if it is not one).
    static func madeOn(_ manifest: BackupManifest, viewer: Viewer) -> String {
        guard let date = ISO8601DateFormatter().date(from: manifest.createdAt) else { return "on \(manifest.createdAt)" }
        return "on " + viewer.moment(date)
    }
}
