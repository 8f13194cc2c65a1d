import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// The add/edit form's raw values (the web's forms, the API's JSON and MCP's tools alike), and their conversion to an `ItemDraft` with a message per field.
public struct ItemFormValues: Sendable {
    public var values: [String: String]

    public static let fields = ["name", "brand", "modelNumber", "serialNumber", "price", "currency", "purchaseDate", "roomID", "categoryID",
                         "condition", "conditionNotes", "barcode", "warrantyExpiry", "tags", "notes", "quantity"]

    public init(_ values: [String: String] = [:]) { self.values = values }


    public init(item: Item) {
        values = [
            "name": item.name, "brand": item.brand ?? "", "modelNumber": item.modelNumber ?? "", "serialNumber": item.serialNumber ?? "",
            "price": item.purchasePrice?.plainAmount ?? "", "currency": item.currency.code, "purchaseDate": item.purchaseDate?.iso ?? "",
            "roomID": item.roomID?.description ?? "", "categoryID": item.categoryID?.description ?? "", "condition": item.condition.rawValue,
            "conditionNotes": item.conditionNotes ?? "", "barcode": item.barcode ?? "", "warrantyExpiry": item.warrantyExpiry?.iso ?? "",
            "tags": item.tags.joined(separator: ", "), "notes": item.notes ?? "", "quantity": String(item.quantity),
        ]
    }

    public subscript(key: String) -> String { values[key] ?? "" }

    /// Parses every field, collecting all problems at once; the domain's own rules run afterwards.
    public func draft(defaultCurrency: CurrencyCode, today: CalendarDate) -> Result<ItemDraft, DomainError> {
        var errors: [FieldError] = []
        func optional(_ key: String) -> String? {
            let value = self[key].trimmingCharacters(in: .whitespacesAndNewlines)
            return value.isEmpty ? nil : value
        }
        var currency = defaultCurrency
        if let code = optional("currency") {
            do { currency = try CurrencyCode.iso(code) } catch { errors.append(FieldError(field: "currency", message: error.message)) }
        }
        var price: Money?
        if let text = optional("price") {
            do { price = try Money.parse(typed: text, currency: currency) } catch {
                errors.append(FieldError(field: "price", message: error.message))
            }
        }
        func date(_ key: String) -> CalendarDate? {
            guard let text = optional(key) else { return nil }
            do { return try CalendarDate(iso: text) } catch {
                errors.append(FieldError(field: key, message: error.message))
                return nil
            }
        }
        let purchaseDate = date("purchaseDate")
        let warranty = date("warrantyExpiry")
        var quantity = 1
        if let text = optional("quantity") {
            if let value = Int(text) { quantity = value } else {
                errors.append(FieldError(field: "quantity", message: "Quantity is a whole number such as 1 or 4."))
            }
        }
        func id<ID>(_ key: String, _ what: String, _ make: (String) -> ID?) -> ID? {
            do { return try optionalID(optional(key), field: key, what: what, make) } catch {
                errors += FieldErrors.fields(of: error)
                return nil
            }
        }
        let categoryID = id("categoryID", "The category", CategoryID.init(string:))
        let roomID = id("roomID", "The room", RoomID.init(string:))
        var condition = ItemCondition.good
        if let text = optional("condition") {
            if let value = ItemCondition(rawValue: text) { condition = value } else {
                let names = ItemCondition.allCases.map(\.rawValue)
                errors.append(FieldError(field: "condition", message: "Choose a condition: \(names.dropLast().joined(separator: ", ")) or \(names.last!)."))
            }
        }
        let draft = ItemDraft(
            name: self["name"], brand: optional("brand"), modelNumber: optional("modelNumber"), serialNumber: optional("serialNumber"),
            purchasePrice: price, purchaseDate: purchaseDate, currency: currency,
            categoryID: categoryID, roomID: roomID,
            condition: condition, conditionNotes: optional("conditionNotes"), barcode: optional("barcode"), warrantyExpiry: warranty,
            tags: Tag.split(self["tags"]), notes: optional("notes"), quantity: quantity)
        // The domain's rules too, so every problem is reported at once (form errors win per field), each on the
        // form's field: the domain's `purchasePrice` is the form's (and the API's) `price`, so a negative price is
        // marked under the field it was typed in.
        do {
            let valid = try draft.validated(today: today)
            if errors.isEmpty { return .success(valid) }
        } catch {
            if case .validation(let domainErrors) = error {
                let reported = Set(errors.map(\.field))
                errors += domainErrors.map { $0.field == "purchasePrice" ? FieldError(field: "price", message: $0.message) : $0 }
                    .filter { !reported.contains($0.field) }
            }
        }
        return .failure(.validation(errors))
    }
}

