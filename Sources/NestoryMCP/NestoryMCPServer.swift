import Foundation
import MCP
import NestoryDomain
import NestoryReports
import NestoryServices
import NestoryStoreInterfaces

/// Who an MCP session acts as: a token's person, in the token's household, with its scope.
public struct MCPAccess: Sendable {
    public let user: UserID
    public let household: Household
    public let scope: TokenScope

    public init(user: UserID, household: Household, scope: TokenScope) {
        (self.user, self.household, self.scope) = (user, household, scope)
    }
}

/// The MCP server (issue 20): one `Server` per session, bound to a token's household, over the use-case services.
/// Tools are annotated read-only or not; a read token is offered only the read-only ones, and calling another is refused.
/// Resources: the household's rooms and categories, and an item by URI (`nestory://items/{id}`).
public struct NestoryMCP: Sendable {
    let items: ItemsService
    let places: PlacesService
    /// Reports, where a job runner makes them (the server); nil: start_report is not offered (stdio).
    let reports: ReportsService?
    /// Valuations: the offline estimate (depreciation by category, age and condition), added to the item's history.
    let valuations: ValuationService?
    /// Receipts (listed, linked to items), where the server keeps them; nil: list_receipts and link_receipt are not offered.
    let receipts: ReceiptsService?
    /// The server's address (`https://host`) for photo links; nil: links are paths (`/files/...`).
    let origin: String?
    /// The clock: "today" is the household's day now (`Household.day(at:)`).
    let now: @Sendable () -> Date

    public init(items: ItemsService, places: PlacesService, reports: ReportsService? = nil, valuations: ValuationService? = nil,
                receipts: ReceiptsService? = nil, origin: String? = nil, now: @escaping @Sendable () -> Date = Date.init) {
        (self.items, self.places, self.reports, self.valuations, self.origin, self.now) = (items, places, reports, valuations, origin, now)
        self.receipts = receipts
    }

    public static let version = "1"

    /// A new server for one session; start it on a transport.
    public func server(for access: MCPAccess) async -> Server {
        let server = Server(name: "nestory", version: Self.version, title: "Nestory",
                            instructions: "The home inventory of \(access.household.name): search and read items; with a read and write token, add and update them.",
                            capabilities: .init(resources: .init(subscribe: false, listChanged: false), tools: .init(listChanged: false)))
        let tools = Self.tools.filter { (access.scope == .write || $0.annotations.readOnlyHint == true) && (reports != nil || !["start_report", "start_loss_list"].contains($0.name))
            && (valuations != nil || $0.name != "value_item") && (receipts != nil || !["list_receipts", "link_receipt"].contains($0.name)) }
        await server.withMethodHandler(ListTools.self) { _ in ListTools.Result(tools: tools) }
        await server.withMethodHandler(CallTool.self) { call in
            await self.call(call.name, call.arguments ?? [:], access: access)
        }
        await server.withMethodHandler(ListResources.self) { _ in
            ListResources.Result(resources: [
                Resource(name: "rooms", uri: "nestory://rooms", description: "The household's rooms", mimeType: "application/json"),
                Resource(name: "categories", uri: "nestory://categories", description: "The household's categories", mimeType: "application/json"),
            ])
        }
        await server.withMethodHandler(ListResourceTemplates.self) { _ in
            ListResourceTemplates.Result(templates: [
                Resource.Template(uriTemplate: "nestory://items/{id}", name: "item", description: "An item with its photos (as links)",
                                  mimeType: "application/json"),
            ])
        }
        await server.withMethodHandler(ReadResource.self) { read in
            let household = access.household.id
            let text: String
            switch read.uri {
            case "nestory://rooms": text = try Self.json(try await places.rooms(household).map(RoomOut.init))
            case "nestory://categories": text = try Self.json(try await places.categories(household).map(CategoryOut.init))
            case let uri where uri.hasPrefix("nestory://items/"):
                guard let id = ItemID(string: String(uri.dropFirst("nestory://items/".count))),
                      let details = try? await items.details(household, id) else {
                    throw MCPError.invalidParams("No such item in this household: \(uri)")
                }
                text = try Self.json(ItemOut(details, origin: origin))
            default: throw MCPError.invalidParams("Unknown resource: \(read.uri)")
            }
            return ReadResource.Result(contents: [.text(text, uri: read.uri, mimeType: "application/json")])
        }
        return server
    }

