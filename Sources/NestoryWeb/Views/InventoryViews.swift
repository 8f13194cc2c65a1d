import Foundation
import NestoryDomain

/// What the inventory page shows, from its URL: so back, reload and shared links keep the state.
struct InventoryState: Sendable, Equatable {
    enum Chip: String, CaseIterable, Sendable {
        case all, photo, receipt, value, high

        func label(threshold: Money) -> String {
            switch self {
            case .all: return "All items"
            case .photo: return "Needs photo"
            case .receipt: return "Needs receipt"
            case .value: return "Needs value"
            case .high: return "High value (> \(threshold.formatted))"
            }
        }
    }

    var search = ""
    var chip = Chip.all
    var roomID: RoomID?
    var categoryID: CategoryID?
    var tag: String?
    var sort = ItemSort.name
    var grid = false
    var after: PageCursor?

    init() {}

    init(query: [String: String]) {
        search = query["q"] ?? ""
        chip = query["filter"].flatMap(Chip.init(rawValue:)) ?? .all
        roomID = query["room"].flatMap(RoomID.init(string:))
        categoryID = query["category"].flatMap(CategoryID.init(string:))
        tag = query["tag"].flatMap { $0.isEmpty ? nil : $0 }
        sort = query["sort"].flatMap(ItemSort.init(rawValue:)) ?? .name
        grid = query["view"] == "grid"
        after = query["after"].flatMap { $0.isEmpty ? nil : PageCursor(rawValue: $0) }
    }

    var itemQuery: ItemQuery {
        var filter = ItemFilter(roomID: roomID, categoryID: categoryID, tag: tag)
        switch chip {
        case .all: break
        case .photo: filter.needsPhoto = true
        case .receipt: filter.needsReceipt = true
        case .value: filter.needsValue = true
        case .high: filter.highValue = true
        }
        return ItemQuery(search: search, filter: filter, sort: sort, limit: 40, after: after)
    }

    /// Whether a search or a filter narrows the list (then its items can be valued together).
    var isNarrowed: Bool { !search.isEmpty || chip != .all || roomID != nil || categoryID != nil || tag != nil }

    /// The URL of this state with changes applied (the cursor is dropped unless given).
    func link(chip: Chip? = nil, sort: ItemSort? = nil, grid: Bool? = nil, after: PageCursor? = nil, path: String = "/") -> String {
        path + queryString([
            ("q", search), ("filter", (chip ?? self.chip) == .all ? nil : (chip ?? self.chip).rawValue),
            ("room", roomID?.description), ("category", categoryID?.description), ("tag", tag),
            ("sort", (sort ?? self.sort) == .name ? nil : (sort ?? self.sort).rawValue),
            ("view", (grid ?? self.grid) ? "grid" : nil), ("after", after?.rawValue),
        ])
    }
}

/// Everything the inventory page needs, gathered by the controller.
struct InventoryPage {
    let viewer: Viewer
    let state: InventoryState
    let summary: InventorySummary
    let valueByCategory: [CategoryValue]
    let itemsByRoom: [RoomCount]
    let page: Page<ItemListing>
    let matching: (count: Int, exact: Bool)
    let rooms: [RoomID: Room]
    let categories: [CategoryID: NestoryDomain.Category]
    /// What just happened (an item deleted, say), from the redirect that led here.
    var notice: String? = nil
    /// With "Needs receipt": whether the household has receipts linked to no item (the proof may be there already).
    var looseReceipts = false
}

