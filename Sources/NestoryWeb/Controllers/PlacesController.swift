import Foundation
import HTTPTypes
import Hummingbird
import NestoryDomain
import NestoryServices
import NestoryStore

/// Rooms and categories: list, add, rename, reorder, delete (saying what happens to their items).
struct PlacesController {
    let dependencies: WebDependencies

    typealias Kind = PlacesService.Kind
    var places: PlacesService { dependencies.places }

    func addRoutes(to router: Router<AppRequestContext>) {
        for kind in [Kind.rooms, .categories] {
            router.get(RouterPath(kind.rawValue)) { request, context in try await list(kind, request, context) }
            router.post(RouterPath(kind.rawValue)) { request, context in try await add(kind, request, context) }
            router.post(RouterPath("\(kind.rawValue)/:id")) { request, context in try await change(kind, request, context) }
        }
    }

    /// `/api/v1/rooms` and `/api/v1/categories`: what the pages do, as JSON. A body names the fields it changes
    /// (`name`, and a category's `colorHex`); what GET answers besides them is accepted and ignored, so an entry read
    /// can be sent back changed, and any other key is refused by name.
    func addAPIRoutes(to api: RouterGroup<AppRequestContext>) {
        api.get("rooms") { _, context in
            let household = try context.requireViewer().household.id
            return ListJSON(items: try await counted(.rooms, try await places.rooms(household), in: household))
        }
        api.get("categories") { _, context in
            let household = try context.requireViewer().household.id
            return ListJSON(items: try await counted(.categories, try await places.categories(household), in: household))
        }
        api.post("rooms") { request, context -> EditedResponse<PlaceJSON<Room>> in
            let household = try context.requireViewer().household.id
            let fields = try await Self.fields(request, context, .rooms)
            let room = try await places.addRoom(to: household, name: fields["name"] ?? "")
            return EditedResponse(status: .created, response: PlaceJSON(room, itemCount: 0))
        }
        api.post("categories") { request, context -> EditedResponse<PlaceJSON<NestoryDomain.Category>> in
            let household = try context.requireViewer().household.id
            let fields = try await Self.fields(request, context, .categories)
            let category = try await places.addCategory(to: household, name: fields["name"] ?? "", colorHex: fields["colorHex"])
            return EditedResponse(status: .created, response: PlaceJSON(category, itemCount: 0))
        }
        api.patch("rooms/:id") { request, context -> PlaceJSON<Room> in
            let (household, id) = (try context.requireViewer().household.id, try Self.id(context, .rooms))
            let fields = try await Self.fields(request, context, .rooms)
            let room = try Self.entry(id, in: try await places.rooms(household), .rooms)
            try await places.rename(.rooms, id, in: household, to: fields["name"] ?? room.name, colorHex: nil)
            return try await counted(.rooms, [try Self.entry(id, in: try await places.rooms(household), .rooms)], in: household)[0]
        }
        api.patch("categories/:id") { request, context -> PlaceJSON<NestoryDomain.Category> in
            let (household, id) = (try context.requireViewer().household.id, try Self.id(context, .categories))
            let fields = try await Self.fields(request, context, .categories)
            let category = try Self.entry(id, in: try await places.categories(household), .categories)
            try await places.rename(.categories, id, in: household, to: fields["name"] ?? category.name,
                                    colorHex: fields["colorHex"] ?? category.colorHex)
            return try await counted(.categories, [try Self.entry(id, in: try await places.categories(household), .categories)], in: household)[0]
        }
        api.put("rooms/order") { request, context -> ListJSON<PlaceJSON<Room>> in
            let household = try context.requireViewer().household.id
            try await places.reorder(.rooms, try await Self.order(request, context, .rooms), in: household, field: Self.orderKey(.rooms))
            return ListJSON(items: try await counted(.rooms, try await places.rooms(household), in: household))
        }
        api.put("categories/order") { request, context -> ListJSON<PlaceJSON<NestoryDomain.Category>> in
            let household = try context.requireViewer().household.id
            try await places.reorder(.categories, try await Self.order(request, context, .categories), in: household,
                                     field: Self.orderKey(.categories))
            return ListJSON(items: try await counted(.categories, try await places.categories(household), in: household))
        }
        for kind in Kind.allCases {
            api.delete(RouterPath("\(kind.rawValue)/:id")) { _, context -> DeletedPlaceJSON in
                let household = try context.requireViewer().household.id
                return DeletedPlaceJSON(itemsUnassigned: try await places.delete(kind, try Self.id(context, kind), in: household))
            }
        }
    }