    // MARK: - Tools

    static func readOnly(_ title: String) -> Tool.Annotations {
        Tool.Annotations(title: title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false)
    }

    static let itemFields: [String: Value] = [
        "name": ["type": "string"], "brand": ["type": "string"], "modelNumber": ["type": "string"], "serialNumber": ["type": "string"],
        "price": ["type": "string", "description": "Unit price as a decimal, e.g. \"1299.99\" (a number is taken too)"],
        "currency": ["type": "string", "description": "ISO 4217; the household's when omitted"],
        "purchaseDate": ["type": "string", "description": "YYYY-MM-DD"], "warrantyExpiry": ["type": "string", "description": "YYYY-MM-DD"],
        "roomID": ["type": "string"], "categoryID": ["type": "string"],
        "condition": ["type": "string", "enum": .array(ItemCondition.allCases.map { .string($0.rawValue) })], "conditionNotes": ["type": "string"],
        "barcode": ["type": "string"], "tags": ["type": "array", "items": ["type": "string"]], "notes": ["type": "string"],
        "quantity": ["type": "integer", "minimum": 1],
    ]

    public static let tools: [Tool] = [
        Tool(name: "search_items", description: "Search the inventory: words (name, brand, model, serial, notes, tags, receipts), and the inventory's filters.",
             inputSchema: ["type": "object", "properties": [
                "query": ["type": "string"], "room": ["type": "string", "description": "A room id (see list_rooms_and_categories)"],
                "category": ["type": "string", "description": "A category id"], "tag": ["type": "string"],
                "filter": ["type": "string", "enum": ["all", "photo", "receipt", "value", "high"],
                           "description": "Items needing a photo, a receipt or a value, or of high value"],
                "sort": ["type": "string", "enum": .array(ItemSort.allCases.map { .string($0.rawValue) })],
                "limit": ["type": "integer", "minimum": 1, "maximum": .int(ItemQuery.maxLimit)],
             ]], annotations: readOnly("Search items")),
        Tool(name: "get_item", description: "One item with all its fields, its documentation status, its photos (as links) and its receipts (store, date, total, and a link to the photo).",
             inputSchema: ["type": "object", "properties": ["id": ["type": "string"]], "required": ["id"]], annotations: readOnly("Get an item")),
        Tool(name: "summary", description: "Item count, estimated value per currency, the documentation score and the gaps (items needing a photo, a receipt, a value).",
             inputSchema: ["type": "object", "properties": [:]], annotations: readOnly("Inventory summary")),
        Tool(name: "list_rooms_and_categories", description: "The household's rooms and categories, with their ids and how many items each holds.",
             inputSchema: ["type": "object", "properties": [:]], annotations: readOnly("Rooms and categories")),
        Tool(name: "warranties_ending", description: "Items whose warranty ends within the next days (30 by default), soonest first.",
             inputSchema: ["type": "object", "properties": ["days": ["type": "integer", "minimum": 0, "maximum": 30]]],
             annotations: readOnly("Warranties ending soon")),
        Tool(name: "add_item", description: "Add an item to the inventory (name required). Needs a read and write token.",
             inputSchema: ["type": "object", "properties": .object(itemFields), "required": ["name"]],
             annotations: Tool.Annotations(title: "Add an item", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false)),
        Tool(name: "update_item", description: "Change some fields of an item (the others are kept). Needs a read and write token.",
             inputSchema: ["type": "object", "properties": .object(itemFields.merging(["id": ["type": "string"]]) { a, _ in a }), "required": ["id"]],
             annotations: Tool.Annotations(title: "Update an item", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false)),
        Tool(name: "start_report", description: "Start the inventory report (a PDF for insurers); answers the links to follow it and to download it when made.",
             inputSchema: ["type": "object", "properties": [
                "grouping": ["type": "string", "enum": ["room", "category"]], "includePhotos": ["type": "boolean"],
             ]],
             annotations: Tool.Annotations(title: "Start a report", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false)),
        Tool(name: "start_loss_list", description: "Start a loss list for an incident (a fire, a theft, water damage): a PDF for the adjuster with the chosen items' descriptions, serials, ages, conditions and values, and totals. Answers the links to follow it and to download it when made.",
             inputSchema: ["type": "object", "properties": [
                "itemIDs": ["type": "array", "items": ["type": "string"], "description": "The items lost or damaged (ids from search_items)"],
                "incidentDate": ["type": "string", "description": "YYYY-MM-DD, not after today"],
                "incidentType": ["type": "string", "enum": .array(IncidentType.allCases.map { .string($0.rawValue) })],
                "description": ["type": "string", "description": "What happened"],
                "policyNumber": ["type": "string"], "claimNumber": ["type": "string"], "includePhotos": ["type": "boolean"],
             ], "required": ["itemIDs", "incidentDate"]],
             annotations: Tool.Annotations(title: "Start a loss list", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false)),
        Tool(name: "list_receipts", description: "The household's receipts, newest first: store, date, total and tax as read or typed, the item each is linked to (none: not yet), and a link to its photo. Pass nextCursor as after for the next page.",
             inputSchema: ["type": "object", "properties": [
                "limit": ["type": "integer", "minimum": 1, "maximum": .int(ReceiptPageCursor.maxLimit)],
                "after": ["type": "string", "description": "nextCursor of the previous page"],
                "unlinkedOnly": ["type": "boolean", "description": "Only the receipts linked to no item yet"],
             ]], annotations: readOnly("List receipts")),
        Tool(name: "link_receipt", description: "Link a receipt to an item (its proof of purchase), or unlink it with itemID null. Needs a read and write token.",
             inputSchema: ["type": "object", "properties": [
                "receiptID": ["type": "string", "description": "From list_receipts"],
                "itemID": ["type": ["string", "null"], "description": "From search_items; null unlinks"],
             ], "required": ["receiptID", "itemID"]],
             annotations: Tool.Annotations(title: "Link a receipt", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false)),
        Tool(name: "value_item", description: "Value an item now with the offline estimate (depreciation by category, age and condition from the latest replacement cost, else the purchase price); the valuation is added to the item's history.",
             inputSchema: ["type": "object", "properties": ["id": ["type": "string"]], "required": ["id"]],
             annotations: Tool.Annotations(title: "Value an item", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false)),
    ]

