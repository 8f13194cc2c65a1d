import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HummingbirdTesting
import MCP
import NestoryDomain
import NestoryReports
import NestoryServices
import NestoryStore
import Testing
@testable import NestoryWeb

/// MCP over Streamable HTTP at /mcp (issue 20), driven by the SDK's own client against a live server.
@Suite struct MCPTests {
    static func text(_ content: [Tool.Content]) -> String {
        content.compactMap { if case .text(let text, _, _) = $0 { return text } else { return nil } }.joined()
    }

    static func connect(port: Int, token: String) async throws -> Client {
        let transport = HTTPClientTransport(endpoint: URL(string: "http://127.0.0.1:\(port)/mcp")!, streaming: false) { request in
            var request = request
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            return request
        }
        let client = Client(name: "nestory-tests", version: "1")
        _ = try await client.connect(transport: transport)
        return client
    }

    /// A read and write token ("assistant") and a read-only one ("reader") for the person in the household.
    static func tokens(_ app: TestApp, user: UserID, household: HouseholdID) async throws -> (write: String, read: String) {
        let tokens = app.dependencies.services.tokens
        return (try await tokens.create(user: user, household: household, name: "assistant", scope: "write", expires: nil).token,
                try await tokens.create(user: user, household: household, name: "reader", scope: "read", expires: nil).token)
    }

    @Test func toolsAndResourcesActInTheTokensHouseholdWithinItsScope() async throws {
        let app = try TestApp()
        let (smiths, ann) = try app.household("Smiths", email: "ann@example.com")
        let (joneses, _) = try app.household("Joneses", email: "jo@example.com")
        let items = app.dependencies.items
        let today = CalendarDate(Date(), in: .current)
        let tv = try await items.create(smiths.id, ItemDraft(name: "Living room TV", purchasePrice: try Money.parse("899.00", currency: .usd),
                                                             currency: .usd, warrantyExpiry: try today.adding(days: 10)), today: today)
        let theirs = try await items.create(joneses.id, ItemDraft(name: "Their TV", currency: .usd), today: today)
        let receipt = try app.database.addReceipt(smiths.id, itemID: tv.id, data: Data("receipt".utf8), contentType: "image/jpeg", now: Date())
        let (write, read) = try await Self.tokens(app, user: ann.id, household: smiths.id)

        try await app.run(.live) { client in
            let port = try #require(client.port)
            let writer = try await Self.connect(port: port, token: write)
            let names = Set(try await writer.listTools().tools.map(\.name))
            #expect(names == ["search_items", "get_item", "summary", "list_rooms_and_categories", "warranties_ending", "add_item", "update_item", "start_report", "start_loss_list", "value_item",
                              "list_receipts", "link_receipt"])
            let annotated = try await writer.listTools().tools
            #expect(annotated.first { $0.name == "update_item" }?.annotations.destructiveHint == true)
            #expect(annotated.filter { $0.annotations.readOnlyHint == true }.count == 6)

