import Foundation
import NestoryDomain
import NestoryServices

/// Receipts: capture, review, the list.
enum ReceiptViews {
    /// Barcode or receipt: the Capture tab's two modes.
    static func modes(_ current: String) -> HTML {
        """
        <nav class="toggle modes" aria-label="What to capture">
          <a href="/capture/photo"\(current == "photo" ? HTML(raw: " class=\"on\" aria-current=\"page\"") : .empty)>Photo item</a>
          <a href="/capture"\(current == "barcode" ? HTML(raw: " class=\"on\" aria-current=\"page\"") : .empty)>Barcode</a>
          <a href="/capture/receipt"\(current == "receipt" ? HTML(raw: " class=\"on\" aria-current=\"page\"") : .empty)>Receipt</a>
        </nav>
        """
    }

    static func capture(viewer: Viewer, item: Item?, recent: [RecentCapture] = []) -> HTML {
        let target = item.map { "/api/v1/receipts?item=\($0.id)" } ?? "/api/v1/receipts"
        return Layout.page(title: item == nil ? "Capture" : "Add a receipt", viewer: viewer, section: .capture, body: """
            \(item == nil ? modes("receipt") : HTML("<p>For <a href=\"/items/\(item!.id)\">\(item!.name)</a></p>"))
            <section class="card scanner camera" data-receipt-camera data-state="initializing" aria-labelledby="receipt-camera-title">
              <h2 id="receipt-camera-title">Photograph a receipt</h2>
              <div class="viewfinder receipt-finder">
                <video muted playsinline aria-label="Camera preview"></video>
                <div class="receipt-guide" aria-hidden="true"></div>
                <div class="skeleton" aria-hidden="true"><span class="skeleton-line"></span></div>
              </div>
              <div class="shutter-row" data-state-panel="ready" hidden>
                <button type="button" class="shutter" data-shutter aria-label="Take the photo of the receipt"></button>
              </div>
              \(CaptureViews.cameraStates(guidance: "Lay the receipt flat inside the outline, in good light, without shadows.",
                                          purpose: "photograph receipts", gallery: "receipt-photo", what: "of the receipt"))
              <div class="taken" hidden>
                <img class="taken-preview" alt="The photo of the receipt, to check before it is read">
                <div class="actions"><button type="button" class="primary" data-use>Use this photo</button>
                <button type="button" data-retake>Retake</button></div>
              </div>
            </section>
            <section class="card">
              <h2>Or choose a photo</h2>
              <p class="muted">Lay it flat, fill the frame, and avoid shadows. The store, date, total and tax are read for you to check.</p>
              <label class="photo-pick" for="receipt-photo">
                <img class="preview" alt="" hidden>
                <span>Take or choose a photo</span>
              </label>
              <input id="receipt-photo" class="visually-hidden" type="file" accept="image/*" capture="environment" data-upload-next="\(target)" data-offline-queue>
              <progress class="transfer-progress" max="100" value="0" hidden></progress>
              <p class="transfer-status hint" role="status" aria-live="polite"></p>
            </section>
            <p><a href="/receipts">All receipts</a></p>
            \(item == nil ? CaptureViews.recent(recent) : .empty)
            """)
    }

