import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NestoryDemo
import NestoryDomain
import Testing
@testable import NestoryWeb

/// Every page a person reaches: ids are unique (a label names exactly one control), and each label's
/// `for` points at a control that exists.
@Suite struct PageStructureTests {
    static func ids(_ html: String) -> [String] {
        matches(html, #"\sid="([^"]+)""#)
    }

    static func matches(_ html: String, _ pattern: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap {
            Range($0.range(at: 1), in: html).map { String(html[$0]) }
        }
    }

    @Test func everyPageHasUniqueIdsAndLabelsThatPointSomewhere() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let item = try app.database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        let receipt = try app.database.addReceipt(household.id, itemID: item.id, data: DemoImages.receipt(variant: 1), contentType: "image/png",
                                                   now: Date())
        try await app.run { client in
            var signedOut = Browser(client)
            var pages = [("/signin", try await signedOut.request(.get, "/signin").body)]
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            for path in ["/", "/?view=grid", "/items/new", "/items/quick", "/items/\(item.id)", "/items/\(item.id)/edit", "/capture",
                         "/capture/barcode/4006381333931", "/capture/receipt", "/receipts", "/receipts/\(receipt.id)", "/reports", "/reports/inventory",
                         "/reports/loss", "/reports/loss/confirm?item=\(item.id)", "/settings", "/settings/data", "/rooms", "/categories"] {
                let reply = try await ann.request(.get, path)
                #expect(reply.status == .ok, "\(path)")
                pages.append((path, reply.body))
            }
            for (path, html) in pages {
                let ids = Self.ids(html)
                let repeated = Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
                #expect(repeated.isEmpty, "\(path) repeats ids \(repeated)")
                let missing = Self.matches(html, #"<label[^>]*\sfor="([^"]+)""#).filter { !ids.contains($0) }
                #expect(missing.isEmpty, "\(path) has labels for nothing: \(missing)")
            }
        }
    }

    @Test func theConditionChoiceHasNoPlaceholderThatLooksLikeAValue() async throws {
        let app = try TestApp()
        _ = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let form = try await ann.request(.get, "/items/new").body
            let select = try #require(form.range(of: #"<select id="f-condition"[^§]*?</select>"#, options: .regularExpression).map { String(form[$0]) })
            #expect(select.components(separatedBy: ">Good<").count == 2, "\(select)")  // "Good" once
            #expect(!select.contains("<option value=\"\">"))
            #expect(select.contains("value=\"good\" selected"))
        }
    }
}
