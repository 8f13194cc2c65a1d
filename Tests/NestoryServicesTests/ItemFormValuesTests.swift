import Foundation
import NestoryDomain
import NestoryServices
import Testing

/// The three-way merge of an edit onto changes saved while it was open.
@Suite struct ItemFormValuesTests {
    let base = ItemFormValues(["name": "Piano", "price": "400.00", "currency": "USD", "brand": "", "tags": "music, insured", "notes": "",
                               "condition": "good", "quantity": "1"])

    func with(_ values: ItemFormValues, _ changes: [String: String]) -> ItemFormValues {
        var out = values
        for (field, value) in changes { out.values[field] = value }
        return out
    }

    @Test func eachSideKeepsTheFieldsOnlyItChanged() {
        let saved = with(base, ["price": "450.00", "brand": "Yamaha"])
        let mine = with(base, ["notes": "Tuned in 2025", "brand": "Yamaha"])
        let merge = mine.merged(base: base, saved: saved)
        #expect(merge.conflicts.isEmpty)
        #expect(merge.values["price"] == "450.00" && merge.values["brand"] == "Yamaha" && merge.values["notes"] == "Tuned in 2025")
        #expect(merge.values["name"] == "Piano")
    }

    @Test func aFieldBothChangedDifferentlyIsAConflictAndKeepsTheSavedValue() {
        let saved = with(base, ["price": "500.00"])
        let mine = with(base, ["price": "425", "serialNumber": "SN-9"])
        let merge = mine.merged(base: base, saved: saved)
        #expect(merge.conflicts == ["price"])
        #expect(merge.values["price"] == "500.00" && merge.values["serialNumber"] == "SN-9")
    }

    /// Spacing, a currency code's case and how tags are written are not changes (no conflict from retyping them).
    @Test func rewritingAValueTheSameWayIsNoChange() {
        let saved = with(base, ["currency": "EUR", "tags": "music", "name": "Grand piano"])
        let mine = with(base, ["currency": "usd", "tags": "music;insured ", "name": " Piano "])
        let merge = mine.merged(base: base, saved: saved)
        #expect(merge.conflicts.isEmpty)
        #expect(merge.values["currency"] == "EUR" && merge.values["tags"] == "music" && merge.values["name"] == "Grand piano")
    }
}
