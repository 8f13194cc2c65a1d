import Foundation
import NestoryDomain
import NestoryServices
import Testing

/// An item's fields given as JSON (the API's body, an assistant's tool arguments), read as the form's values.
@Suite struct JSONFieldTests {
    let base = ItemFormValues(["name": "Piano", "price": "400.00", "currency": "USD", "tags": "music", "quantity": "1"])

    static func today() throws -> CalendarDate { try CalendarDate(year: 2026, month: 1, day: 1) }

    func read(_ json: String, over values: ItemFormValues? = nil, ignoring: Set<String> = []) throws -> Result<ItemFormValues, DomainError> {
        let fields = try JSONDecoder().decode([String: JSONField].self, from: Data(json.utf8))
        return ItemFormValues.reading(fields, over: values ?? base, ignoring: ignoring)
    }

    func problems(_ result: Result<ItemFormValues, DomainError>) -> [String: String] {
        guard case .failure(.validation(let fields)) = result else { return [:] }
        return Dictionary(fields.map { ($0.field, $0.message) }) { first, _ in first }
    }

    @Test func fieldsGivenReplaceTheBaseNullEmptiesAndTheRestIsKept() throws {
        let values = try read(#"{"brand": "Yamaha", "tags": ["music", "insured"], "price": null, "quantity": 2}"#).get()
        #expect(values["brand"] == "Yamaha" && values["tags"] == "music,insured" && values["price"] == "" && values["quantity"] == "2")
        #expect(values["name"] == "Piano" && values["currency"] == "USD")
    }

    /// A number is read exactly (1299.99 is not 1299.9899999…), then by the form's rules like typed text.
    @Test func aPriceMayBeANumberOrThePriceAsAnswered() throws {
        #expect(try read(#"{"price": 1299.99}"#).get()["price"] == "1299.99")
        #expect(try read(#"{"price": 0.1}"#).get()["price"] == "0.1")
        let answered = try read(#"{"price": {"amount": "5.00", "currency": "EUR", "minorUnits": 500}}"#).get()
        #expect(answered["price"] == "5.00" && answered["currency"] == "EUR", "the price's currency is the item's when none is given")
        let same = try read(#"{"price": {"amount": "5.00", "currency": "eur"}, "currency": "EUR"}"#).get()
        #expect(same["price"] == "5.00" && same["currency"] == "EUR")
        let clash = problems(try read(#"{"price": {"amount": "5.00", "currency": "EUR"}, "currency": "USD"}"#))
        #expect(clash["price"] == "The price is in EUR but the item’s currency is USD: give one currency.")
        #expect(problems(try read(#"{"price": {"currency": "EUR"}}"#))["price"]?.hasPrefix("Give the price as text") == true)
        let tooLarge = try read(#"{"name": "Piano", "price": 1e308}"#).get()
        #expect(try tooLarge.draft(defaultCurrency: .usd, today: Self.today()).failureFields.contains("price"))
    }

    /// A misspelt field is a problem on it, not dropped: a PUT without `price` would empty it and answer 200.
    @Test func aKeyThatIsNotAFieldIsNamedWithTheFieldItMostLikelyMeant() throws {
        let found = problems(try read(#"{"Price": "12", "warrantyExpires": "2027-01-01", "purchasePrice": "3", "colour": "red"}"#))
        #expect(found["Price"] == "“Price” is not a field of an item (did you mean “price”?).")
        #expect(found["warrantyExpires"] == "“warrantyExpires” is not a field of an item (did you mean “warrantyExpiry”?).")
        #expect(found["purchasePrice"]?.contains("the fields of an item are name, brand,") == true)
        #expect(found.count == 4, "every problem at once")
        // What reading an item answers besides its fields is accepted and ignored.
        let values = try read(#"{"id": "x", "documented": true, "notes": "ok"}"#, ignoring: ["id", "documented"]).get()
        #expect(values["notes"] == "ok" && values.values["id"] == nil)
    }

    @Test func aValueOfTheWrongKindIsAProblemOnItsField() throws {
        let found = problems(try read(#"{"name": true, "barcode": 12345678905, "tags": ["a", 1], "quantity": [1], "price": false, "notes": {"a": "b"}}"#))
        #expect(found["name"] == "Give name as text, in quotes.")
        #expect(found["barcode"] == "Give the barcode as text, in quotes, so its leading zeros are kept.")
        #expect(found["tags"]?.hasPrefix("Give the tags as a list of texts") == true)
        #expect(found["quantity"] == "Give the quantity as a whole number such as 1 or 4.")
        #expect(found["price"]?.hasPrefix("Give the price as text") == true && found["notes"] == "Give notes as text, in quotes.")
        // A quantity as text is read like the form's; a fraction is the form's problem, said in its words.
        #expect(try read(#"{"quantity": "3"}"#).get()["quantity"] == "3")
        let fraction = try read(#"{"quantity": 1.5}"#).get()
        #expect(try fraction.draft(defaultCurrency: .usd, today: Self.today()).failureFields.contains("quantity"))
    }
}

private extension Result where Success == ItemDraft, Failure == DomainError {
    var failureFields: Set<String> {
        guard case .failure(.validation(let fields)) = self else { return [] }
        return Set(fields.map(\.field))
    }
}
