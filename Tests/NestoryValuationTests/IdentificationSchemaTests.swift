import Foundation
import NestoryDomain
import Testing
@testable import NestoryValuation

@Suite("The photo analysis schema and the server's own check of answers")
struct IdentificationSchemaTests {
    static let good = #"{"brand":"Sony","product_name":"Bravia X80K 55-inch TV","model":"KD-55X80K","barcode":null,"condition":"like_new","sizes":"55 in","category":"Electronics","description":"Black, small scratch on the stand."}"#

    func answer(replacing key: String, with value: String) -> String {
        var object = try! JSONSerialization.jsonObject(with: Data(Self.good.utf8)) as! [String: Any]
        object[key] = try! JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed)
        return String(data: try! JSONSerialization.data(withJSONObject: object), encoding: .utf8)!
    }

    @Test("Strict: every property required, optional ones string-or-null, no other keys, the condition enum")
    func schema() throws {
        let format = IdentificationSchema.responseFormat
        #expect(format["type"] == .string("json_schema"))
        #expect(format["json_schema"]?["strict"] == .bool(true) && format["json_schema"]?["name"] == .string("item_identification"))
        let schema = try #require(format["json_schema"]?["schema"])
        #expect(schema["additionalProperties"] == .bool(false))
        guard case .object(let properties) = schema["properties"], case .array(let required) = schema["required"] else {
            Issue.record("no properties")
            return
        }
        #expect(Set(required.compactMap(\.stringValue)) == Set(properties.keys) && required.count == 8)
        #expect(properties["brand"]?["type"] == .string("string"))
        #expect(properties["model"]?["type"] == .array([.string("string"), .string("null")]))
        #expect(properties["condition"]?["enum"] == .array(["new", "like_new", "good", "fair", "poor"].map(JSONValue.string) + [.null]))
    }

    @Test("A good answer becomes an Identification; condition maps to ItemCondition; blank optional text is null")
    func valid() throws {
        let found = try IdentificationSchema.validate(Self.good)
        #expect(found == Identification(brand: "Sony", productName: "Bravia X80K 55-inch TV", model: "KD-55X80K", condition: .likeNew,
                                        sizes: "55 in", category: "Electronics", description: "Black, small scratch on the stand."))
        #expect(try IdentificationSchema.validate(answer(replacing: "sizes", with: #""  ""#)).sizes == nil)
    }

    @Test("Violations are refused with what was wrong", arguments: [
        ("brand", #""""#, "\"brand\" is empty"),
        ("product_name", #""   ""#, "\"product_name\" is empty"),
        ("brand", "null", "\"brand\" is a null, not a string"),
        ("condition", #""excellent""#, "not one of new, like_new"),
        ("model", "42", "\"model\" is a number, not a string or null"),
        ("sizes", #"["55 in"]"#, "\"sizes\" is a array"),
        ("colour", #""black""#, "unexpected key \"colour\""),
        ("description", "\"" + String(repeating: "a", count: 1001) + "\"", "longer than 1000 characters"),
    ])
    func violations(key: String, value: String, message: String) {
        #expect {
            try IdentificationSchema.validate(answer(replacing: key, with: value))
        } throws: { error in
            guard case ProviderError.invalidAnswer(let text) = error else { return false }
            return text.contains(message)
        }
    }

    @Test("A missing key, a non-object and non-JSON are refused")
    func shapes() {
        var object = try! JSONSerialization.jsonObject(with: Data(Self.good.utf8)) as! [String: Any]
        object.removeValue(forKey: "barcode")
        let missing = String(data: try! JSONSerialization.data(withJSONObject: object), encoding: .utf8)!
        #expect(throws: ProviderError.invalidAnswer("the key \"barcode\" is missing")) { try IdentificationSchema.validate(missing) }
        #expect(throws: ProviderError.invalidAnswer("a JSON array, not an object")) { try IdentificationSchema.validate("[]") }
        #expect(throws: ProviderError.invalidAnswer("not JSON")) { try IdentificationSchema.validate(#"{"brand": "Sony""#) }
    }
}
