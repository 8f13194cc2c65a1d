import Foundation
import NestoryDomain
import NestoryProducts

/// One of the last things captured, for the strip at the foot of every capture mode.
struct RecentCapture {
    let title: String
    let detail: String
    let href: String
    let thumbnail: String?
    let at: Date
}

/// The Capture tab: scanning a barcode, and what was found.
enum CaptureViews {
    /// The recent-captures strip (the spec's §7.2): the last items and receipts, newest first; tap to open.
    static func recent(_ captures: [RecentCapture]) -> HTML {
        guard !captures.isEmpty else { return .empty }
        return """
            <section class="card recent" aria-labelledby="recent-title">
              <h2 id="recent-title">Recent captures</h2>
              <ul class="recent-strip">\(captures.map { capture -> HTML in
                  let thumb: HTML = capture.thumbnail.map { HTML("<img src=\"/files/\($0)?size=thumb\" alt=\"\" width=\"72\" height=\"72\" loading=\"lazy\">") }
                      ?? HTML("<span class=\"placeholder\" style=\"--c:#94A3B8\" aria-hidden=\"true\">\(String(capture.title.prefix(1)))</span>")
                  return "<li><a href=\"\(capture.href)\"><span class=\"thumb\">\(thumb)</span><span class=\"name\">\(capture.title)</span><span class=\"sub\">\(capture.detail)</span></a></li>"
              })</ul>
            </section>
            """
    }

    /// The barcode mode of the Capture tab. The camera card has every state of the scan spec, each with its
    /// own actions: initializing (a skeleton until the camera answers), ready, camera unavailable, permission
    /// denied (steps per browser), not a secure page, and scanning turned off (`scanning` false: by the
    /// operator or the owner; the page then offers the other ways to add an item). With `typed` and `problem`, the
    /// "type the code" form comes back with what was typed and why it was not looked up (the field takes the focus, so
    /// the message is in view).
    static func scan(viewer: Viewer, typed: String = "", problem: String? = nil, scanning: Bool = true, recent: [RecentCapture] = []) -> HTML {
        let photoCard: HTML = """
            <section class="card" id="scan-photo-card">
              <h2>Or use a photo</h2>
              <p class="muted">Take a close, sharp photo of the barcode, or choose one.</p>
              <label class="button" for="scan-photo">Take or choose a photo</label>
              <input id="scan-photo" class="visually-hidden" type="file" accept="image/*" capture="environment" data-scan-photo>
              <p class="photo-status" role="status" aria-live="polite"></p>
              <ul class="list photo-codes" hidden></ul>
            </section>
            """
        let typeCard: HTML = """
            <section class="card">
              <h2>Or type the code</h2>
              <form method="get" action="/capture/barcode" class="type-code">
                \(Layout.field("code", label: "The number under the barcode", value: typed, errors: problem.map { [FieldError(field: "code", message: $0)] } ?? [],
                               attributes: "inputmode=\"numeric\" autocomplete=\"off\" maxlength=\"200\" required" + (problem == nil ? "" : " autofocus")))
                <button type="submit" class="primary">Look up</button>
              </form>
              <p><a href="/items/quick">No barcode? Add the item by hand</a></p>
            </section>
            """
        guard scanning else {
            return Layout.page(title: "Capture", viewer: viewer, section: .capture, body: """
                \(ReceiptViews.modes("barcode"))
                <section class="card scanner disabled" data-state="disabled" role="status">\(disabledText(viewer))</section>
                \(typeCard)
                \(Self.recent(recent))
                """)
        }
        return Layout.page(title: "Capture", viewer: viewer, section: .capture, body: """
            \(ReceiptViews.modes("barcode"))
            <section class="card scanner" data-scanner data-state="initializing" aria-labelledby="scanner-title">
              <h2 id="scanner-title">Scan a barcode</h2>
              <div class="viewfinder">
                <video muted playsinline aria-label="Camera preview"></video>
                <div class="scan-area" aria-hidden="true"></div>
                <div class="skeleton" aria-hidden="true"><span class="skeleton-frame"></span><span class="skeleton-line"></span></div>
              </div>
              \(cameraStates(guidance: "Hold the barcode flat inside the frame, in good light; it is read by itself.", purpose: "scan",
                             gallery: "scan-photo", what: "of the barcode"))
              <div class="scan-state" data-state-panel="disabled" hidden>\(disabledText(viewer))</div>
            </section>
            \(photoCard)
            \(typeCard)
            \(Self.recent(recent))
            """)
    }

