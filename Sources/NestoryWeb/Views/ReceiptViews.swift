import Foundation
import NestoryDomain

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

    static func list(viewer: Viewer, receipts: [ReceiptListing]) -> HTML {
        let rows: [HTML] = receipts.map { listing in
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
            \(rows.isEmpty ? HTML("<p class=\"muted\">No receipts yet. Photograph one from the Capture tab, or from an item.</p>") : HTML("<ul class=\"list receipts\">\(rows)</ul>"))
            """)
    }

    static func review(viewer: Viewer, listing: ReceiptListing, state: ReceiptsController.Reading, search: String, matches: [Item],
                       rooms: [Room], notice: String?, error: String?) -> HTML {
        let r = listing.receipt
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
        func field(_ name: String, _ label: String, _ value: String?, _ attributes: String = "") -> HTML {
            """
            <div class="field"><label for="receipt-\(name)">\(label) \(badge(value != nil))</label>
            <input id="receipt-\(name)" name="\(name)" value="\(value ?? "")" \(HTML(raw: attributes))></div>
            """
        }
        let failure: HTML = { if case .failed(let message) = state { return HTML("<div class=\"alert\" role=\"alert\">\(message)</div>") } else { return .empty } }()
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
        let roomOptions: [HTML] = rooms.map { "<option value=\"\($0.id)\">\($0.name)</option>" }
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
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                \(Layout.field("name", label: "Item name", value: nil, errors: [], attributes: "required maxlength=\"200\""))
                <div class="two">
                  \(Layout.field("price", label: "Price", value: r.total?.plainAmount, errors: [], attributes: "inputmode=\"decimal\""))
                  \(Layout.field("purchaseDate", label: "Purchase date", value: r.purchaseDate?.iso, type: "date", errors: []))
                </div>
                <input type="hidden" name="notes" value="\(r.vendor.map { "Bought at \($0)." } ?? "")">
                <div class="field"><label for="f-roomID">Room</label><select id="f-roomID" name="roomID"><option value="">No room</option>\(roomOptions)</select></div>
                <button type="submit" class="primary">Create item</button>
              </form>
            </section>
            """
        return Layout.page(title: "Receipt", viewer: viewer, section: .capture, body: """
            \(Layout.notice(notice))
            \(error.map { HTML("<div class=\"alert\" role=\"alert\">\($0)</div>") })
            \(failure)
            <div class="review">
            \(image)
            <section class="card">
              <h2>What the receipt says</h2>
              <form method="post" action="/receipts/\(r.id)">
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                \(field("vendor", "Store", r.vendor, "maxlength=\"120\""))
                \(field("purchaseDate", "Date", r.purchaseDate?.iso, "type=\"date\""))
                <div class="two">
                  \(field("total", "Total", r.total?.plainAmount, "inputmode=\"decimal\""))
                  \(field("tax", "Tax", r.tax?.plainAmount, "inputmode=\"decimal\""))
                </div>
                <button type="submit" class="primary">Save</button>
              </form>
              \(linked)
              \(r.rawText.map { text in HTML("<details class=\"raw-text\"><summary>Text read from the photo</summary><pre>\(text)</pre></details>") })
            </section>
            </div>
            \(linkSection)
            """)
    }
}