    func call(_ name: String, _ arguments: [String: Value], access: MCPAccess) async -> CallTool.Result {
        guard let tool = Self.tools.first(where: { $0.name == name }) else { return Self.failure("There is no tool named \(name).") }
        if tool.annotations.readOnlyHint != true, access.scope != .write {
            return Self.failure("This token is read-only: \(name) changes the inventory. Use a read and write token.")
        }
        // An argument the tool does not take is named, never dropped: `q` for `query` would have searched everything.
        // (add_item and update_item read theirs as an item's fields, with what an item is answered with besides.)
        let known = (tool.inputSchema.objectValue?["properties"]?.objectValue?.keys).map { $0.sorted() } ?? []
        if name != "add_item", name != "update_item" {
            let unknown = arguments.keys.filter { !known.contains($0) }.sorted()
            if !unknown.isEmpty {
                return Self.failure(unknown.map { JSONFields.unknown($0, of: name, fields: known, noun: ("an argument", "arguments")).message }
                    .joined(separator: "\n"))
            }
        }
        let household = access.household
        do {
            switch name {
            case "search_items":
                let texts = try JSONFields.texts(arguments.mapValues(Self.fieldInput), known: known, numeric: ["limit"], of: name).get()
                var parameters = texts
                parameters["q"] = parameters.removeValue(forKey: "query")
                let page = try await items.search(household.id, try ItemQueryParameters.parse(parameters))
                return try Self.success(SearchOut(items: page.elements.map { ItemOut($0, origin: origin) }, more: page.nextCursor != nil))
            case "get_item":
                return try Self.success(ItemOut(try await items.details(household.id, try Self.itemID(arguments)), origin: origin))
            case "summary":
                return try Self.success(SummaryOut(try await items.summary(household.id)))
            case "list_rooms_and_categories":
                let (rooms, categories) = (try await places.counted(.rooms, in: household.id), try await places.counted(.categories, in: household.id))
                return try Self.success(PlacesOut(rooms: rooms.map(PlaceOut.init), categories: categories.map(PlaceOut.init)))
            case "list_receipts":
                guard let receipts else { return Self.failure("Receipts are kept by the server: use /mcp on it.") }
                var texts = try JSONFields.texts(arguments.filter { $0.key != "unlinkedOnly" }.mapValues(Self.fieldInput), known: ["limit", "after"],
                                                 numeric: ["limit"], of: name).get()
                switch arguments["unlinkedOnly"] {
                case .none, .some(.bool(false)): break
                case .some(.bool(true)): texts["filter"] = "unlinked"
                case .some: return Self.failure("unlinkedOnly is true or false.")
                }
                let page = try await receipts.list(household.id, try ReceiptListParameters.parse(texts))
                return try Self.success(ReceiptsOut(receipts: page.elements.map { ReceiptListingOut($0, origin: origin) },
                                                    nextCursor: page.nextCursor?.rawValue))
            case "link_receipt":
                guard let receipts else { return Self.failure("Receipts are kept by the server: use /mcp on it.") }
                guard let receipt = arguments["receiptID"]?.stringValue.flatMap(ReceiptID.init(string:)) else { throw DomainError.notFound("The receipt") }
                let item: ItemID?
                switch arguments["itemID"] {
                case .none, .some(.null): item = nil
                case .some(let value):
                    guard let id = value.stringValue.flatMap(ItemID.init(string:)) else { throw DomainError.notFound("The item") }
                    item = id
                }
                try await receipts.link(household.id, receipt, to: item)
                return try Self.success(ReceiptListingOut(try await receipts.receipt(household.id, receipt), origin: origin))
            case "warranties_ending":
                let days = min(max(arguments["days"]?.intValue ?? 30, 0), 30)
                return try Self.success(WarrantiesOut(items: try await items.warrantiesEnding(household, within: days).map(WarrantyOut.init)))
            case "add_item":
                let today = household.day(at: now())
                let draft = try Self.values(arguments, over: ItemFormValues()).draft(defaultCurrency: household.currency, today: today).get()
                let item = try await items.create(household.id, draft, today: today)
                return try Self.success(ItemOut(try await items.details(household.id, item.id), origin: origin))
            case "update_item":
                let id = try Self.itemID(arguments)
                // The fields given, over the item as read: merged onto a change saved in between, never over it.
                let base = ItemFormBase(item: try await items.details(household.id, id).item)
                do {
                    _ = try await items.update(household.id, id, values: Self.values(arguments, over: base.values), base: base,
                                               defaultCurrency: household.currency, today: household.day(at: now()))
                } catch let conflict as ItemEditConflict {
                    return Self.failure("The item was changed by someone else at the same moment (\(conflict.fields.joined(separator: ", "))). Read it again and retry.")
                }
                return try Self.success(ItemOut(try await items.details(household.id, id), origin: origin))
            case "value_item":
                guard let valuations else { return Self.failure("Valuation is not available here.") }
                return try Self.success(ValuationOut(try await valuations.estimateOffline(household.id, item: try Self.itemID(arguments))))
            case "start_report":
                guard let reports else { return Self.failure("Reports are made by the server: use /mcp on it.") }
                // Photos unless asked otherwise where the plan has them (on Free, none rather than a refusal).
                var photos = arguments["includePhotos"]?.boolValue
                if photos == nil { photos = try await reports.photosByDefault(household.id, for: .inventory) }
                let options = InventoryReportOptions(grouping: try ReportGrouping.chosen(arguments["grouping"]?.stringValue, default: .room, field: "grouping"),
                                                     includePhotos: photos ?? false, paper: .usual(for: household.currency))
                return try Self.success(reportOut(try await reports.start(household.id, .inventory(options))))
            case "start_loss_list":
                guard let reports else { return Self.failure("Reports are made by the server: use /mcp on it.") }
                guard case .array(let given)? = arguments["itemIDs"], !given.isEmpty else {
                    return Self.failure("itemIDs: give the ids of the items lost or damaged (from search_items).")
                }
                let ids = given.compactMap { $0.stringValue.flatMap(ItemID.init(string:)) }
                guard ids.count == given.count else { return Self.failure("itemIDs: give item ids, as search_items answers them.") }
                let incident = try Incident.reading(date: arguments["incidentDate"]?.stringValue ?? "", type: arguments["incidentType"]?.stringValue,
                                                    description: arguments["description"]?.stringValue ?? "",
                                                    policyNumber: arguments["policyNumber"]?.stringValue, claimNumber: arguments["claimNumber"]?.stringValue,
                                                    today: household.day(at: now()), typeField: "incidentType")
                var photos = arguments["includePhotos"]?.boolValue
                if photos == nil { photos = try await reports.photosByDefault(household.id, for: .lossList) }
                let options = LossListOptions(incident: incident, itemIDs: ids, includePhotos: photos ?? true, paper: .usual(for: household.currency))
                return try Self.success(reportOut(try await reports.start(household.id, .lossList(options))))
            default:
                return Self.failure("There is no tool named \(name).")
            }
        } catch let error as DomainError {
            if case .validation(let fields) = error {
                return Self.failure(fields.map { "\($0.field): \($0.message)" }.joined(separator: "\n"))
            }
            return Self.failure(error.message)
        } catch {
            return Self.failure("That did not work: \(error)")
        }
    }

