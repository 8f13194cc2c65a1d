import Foundation
import HTTPTypes
import NestoryDomain
import NestoryStore
import NestoryValuation
import Testing
@testable import NestoryWeb

@Suite("Valuations in the web app and the API: the item's Value card, values entered by hand, the history by day")
struct ValuationWebTests {
    func item(_ app: TestApp, _ household: HouseholdID, name: String, price: String?, bought: String?, category: String?) throws -> Item {
        var draft = ItemDraft(name: name, currency: .usd)
        draft.purchasePrice = try price.map { try Money.parse($0, currency: .usd) }
        draft.purchaseDate = try bought.map { try CalendarDate(iso: $0) }
        draft.categoryID = try category.flatMap { name in try app.database.categories(household).first { $0.name == name }?.id }
        return try app.database.createItem(household, draft, now: Date())
    }

    @Test("the offline estimate shows its figure and formula; without a price it says what to enter; the price is never changed")
    func offline() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        let tv = try item(app, household.id, name: "Television", price: "1200", bought: "2021-06-01", category: "Electronics")
        let vase = try item(app, household.id, name: "Vase", price: nil, bought: nil, category: nil)
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            #expect(try await ann.request(.get, "/items/\(tv.id)").body.contains("No value yet"))
            let estimated = try await ann.request(.post, "/items/\(tv.id)/valuations/offline", form: [:])
            #expect(estimated.status == .seeOther && estimated.location?.contains("#value") == true)
            let page = try await ann.request(.get, "/items/\(tv.id)")
            #expect(page.body.contains("Actual cash value") && page.body.contains("Offline estimate (depreciation)"))
            #expect(page.body.contains("class=\"formula\"") && page.body.contains("Electronics"))
            #expect(try app.database.item(household.id, tv.id).item.purchasePrice == tv.purchasePrice)