enum InventoryViews {
    static func page(_ model: InventoryPage) -> HTML {
        let s = model.summary
        let household = model.viewer.household
        let value = s.estimatedValue.isEmpty ? Money.zero(household.currency).formatted : s.estimatedValue.map(\.formatted).joined(separator: " + ")
        let score = s.score.percent.map { "\($0)%" } ?? "—"
        let notDocumented = s.itemCount - s.score.documented
        let strip: HTML = """
            <section class="summary" aria-label="Summary">
              <details class="card stat"><summary><span class="big">\(s.itemCount) item\(s.itemCount == 1 ? "" : "s")</span><span class="sub">Across \(s.roomsInUse) room\(s.roomsInUse == 1 ? "" : "s")</span></summary>
                <p>Every item you have added, in \(s.roomsInUse) room\(s.roomsInUse == 1 ? "" : "s").</p>
                <p><a href="/rooms">Manage rooms</a></p></details>
              <details class="card stat value-card"><summary><span class="big">\(value)</span><span class="sub">Based on entered values</span></summary>
                <p>The sum of price × quantity for items with a value. \(s.needsValue) item\(s.needsValue == 1 ? " has" : "s have") no value yet.</p>
                <p>\(s.highValueCount) high-value item\(s.highValueCount == 1 ? "" : "s") (over \(s.highValueThreshold.formatted)).</p></details>
              <details class="card stat" id="documentation"><summary><span class="big">\(score)</span><span class="sub">Documented: photo + value + category + room</span></summary>
                <h3>What counts as documented?</h3>
                <p>\(DocumentationScore.explanation) Aim for 80% or more.</p>
                <ul class="breakdown">
                  <li><a href="/?filter=photo#browse">\(s.needsPhoto) need a photo</a></li>
                  <li><a href="/?filter=value#browse">\(s.needsValue) need a value</a></li>
                  <li><a href="/?filter=receipt#browse">\(s.needsReceipt) have no receipt</a> (not required, strong evidence)</li>
                </ul>
                <p>\(s.score.documented) of \(s.itemCount) documented; \(notDocumented) to go.</p></details>
            </section>
            \(s.itemCount > 0 ? Layout.tip(.documentationScore, viewer: model.viewer, back: "/") : .empty)
            \(s.itemCount > 0 && (s.needsPhoto > 0 || s.needsValue > 0) ? HTML("<a class=\"improve\" href=\"/?filter=\(s.needsPhoto > 0 ? "photo" : "value")#browse\">Improve documentation: \(s.needsPhoto) need photos, \(s.needsValue) need values →</a>") : .empty)
            """
        let charts: HTML = s.itemCount == 0 ? .empty : """
            <section class="charts" aria-label="Charts">
              <div class="card">\(Charts.donut(model.valueByCategory, currency: household.currency))</div>
              <div class="card">\(Charts.bars(model.itemsByRoom))</div>
            </section>
            """
        let state = model.state
        let chips: [HTML] = InventoryState.Chip.allCases.map { chip in
            let current = chip == state.chip
            return "<a class=\"chip\(current ? " on" : "")\" href=\"\(state.link(chip: chip))#browse\"\(current ? HTML(raw: " aria-current=\"true\"") : .empty)>\(chip.label(threshold: s.highValueThreshold))</a>"
        }
        let sortOptions: [HTML] = ItemSort.allCases.map { sort in
            "<option value=\"\(sort.rawValue)\"\(sort == state.sort ? HTML(raw: " selected") : .empty)>\(sort.label)</option>"
        }
        let controls: HTML = """
            <form class="search" method="get" action="/#browse" role="search">
              <label class="visually-hidden" for="q">Search items</label>
              <input id="q" type="search" name="q" value="\(state.search)" placeholder="Search name, brand, serial, notes, receipts…" autocomplete="off">
              \(state.chip == .all ? HTML.empty : HTML("<input type=\"hidden\" name=\"filter\" value=\"\(state.chip.rawValue)\">"))
              \(state.grid ? HTML("<input type=\"hidden\" name=\"view\" value=\"grid\">") : .empty)
              <label class="visually-hidden" for="sort">Sort</label>
              <select id="sort" name="sort" data-autosubmit>\(sortOptions)</select>
              <button type="submit">Search</button>
            </form>
            <nav class="chips" aria-label="Filters">\(chips)</nav>
            <div class="toolbar">
              <span class="count" role="status">\(model.matching.count)\(model.matching.exact ? "" : "+") item\(model.matching.count == 1 ? "" : "s")</span>
              <span class="toggle" role="group" aria-label="Layout">
                <a href="\(state.link(grid: false))#browse" class="\(state.grid ? "" : "on")" aria-pressed="\(!state.grid)">List</a>
                <a href="\(state.link(grid: true))#browse" class="\(state.grid ? "on" : "")" aria-pressed="\(state.grid)">Grid</a>
              </span>
            </div>
            \(state.isNarrowed && model.matching.count > 0 ? HTML("<p class=\"hint\"><a href=\"\(state.link(path: "/valuations/batches/new"))\">Value these items</a></p>") : .empty)\
            \(model.looseReceipts ? HTML("<p class=\"hint\">Some receipts are linked to no item yet: <a href=\"/receipts?filter=unlinked\">link them to their items</a>.</p>") : .empty)
            """
        let list = items(model)
        let empty: HTML = model.page.elements.isEmpty
            ? (s.itemCount == 0
                ? "<div class=\"empty\"><h2>Start with what matters most</h2><p>Start by taking photos of your most valuable items: TVs, laptops, jewelry, and instruments. You can fill in the details later.</p><a class=\"primary button\" href=\"/items/new\">Add your first item</a></div>"
                : "<div class=\"empty\"><p>No items match. <a href=\"/\">Show all items</a></p></div>")
            : .empty
        let add: HTML = """
            <a class="button" href="/items/quick">Quick add</a>
            <a class="primary button icon" href="/items/new" aria-label="Add item">+</a>
            """
        return Layout.page(title: "Inventory", viewer: model.viewer, section: .inventory, actions: add, body: """
            \(Layout.notice(model.notice))
            \(strip)
            \(charts)
            <section class="browse" id="browse" aria-label="Items">
            \(controls)
            \(empty)
            \(list)
            </section>
            """)
    }

    /// The list (or grid) and the link to the next page; also returned alone for infinite scroll.
    static func items(_ model: InventoryPage) -> HTML {
        guard !model.page.elements.isEmpty else { return .empty }
        let cells: [HTML] = model.page.elements.map { cell($0, model: model) }
        let more: HTML = model.page.nextCursor.map { cursor in
            "<a class=\"more button\" rel=\"next\" data-more href=\"\(model.state.link(after: cursor))\">Show more</a>"
        } ?? .empty
        return """
            <ul class="items \(model.state.grid ? "grid" : "list")" data-items>\(cells)</ul>
            \(more)
            """
    }

    static func cell(_ listing: ItemListing, model: InventoryPage) -> HTML {
        let item = listing.item
        let room = item.roomID.flatMap { model.rooms[$0] }
        let category = item.categoryID.flatMap { model.categories[$0] }
        let subtitle = [room?.name, category?.name, item.totalValue?.formatted].compactMap { $0 }.joined(separator: " • ")
        let thumb: HTML = listing.primaryPhoto.map { photo in
            "<img src=\"/files/\(photo.sha256)?size=thumb\" alt=\"\" width=\"160\" height=\"160\" loading=\"lazy\" decoding=\"async\">"
        } ?? "<span class=\"placeholder\" style=\"--c:\(category?.colorHex ?? "#94A3B8")\" aria-hidden=\"true\">\(String((category?.name ?? item.name).prefix(1)))</span>"
        return """
            <li class="item"><a href="/items/\(item.id)">
              <span class="thumb">\(thumb)</span>
              <span class="text"><span class="name">\(item.name)</span><span class="sub">\(subtitle)</span></span>
              \(badges(listing.documentation, compact: true))
            </a><button type="button" class="row-menu" data-item-menu="\(item.id)" aria-haspopup="menu" aria-expanded="false" aria-label="Actions for \(item.name)">⋯</button></li>
            """
    }

    static func badges(_ status: DocumentationStatus, compact: Bool) -> HTML {
        let aspects: [DocumentationAspect] = compact ? [.photo, .receipt, .value] : DocumentationAspect.allCases
        let list: [HTML] = aspects.map { aspect in
            let has = status.has(aspect)
            return "<span class=\"badge \(has ? "ok" : "missing")\" title=\"\(has ? aspect.label : "No \(aspect.label.lowercased())")\">\(has ? "✓" : "!") \(aspect.label)</span>"
        }
        return "<span class=\"badges\" aria-label=\"Documentation\">\(list)</span>"
    }
}