/// An optional id from a form field or a query parameter: empty or absent means none; anything else must
/// be an id, or the request is refused (422) with a message on that field, never silently dropped.
public func optionalID<ID>(_ raw: (some StringProtocol)?, field: String, what: String, _ make: (String) -> ID?) throws(DomainError) -> ID? {
    guard let raw = raw.map({ String($0).trimmingCharacters(in: .whitespacesAndNewlines) }), !raw.isEmpty else { return nil }
    guard let id = make(raw) else {
        throw DomainError.invalid(field: field, message: "\(what) is not one of yours: choose it from the list.")
    }
    return id
}

/// The item form as it was shown for one version of an item: its values then and that version (the item's
/// `updatedAt`), carried by the form so a save can tell its own changes from changes saved meanwhile.
public struct ItemFormBase: Sendable {
    public var values: ItemFormValues
    public var version: Date

    public init(item: Item) {
        values = ItemFormValues(item: item)
        version = item.updatedAt
    }

    /// From the form's hidden fields (`encoded` and `versionText`); nil when they are missing or not this shape.
    public init?(encoded: String?, version: String?) {
        guard let encoded, let version, let millis = Int64(version),
              let values = try? JSONDecoder().decode([String: String].self, from: Data(encoded.utf8)) else { return nil }
        self.values = ItemFormValues(values)
        self.version = Date(millis: millis)
    }

    public var encoded: String { String(decoding: (try? JSONEncoder().encode(values.values)) ?? Data("{}".utf8), as: UTF8.self) }
    public var versionText: String { String(version.millis) }
}

extension ItemFormValues {
    /// These values, posted from a form that showed `base`, merged onto `saved` (the item's values now): a field only
    /// this edit changed takes this edit's value, one only the other change touched keeps the saved value, and one both
    /// changed to different values is a conflict (the saved value is kept and the field named).
    public func merged(base: ItemFormValues, saved: ItemFormValues) -> (values: ItemFormValues, conflicts: [String]) {
        let merge = FormMerge.merge(Self.fields, mine: values, base: base.values, saved: saved.values, comparable: Self.comparable)
        return (ItemFormValues(merge.values), merge.conflicts)
    }

    /// A field's value as far as a change goes: spacing around it, a currency code's case and how tags are written
    /// are not changes.
    static func comparable(_ field: String, _ value: String) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        switch field {
        case "currency": return trimmed.uppercased()
        case "tags": return Tag.normalize(Tag.split(trimmed)).joined(separator: "\u{1F}")
        default: return trimmed
        }
    }
}

/// The three-way merge of a form's edit onto the values saved since the form was shown, field by field: a field only
/// the edit changed takes the edit's value, one only the other change touched keeps the saved value, and one both
/// changed to different values is a conflict (the saved value is kept and the field named). A field the edit does not
/// have is one it left alone. `comparable` says which differences count as a change.
enum FormMerge {
    static func merge(_ fields: [String], mine: [String: String], base: [String: String], saved: [String: String],
                      comparable: (String, String) -> String) -> (values: [String: String], conflicts: [String]) {
        var merged = saved
        var conflicts: [String] = []
        for field in fields {
            guard let mineNow = mine[field] else { continue }
            let edited = comparable(field, mineNow), was = comparable(field, base[field] ?? ""), now = comparable(field, saved[field] ?? "")
            if edited == was || edited == now { continue }
            if was == now { merged[field] = mineNow } else { conflicts.append(field) }
        }
        return (merged, conflicts)
    }
}