            let refused = try await ann.request(.post, "/items/\(vase.id)/valuations/offline", form: [:])
            #expect(refused.status == .unprocessableContent && refused.body.contains("Enter a purchase price or a replacement cost first"))
        }
    }

    @Test("a value entered by hand: refused fields keep what was typed; saved, it leads the card and the day's totals")
    func manual() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        let ring = try item(app, household.id, name: "Ring", price: "900", bought: "2019-03-01", category: "Jewelry & Watches")
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let bad = try await ann.request(.post, "/items/\(ring.id)/valuations", form: ["replacementCost": "lots", "actualCashValue": "", "note": "Appraisal"])
            #expect(bad.status == .unprocessableContent && bad.body.contains("value=\"lots\"") && bad.body.contains("value=\"Appraisal\""))
            #expect(bad.body.contains("<details open>"))
            // The refused form's page opens at the value card (its action's fragment, which the browser keeps).
            #expect(bad.body.contains("action=\"/items/\(ring.id)/valuations#value\""))
            let saved = try await ann.request(.post, "/items/\(ring.id)/valuations",
                                              form: ["replacementCost": "3,200", "actualCashValue": "2800", "date": "2026-11-20", "note": "Appraisal"])
            #expect(saved.status == .seeOther)
            let page = try await ann.request(.get, "/items/\(ring.id)")
            #expect(page.body.contains("$3,200.00") && page.body.contains("$2,800.00") && page.body.contains("Entered by hand"))
            let history = try await ann.request(.get, "/valuations")
            #expect(history.body.contains("/valuations?day=2026-11-20") && history.body.contains("1 value") && history.body.contains("ACV $2,800.00"))
            let day = try await ann.request(.get, "/valuations?day=2026-11-20")
            #expect(day.body.contains("Ring") && day.body.contains("/items/\(ring.id)#value"))
            #expect(try await ann.request(.get, "/valuations?day=yesterday").status == .unprocessableContent)
            // A search's items can be valued together, from the inventory.
            let search = try await ann.request(.get, "/?q=ring")
            #expect(search.body.contains("href=\"/valuations/batches/new?q=ring\">Value these items"))
            #expect(!(try await ann.request(.get, "/").body.contains("Value these items")))
            let chosen = try await ann.request(.get, "/valuations/batches/new?q=ring")
            #expect(chosen.body.contains("<strong>1 item</strong> matching “ring”.") && chosen.body.contains("Value 1 item"))
            // With no search, the batch says it is every item (it said "from the search").
            let all = try await ann.request(.get, "/valuations/batches/new")
            #expect(all.body.contains("<strong>The household’s one item</strong>.") && !all.body.contains("from the search"))
            let room = try await ann.request(.get, "/valuations/batches/new?q=ring&room=Bedroom")
            #expect(room.body.contains("from the search"))

            // Every earlier value is listed, as many as the summary counts (the page listed twenty of them).
            for day in 1...24 {
                let next = try await ann.request(.post, "/items/\(ring.id)/valuations",
                                                 form: ["replacementCost": "\(3000 + day)", "date": String(format: "2026-10-%02d", day)])
                #expect(next.status == .seeOther)
            }
            let full = try await ann.request(.get, "/items/\(ring.id)").body
            #expect(full.contains("<summary>Earlier values (24)</summary>"))
            let earlier = try #require(full.range(of: "<summary>Earlier values (24)</summary>")).upperBound
            let listed = full[earlier...].components(separatedBy: "</details>")[0]
            #expect(listed.components(separatedBy: "<li class=\"row\">").count - 1 == 24)
        }
    }

    @Test("the API: enter, estimate, list and the history; another household's item is not found")
    func api() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        let (other, _) = try app.household("The Joneses", email: "jo@example.com")
        let lamp = try item(app, household.id, name: "Lamp", price: "80", bought: "2024-01-10", category: "Furniture")
        let theirs = try item(app, other.id, name: "Their lamp", price: "80", bought: nil, category: nil)
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let entered = try await ann.request(.post, "/api/v1/items/\(lamp.id)/valuations", json: #"{"replacementCost": "95.00", "note": "Shop quote"}"#)
            #expect(entered.status == .created)
            let body = try #require(entered.json as? [String: Any])
            #expect(body["method"] as? String == "manual" && ((body["replacementCost"] as? [String: Any])?["value"] as? [String: Any])?["amount"] as? String == "95.00")
            #expect(try await ann.request(.post, "/api/v1/items/\(lamp.id)/valuations/offline").status == .created)
            let list = try #require((try await ann.request(.get, "/api/v1/items/\(lamp.id)/valuations").json as? [String: Any])?["items"] as? [[String: Any]])
            // The offline estimate started from the value entered (95), not the purchase price (80).
            #expect(list.count == 2 && list[0]["method"] as? String == "offline")
            #expect(((list[0]["replacementCost"] as? [String: Any])?["value"] as? [String: Any])?["amount"] as? String == "95.00")
            let days = try #require((try await ann.request(.get, "/api/v1/valuations/history").json as? [String: Any])?["items"] as? [[String: Any]])
            #expect(days.first?["count"] as? Int == 2)
            #expect(try await ann.request(.get, "/api/v1/items/\(theirs.id)/valuations").status == .notFound)
            #expect(try await ann.request(.post, "/api/v1/items/\(theirs.id)/valuations", json: #"{"replacementCost": "1"}"#).status == .notFound)
            #expect(try await ann.request(.post, "/api/v1/items/\(lamp.id)/valuations", json: #"{"replacementCost": "-3"}"#).status == .unprocessableContent)
            #expect(try await ann.request(.post, "/api/v1/items/\(lamp.id)/valuations", json: "[]").status == .badRequest)
            // A misspelt field is refused, naming it, and nothing is saved (it was dropped: a valuation without its note).
            let misspelt = try await ann.request(.post, "/api/v1/items/\(lamp.id)/valuations", json: #"{"replacementCost": "99", "notes": "Appraisal"}"#)
            #expect(misspelt.status == .unprocessableContent && misspelt.body.contains("“notes” is not a field of a valuation (did you mean “note”?)"))
            #expect(try await ann.request(.post, "/api/v1/items/\(lamp.id)/valuations", json: #"{"note": 5, "replacementCost": "99"}"#).status == .unprocessableContent)
            #expect(try await app.dependencies.services.valuations.history(household.id, item: lamp.id).count == 2)
            // An amount may be a number, read exactly.
            let number = try await ann.request(.post, "/api/v1/items/\(lamp.id)/valuations", json: #"{"actualCashValue": 60.10}"#)
            #expect(((number.json as? [String: Any])?["actualCashValue"] as? [String: Any]).flatMap { $0["value"] as? [String: Any] }?["amount"] as? String == "60.10")
        }
    }
}

