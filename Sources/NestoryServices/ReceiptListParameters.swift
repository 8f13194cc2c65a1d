import Foundation
import NestoryDomain
import NestoryStoreInterfaces

/// A page of the receipts list asked for with text parameters (`GET /api/v1/receipts`' query, the receipts page, MCP's
/// list_receipts): limit (1–200, 40 unless given, as the items), after (the previous page's `nextCursor`) and filter (`all`
/// or `unlinked`: the receipts linked to no item yet). A value that is not one of these is a validation error naming it.
public struct ReceiptListParameters: Sendable, Equatable {
    public var limit = 40
    public var after: PageCursor?
    public var unlinkedOnly = false

    public init(limit: Int = 40, after: PageCursor? = nil, unlinkedOnly: Bool = false) {
        (self.limit, self.after, self.unlinkedOnly) = (limit, after, unlinkedOnly)
    }

    public static func parse(_ parameters: [String: String]) throws(DomainError) -> ReceiptListParameters {
        var errors = FieldErrors()
        func value(_ key: String) -> String? { parameters[key].flatMap { $0.isEmpty ? nil : $0 } }
        var chosen = ReceiptListParameters(after: value("after").map(PageCursor.init(rawValue:)))
        if let raw = value("limit") {
            if let number = Int(raw), (1...ReceiptPageCursor.maxLimit).contains(number) { chosen.limit = number } else {
                errors.append(FieldError(field: "limit", message: "limit is a whole number from 1 to \(ReceiptPageCursor.maxLimit)."))
            }
        }
        switch value("filter") {
        case nil, "all": break
        case "unlinked": chosen.unlinkedOnly = true
        default: errors.append(FieldError(field: "filter", message: "filter is all or unlinked."))
        }
        try errors.throwIfAny()
        return chosen
    }
}
