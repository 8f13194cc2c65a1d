import Foundation
import NestoryDomain

/// Homebox's CSV export (`HB.*` columns) onto Nestory items, so a Homebox user moves in with one file.
///
/// Where Nestory has a field, the value goes there: name, location → room, manufacturer → brand,
/// model number, serial number, purchase price, purchase date (or time), warranty expiry, quantity,
/// tags or labels (split like any tags, on `;`, `,` or `|`) → tags. What Nestory has no field for is kept, labelled, in the
/// notes: description, where it was bought, warranty details, asset id, lifetime warranty, sale
/// details, custom fields (`HB.field.<name>`) and the import reference. Insured and archived
/// items get the tags "insured" and "archived".
public enum HomeboxImport {
    public static func isHomebox(_ header: [String]) -> Bool {
        header.contains { $0.trimmingCharacters(in: .whitespaces) == "HB.name" }
    }

    /// Homebox's columns by their trimmed names.
    static func columns(_ header: [String]) -> [String: Int] {
        Dictionary(header.enumerated().map { ($1.trimmingCharacters(in: .whitespaces), $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// One row of the export as an item (its problems noted in `row`).
    static func item(_ row: inout RowReader, record: CSVRecord, columns: [String: Int], header: [String], options: ImportOptions) -> ImportedItem {
        let copy = row
        func value(_ key: String) -> String? { columns[key].flatMap { copy.text($0) } }
        func flag(_ key: String) -> Bool {
            guard let raw = value(key)?.lowercased() else { return false }
            return ["true", "yes", "1", "y", "x"].contains(raw)
        }

        var draft = ItemDraft(name: value("HB.name") ?? "", currency: options.currency)
        draft.brand = value("HB.manufacturer")
        draft.modelNumber = value("HB.model_number")
        draft.serialNumber = value("HB.serial_number")
        if let column = columns["HB.purchase_price"], let price = row.money(column, currency: options.currency), price.minorUnits > 0 {
            // Homebox writes 0 for a price nobody entered.
            draft.purchasePrice = price
        }
        for key in ["HB.purchase_date", "HB.purchase_time"] where draft.purchaseDate == nil {
            if let column = columns[key], let raw = row.text(column), !isZeroDate(raw) { draft.purchaseDate = row.date(column) }
        }
        if let column = columns["HB.warranty_expires"], let raw = row.text(column), !isZeroDate(raw) {
            draft.warrantyExpiry = row.date(column)
        }
        if let column = columns["HB.quantity"], let raw = row.text(column), raw != "0" {
            draft.quantity = row.quantity(column) ?? 1
        }
        var tags: [String] = []
        for key in ["HB.tags", "HB.labels"] {
            if let raw = value(key) { tags += Tag.split(raw) }
        }
        if flag("HB.insured") { tags.append("insured") }
        if flag("HB.archived") { tags.append("archived") }
        draft.tags = Tag.normalize(tags)

        var notes: [String] = []
        if let description = value("HB.description") { notes.append(description) }
        if let text = value("HB.notes") { notes.append(text) }
        if let from = value("HB.purchase_from") { notes.append("Purchased from: \(from)") }
        if let details = value("HB.warranty_details") { notes.append("Warranty: \(details)") }
        if flag("HB.lifetime_warranty") { notes.append("Lifetime warranty") }
        if let asset = value("HB.asset_id"), asset.trimmingCharacters(in: CharacterSet(charactersIn: "0-")) != "" {
            notes.append("Asset ID: \(asset)")
        }
        let sold = [("to", value("HB.sold_to")), ("on", value("HB.sold_time").flatMap { isZeroDate($0) ? nil : $0 }),
                    ("for", value("HB.sold_price").flatMap { $0 == "0" || $0 == "0.00" ? nil : $0 }), ("notes", value("HB.sold_notes"))]
            .compactMap { label, text in text.map { "\(label) \($0)" } }
        if !sold.isEmpty { notes.append("Sold " + sold.joined(separator: ", ")) }
        for (index, name) in header.enumerated() where name.hasPrefix("HB.field.") {
            if let text = row.text(index) { notes.append("\(name.dropFirst("HB.field.".count)): \(text)") }
        }
        if let reference = value("HB.import_ref") { notes.append("Homebox import ref: \(reference)") }
        draft.notes = notes.isEmpty ? nil : notes.joined(separator: "\n")

        return ImportedItem(line: record.line, draft: draft, roomName: value("HB.location").map(lastLocation), categoryName: nil)
    }

    /// Homebox writes `0001-01-01` (Go's zero time) for dates nobody entered.
    static func isZeroDate(_ raw: String) -> Bool {
        raw.hasPrefix("0001-01-01") || raw.hasPrefix("0000")
    }

    /// Nested locations are written `House / Kitchen`; the innermost is the room.
    static func lastLocation(_ raw: String) -> String {
        let parts = raw.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return parts.last ?? raw
    }
}
