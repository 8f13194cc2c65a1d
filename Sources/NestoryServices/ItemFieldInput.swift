import Foundation
import NestoryDomain

/// A value given for one of an item's fields as JSON (the API's body, an assistant's tool arguments), before it is
/// read as the item form's text.
public enum ItemFieldInput: Sendable, Equatable, Decodable {
    case text(String)
    /// A JSON number, as its decimal text (exact: `1299.99` stays 1299.99).
    case number(String)
    case bool(Bool)
    case null
    case list([ItemFieldInput])
    case object([String: ItemFieldInput])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .text(value)
        } else if let value = try? container.decode(Decimal.self) {
            self = .number(value.description)
        } else if let value = try? container.decode(Double.self) {
            // Beyond Decimal's range (1e308): its text, which no amount or quantity accepts.
            self = .number(String(value))
        } else if let value = try? container.decode([ItemFieldInput].self) {
            self = .list(value)
        } else {
            self = .object(try container.decode([String: ItemFieldInput].self))
        }
    }
}

extension ItemFormValues {
    /// The fields given as JSON over `base`. A field not given keeps `base`'s value; `null` empties it. The text
    /// fields take text; `price` takes text, a number, or the price as the API and the tools answer it
    /// (`{"amount": "1299.99", "currency": "EUR"}`, whose currency becomes the item's when none is given beside it);
    /// `quantity` a whole number (or its text); `tags` a list of texts (or one text, split like the form's).
    ///
    /// A key that is neither an item field nor in `ignored` (what reading an item answers besides its fields, so an
    /// item read can be sent back changed), or a value of the wrong kind, is a problem on that key, never dropped in
    /// silence: a misspelt `purchasePrice` would otherwise leave the price empty and answer as if it were saved.
    /// Every problem is reported at once; the values' own rules are `draft`'s.
    public static func reading(_ fields: [String: ItemFieldInput], over base: ItemFormValues,
                               ignoring ignored: Set<String> = []) -> Result<ItemFormValues, DomainError> {
        var values = base
        var errors: [FieldError] = []
        let known = Set(Self.fields)
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard known.contains(key) else {
                if ignored.contains(key) { continue }
                let hint = Text.closest(to: key, among: Self.fields).map { " (did you mean “\($0)”?)" }
                    ?? ": an item’s fields are \(Self.fields.joined(separator: ", "))"
                errors.append(FieldError(field: String(key.prefix(60)), message: "“\(key.prefix(60))” is not a field of an item\(hint)."))
                continue
            }
            switch (key, value) {
            case (_, .null):
                values.values[key] = ""
            case ("price", .text(let text)), ("price", .number(let text)), ("quantity", .text(let text)), ("quantity", .number(let text)):
                values.values[key] = text
            case ("price", .object(let money)):
                switch (money["amount"], money["currency"]) {
                case (.text(let amount)?, .text(let currency)?), (.number(let amount)?, .text(let currency)?):
                    values.values[key] = amount
                    if case .text(let itemCurrency)? = fields["currency"] {
                        func code(_ text: String) -> String { text.trimmingCharacters(in: .whitespaces).uppercased() }
                        if code(itemCurrency) != code(currency) {
                            errors.append(FieldError(field: key, message: "The price is in \(currency.prefix(10)) but the item’s currency is \(itemCurrency.prefix(10)): give one currency."))
                        }
                    } else if fields["currency"] == nil || fields["currency"] == .null {
                        values.values["currency"] = currency
                    }
                case (.text(let amount)?, nil), (.number(let amount)?, nil):
                    values.values[key] = amount
                default:
                    errors.append(FieldError(field: key, message: Self.kindMessage(key)))
                }
            case ("tags", .list(let list)):
                let texts = list.compactMap { element -> String? in if case .text(let text) = element { return text } else { return nil } }
                if texts.count == list.count { values.values[key] = texts.joined(separator: ",") } else {
                    errors.append(FieldError(field: key, message: Self.kindMessage(key)))
                }
            case (_, .text(let text)) where key != "quantity":
                values.values[key] = text
            default:
                errors.append(FieldError(field: key, message: Self.kindMessage(key)))
            }
        }
        return errors.isEmpty ? .success(values) : .failure(.validation(errors))
    }

    /// What a field takes, for a value of another kind.
    static func kindMessage(_ key: String) -> String {
        switch key {
        case "price": return "Give the price as text such as \"1299.99\" (or a number)."
        case "quantity": return "Give the quantity as a whole number such as 1 or 4."
        case "tags": return "Give the tags as a list of texts, such as [\"kitchen\", \"gift\"]."
        case "barcode": return "Give the barcode as text, in quotes, so its leading zeros are kept."
        default: return "Give \(key) as text, in quotes."
        }
    }
}
