import Foundation
import NestoryDomain
import NestoryServices

extension ItemFormValues {
    /// The add/edit form's fields as posted.
    init(form: Form) {
        var values: [String: String] = [:]
        for field in Self.fields { values[field] = form[field] ?? "" }
        self.init(values)
    }
}

extension ReceiptFormValues {
    /// The receipt review form's fields as posted: only those sent (one a page did not have, such as the currency on a
    /// page from before it was there, is left as it is).
    init(form: Form) {
        var values: [String: String] = [:]
        for field in Self.fields { values[field] = form[field] }
        self.init(values)
    }
}
