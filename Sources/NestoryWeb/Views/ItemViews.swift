import Foundation
import NestoryDomain
import NestoryServices

/// Item detail and the add/edit form.
enum ItemViews {
    static func detail(viewer: Viewer, details: ItemDetails, room: Room?, category: NestoryDomain.Category?, notice: String?,
                       today: CalendarDate, value: HTML = .empty) -> HTML {
        let item = details.item
        let status = details.documentation
        let count = details.photos.count
        // The photos: swipe or scroll on a phone; on any screen the arrows, the dots, the arrow keys and the
        // count ("2 of 3"); each opens full size.
        let slides: [HTML] = details.photos.enumerated().map { index, photo in
            // Full size is the display rendition (the original would download, with its location metadata).
            """
                <a class="slide" id="photo-\(index + 1)" href="/files/\(photo.attachment.sha256)?size=display" target="_blank" rel="noopener" \
                aria-label="Open photo \(index + 1) of \(count) full size"><img src="/files/\(photo.attachment.sha256)?size=display" \
                alt="Photo \(index + 1) of \(count) of \(item.name)" loading="\(index == 0 ? "eager" : "lazy")"></a>
                """
        }
        let controls: HTML = count < 2 ? .empty : """
            <div class="carousel-controls">
              <button type="button" class="small" data-carousel-prev aria-label="Previous photo" disabled>‹</button>
              <span class="dots">\((1...count).map { n -> HTML in
                  "<button type=\"button\" class=\"dot\" data-carousel-to=\"\(n - 1)\" aria-label=\"Show photo \(n)\"\(n == 1 ? HTML(raw: " aria-current=\"true\"") : .empty)></button>"
              })</span>
              <span class="carousel-count" aria-live="polite">1 of \(count)</span>
              <button type="button" class="small" data-carousel-next aria-label="Next photo">›</button>
            </div>
            """
        let photos: HTML = details.photos.isEmpty
            ? "<div class=\"carousel empty\"><span class=\"placeholder big\" style=\"--c:\(category?.colorHex ?? "#94A3B8")\" aria-hidden=\"true\">\(String((category?.name ?? item.name).prefix(1)))</span><p>No photo yet</p></div>"
            : """
              <div class="photos" data-carousel>
              <div class="carousel" tabindex="0" role="region" aria-roledescription="carousel" aria-label="Photos of \(item.name) (\(count)); arrow keys move between them">\(slides)</div>
              \(controls)
              </div>
              """
        // Each photo with its own actions: move it earlier or later (the first is the main photo), make it the
        // main one, or remove it (confirmed).
        let managePhotos: HTML = details.photos.count < 1 ? .empty : """
            <details class="card manage-photos"><summary>Manage photos (\(details.photos.count))</summary>
            <p class="hint">The first photo is the main one: it shows in lists and reports.</p>
            <ul class="photo-list">\(details.photos.enumerated().map { index, photo -> HTML in
                let main: HTML = photo.isPrimary ? HTML("<span class=\"pill\">Main photo</span>") : """
                    <form method="post" action="/items/\(item.id)/photos/\(photo.id)/main"><input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                    <button type="submit" class="small">Make main</button></form>
                    """
                let move: HTML = count < 2 ? .empty : """
                    <form method="post" action="/items/\(item.id)/photos/\(photo.id)/move" class="move"><input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                    <button type="submit" name="direction" value="earlier" class="small" aria-label="Move photo \(index + 1) earlier"\(index == 0 ? HTML(raw: " disabled") : .empty)>↑</button>
                    <button type="submit" name="direction" value="later" class="small" aria-label="Move photo \(index + 1) later"\(index == count - 1 ? HTML(raw: " disabled") : .empty)>↓</button></form>
                    """
                return """
                    <li><img src="/files/\(photo.attachment.sha256)?size=thumb" alt="Photo \(index + 1) of \(item.name)" loading="lazy">
                    \(main)
                    \(move)
                    <form method="post" action="/items/\(item.id)/photos/\(photo.id)/remove" data-confirm="Remove photo \(index + 1)? It is deleted from this item.">
                    <input type="hidden" name="_csrf" value="\(viewer.csrfToken)"><button type="submit" class="small danger" aria-label="Remove photo \(index + 1)">Remove</button></form></li>
                    """
            })</ul></details>
            """
        let brandModel = [item.brand, item.modelNumber].compactMap { $0 }.joined(separator: " · ")
        let pills: HTML = """
            <p class="pills">\(room.map { HTML("<a class=\"pill\" href=\"/?room=\($0.id)\">\($0.name)</a>") } ?? HTML("<span class=\"pill missing\">No room</span>"))\
            \(category.map { HTML("<a class=\"pill\" style=\"--c:\($0.colorHex)\" href=\"/?category=\($0.id)\">\($0.name)</a>") } ?? HTML("<span class=\"pill missing\">No category</span>"))</p>
            """
        let price: String = item.purchasePrice.map { price in
            item.quantity > 1 ? "\(price.formatted) × \(item.quantity) = \(item.totalValue?.formatted ?? "")" : price.formatted
        } ?? "Not entered"
        let facts: HTML = """
            <dl class="facts">
              <dt>Purchase price</dt><dd>\(price)</dd>
              <dt>Purchase date</dt><dd>\(item.purchaseDate.map { viewer.day($0) } ?? "Not entered")</dd>
              \(item.serialNumber.map { HTML("<dt>Serial number</dt><dd class=\"mono\">\($0)</dd>") })
              <dt>Condition</dt><dd>\(item.condition.label)\(item.conditionNotes.map { HTML(" — \($0)") })</dd>
              \(item.barcode.map { HTML("<dt>Barcode</dt><dd class=\"mono\">\($0)</dd>") })
              \(item.tags.isEmpty ? HTML.empty : HTML("<dt>Tags</dt><dd>\(item.tags.map { HTML("<a class=\"tag\" href=\"/?tag=\($0)\">\($0)</a>") })</dd>"))
              \(item.notes.map { HTML("<dt>Notes</dt><dd class=\"notes\">\($0)</dd>") })
            </dl>
            """
        let missing: [HTML] = status.missing.map { aspect in
            "<li><details><summary>No \(aspect.label.lowercased())</summary><p>\(aspect.missingHelp)</p></details></li>"
        }
        let documentation: HTML = """
            <section class="card">
              <h2>Documentation</h2>
              \(InventoryViews.badges(status, compact: false))
              <p class="muted">\(status.isDocumented ? "Documented: it has a photo, a value, a category and a room." : "Not yet documented. " + DocumentationScore.explanation)</p>
              \(missing.isEmpty ? HTML.empty : HTML("<h3>What’s missing?</h3><ul class=\"missing\">\(missing)</ul>"))
            </section>
            """
        let receipts: [HTML] = details.receipts.map { receipt in
            """
            <li><a class="row receipt-row" href="/receipts/\(receipt.id)"><img src="/files/\(receipt.attachment.sha256)?size=thumb" alt="" width="48" height="48">\
            <span class="text">\(receipt.vendor ?? "Receipt") · \(receipt.purchaseDate.map { viewer.day($0) } ?? "no date") · \(receipt.total?.formatted ?? "no amount")</span></a></li>
            """
        }
        let warranty: HTML = item.warrantyExpiry.map { date in
            let days = date.daysSinceEpoch - today.daysSinceEpoch
            let when = days < 0 ? "expired \(-days) days ago" : days == 0 ? "expires today" : "expires in \(days) days"
            return "<p>Warranty until \(viewer.day(date)) (\(when)).</p>"
        } ?? "<p class=\"muted\">No warranty date. <a href=\"/items/\(item.id)/edit#f-warrantyExpiry\">Set warranty expiry</a></p>"
        let actions: HTML = """
            <nav class="quick-actions" aria-label="Item actions">
              <a class="button" href="/items/\(item.id)/edit">Edit</a>
              <label class="button" for="photo-upload">Add photo</label>
              <a class="button" href="/capture/receipt?item=\(item.id)">Add receipt</a>
              <a class="button" href="/reports/loss?item=\(item.id)">Add to loss list</a>
            </nav>
            <input id="photo-upload" class="visually-hidden" type="file" accept="image/*" capture="environment" multiple
                   data-upload="/api/v1/items/\(item.id)/photos" data-item="\(item.id)">
            <progress class="upload-progress" hidden max="100" value="0"></progress>
            <p class="upload-status" role="status" aria-live="polite"></p>
            """
        return Layout.page(title: item.name, viewer: viewer, section: .inventory, body: """
            \(Layout.notice(notice))
            <article class="detail">
            \(photos)
            \(managePhotos)
            <section class="card">
              \(brandModel.isEmpty ? HTML.empty : HTML("<p class=\"brand\">\(brandModel)</p>"))
              \(pills)
              \(facts)
            </section>
            \(value)
            \(documentation)
            <section class="card"><h2>Receipts</h2>
              \(receipts.isEmpty ? HTML("<p class=\"muted\">No receipt linked. \(DocumentationAspect.receipt.missingHelp)</p>") : HTML("<ul class=\"list\">\(receipts)</ul>"))
              <p><a class="button" href="/capture/receipt?item=\(item.id)">Add receipt</a></p>
            </section>
            <section class="card"><h2>Warranty</h2>\(warranty)</section>
            <section class="card danger-zone">
              <form method="post" action="/items/\(item.id)/delete" data-confirm="Delete \(item.name)? Its photos are deleted too; receipts are kept.">
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                <button type="submit" class="danger">Delete item</button>
              </form>
            </section>
            </article>
            \(actions)
            """)
    }

