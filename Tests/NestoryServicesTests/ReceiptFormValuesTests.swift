import Foundation
import NestoryDomain
import NestoryServices
import Testing

/// The receipt review form's values: every problem named by its field at once, and the merge of an edit onto what was
/// saved meanwhile.
@Suite struct ReceiptFormValuesTests {
    @Test func eachFieldThatDoesNotReadIsNamedAtOnce() throws {
        let values = ReceiptFormValues(["vendor": String(repeating: "Ñ", count: 121), "purchaseDate": "2024-02-30", "total": "12..3", "tax": "1.5 EUR",
                                        "currency": "R$"])
        guard case .failure(.validation(let errors)) = values.fields(defaultCurrency: .usd, rawText: nil) else {
            Issue.record("expected the fields to be refused")
            return
        }
        #expect(errors.map(\.field) == ["vendor", "purchaseDate", "total", "tax", "currency"])
        #expect(errors.first { $0.field == "vendor" }?.message == "Keep the store’s name under 120 characters.")
    }

    @Test func fieldsReadAsAPersonCheckedThem() throws {
        let values = ReceiptFormValues(["vendor": "  Ferretería\u{0007} Núñez ", "purchaseDate": " 2024-02-29", "total": "1,234.50", "tax": ""])
        let fields = try values.fields(defaultCurrency: .eur, rawText: "FERRETERIA").get()
        #expect(fields.vendor == "Ferretería Núñez" && fields.purchaseDate?.iso == "2024-02-29")
        #expect(fields.total == (try Money.parse("1234.50", currency: .eur)) && fields.tax == nil)
        #expect(fields.rawText == "FERRETERIA" && fields.confidence == 1)
        // A receipt from abroad keeps its own currency; the household's is only the default.
        let abroad = ReceiptFormValues(["total": "60.30", "currency": " myr"])
        #expect(try abroad.fields(defaultCurrency: .usd, rawText: nil).get().total == (try Money.parse("60.30", currency: try CurrencyCode("MYR"))))
    }

    @Test func eachSideKeepsTheFieldsOnlyItChangedAndAClashIsNamed() {
        let base = ReceiptFormValues(["vendor": "HARDWARE HAVEN", "purchaseDate": "2024-03-14", "total": "139.32", "tax": "10.32", "currency": "USD"])
        var saved = base
        saved.values["total"] = "140.00"
        var mine = base
        mine.values["vendor"] = "Hardware Haven"
        mine.values["tax"] = " 10.32 "  // retyped the same: no change
        mine.values["currency"] = "usd"
        var merge = mine.merged(base: base, saved: saved)
        #expect(merge.conflicts.isEmpty)
        #expect(merge.values == ReceiptFormValues(["vendor": "Hardware Haven", "purchaseDate": "2024-03-14", "total": "140.00", "tax": "10.32",
                                                   "currency": "USD"]))
        mine.values["total"] = "139.50"
        merge = mine.merged(base: base, saved: saved)
        #expect(merge.conflicts == ["total"] && merge.values["total"] == "140.00")
    }
}
