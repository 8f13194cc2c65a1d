import Foundation
import NestoryDomain
import NestoryProducts

/// The Capture tab: scanning a barcode, and what was found.
enum CaptureViews {
    static func scan(viewer: Viewer, message: String?) -> HTML {
        Layout.page(title: "Capture", viewer: viewer, section: .capture, body: """
            \(ReceiptViews.modes("barcode"))
            \(message.map { HTML("<div class=\"alert\" role=\"alert\">\($0)</div>") })
            <section class="card scanner" data-scanner>
              <h2>Scan a barcode</h2>
              <div class="viewfinder">
                <video muted playsinline aria-label="Camera preview"></video>
                <div class="scan-area" aria-hidden="true"></div>
              </div>
              <p class="scan-status" role="status" aria-live="polite">Starting the camera…</p>
            </section>
            <section class="card">
              <h2>Or use a photo</h2>
              <p class="muted">Take a close, sharp photo of the barcode, or choose one.</p>
              <label class="button" for="scan-photo">Take or choose a photo</label>
              <input id="scan-photo" class="visually-hidden" type="file" accept="image/*" capture="environment" data-scan-photo>
              <p class="photo-status" role="status" aria-live="polite"></p>
              <ul class="list photo-codes" hidden></ul>
            </section>
            <section class="card">
              <h2>Or type the code</h2>
              <form method="get" action="/capture/barcode" class="type-code">
                <div class="field"><label for="f-code">The number under the barcode</label>
                <input id="f-code" name="code" inputmode="numeric" autocomplete="off" maxlength="200" required></div>
                <button type="submit" class="primary">Look up</button>
              </form>
              <p><a href="/items/quick">No barcode? Add the item by hand</a></p>
            </section>
            """)
    }

    static func result(viewer: Viewer, result: LookupResult, rooms: [Room], categories: [NestoryDomain.Category]) -> HTML {
        let match = result.match
        let suggested = match?.category.flatMap { suggestion in
            let key = Text.foldKey(suggestion)
            return categories.first { Text.foldKey($0.name) == key }
                ?? categories.first { key.contains(Text.foldKey($0.name)) || Text.foldKey($0.name).contains(key) }
        }
        let found: HTML
        if let match {
            found = """
                <div class="product">
                  <p class="big">\(match.name)</p>
                  \(match.brand.map { HTML("<p>\($0)</p>") })
                  \(match.category.map { HTML("<p class=\"muted\">\($0)</p>") })
                  <p class="hint">Found in: \(match.sourceName)</p>
                </div>
                """
        } else {
            found = """
                <p class="big">No match</p>
                <p class="muted">Nothing is known about this code yet. Name the item below: the code is saved with it, so the next scan finds it.</p>
                """
        }
        let existing: HTML = result.existingItems.isEmpty ? .empty : """
            <p class="notice" role="status">You already have \(result.existingItems.count == 1 ? "an item" : "\(result.existingItems.count) items") with this code: \(result.existingItems.enumerated().map { index, id in
                HTML("<a href=\"/items/\(id)\">\(result.existingItems.count == 1 ? "open it" : "item \(index + 1)")</a> ")
            })</p>
            """
        let notices: [HTML] = result.notices.map { "<li>\($0)</li>" }
        func options(_ list: [(String, String)], none: String, selected: String?) -> HTML {
            "<option value=\"\">\(none)</option>\(list.map { HTML("<option value=\"\($0.0)\"\($0.0 == selected ? HTML(raw: " selected") : .empty)>\($0.1)</option>") })"
        }
        return Layout.page(title: "Scanned", viewer: viewer, section: .capture, body: """
            <section class="card scan-result">
              <p class="code">\(result.code)\(result.gtin.map { gtin in gtin.drop { $0 == "0" } == result.code.drop { $0 == "0" } ? HTML.empty : HTML(" · GTIN \(gtin)") })</p>
              \(found)
              \(existing)
              \(notices.isEmpty ? HTML.empty : HTML("<ul class=\"notices hint\">\(notices)</ul>"))
            </section>
            <form class="card item-form" method="post" action="/items" novalidate>
              <h2>Add it to your inventory</h2>
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              <input type="hidden" name="barcode" value="\(result.code)">
              <input type="hidden" name="brand" value="\(match?.brand ?? "")">
              \(Layout.field("name", label: "Name", value: match.map { m in m.brand.map { b in m.name.localizedCaseInsensitiveContains(b) ? m.name : "\(b) \(m.name)" } ?? m.name }, errors: [], attributes: "required maxlength=\"200\""))
              <div class="two">
                <div class="field"><label for="f-roomID">Room</label><select id="f-roomID" name="roomID">\(options(rooms.map { ($0.id.description, $0.name) }, none: "No room", selected: nil))</select></div>
                <div class="field"><label for="f-categoryID">Category</label><select id="f-categoryID" name="categoryID">\(options(categories.map { ($0.id.description, $0.name) }, none: "No category", selected: suggested?.id.description))</select></div>
              </div>
              \(Layout.field("price", label: "Value (optional)", value: nil, errors: [], attributes: "inputmode=\"decimal\" autocomplete=\"off\""))
              <div class="form-actions"><a class="button" href="/capture">Scan another</a><button type="submit" class="primary">Save item</button></div>
            </form>
            """)
    }
}