    /// Where a report's job is followed: its page, and its status as JSON (with the download once made).
    func reportOut(_ job: Job) -> ReportOut {
        ReportOut(jobID: job.id.description, page: (origin ?? "") + "/reports/jobs/\(job.id)", status: (origin ?? "") + "/api/v1/jobs/\(job.id)")
    }

    static func itemID(_ arguments: [String: Value]) throws -> ItemID {
        guard let id = arguments["id"]?.stringValue.flatMap(ItemID.init(string:)) else { throw DomainError.notFound("The item") }
        return id
    }

    /// The tool's arguments over an item's current values (update) or none (add): a misspelt field, or a value of the
    /// wrong kind, is a problem named in the answer, never dropped in silence.
    static func values(_ arguments: [String: Value], over base: ItemFormValues) throws(DomainError) -> ItemFormValues {
        try ItemFormValues.reading(arguments.mapValues(fieldInput), over: base, ignoring: ItemOut.answeredOnly).get()
    }

    static func fieldInput(_ value: Value) -> JSONField {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .number(String(number))
        case .double(let number): return .number(String(number))
        case .string(let text): return .text(text)
        case .array(let list): return .list(list.map(fieldInput))
        case .object(let object): return .object(object.mapValues(fieldInput))
        // Binary data is no field's kind: an empty object is refused by every field.
        case .data: return .object([:])
        }
    }

    static func success<T: Encodable>(_ value: T) throws -> CallTool.Result {
        CallTool.Result(content: [.text(text: try json(value), annotations: nil, _meta: nil)], isError: false)
    }

    static func failure(_ message: String) -> CallTool.Result {
        CallTool.Result(content: [.text(text: message, annotations: nil, _meta: nil)], isError: true)
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]  // links read as links, not http:\/\/
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
