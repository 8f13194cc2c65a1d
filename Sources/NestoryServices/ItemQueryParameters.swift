import Foundation
import NestoryDomain

/// An item search's parameters as text (`GET /api/v1/items`' query, MCP's search_items): q, room, category, tag, filter,
/// sort, limit, after. Strict where the page is forgiving: a value that is not one the document allows is a validation
/// error naming the parameter, never silently ignored.
public enum ItemQueryParameters {
    public static func parse(_ parameters: [String: String]) throws(DomainError) -> ItemQuery {
        var errors = FieldErrors()
        func value(_ key: String) -> String? {
            parameters[key].flatMap { $0.isEmpty ? nil : $0 }
        }
        var filter = ItemFilter(tag: value("tag"))
        do { filter.roomID = try optionalID(value("room"), field: "room", what: "The room", RoomID.init(string:)) } catch { errors.append(error) }
        do {
            filter.categoryID = try optionalID(value("category"), field: "category", what: "The category", CategoryID.init(string:))
        } catch { errors.append(error) }
        switch value("filter") {
        case nil, "all": break
        case "photo": filter.needsPhoto = true
        case "receipt": filter.needsReceipt = true
        case "value": filter.needsValue = true
        case "high": filter.highValue = true
        default: errors.append(FieldError(field: "filter", message: "filter is one of all, photo, receipt, value, high."))
        }
        var sort = ItemSort.name
        if let raw = value("sort") {
            if let chosen = ItemSort(rawValue: raw) { sort = chosen } else {
                errors.append(FieldError(field: "sort", message: "sort is one of \(ItemSort.allCases.map(\.rawValue).joined(separator: ", "))."))
            }
        }
        var limit = 40
        if let raw = value("limit") {
            if let number = Int(raw), (1...ItemQuery.maxLimit).contains(number) { limit = number } else {
                errors.append(FieldError(field: "limit", message: "limit is a whole number from 1 to \(ItemQuery.maxLimit)."))
            }
        }
        try errors.throwIfAny()
        return ItemQuery(search: value("q") ?? "", filter: filter, sort: sort, limit: limit, after: value("after").map(PageCursor.init(rawValue:)))
    }
}