            // An argument a tool does not take is named (with `q`, the search searched everything and said so).
            let misnamed = try await writer.callTool(name: "search_items", arguments: ["q": "tv"])
            #expect(misnamed.isError == true && Self.text(misnamed.content) == "“q” is not an argument of search_items: the arguments of search_items are category, filter, limit, query, room, sort, tag.")
            let extra = try await writer.callTool(name: "summary", arguments: ["household": "Smiths"])
            #expect(extra.isError == true && Self.text(extra.content).contains("it takes none"))
            let limited = try await writer.callTool(name: "search_items", arguments: ["query": "tv", "limit": "1"])
            #expect(limited.isError == false && Self.text(limited.content).contains("Living room TV"), "\(Self.text(limited.content))")
            let found = try await writer.callTool(name: "search_items", arguments: ["query": "tv"])
            #expect(found.isError == false && Self.text(found.content).contains("Living room TV") && !Self.text(found.content).contains("Their TV"))
            let item = try await writer.callTool(name: "get_item", arguments: ["id": .string(tv.id.description)])
            #expect(Self.text(item.content).contains("\"amount\":\"899.00\""))
            // Its receipts, with a link to each photo (it said only how many there were).
            #expect(Self.text(item.content).contains("\"receipts\":[{\"file\":\"http://") && Self.text(item.content).contains("\"id\":\"\(receipt.id)\""),
                    "\(Self.text(item.content))")
            let summary = try await writer.callTool(name: "summary")
            #expect(Self.text(summary.content).contains("\"itemCount\":1") && Self.text(summary.content).contains("\"needsPhoto\":1"))
            let warranties = try await writer.callTool(name: "warranties_ending", arguments: ["days": 30])
            #expect(Self.text(warranties.content).contains("\"daysLeft\":10"))
            let places = try await writer.callTool(name: "list_rooms_and_categories")
            #expect(Self.text(places.content).contains("Kitchen"))
            // Another household's id is not found.
            let other = try await writer.callTool(name: "get_item", arguments: ["id": .string(theirs.id.description)])
            #expect(other.isError == true && !Self.text(other.content).contains("Their TV"))
            // Writes.
            let added = try await writer.callTool(name: "add_item", arguments: ["name": "Espresso machine", "price": "450", "tags": ["kitchen"]])
            #expect(added.isError == false && Self.text(added.content).contains("Espresso machine"))
            let bad = try await writer.callTool(name: "add_item", arguments: ["name": "X", "price": "lots"])
            #expect(bad.isError == true && Self.text(bad.content).contains("price"))
            // A misspelt field is named in the answer and nothing changes (it was dropped, and the update answered as done).
            let misspelt = try await writer.callTool(name: "update_item", arguments: ["id": .string(tv.id.description), "note": "Wall mounted"])
            #expect(misspelt.isError == true && Self.text(misspelt.content).contains("“note” is not a field of an item (did you mean “notes”?)"))
            #expect(try await items.details(smiths.id, tv.id).item.notes == nil)
            // The conditions offered are the ones an item can have ("excellent" was offered and refused).
            let addTool = try #require(annotated.first { $0.name == "add_item" })
            let condition = addTool.inputSchema.objectValue?["properties"]?.objectValue?["condition"]?.objectValue?["enum"]?.arrayValue
            #expect(condition?.compactMap(\.stringValue) == ItemCondition.allCases.map(\.rawValue))
            let likeNew = try await writer.callTool(name: "add_item", arguments: ["name": "Kettle", "condition": "like_new", "price": 24.99])
            #expect(likeNew.isError == false && Self.text(likeNew.content).contains("\"amount\":\"24.99\""), "\(Self.text(likeNew.content))")
            let updated = try await writer.callTool(name: "update_item", arguments: ["id": .string(tv.id.description), "notes": "Wall mounted"])
            #expect(updated.isError == false)
            let details = try await items.details(smiths.id, tv.id)
            #expect(details.item.notes == "Wall mounted" && details.item.name == "Living room TV")
            let changeTheirs = try await writer.callTool(name: "update_item", arguments: ["id": .string(theirs.id.description), "notes": "mine now"])
            #expect(changeTheirs.isError == true)
            #expect(try await items.details(joneses.id, theirs.id).item.notes == nil)
            // Valued offline: from the purchase price, added to the item's history.
            let valued = try await writer.callTool(name: "value_item", arguments: ["id": .string(tv.id.description)])
            #expect(valued.isError == false && Self.text(valued.content).contains("\"method\":\"offline\""), "\(Self.text(valued.content))")
            #expect(try await app.dependencies.services.valuations.history(smiths.id, item: tv.id).count == 1)
            #expect(try await writer.callTool(name: "value_item", arguments: ["id": .string(theirs.id.description)]).isError == true)
            // A report: started, its links answered, and it is made.
            let report = try await writer.callTool(name: "start_report", arguments: ["includePhotos": false])
            #expect(report.isError == false, "\(Self.text(report.content))")
            let links = try #require(try JSONSerialization.jsonObject(with: Data(Self.text(report.content).utf8)) as? [String: String])
            let jobID = try #require(links["jobID"].flatMap(JobID.init(string:)))
            #expect(links["status"]?.hasSuffix("/api/v1/jobs/\(jobID)") == true && links["page"]?.hasSuffix("/reports/jobs/\(jobID)") == true)
            #expect(try await app.waitForJob(jobID).state == .succeeded)
            // The status the tool links to, and the PDF its download link gives, with the same token (the PDF was
            // once refused to tokens: the answer pointed where the assistant could not follow).
            func get(_ path: String) async throws -> (Data, Int) {
                var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
                request.setValue("Bearer \(write)", forHTTPHeaderField: "Authorization")
                let (data, response) = try await URLSession.shared.data(for: request)
                return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
            }
            let status = try JSONSerialization.jsonObject(with: try await get("/api/v1/jobs/\(jobID)").0) as? [String: Any]
            let download = try #require((status?["links"] as? [String: Any])?["download"] as? String)
            let (pdf, code) = try await get(download)
            #expect(code == 200 && pdf.starts(with: Data("%PDF".utf8)))
            // A loss list: the incident is checked as on the Reports tab, then the list is made of the household's items.
            let badIncident = try await writer.callTool(name: "start_loss_list", arguments: ["itemIDs": [.string(tv.id.description)],
                                                                                         "incidentDate": "2999-01-01", "incidentType": "flood"])
            #expect(badIncident.isError == true && Self.text(badIncident.content) == "incidentType: Choose fire, theft, water or other.",
                    "\(Self.text(badIncident.content))")
            let theft = try await writer.callTool(name: "start_loss_list", arguments: ["itemIDs": [.string(tv.id.description)], "incidentDate": "2025-06-01",
                                                                                       "incidentType": "theft", "description": "Break-in", "includePhotos": false])
            #expect(theft.isError == false, "\(Self.text(theft.content))")
            let lossJob = try #require((try JSONSerialization.jsonObject(with: Data(Self.text(theft.content).utf8)) as? [String: String])?["jobID"]
                .flatMap(JobID.init(string:)))
            #expect(try await app.waitForJob(lossJob).state == .succeeded)
            let lossList = try #require(try app.database.reports(smiths.id).first { $0.kind == "loss" })
            let options = try JSONDecoder().decode(LossListOptions.self, from: Data(lossList.options.utf8))
            #expect(options.itemIDs == [tv.id] && options.incident.type == .theft && options.incident.description == "Break-in")
            #expect(try await writer.callTool(name: "start_loss_list", arguments: ["itemIDs": [.string(theirs.id.description)], "incidentDate": "2025-06-01"])
                        .isError == true)
            // Resources.
            let rooms = try await writer.readResource(uri: "nestory://rooms")
            guard case .some(let first) = rooms.first else { Issue.record("no rooms resource"); return }
            #expect(first.text?.contains("Kitchen") == true)
            let resource = try await writer.readResource(uri: "nestory://items/\(tv.id)")
            #expect(resource.first?.text?.contains("Living room TV") == true)
            await #expect(throws: (any Error).self) { _ = try await writer.readResource(uri: "nestory://items/\(theirs.id)") }
            await writer.disconnect()

            // A read token: only the read-only tools, and a write is refused.
            let reader = try await Self.connect(port: port, token: read)
            #expect(Set(try await reader.listTools().tools.map(\.name)) == ["search_items", "get_item", "summary", "list_rooms_and_categories", "warranties_ending", "list_receipts"])
            let refused = try await reader.callTool(name: "add_item", arguments: ["name": "Sneaky"])
            #expect(refused.isError == true && Self.text(refused.content).contains("read-only"))
            #expect(try await items.search(smiths.id, ItemQuery(search: "Sneaky")).elements.isEmpty)
            await reader.disconnect()
        }
    }

    /// An assistant goes through the household's receipts and links each to its item: the list pages and says which item
    /// each is for, a link answers the receipt as linked, and another household's receipt or item is not found.
    @Test func anAssistantLinksReceiptsToTheirItems() async throws {
        let app = try TestApp()
        let (smiths, ann) = try app.household("Smiths", email: "ann@example.com")
        let (joneses, _) = try app.household("Joneses", email: "jo@example.com")
        let items = app.dependencies.items
        let today = CalendarDate(Date(), in: .current)
        let garage = try #require(try app.database.rooms(smiths.id).first { $0.name == "Garage" })
        let tv = try await items.create(smiths.id, ItemDraft(name: "Living room TV", currency: .usd), today: today)
        let drill = try await items.create(smiths.id, ItemDraft(name: "Drill", currency: .usd, roomID: garage.id), today: today)
        let theirItem = try await items.create(joneses.id, ItemDraft(name: "Their TV", currency: .usd), today: today)
        let start = Date()
        let onTV = try app.database.addReceipt(smiths.id, itemID: tv.id, data: Data("tv receipt".utf8), contentType: "image/jpeg", now: start)
        let loose = try app.database.addReceipt(smiths.id, itemID: nil, data: Data("drill receipt".utf8), contentType: "image/jpeg",
                                                fields: ReceiptFields(vendor: "Hardware Haven"), now: start.addingTimeInterval(1))
        let theirs = try app.database.addReceipt(joneses.id, itemID: theirItem.id, data: Data("their receipt".utf8), contentType: "image/jpeg", now: start)
        let (write, read) = try await Self.tokens(app, user: ann.id, household: smiths.id)

        try await app.run(.live) { client in
            let port = try #require(client.port)
            let writer = try await Self.connect(port: port, token: write)
            func json(_ result: (content: [Tool.Content], isError: Bool?)) throws -> [String: Any] {
                try #require(try JSONSerialization.jsonObject(with: Data(Self.text(result.content).utf8)) as? [String: Any], "\(Self.text(result.content))")
            }
            // Newest first, this household's only, each with its item or none.
            let listed = try json(try await writer.callTool(name: "list_receipts"))
            let receipts = try #require(listed["receipts"] as? [[String: Any]])
            #expect(receipts.map { $0["id"] as? String } == [loose.id.description, onTV.id.description])
            #expect(receipts[0]["itemID"] is NSNull && receipts[0]["vendor"] as? String == "Hardware Haven")
            #expect(receipts[1]["itemName"] as? String == "Living room TV" && listed["nextCursor"] is NSNull)
            #expect(!Self.text(try await writer.callTool(name: "list_receipts").content).contains(theirs.id.description))
            // A page at a time.
            let first = try json(try await writer.callTool(name: "list_receipts", arguments: ["limit": 1]))
            let cursor = try #require(first["nextCursor"] as? String)
            let second = try json(try await writer.callTool(name: "list_receipts", arguments: ["limit": 1, "after": .string(cursor)]))
            #expect((second["receipts"] as? [[String: Any]])?.first?["id"] as? String == onTV.id.description)
            #expect(try await writer.callTool(name: "list_receipts", arguments: ["limit": 500]).isError == true)
            #expect(try await writer.callTool(name: "list_receipts", arguments: ["unlinkedOnly": "yes"]).isError == true)
            #expect(try await writer.callTool(name: "list_receipts", arguments: ["filter": "unlinked"]).isError == true)  // not its name here
            let loose1 = try json(try await writer.callTool(name: "list_receipts", arguments: ["unlinkedOnly": true]))
            #expect((loose1["receipts"] as? [[String: Any]])?.map { $0["id"] as? String } == [loose.id.description])
            // Linked, then answered as linked; unlinked with null.
            let linked = try json(try await writer.callTool(name: "link_receipt", arguments: ["receiptID": .string(loose.id.description),
                                                                                               "itemID": .string(drill.id.description)]))
            #expect(linked["itemName"] as? String == "Drill")
            #expect(try await items.details(smiths.id, drill.id).receipts.map(\.id) == [loose.id])
            _ = try await writer.callTool(name: "link_receipt", arguments: ["receiptID": .string(onTV.id.description), "itemID": .null])
            #expect(try await items.details(smiths.id, tv.id).receipts.isEmpty)
            // Another household's receipt or item: not found, nothing changed.
            #expect(try await writer.callTool(name: "link_receipt", arguments: ["receiptID": .string(theirs.id.description),
                                                                                 "itemID": .string(drill.id.description)]).isError == true)
            #expect(try await writer.callTool(name: "link_receipt", arguments: ["receiptID": .string(loose.id.description),
                                                                                 "itemID": .string(theirItem.id.description)]).isError == true)
            #expect(try await items.details(smiths.id, drill.id).receipts.map(\.id) == [loose.id])
            // Rooms and categories say how many items they hold.
            let places = try json(try await writer.callTool(name: "list_rooms_and_categories"))
            let rooms = try #require(places["rooms"] as? [[String: Any]])
            #expect(rooms.first { $0["name"] as? String == "Garage" }?["itemCount"] as? Int == 1)
            await writer.disconnect()

            // A read token lists, and may not link.
            let reader = try await Self.connect(port: port, token: read)
            #expect(try await reader.callTool(name: "list_receipts").isError == false)
            let refused = try await reader.callTool(name: "link_receipt", arguments: ["receiptID": .string(loose.id.description), "itemID": .null])
            #expect(refused.isError == true && Self.text(refused.content).contains("read-only"))
            await reader.disconnect()
        }
    }

    @Test func theEndpointTakesOnlyALiveTokenAndItsOwnSessions() async throws {
        let app = try TestApp()
        let (smiths, ann) = try app.household("Smiths", email: "ann@example.com")
        let tokens = app.dependencies.services.tokens
        let first = try await tokens.create(user: ann.id, household: smiths.id, name: "a", scope: "read", expires: nil)
        let second = try await tokens.create(user: ann.id, household: smiths.id, name: "b", scope: "read", expires: nil)
        try await app.run(.live) { client in
            let port = try #require(client.port)
            let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
            func post(_ token: String?, session: String? = nil, host: String? = nil) async throws -> (Int, String?) {
                var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/mcp")!)
                request.httpMethod = "POST"
                request.httpBody = Data(initialize.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.setValue("application/json, text/event-stream", forHTTPHeaderField: "Accept")
                if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
                if let session { request.setValue(session, forHTTPHeaderField: "Mcp-Session-Id") }
                if let host { request.setValue(host, forHTTPHeaderField: "Host") }
                let (_, response) = try await URLSession.shared.data(for: request)
                let http = try #require(response as? HTTPURLResponse)
                return (http.statusCode, http.value(forHTTPHeaderField: "Mcp-Session-Id"))
            }
            #expect(try await post(nil).0 == 401)
            #expect(try await post("nst_wrong").0 == 401)
            let (status, session) = try await post(first.token)
            #expect(status == 200 && session != nil)
            // No standalone SSE stream: GET is 405 (it would otherwise hold the connection).
            var get = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/mcp")!)
            get.setValue("Bearer \(first.token)", forHTTPHeaderField: "Authorization")
            get.setValue(session, forHTTPHeaderField: "Mcp-Session-Id")
            #expect((try await URLSession.shared.data(for: get).1 as? HTTPURLResponse)?.statusCode == 405)
            // Another token cannot use this session.
            #expect(try await post(second.token, session: session).0 == 404)
            // A host the settings do not allow is refused (DNS rebinding).
            #expect(try await post(first.token, host: "evil.example").0 == 421)
            // Revoked: the token is refused at once.
            try await tokens.revoke(ann.id, id: first.summary.id)
            #expect(try await post(first.token, session: session).0 == 401)
        }
    }
}
