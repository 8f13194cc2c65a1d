import Foundation
import NestoryDomain

/// A value given for a field as JSON (an API body, an assistant's tool arguments), before it is read as the text a
/// form would have sent.
public enum JSONField: Sendable, Equatable, Decodable {
    case text(String)
    /// A JSON number, as its decimal text (exact: `1299.99` stays 1299.99).
    case number(String)
    case bool(Bool)
    case null
    case list([JSONField])
    case object([String: JSONField])

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
        } else if let value = try? container.decode([JSONField].self) {
            self = .list(value)
        } else {
            self = .object(try container.decode([String: JSONField].self))
        }
    }
}

/// Reading a JSON body's fields as a form's texts: every key is one of the fields (or answered-only and ignored), and
/// every value of a kind the field takes, or the key is a problem named in the answer, never dropped in silence (a
/// misspelt field would otherwise be left out and the request answered as done).
public enum JSONFields {
    /// The texts of `fields`: text, or a number's exact text for the `numeric` keys; null is empty. `thing` names what
    /// the fields are of, for the problems ("a valuation").
    public static func texts(_ fields: [String: JSONField], known: [String], numeric: Set<String> = [], of thing: String,
                             ignoring ignored: Set<String> = []) -> Result<[String: String], DomainError> {
        var texts: [String: String] = [:]
        var errors: [FieldError] = []
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard known.contains(key) else {
                if !ignored.contains(key) { errors.append(unknown(key, of: thing, fields: known)) }
                continue
            }
            switch value {
            case .null: texts[key] = ""
            case .text(let text): texts[key] = text
            case .number(let text) where numeric.contains(key): texts[key] = text
            default: errors.append(wrongKind(key, numeric: numeric.contains(key)))
            }
        }
        return errors.isEmpty ? .success(texts) : .failure(.validation(errors))
    }

    /// The problem of a key that is not one of `fields`, with the field it most likely meant (or the list of them).
    /// `noun` is what the keys are called ("an argument" of a tool).
    public static func unknown(_ key: String, of thing: String, fields: [String], noun: (one: String, many: String) = ("a field", "fields")) -> FieldError {
        let hint = Text.closest(to: key, among: fields).map { " (did you mean “\($0)”?)" }
            ?? (fields.isEmpty ? ": it takes none" : ": the \(noun.many) of \(thing) are \(fields.joined(separator: ", "))")
        return FieldError(field: String(key.prefix(60)), message: "“\(key.prefix(60))” is not \(noun.one) of \(thing)\(hint).")
    }

    /// An amount as the API and the tools answer it, `{"amount": "1299.99", "currency": "EUR", …}`: its amount (text or a
    /// number's text) and its currency when given; nil for any other shape.
    public static func answeredAmount(_ money: [String: JSONField]) -> (amount: String, currency: String?)? {
        switch (money["amount"], money["currency"]) {
        case (.text(let amount)?, .text(let currency)?), (.number(let amount)?, .text(let currency)?): return (amount, currency)
        case (.text(let amount)?, nil), (.number(let amount)?, nil): return (amount, nil)
        default: return nil
        }
    }

    /// An amount given as the API answers it (`answeredAmount`) under `key` of a body whose own currency is its
    /// `currency` key: the amount's text, and either the currency the body takes from it (when the body gives none) or
    /// the problem of a different one, on `key` (amounts are never converted). `label` names the amount ("The price"),
    /// `owner` whose currency it is ("the item’s"). Nil for any other shape.
    public static func answeredAmount(_ money: [String: JSONField], key: String, in body: [String: JSONField], label: String,
                                      owner: String) -> (amount: String, takes: String?, problem: FieldError?)? {
        guard let (amount, currency) = answeredAmount(money) else { return nil }
        guard let currency else { return (amount, nil, nil) }
        switch body["currency"] {
        case .text(let stated)?:
            guard !sameCurrency(stated, currency) else { return (amount, nil, nil) }
            return (amount, nil, FieldError(field: key, message: "\(label) is in \(currency.prefix(10)) but \(owner) currency is \(stated.prefix(10)): give one currency."))
        case nil, .null?: return (amount, currency, nil)
        default: return (amount, nil, nil)  // the currency's own problem is said on it
        }
    }

    /// Whether two currency codes as given name the same one (" eur" and "EUR").
    public static func sameCurrency(_ a: String, _ b: String) -> Bool {
        func code(_ text: String) -> String { text.trimmingCharacters(in: .whitespaces).uppercased() }
        return code(a) == code(b)
    }

    /// The problem of a value of a kind `key` does not take.
    public static func wrongKind(_ key: String, numeric: Bool) -> FieldError {
        FieldError(field: key, message: numeric ? "Give \(key) as text such as \"1299.99\" (or a number)." : "Give \(key) as text, in quotes.")
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
    public static func reading(_ fields: [String: JSONField], over base: ItemFormValues,
                               ignoring ignored: Set<String> = []) -> Result<ItemFormValues, DomainError> {
        var values = base
        var errors: [FieldError] = []
        let known = Set(Self.fields)
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard known.contains(key) else {
                if !ignored.contains(key) { errors.append(JSONFields.unknown(key, of: "an item", fields: Self.fields)) }
                continue
            }
            switch (key, value) {
            case (_, .null):
                values.values[key] = ""
            case ("price", .text(let text)), ("price", .number(let text)), ("quantity", .text(let text)), ("quantity", .number(let text)):
                values.values[key] = text
            case ("price", .object(let money)):
                guard let read = JSONFields.answeredAmount(money, key: key, in: fields, label: "The price", owner: "the item’s") else {
                    errors.append(FieldError(field: key, message: Self.kindMessage(key)))
                    continue
                }
                values.values[key] = read.amount
                if let problem = read.problem { errors.append(problem) } else if let currency = read.takes { values.values["currency"] = currency }
            case ("tags", .list(let list)):
                let texts = list.compactMap { element -> String? in if case .text(let text) = element { return text } else { return nil } }
                if texts.count == list.count { values.values[key] = texts.joined(separator: ",") } else {
                    errors.append(FieldError(field: key, message: Self.kindMessage(key)))
                }
            case (_, .text(let text)):
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
        default: return JSONFields.wrongKind(key, numeric: false).message
        }
    }
}