    /// The fields a room or a category takes, and what GET answers besides them (ignored when sent back).
    static func apiFields(_ kind: Kind) -> (known: [String], answered: Set<String>) {
        kind == .rooms ? (["name"], ["id", "householdID", "sortOrder", "itemCount"])
            : (["name", "colorHex"], ["id", "householdID", "sortOrder", "icon", "isCustom", "itemCount"])
    }

    /// Rooms or categories as the API answers them: each with the number of items in it (as the pages show).
    private func counted<T: Identifiable & Encodable & Sendable>(_ kind: Kind, _ entries: [T], in household: HouseholdID) async throws
        -> [PlaceJSON<T>] where T.ID: CustomStringConvertible {
        let counts = try await places.itemCounts(kind, in: household)
        return entries.map { PlaceJSON($0, itemCount: counts[$0.id.description] ?? 0) }
    }

    /// The body's fields as texts (a field not given is absent; null is empty).
    private static func fields(_ request: Request, _ context: AppRequestContext, _ kind: Kind) async throws -> [String: String] {
        let body: [String: JSONField]
        do { body = try await request.decode(as: [String: JSONField].self, context: context) } catch {
            throw WebError.badRequest("The body must be a JSON object with the \(kind.noun)’s fields (see /api/v1/openapi.json).")
        }
        let (known, answered) = apiFields(kind)
        return try JSONFields.texts(body, known: known, of: "a \(kind.noun)", ignoring: answered).get()
    }

    /// The key a new order is given under: `roomIDs` or `categoryIDs`.
    static func orderKey(_ kind: Kind) -> String { kind == .rooms ? "roomIDs" : "categoryIDs" }

    private static func order(_ request: Request, _ context: AppRequestContext, _ kind: Kind) async throws -> [String] {
        let body: [String: [String]]
        do { body = try await request.decode(as: [String: [String]].self, context: context) } catch { body = [:] }
        guard body.count == 1, let ids = body[orderKey(kind)] else {
            throw WebError.badRequest("The body must be {\"\(orderKey(kind))\": [...]}, every \(kind.noun) once, in order.")
        }
        return ids
    }

    private static func id(_ context: AppRequestContext, _ kind: Kind) throws -> String {
        guard let id = context.parameters.get("id") else { throw DomainError.notFound("That \(kind.noun)") }
        return id
    }

    /// The entry `raw` names (an id in any case Foundation reads).
    private static func entry<T: Identifiable>(_ raw: String, in entries: [T], _ kind: Kind) throws -> T where T.ID == EntityID<T> {
        guard let id = EntityID<T>(string: raw), let entry = entries.first(where: { $0.id == id }) else {
            throw DomainError.notFound("That \(kind.noun)")
        }
        return entry
    }

    func list(_ kind: Kind, _ request: Request, _ context: AppRequestContext, errors: [FieldError] = [],
              status: HTTPResponse.Status = .ok) async throws -> Response {
        let viewer = try context.requireViewer()
        let entries = try await places.counted(kind, in: viewer.household.id).map {
            PlacesViews.Entry(id: $0.id, name: $0.name, color: $0.colorHex, items: $0.items)
        }
        return HTMLResponse.page(PlacesViews.page(kind: kind, viewer: viewer, entries: entries, errors: errors,
                                                  notice: request.notice), status: status)
    }

    func add(_ kind: Kind, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let form = try await Form.read(request, context: context)
        do {
            try await places.add(kind, to: viewer.household.id, name: form["name"] ?? "", colorHex: form["color"])
            return .redirect(to: "/\(kind.rawValue)", notice: "Added.")
        } catch let error as DomainError {
            return try await list(kind, request, context, errors: FieldErrors.fields(of: error), status: .unprocessableContent)
        }
    }