    /// The spec's quick add: the photo first, then name, room and category. With script, the item and its
    /// photo are saved in one go through the API; without it, the form still adds the item.
    static func quickAdd(viewer: Viewer, rooms: [Room], categories: [NestoryDomain.Category], today: CalendarDate) -> HTML {
        Layout.page(title: "Quick add", viewer: viewer, section: .inventory,
                    body: quickForm(viewer: viewer, rooms: rooms, categories: categories, today: today))
    }

    /// The quick form (photo, name, room, category, optional value and date), on Quick add and in Capture's
    /// photo item mode (which fills the photo from the camera and offers Retake).
    static func quickForm(viewer: Viewer, rooms: [Room], categories: [NestoryDomain.Category], today: CalendarDate,
                          pickLabel: String = "Take or choose a photo", cancel: String = "/", retake: Bool = false) -> HTML {
        func options(_ list: [(String, String)], none: String) -> HTML {
            "<option value=\"\">\(none)</option>\(list.map { HTML("<option value=\"\($0.0)\">\($0.1)</option>") })"
        }
        return """
            <form class="card item-form" method="post" action="/items" data-quick-add novalidate>
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              <label class="photo-pick" for="f-photo">
                <img class="preview" alt="The photo to save" hidden>
                <span>\(pickLabel)</span>
              </label>
              <input id="f-photo" class="visually-hidden" type="file" accept="image/*" capture="environment">
              \(retake ? HTML("<p><button type=\"button\" class=\"button\" data-retake hidden>Retake</button></p>") : .empty)
              \(Layout.field("name", label: "Name", value: nil, errors: [], attributes: "required maxlength=\"200\""))
              <div class="two">
                <div class="field"><label for="f-roomID">Room</label><select id="f-roomID" name="roomID">\(options(rooms.map { ($0.id.description, $0.name) }, none: "No room"))</select></div>
                <div class="field"><label for="f-categoryID">Category</label><select id="f-categoryID" name="categoryID">\(options(categories.map { ($0.id.description, $0.name) }, none: "No category"))</select></div>
              </div>
              <div class="two">
              \(Layout.field("price", label: "Value (optional)", value: nil, errors: [], attributes: "inputmode=\"decimal\" autocomplete=\"off\""))
              \(Layout.field("purchaseDate", label: "Date bought", value: nil, type: "date", errors: [], attributes: "max=\"\(today.iso)\""))
              </div>
              <p class="upload-status" role="status" aria-live="polite"></p>
              <div class="form-actions"><a class="button" href="\(cancel)">Cancel</a><button type="submit" class="primary">Save</button></div>
            </form>
            """
    }

    /// The form's fields by name as a sentence names them ("Purchase price was changed…"), beside the labels below.
    static let fieldNames = ["name": "Name", "brand": "Brand", "modelNumber": "Model", "serialNumber": "Serial number", "price": "Purchase price",
                             "currency": "Currency", "purchaseDate": "Purchase date", "roomID": "Room", "categoryID": "Category",
                             "condition": "Condition", "conditionNotes": "Condition notes", "barcode": "Barcode", "warrantyExpiry": "Warranty expires",
                             "tags": "Tags", "notes": "Notes", "quantity": "Quantity"]

    /// The add form, or with `item` its edit form; `base` is what the edit form showed first (see `ItemFormBase`). `today`
    /// (the household's) is the last purchase date the date picker offers.
    static func form(viewer: Viewer, values: ItemFormValues, item: Item?, base: ItemFormBase?, rooms: [Room], categories: [NestoryDomain.Category],
                     errors: [FieldError], today: CalendarDate) -> HTML {
        /// A choice; `none` is the empty choice's label, or nil when a value is always chosen (`fallback` then).
        func select(_ name: String, label: String, options: [(String, String)], none: String?, fallback: String? = nil) -> HTML {
            let current = values[name].isEmpty ? (fallback ?? "") : values[name]
            let message = errors.first { $0.field == name }?.message
            return """
                <div class="field\(message == nil ? "" : " invalid")"><label for="f-\(name)">\(label)</label>
                <select id="f-\(name)" name="\(name)">\(none.map { HTML("<option value=\"\">\($0)</option>") })\(options.map { value, text in
                    HTML("<option value=\"\(value)\"\(value == current ? HTML(raw: " selected") : .empty)>\(text)</option>") })</select>
                \(message.map { HTML("<p class=\"error\">\($0)</p>") })</div>
                """
        }
        let action = item.map { "/items/\($0.id)" } ?? "/items"
        // A new item takes its photos on the form itself; the script saves the item, then uploads them with
        // progress. Without script the field stays hidden (photos are added from the item's page).
        let photoField: HTML = item != nil ? .empty : """
            <div class="field form-photos" data-form-photos hidden>
              <label for="f-photos">Photos (optional)</label>
              <input id="f-photos" type="file" accept="image/*" multiple aria-describedby="f-photos-hint">
              <p class="hint" id="f-photos-hint">Take or choose one or more; the first is the main photo.</p>
              <div class="previews"></div>
              <progress class="upload-progress" hidden max="100" value="0"></progress>
              <p class="upload-status" role="status" aria-live="polite"></p>
            </div>
            """
        let title = item == nil ? "Add item" : "Edit item"
        let conditions = ItemCondition.allCases.map { ($0.rawValue, $0.label) }
        // The first marked field has the focus, so a phone scrolls to it (a warranty date is far below the name);
        // without a mistake, the name has it.
        let typed = ["name", "price", "quantity", "purchaseDate", "brand", "modelNumber", "serialNumber", "conditionNotes", "warrantyExpiry", "barcode", "tags"]
        let focused = typed.first { field in errors.contains { $0.field == field } } ?? "name"
        func focus(_ name: String) -> String { name == focused ? " autofocus" : "" }
        return Layout.page(title: title, viewer: viewer, section: .inventory, body: """
            <form class="card item-form" method="post" action="\(action)" novalidate>
              \(Layout.errorSummary(errors))
              <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
              \(base.map { HTML("<input type=\"hidden\" name=\"baseVersion\" value=\"\($0.versionText)\"><input type=\"hidden\" name=\"base\" value=\"\($0.encoded)\">") })
              \(Layout.field("name", label: "Name", value: values["name"], errors: errors, attributes: "required maxlength=\"200\"" + focus("name")))
              \(photoField)
              <div class="two">
              \(select("roomID", label: "Room", options: rooms.map { ($0.id.description, $0.name) }, none: "No room"))
              \(select("categoryID", label: "Category", options: categories.map { ($0.id.description, $0.name) }, none: "No category"))
              </div>
              <div class="two">
              \(Layout.field("price", label: "Purchase price (each)", value: values["price"], errors: errors, attributes: "inputmode=\"decimal\" autocomplete=\"off\" placeholder=\"0.00\"" + focus("price")))
              \(Layout.field("quantity", label: "Quantity", value: values["quantity"], type: "number", errors: errors, attributes: "min=\"1\" max=\"100000\" step=\"1\"" + focus("quantity")))
              </div>
              <div class="two">
              \(Layout.currencySelect(label: "Currency", selected: values["currency"].isEmpty ? viewer.household.currency.code : values["currency"].uppercased(),
                                     errors: errors, locale: viewer.locale))
              \(Layout.field("purchaseDate", label: "Purchase date", value: values["purchaseDate"], type: "date", errors: errors,
                             attributes: "max=\"\(today.iso)\"" + focus("purchaseDate")))
              </div>
              <div class="two">
              \(Layout.field("brand", label: "Brand", value: values["brand"], errors: errors, attributes: focus("brand")))
              \(Layout.field("modelNumber", label: "Model", value: values["modelNumber"], errors: errors, attributes: focus("modelNumber")))
              </div>
              \(Layout.field("serialNumber", label: "Serial number", value: values["serialNumber"], errors: errors, attributes: "autocapitalize=\"characters\" spellcheck=\"false\"" + focus("serialNumber")))
              \(select("condition", label: "Condition", options: conditions, none: nil, fallback: ItemCondition.good.rawValue))
              \(Layout.field("conditionNotes", label: "Condition notes", value: values["conditionNotes"], errors: errors, attributes: focus("conditionNotes")))
              \(Layout.field("warrantyExpiry", label: "Warranty expires", value: values["warrantyExpiry"], type: "date", errors: errors, attributes: focus("warrantyExpiry")))
              \(Layout.field("barcode", label: "Barcode", value: values["barcode"], errors: errors, attributes: "inputmode=\"numeric\"" + focus("barcode")))
              \(Layout.field("tags", label: "Tags", value: values["tags"], errors: errors, attributes: focus("tags"), hint: "Separate tags with commas, e.g. insured, gift"))
              <div class="field"><label for="f-notes">Notes</label><textarea id="f-notes" name="notes" rows="4">\(values["notes"])</textarea></div>
              <div class="form-actions">
                <a class="button" href="\(item.map { "/items/\($0.id)" } ?? "/")">Cancel</a>
                <button type="submit" class="primary">\(item == nil ? "Add item" : "Save changes")</button>
              </div>
            </form>
            """)
    }
}