@Suite("The depreciation table: the owner adjusts lives, floor and condition factors; estimates follow; members read it")
struct DepreciationTableWebTests {
    @Test("a shorter life and a higher floor change the next estimate; bad values are refused by field; reset puts the standard back")
    func adjust() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        let electronics = try #require(try app.database.categories(household.id).first { $0.name == "Electronics" })
        var draft = ItemDraft(name: "Television", currency: .usd)
        draft.purchasePrice = try Money.parse("1000", currency: .usd)
        draft.purchaseDate = CalendarDate(Date().addingTimeInterval(-4 * 365.25 * 86_400), in: .current)
        draft.categoryID = electronics.id
        draft.condition = .new
        let tv = try app.database.createItem(household.id, draft, now: Date())
        let index = try #require(DepreciationTable.standard.rules.firstIndex { $0.category == "Electronics" })
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let page = try await ann.request(.get, "/settings/valuation/depreciation")
            #expect(page.status == .ok && page.body.contains("id=\"f-life-\(index)\"") && page.body.contains("Nestory’s own factors"))
            var form: [String: String] = ["floor": "10", "life-other": "10"]
            for (i, rule) in DepreciationTable.standard.rules.enumerated() { form["life-\(i)"] = rule.usefulLifeYears.map(String.init) ?? "" }
            for c in ItemCondition.allCases { form["condition-\(c.rawValue)"] = String((DepreciationTable.standard.conditionBasisPoints[c] ?? 10_000) / 100) }
            var bad = form
            bad["life-\(index)"] = "0"
            bad["floor"] = "150"
            let refused = try await ann.request(.post, "/settings/valuation/depreciation", form: bad)
            #expect(refused.status == .unprocessableContent && refused.body.contains("whole years from 1 to 100") && refused.body.contains("value=\"150\""))
            // The summary says which category (every life's message is the same sentence).
            let category = DepreciationTable.standard.rules[index].category
            #expect(refused.body.contains("<li>\(HTML.escape(category)): Enter whole years from 1 to 100"), "\(refused.body)")
            #expect(refused.body.contains("<li>Floor: Enter a whole percentage from 0 to 100.</li>"))
            // Electronics live 5 years here, with a 30% floor: a 4-year-old new TV keeps 1000 × max(30%, 20%) = 300.
            form["life-\(index)"] = "5"
            form["floor"] = "30"
            #expect(try await ann.request(.post, "/settings/valuation/depreciation", form: form).status == .seeOther)
            #expect(try await ann.request(.post, "/items/\(tv.id)/valuations/offline", form: [:]).status == .seeOther)
            let latest = try #require(try app.database.valuations(household.id, item: tv.id).first)
            #expect(latest.actualCashValue?.value == (try Money.parse("300", currency: .usd)))
            #expect(latest.explanation?.contains("Set by the household’s owner") == true)
            #expect(try await ann.request(.post, "/settings/valuation/depreciation/reset", form: [:]).status == .seeOther)
            // Electronics' field shows the standard 10 years again (it was 5).
            #expect(try await ann.request(.get, "/settings/valuation/depreciation").body.contains("name=\"life-\(index)\" type=\"text\" value=\"10\""))

            var bob = Browser(client)
            try await bob.signIn("bob@example.com")
            #expect(try await bob.request(.get, "/settings/valuation/depreciation").body.contains("disabled"))
            #expect(try await bob.request(.post, "/settings/valuation/depreciation", form: form).status == .forbidden)
        }
    }
}
