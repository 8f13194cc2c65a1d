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