    /// A page of the receipts list, newest first, all of them or those linked to no item yet, with the way to older ones
    /// (and back to the newest from an older page).
    static func list(viewer: Viewer, page: Page<ReceiptListing>, isFirstPage: Bool, unlinkedOnly: Bool = false) -> HTML {
        func path(unlinked: Bool) -> String { unlinked ? "/receipts?filter=unlinked" : "/receipts" }
        let base = path(unlinked: unlinkedOnly)
        let chips: [HTML] = [(false, "All"), (true, "Not linked to an item")].map { unlinked, label in
            let on = unlinked == unlinkedOnly
            return "<a class=\"chip\(on ? " on" : "")\" href=\"\(path(unlinked: unlinked))\"\(on ? HTML(raw: " aria-current=\"true\"") : .empty)>\(label)</a>"
        }
        let rows: [HTML] = page.elements.map { listing in
            let r = listing.receipt
            return """
                <li><a class="row receipt-row" href="/receipts/\(r.id)">
                  <img src="/files/\(r.attachment.sha256)?size=thumb" alt="" width="48" height="48">
                  <span class="text"><span class="name">\(r.vendor ?? "Receipt")</span>
                  <span class="sub">\(r.purchaseDate.map { viewer.day($0) } ?? "no date") · \(r.total?.formatted ?? "no amount") · \(listing.itemName.map { "for \($0)" } ?? "not linked to an item")</span></span>
                </a></li>
                """
        }
        return Layout.page(title: "Receipts", viewer: viewer, section: .capture,
                           actions: HTML("<a class=\"button primary\" href=\"/capture/receipt\">Add receipt</a>"), body: """
            <nav class="chips" aria-label="Which receipts">\(chips)</nav>
            \(!rows.isEmpty ? HTML("<ul class=\"list receipts\">\(rows)</ul>")
                : !isFirstPage ? HTML("<p class=\"muted\">No older receipts.</p>")
                : unlinkedOnly ? HTML("<p class=\"muted\">Every receipt is linked to an item.</p>")
                : HTML("<p class=\"muted\">No receipts yet. Photograph one from the Capture tab, or from an item.</p>"))
            \(page.nextCursor.map { HTML("<p><a class=\"button\" rel=\"next\" href=\"\(base)\(unlinkedOnly ? "&" : "?")after=\($0.rawValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")\">Older receipts</a></p>") })
            \(isFirstPage ? HTML.empty : HTML("<p><a href=\"\(base)\">Newest receipts</a></p>"))
            """)
    }

    /// The review form as posted: its values, what it showed first (its base, see `ReceiptFormValues.merged`) and the
    /// problems to mark.
    struct FieldsForm {
        var values: ReceiptFormValues
        var base: ReceiptFormValues
        var errors: [FieldError]

        init(receipt: Receipt) {
            values = ReceiptFormValues(receipt: receipt)
            base = values
            errors = []
        }

        init(values: ReceiptFormValues, base: ReceiptFormValues, errors: [FieldError]) {
            self.values = values
            self.base = base
            self.errors = errors
        }
    }

    /// The "create a new item from it" form as posted, or as first shown (prefilled from what was read).
    struct NewItemForm {
        var values: ItemFormValues
        var errors: [FieldError]

        init(receipt: Receipt) {
            values = ItemFormValues(["price": receipt.total?.plainAmount ?? "", "currency": receipt.total?.currency.code ?? "",
                                     "purchaseDate": receipt.purchaseDate?.iso ?? "", "notes": receipt.vendor.map { "Bought at \($0)." } ?? ""])
            errors = []
        }

        init(values: ItemFormValues, errors: [FieldError]) {
            self.values = values
            self.errors = errors
        }
    }

    /// The field names in the review form's sentences.
    static let fieldNames = ["vendor": "Store", "purchaseDate": "Date", "total": "Total", "tax": "Tax", "currency": "Currency"]

    static func review(viewer: Viewer, listing: ReceiptListing, state: ReceiptsController.Reading, search: String, matches: [Item],
                       rooms: [Room], notice: String?, edit: FieldsForm? = nil, newItem: NewItemForm? = nil) -> HTML {
        let r = listing.receipt
        let edit = edit ?? FieldsForm(receipt: r)
        let newItem = newItem ?? NewItemForm(receipt: r)
        let image: HTML = """
            <figure class="receipt-image"><a href="/files/\(r.attachment.sha256)"><img src="/files/\(r.attachment.sha256)?size=display" alt="The receipt"></a></figure>
            """
        if case .reading(let job) = state {
            return Layout.page(title: "Reading the receipt", viewer: viewer, section: .capture, body: """
                <div class="review" data-job-status="/api/v1/jobs/\(job)">
                \(image)
                <section class="card"><p class="big" role="status">Reading the receipt…</p>
                <progress class="wide" aria-label="Reading"></progress>
                <p class="muted">This takes a few seconds. The photo is already saved.</p>
                <noscript><p><a href="/receipts/\(r.id)">Refresh</a></p></noscript></section>
                </div>
                """)
        }
        // Confidence as people read it: what was read well, what to check, what was not found.
        let confidence = r.confidence ?? 0
        func badge(_ present: Bool) -> HTML {
            guard present else { return HTML("<span class=\"badge missing\">not found</span>") }
            return confidence >= 0.75 ? HTML("<span class=\"badge ok\">read</span>") : HTML("<span class=\"badge missing\">check</span>")
        }
        // A form that came back with something to fix sits below the photo: its first marked field takes the focus,
        // which brings it into view.
        let firstMarked = edit.errors.first { fieldNames[$0.field] != nil }?.field
        let firstMarkedOfNewItem = newItem.errors.first { ["name", "price", "purchaseDate"].contains($0.field) }?.field
        func autofocus(_ name: String, _ marked: String?) -> String { name == marked ? " autofocus" : "" }
        /// A form's currency: the one its amounts are in, else the household's.
        func currency(_ values: [String: String]) -> String {
            let code = (values["currency"] ?? "").trimmingCharacters(in: .whitespaces).uppercased()
            return code.isEmpty ? viewer.household.currency.code : code
        }
        func field(_ name: String, _ attributes: String = "") -> HTML {
            let id = "receipt-\(name)"
            let value = edit.values[name]
            let attributes = attributes + autofocus(name, firstMarked)
            guard let message = edit.errors.first(where: { $0.field == name })?.message else {
                return """
                    <div class="field"><label for="\(id)">\(fieldNames[name] ?? name) \(badge(!value.isEmpty))</label>
                    <input id="\(id)" name="\(name)" value="\(value)" \(HTML(raw: attributes))></div>
                    """
            }
            return """
                <div class="field invalid"><label for="\(id)">\(fieldNames[name] ?? name)</label>
                <input id="\(id)" name="\(name)" value="\(value)" \(HTML(raw: attributes)) aria-invalid="true" aria-describedby="\(id)-error">
                <p class="error" id="\(id)-error">\(message)</p></div>
                """
        }
        // A reading that failed asks for the fields; once some are saved (a failed reading writes none, so a person typed
        // them) it only says how they came.
        let typed = r.vendor != nil || r.total != nil || r.tax != nil || r.purchaseDate != nil
        let failure: HTML = {
            guard case .failed(let message) = state else { return .empty }
            return typed ? HTML("<p class=\"muted\">The picture could not be read; the fields were typed.</p>") : HTML("<div class=\"alert\" role=\"alert\">\(message)</div>")
        }()
        let linked: HTML = listing.itemName.map { name in
            HTML("""
            <p class="notice" role="status">Linked to <a href="/items/\(r.itemID!)">\(name)</a>.</p>
            <form method="post" action="/receipts/\(r.id)/link"><input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
            <button type="submit" class="link">Unlink</button></form>
            """)
        } ?? .empty
        let results: [HTML] = matches.map { item in
            """
            <li class="row"><span>\(item.name)\(item.purchaseDate.map { " · " + viewer.day($0) } ?? "")</span>
            <form method="post" action="/receipts/\(r.id)/link"><input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
            <input type="hidden" name="item" value="\(item.id)"><button type="submit" class="small">Link</button></form></li>
            """
        }
        let roomOptions: [HTML] = rooms.map { room in
            "<option value=\"\(room.id)\"\(newItem.values["roomID"] == room.id.description ? HTML(raw: " selected") : .empty)>\(room.name)</option>"
        }
        let linkSection: HTML = listing.itemName != nil ? .empty : """
            <section class="card">
              <h2>Link to an item you have</h2>
              <form method="get" action="/receipts/\(r.id)" class="type-code">
                <div class="field"><label for="f-q">Search your items</label><input id="f-q" name="q" type="search" value="\(search)"></div>
                <button type="submit">Search</button>
              </form>
              \(search.isEmpty ? HTML.empty : matches.isEmpty ? HTML("<p class=\"muted\">No item matches “\(search)”.</p>") : HTML("<ul class=\"list\">\(results)</ul>"))
            </section>
            <section class="card">
              <h2>Or create a new item from it</h2>
              <form method="post" action="/receipts/\(r.id)/item" class="item-form">
                \(Layout.errorSummary(newItem.errors))
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                \(Layout.field("name", label: "Item name", value: newItem.values["name"], errors: newItem.errors,
                                 attributes: "required maxlength=\"200\"" + autofocus("name", firstMarkedOfNewItem)))
                <div class="two">
                  \(Layout.field("price", label: "Price", value: newItem.values["price"], errors: newItem.errors,
                                   attributes: "inputmode=\"decimal\"" + autofocus("price", firstMarkedOfNewItem)))
                  \(Layout.field("purchaseDate", label: "Purchase date", value: newItem.values["purchaseDate"], type: "date", errors: newItem.errors,
                                   attributes: autofocus("purchaseDate", firstMarkedOfNewItem)))
                </div>
                \(Layout.currencySelect(label: "Currency", selected: currency(newItem.values.values), errors: newItem.errors, locale: viewer.locale))
                <input type="hidden" name="notes" value="\(newItem.values["notes"])">
                <div class="field"><label for="f-roomID">Room</label><select id="f-roomID" name="roomID"><option value="">No room</option>\(roomOptions)</select></div>
                <button type="submit" class="primary">Create item</button>
              </form>
            </section>
            """
        return Layout.page(title: "Receipt", viewer: viewer, section: .capture, body: """
            \(Layout.notice(notice))
            \(failure)
            <div class="review">
            \(image)
            <section class="card">
              <h2>What the receipt says</h2>
              <form method="post" action="/receipts/\(r.id)" novalidate>
                \(Layout.errorSummary(edit.errors))
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                <input type="hidden" name="base" value="\(edit.base.encoded)">
                \(field("vendor", "maxlength=\"\(ReceiptFormValues.maxVendorLength)\""))
                \(field("purchaseDate", "type=\"date\""))
                <div class="two">
                  \(field("total", "inputmode=\"decimal\""))
                  \(field("tax", "inputmode=\"decimal\""))
                </div>
                \(Layout.currencySelect(label: "Currency", selected: currency(edit.values.values), errors: edit.errors, locale: viewer.locale, id: "receipt-currency"))
                <button type="submit" class="primary">Save</button>
              </form>
              \(linked)
              \(r.rawText.map { text in HTML("<details class=\"raw-text\"><summary>Text read from the photo</summary><pre>\(text)</pre></details>") })
            </section>
            </div>
            \(linkSection)
            <section class="card danger-zone">
              <form method="post" action="/receipts/\(r.id)/delete" data-confirm="Delete this receipt? Its photo and what it says are deleted\(listing.itemName.map { ", and \($0) no longer has it" } ?? "").">
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                <button type="submit" class="danger">Delete receipt</button>
              </form>
            </section>
            """)
    }
}