    /// One form per row: rename (with colour), move up or down, or delete.
    func change(_ kind: Kind, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let household = viewer.household.id
        guard let id = context.parameters.get("id") else { throw DomainError.notFound("That \(kind == .rooms ? "room" : "category")") }
        let form = try await Form.read(request, context: context)
        do {
            switch form["action"] ?? "rename" {
            case "delete":
                let moved = try await places.delete(kind, id, in: household)
                let noun = kind == .rooms ? "Room" : "Category"
                let notice = moved == 0 ? "\(noun) deleted; it had no items."
                    : kind == .rooms ? "Room deleted; \(moved) item\(moved == 1 ? " now has" : "s now have") no room."
                    : "Category deleted; \(moved) item\(moved == 1 ? " is" : "s are") now uncategorized."
                return .redirect(to: "/\(kind.rawValue)", notice: notice)
            case "up":
                try await places.move(kind, id, in: household, .up)
                return .redirect(to: "/\(kind.rawValue)", notice: "Moved up.")
            case "down":
                try await places.move(kind, id, in: household, .down)
                return .redirect(to: "/\(kind.rawValue)", notice: "Moved down.")
            default:
                let name = form["name"] ?? ""
                try await places.rename(kind, id, in: household, to: name, colorHex: form["color"])
                return .redirect(to: "/\(kind.rawValue)", notice: "Saved “\(name.trimmingCharacters(in: .whitespacesAndNewlines))”.")
            }
        } catch let error as DomainError {
            if case .notFound = error { throw error }
            return try await list(kind, request, context, errors: FieldErrors.fields(of: error), status: .unprocessableContent)
        }
    }
}

/// A room or a category as the API answers it: the record's own fields and how many items are in it.
struct PlaceJSON<T: Encodable & Sendable>: ResponseEncodable {
    let place: T
    let itemCount: Int
    init(_ place: T, itemCount: Int) {
        self.place = place
        self.itemCount = itemCount
    }

    private enum CodingKeys: String, CodingKey { case itemCount }

    func encode(to encoder: any Encoder) throws {
        try place.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(itemCount, forKey: .itemCount)
    }
}

/// What deleting a room or a category did: the items that were in it stay, without one.
struct DeletedPlaceJSON: ResponseEncodable {
    let itemsUnassigned: Int
}

enum PlacesViews {
    struct Entry {
        let id: String
        let name: String
        let color: String?
        let items: Int
    }

    static func page(kind: PlacesController.Kind, viewer: Viewer, entries: [Entry], errors: [FieldError], notice: String?) -> HTML {
        let noun = kind == .rooms ? "room" : "category"
        let rows: [HTML] = entries.enumerated().map { index, entry in
            let consequence = entry.items == 0 ? "It holds no items." :
                "Its \(entry.items) item\(entry.items == 1 ? "" : "s") will stay, \(kind == .rooms ? "with no room" : "uncategorized")."
            return """
                <li class="place">
                  <form method="post" action="/\(kind.rawValue)/\(entry.id)" class="place-form">
                    <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                    \(entry.color.map { HTML("<input type=\"color\" name=\"color\" value=\"\($0.lowercased())\" aria-label=\"Colour of \(entry.name)\">") })
                    <input name="name" value="\(entry.name)" aria-label="Name of \(noun) \(index + 1)" maxlength="\(PlaceName.maximumLength)">
                    <span class="muted count">\(entry.items) item\(entry.items == 1 ? "" : "s")</span>
                    <div class="place-actions">
                    <button name="action" value="rename" class="small">Save</button>
                    <button name="action" value="up" class="small" aria-label="Move \(entry.name) up"\(index == 0 ? HTML(raw: " disabled") : .empty)>↑</button>
                    <button name="action" value="down" class="small" aria-label="Move \(entry.name) down"\(index == entries.count - 1 ? HTML(raw: " disabled") : .empty)>↓</button>
                    <button name="action" value="delete" class="small danger" formnovalidate data-confirm="Delete \(entry.name)? \(consequence)">Delete</button>
                    </div>
                  </form>
                </li>
                """
        }
        return Layout.page(title: kind == .rooms ? "Rooms" : "Categories", viewer: viewer, section: .settings, body: """
            \(Layout.notice(notice))
            \(Layout.errorSummary(errors))
            <section class="card">
              <p class="muted">Deleting a \(noun) never deletes items: they stay in your inventory \(kind == .rooms ? "without a room" : "without a category").</p>
              <ul class="list places">\(rows)</ul>
            </section>
            <section class="card">
              <h2>Add a \(noun)</h2>
              <form method="post" action="/\(kind.rawValue)">
                <input type="hidden" name="_csrf" value="\(viewer.csrfToken)">
                \(Layout.field("name", label: "Name", value: nil, errors: errors, attributes: "required maxlength=\"\(PlaceName.maximumLength)\""))
                \(kind == .categories ? HTML("<div class=\"field\"><label for=\"f-color\">Colour</label><input id=\"f-color\" type=\"color\" name=\"color\" value=\"#64748b\"></div>") : .empty)
                <button type="submit" class="primary">Add \(noun)</button>
              </form>
            </section>
            """)
    }
}
