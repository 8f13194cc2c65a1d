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
