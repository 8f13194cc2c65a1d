import Foundation
import NestoryDomain

/// A JSON value, for schemas sent to providers and answers read back without trusting their shape.
public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    /// A whole number (what requests send: token limits, result counts).
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The type's name as JSON Schema says it.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer, .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// The strict JSON schema a photo analysis answers in (OpenAI's structured outputs: every property required,
/// the optional ones typed `["string", "null"]`, no other keys), and the server's own check of an answer against
/// it: whatever an endpoint claims about honouring the schema, its answer is validated here.
public enum IdentificationSchema {
    public static let name = "item_identification"

    struct Field {
        let key: String
        let nullable: Bool
        let maxLength: Int
        let values: [String]?
        let description: String
    }

    /// The fields, in order. Lengths are bounded by the server's check (strict mode does not take `maxLength`).
    static let fields: [Field] = [
        Field(key: "brand", nullable: false, maxLength: 100, values: nil,
              description: "The maker's brand as printed on the item or its label. Never empty: write Unknown if none is visible."),
        Field(key: "product_name", nullable: false, maxLength: 200, values: nil,
              description: "What the item is, as specific as the photos allow (\"Bravia X80K 55-inch 4K TV\")."),
        Field(key: "model", nullable: true, maxLength: 100, values: nil, description: "The model number or name if visible, else null."),
        Field(key: "barcode", nullable: true, maxLength: 64, values: nil, description: "The digits of a barcode (EAN/UPC) if readable, else null."),
        Field(key: "condition", nullable: true, maxLength: 16, values: ItemCondition.allCases.map(\.rawValue),
              description: "The item's visible condition, or null if the photos cannot tell."),
        Field(key: "sizes", nullable: true, maxLength: 200, values: nil,
              description: "Sizes or dimensions as seen (\"55 in\", \"Queen\", \"EU 42\"), else null."),
        Field(key: "category", nullable: true, maxLength: 100, values: nil,
              description: "A category for the item: one of the household's categories if one fits, else a short name."),
        Field(key: "description", nullable: true, maxLength: 1000, values: nil,
              description: "One or two sentences an insurer would find useful: colour, material, notable features or damage."),
    ]

    /// The JSON Schema of an answer.
    public static var schema: JSONValue {
        var properties: [String: JSONValue] = [:]
        for field in fields {
            var property: [String: JSONValue] = [
                "type": field.nullable ? .array([.string("string"), .string("null")]) : .string("string"),
                "description": .string(field.description),
            ]
            if let values = field.values {
                property["enum"] = .array(values.map(JSONValue.string) + (field.nullable ? [.null] : []))
            }
            properties[field.key] = .object(property)
        }
        return .object([
            "type": .string("object"),
            "properties": .object(properties),
            "required": .array(fields.map { .string($0.key) }),
            "additionalProperties": .bool(false),
        ])
    }

    /// The chat completions `response_format`: `{"type": "json_schema", "json_schema": {"name", "strict": true, "schema"}}`.
    public static var responseFormat: JSONValue {
        .object([
            "type": .string("json_schema"),
            "json_schema": .object(["name": .string(name), "strict": .bool(true), "schema": schema]),
        ])
    }

    /// Checks a model's answer (the message content, JSON text) against the schema: an object, every key present,
    /// no other key, each a string (or null where allowed), within its length, in its enum; brand and product
    /// name not blank. Strings are trimmed; a blank optional string is taken as null.
    public static func validate(_ content: String) throws(ProviderError) -> Identification {
        guard let data = content.data(using: .utf8), let value = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            throw .invalidAnswer("not JSON")
        }
        guard case .object(let object) = value else { throw .invalidAnswer("a JSON \(value.typeName), not an object") }
        let known = Set(fields.map(\.key))
        if let extra = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidAnswer("an unexpected key \"\(extra.prefix(40))\"")
        }
        var strings: [String: String] = [:]
        for field in fields {
            guard let found = object[field.key] else { throw .invalidAnswer("the key \"\(field.key)\" is missing") }
            switch found {
            case .null where field.nullable:
                continue
            case .string(let raw):
                let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                guard text.count <= field.maxLength else {
                    throw .invalidAnswer("\"\(field.key)\" is longer than \(field.maxLength) characters")
                }
                if text.isEmpty {
                    if field.nullable { continue }
                    throw .invalidAnswer("\"\(field.key)\" is empty")
                }
                if let values = field.values, !values.contains(text) {
                    throw .invalidAnswer("\"\(field.key)\" is \"\(text.prefix(40))\", not one of \(values.joined(separator: ", "))")
                }
                strings[field.key] = text
            default:
                throw .invalidAnswer("\"\(field.key)\" is a \(found.typeName), not a string\(field.nullable ? " or null" : "")")
            }
        }
        return Identification(brand: strings["brand"]!, productName: strings["product_name"]!, model: strings["model"],
                              barcode: strings["barcode"], condition: strings["condition"].flatMap(ItemCondition.init(rawValue:)),
                              sizes: strings["sizes"], category: strings["category"], description: strings["description"])
    }
}