    /// The status line and the panels of a camera card's states but "disabled" (app.js shows one at a time):
    /// ready's guidance; unavailable with Retry and the gallery; denied with the steps per browser, Retry and
    /// "Continue with gallery"; not a secure page. `gallery` is the id of the file input the fallbacks open.
    static func cameraStates(guidance: String, purpose: String, gallery: String, what: String) -> HTML {
        """
        <p class="scan-status" role="status" aria-live="polite">Starting the camera…</p>
        <div class="scan-state" data-state-panel="ready" hidden><p class="muted">\(guidance)</p></div>
        <div class="scan-state" data-state-panel="unavailable" hidden>
          <h3>The camera can’t be used right now</h3>
          <p class="scan-reason"></p>
          <div class="actions"><button type="button" class="primary" data-scan-retry>Retry</button>
          <label class="button" for="\(gallery)">Use a photo instead</label></div>
        </div>
        <div class="scan-state" data-state-panel="denied" hidden>
          <h3>Camera access is turned off for this site</h3>
          <p>To \(purpose), allow the camera for this site, then tap Retry:</p>
          \(permissionSteps)
          <div class="actions"><button type="button" class="primary" data-scan-retry>Retry</button>
          <label class="button" for="\(gallery)">Continue with gallery</label></div>
        </div>
        <div class="scan-state" data-state-panel="insecure" hidden>
          <h3>The camera needs a secure (https) address</h3>
          <p>Browsers only let a site use the camera over https. This page was opened over plain http, so take a
          photo \(what) instead, or ask whoever runs this Nestory server to put it behind https.</p>
          <div class="actions"><label class="button primary" for="\(gallery)">Take or choose a photo</label></div>
        </div>
        """
    }

    /// Capture, photo item mode: the camera with a shutter (every camera state as in barcode mode), then the
    /// quick form with the photo shown before anything is saved, and Retake.
    static func photoItem(viewer: Viewer, rooms: [Room], categories: [NestoryDomain.Category], today: CalendarDate,
                          recent: [RecentCapture] = []) -> HTML {
        Layout.page(title: "Capture", viewer: viewer, section: .capture, body: """
            \(ReceiptViews.modes("photo"))
            \(Layout.tip(.firstCapture, viewer: viewer, back: "/capture/photo"))
            <section class="card scanner camera" data-photo-camera data-state="initializing" aria-labelledby="camera-title">
              <h2 id="camera-title">Photograph the item</h2>
              <div class="viewfinder">
                <video muted playsinline aria-label="Camera preview"></video>
                <div class="skeleton" aria-hidden="true"><span class="skeleton-line"></span></div>
              </div>
              <div class="shutter-row" data-state-panel="ready" hidden>
                <button type="button" class="shutter" data-shutter aria-label="Take the photo"></button>
              </div>
              \(cameraStates(guidance: "Fill the frame with the item, in good light; a serial number or label can be a second photo later.",
                             purpose: "take photos", gallery: "f-photo", what: "from the gallery"))
            </section>
            \(ItemViews.quickForm(viewer: viewer, rooms: rooms, categories: categories, today: today, pickLabel: "Or choose from the gallery",
                                  cancel: "/capture", retake: true))
            \(Self.recent(recent))
            """)
    }

    /// How to allow the camera again, per browser family; the script shows the reader's own (all show without it).
    static let permissionSteps: HTML = """
        <div class="permission-steps">
          <section data-browser="safari"><h4>Safari on iPhone or iPad</h4><ol>
            <li>Tap <strong>aA</strong> (or the page menu) in the address bar.</li><li>Tap <strong>Website Settings</strong>.</li>
            <li>Set <strong>Camera</strong> to <strong>Allow</strong>.</li></ol>
            <p class="hint">Or: the Settings app → Safari → Camera → Allow.</p></section>
          <section data-browser="chrome"><h4>Chrome (Android, computer) and Edge</h4><ol>
            <li>Tap the settings icon (or the lock) left of the address.</li><li>Tap <strong>Permissions</strong> or <strong>Site settings</strong>.</li>
            <li>Set <strong>Camera</strong> to <strong>Allow</strong>.</li></ol></section>
          <section data-browser="samsung"><h4>Samsung Internet</h4><ol>
            <li>Tap the lock left of the address.</li><li>Tap <strong>Permissions</strong>.</li><li>Turn <strong>Camera</strong> on.</li></ol></section>
          <section data-browser="firefox"><h4>Firefox</h4><ol>
            <li>Tap the lock (or the camera icon) left of the address.</li><li>Remove the <strong>Blocked</strong> camera permission, or set it to <strong>Allow</strong>.</li></ol></section>
          <p class="hint">If the phone’s own settings block the browser from the camera, allow it there too (Settings → the browser → Camera).</p>
        </div>
        """

