import Crypto
import Foundation
import HTTPTypes
import NestoryDomain
import NestoryStoreInterfaces
import NestoryLicences
import NestoryStore
import Testing
@testable import NestoryWeb

@Suite("Free and Pro in the web app and the API: the limits with their prompts, Settings → Account & Pro")
struct LicenceWebTests {
    let vendor = Curve25519.Signing.PrivateKey()

    func app() throws -> TestApp { try TestApp(instancePro: false, licenceKeys: ["test-1": vendor.publicKey.rawRepresentation]) }

    func key(for household: HouseholdID, licensee: String = "The Smiths", expires: CalendarDate? = nil) throws -> String {
        try LicenceKey.issue(LicencePayload(keyID: "test-1", licensee: licensee, household: household,
                                            issued: try CalendarDate(iso: "2026-01-01"), expires: expires), with: vendor)
    }

    func fill(_ app: TestApp, _ household: HouseholdID, _ count: Int) throws {
        _ = try app.database.importItems(household, (0..<count).map { NamedPlaceDraft(draft: ItemDraft(name: "Thing \($0)", currency: .usd), roomName: nil, categoryName: nil) },
                                         now: Date(), today: CalendarDate(Date(), in: .current))
    }

    @Test("at 100 items the form keeps what was typed and says the limit; the API answers 402 pro_required; a licence lifts it")
    func itemLimit() async throws {
        let app = try app()
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        try fill(app, household.id, 100)
        let key = try key(for: household.id)
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let form = try await ann.request(.post, "/items", form: ["name": "Grandfather clock", "brand": "Howard Miller", "currency": "USD", "quantity": "1",
                                                                     "condition": "good", "price": "2400"])
            #expect(form.status == .unprocessableContent)
            #expect(form.body.contains("Nestory Free keeps up to 100 items") && form.body.contains("value=\"Grandfather clock\"")
                    && form.body.contains("value=\"Howard Miller\""))
            let api = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Clock"}"#)
            #expect(api.status.code == 402 && api.errorCode == "pro_required")
            #expect(try app.database.itemCount(household.id) == 100)

            let plan = try await ann.request(.get, "/api/v1/plan")
            let body = try #require(plan.json as? [String: Any])
            #expect(body["plan"] as? String == "free" && body["itemCount"] as? Int == 100)
            #expect((body["limits"] as? [String: Any])?["items"] as? Int == 100)

            let settings = try await ann.request(.get, "/settings")
            #expect(settings.body.contains("id=\"pro\"") && settings.body.contains("100 of 100 items") && settings.body.contains(HTML.escape(PlanLimits.paywall)))
            let installed = try await ann.request(.post, "/settings/licence", form: ["licence": key])
            #expect(installed.status == .seeOther && installed.location?.hasPrefix("/settings?notice=") == true)
            let pro = try await ann.request(.get, "/settings")
            #expect(pro.body.contains("Nestory Pro") && pro.body.contains("Active") && pro.body.contains("The Smiths"))
            #expect(try await ann.request(.post, "/api/v1/items", json: #"{"name": "Clock"}"#).status == .created)
            #expect((try await ann.request(.get, "/api/v1/plan").json as? [String: Any])?["plan"] as? String == "pro")
        }
    }

    @Test("Settings refuses a changed, expired or other household's key with the reason and keeps it in the form; members may not install")
    func refusedKeys() async throws {
        let app = try app()
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        var tampered = Array(try key(for: household.id))
        tampered[30] = tampered[30] == "A" ? "B" : "A"
        let cases: [(String, String)] = [
            (String(tampered), "not a valid"), // a changed payload byte may break its JSON or its signature
            (try key(for: household.id, expires: try CalendarDate(iso: "2026-01-31")), "expired on 2026-01-31"),
            (try key(for: HouseholdID()), "another household"),
            ("not a key", "starts with"),
        ]
        let valid = try key(for: household.id)
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            for (text, reason) in cases {
                let reply = try await ann.request(.post, "/settings/licence", form: ["licence": text])
                #expect(reply.status == .unprocessableContent, "\(reason)")
                #expect(reply.body.contains(HTML.escape(reason)) || (reason == "not a valid" && reply.body.contains("signature")), "\(reason)")
                #expect(reply.body.contains(HTML.escape(text)), "the key stays in the form")
            }
            var bob = Browser(client)
            try await bob.signIn("bob@example.com")
            #expect(try await bob.request(.post, "/settings/licence", form: ["licence": valid]).status == .forbidden)
            #expect(try await bob.request(.get, "/settings").body.contains("The household’s owner installs a licence."))
        }
        #expect(try await app.dependencies.services.plan.entitlement(household.id) == .free)
    }

    @Test("reports on Free: photos off with a prompt, loss lists of 20, no CSV; all three open with Pro")
    func reports() async throws {
        let app = try app()
        let (household, _) = try app.household("The Smiths", email: "ann@example.com")
        try fill(app, household.id, 25)
        let ids = try app.database.items(household.id, ItemQuery(limit: 25)).elements.map(\.item.id.description)
        let key = try key(for: household.id)
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let options = try await ann.request(.get, "/reports/inventory")
            #expect(options.body.contains("name=\"photos\" value=\"1\" disabled") && options.body.contains("without photos"))
            var html = HTTPFields()
            html[.accept] = "text/html"
            let withPhotos = try await ann.request(.post, "/reports/inventory", form: ["group": "room", "photos": "1", "paper": "a4"], headers: html)
            #expect(withPhotos.status.code == 402 && withPhotos.body.contains("Part of Nestory Pro") && withPhotos.body.contains("/settings#pro"))
            #expect(try await ann.request(.post, "/reports/inventory", form: ["group": "room", "paper": "a4"]).status == .seeOther)

            let query = ids.map { "item=\($0)" }.joined(separator: "&")
            let confirm = try await ann.request(.get, "/reports/loss/confirm?\(query)")
            #expect(confirm.status == .ok && confirm.body.contains("up to 20 items, and 25 are chosen"))
            let fields = ["incidentDate": "2026-01-10", "type": "fire", "description": "Kitchen fire", "paper": "a4"]
            let body = (fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" } + ids.map { "item=\($0)" })
                .joined(separator: "&")
            let refused = try await ann.request(.post, "/reports/loss", body: Data((body + "&_csrf=\(ann.csrf ?? "")").utf8),
                                                contentType: "application/x-www-form-urlencoded")
            #expect(refused.status.code == 402 && refused.body.contains("Kitchen fire") && refused.body.contains("up to 20 items"))

            #expect(try await ann.request(.get, "/reports").body.contains("CSV: Nestory Pro"))
            let csv = try await ann.request(.get, "/reports/export.csv")
            #expect(csv.status.code == 402)
            #expect(try await ann.request(.get, "/reports/export.json").status == .ok)

            #expect(try await ann.request(.post, "/settings/licence", form: ["licence": key]).status == .seeOther)
            #expect(try await ann.request(.get, "/reports/export.csv").status == .ok)
            #expect(!(try await ann.request(.get, "/reports/inventory").body.contains("disabled")))
            let loss = try await ann.request(.post, "/reports/loss", body: Data((body + "&_csrf=\(ann.csrf ?? "")").utf8),
                                             contentType: "application/x-www-form-urlencoded")
            #expect(loss.status == .seeOther)
        }
    }
}