    /// The turned-off screen: why, and the other ways to add things (import only for the owner, who may).
    static func disabledText(_ viewer: Viewer) -> HTML {
        """
        <h3>Scanning is turned off</h3>
        <p>Barcode scanning has been turned off on this Nestory server for now. Nothing is lost: you can still add
        everything by hand, and the code can be typed.</p>
        <ul class="alternatives">
          <li><a class="button primary" href="/items/quick">Quick add with a photo</a></li>
          <li><a class="button" href="/items/new">Add an item with every detail</a></li>
          \(viewer.role == .owner ? HTML("<li><a class=\"button\" href=\"/settings/data\">Import from a spreadsheet</a></li>") : .empty)
        </ul>
        """
    }

    /// The result screen. `check`: the code came from an uncertain read (the API's `uncertain`), so the person is
    /// asked to compare the digits with the label first; the quick form shows once they match.
    static func result(viewer: Viewer, result: LookupResult, rooms: [Room], categories: [NestoryDomain.Category], check: Bool = false) -> HTML {
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
                <p class="muted">Nothing is known about this code yet.\(check ? "" : " Name the item below: the code is saved with it, so the next scan finds it.")</p>
                """
        }
        let existing: HTML = result.existingItems.isEmpty ? .empty : """
            <p class="notice" role="status">You already have \(result.existingItems.count == 1 ? "an item" : "\(result.existingItems.count) items") with this code: \(result.existingItems.enumerated().map { index, id in
                HTML("<a href=\"/items/\(id)\">\(result.existingItems.count == 1 ? "open it" : "item \(index + 1)")</a> ")
            })</p>
            """
        let notices: [HTML] = result.notices.map { "<li>\($0)</li>" }
        let itemForm = Self.itemForm(viewer: viewer, result: result, match: match, rooms: rooms, categories: categories, suggested: suggested)
        let path = "/capture/barcode/" + (result.code.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? result.code)
        let checkCard: HTML = check ? """
            <section class="card check-digits" role="alert" data-check-digits>
              <h2>Check the digits</h2>
              <p>The barcode was hard to read, so these digits may be wrong. Compare them with the number printed under the bars.</p>
              <p class="digits">\(result.code)</p>
              <div class="form-actions"><a class="button primary" href="\(path)" data-digits-match>They match</a></div>
              <form method="get" action="/capture/barcode" class="type-code">
                <div class="field"><label for="f-fix">Or type the number on the label</label>
                <input id="f-fix" name="code" inputmode="numeric" autocomplete="off" maxlength="200" required value="\(result.code)"></div>
                <button type="submit">Look up</button>
              </form>
            </section>
            """ : .empty
        return Layout.page(title: "Scanned", viewer: viewer, section: .capture, body: """
            \(checkCard)
            <section class="card scan-result">
              <p class="code">\(result.code)\(result.gtin.map { gtin in gtin.drop { $0 == "0" } == result.code.drop { $0 == "0" } ? HTML.empty : HTML(" · GTIN \(gtin)") })</p>
              \(found)
              \(existing)
              \(notices.isEmpty ? HTML.empty : HTML("<ul class=\"notices hint\">\(notices)</ul>"))
            </section>
            \(check ? HTML.empty : itemForm)
            """)
    }

    private static func itemForm(viewer: Viewer, result: LookupResult, match: ProductSuggestion?, rooms: [Room], categories: [NestoryDomain.Category], suggested: NestoryDomain.Category?) -> HTML {
        func options(_ list: [(String, String)], none: String, selected: String?) -> HTML {
            "<option value=\"\">\(none)</option>\(list.map { HTML("<option value=\"\($0.0)\"\($0.0 == selected ? HTML(raw: " selected") : .empty)>\($0.1)</option>") })"
        }
        return """
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
            """
    }
}
