import Foundation
import HTTPTypes
import NestoryDomain
import NestoryStore
import Testing
@testable import NestoryWeb

@Suite("Tips: shown where the spec places them, dismissed per user, shown again on request")
struct TipsTests {
    @Test("each tip shows until its user dismisses it; another user still sees it; 'Show tips again' brings them back")
    func dismissAndReset() async throws {
        let app = try TestApp()
        let (household, owner) = try app.household("The Smiths", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        _ = try app.database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        let places: [(Tip, String)] = [(.documentationScore, "/"), (.firstCapture, "/capture/photo"), (.reports, "/reports")]
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            for (tip, path) in places {
                let page = try await ann.request(.get, path)
                #expect(page.body.contains("data-tip=\"\(tip.rawValue)\"") && page.body.contains(HTML.escape(tip.text)), "\(tip) on \(path)")
            }
            // Without script: the form goes back to the page.
            let back = try await ann.request(.post, "/tips/first-capture/dismiss", form: ["back": "/capture/photo"])
            #expect(back.status == .seeOther && back.location == "/capture/photo")
            // The script's fetch: 204.
            var accept = HTTPFields()
            accept[.accept] = "application/json"
            #expect(try await ann.request(.post, "/tips/reports/dismiss", form: [:], headers: accept).status == .noContent)
            #expect(try await ann.request(.post, "/tips/nonsense/dismiss", form: [:]).status == .notFound)
            #expect(try await ann.request(.post, "/tips/reports/dismiss", form: ["back": "https://evil.example/"]).location == "/")
            #expect(!(try await ann.request(.get, "/capture/photo").body.contains("data-tip=")))
            #expect(!(try await ann.request(.get, "/reports").body.contains("data-tip=")))
            #expect(try await ann.request(.get, "/").body.contains("data-tip=\"documentation-score\""))
            #expect(try app.database.pagePreferences(owner.id).dismissedTips == [.firstCapture, .reports])

            var bob = Browser(client)
            try await bob.signIn("bob@example.com")
            #expect(try await bob.request(.get, "/reports").body.contains("data-tip=\"reports\""))

            let settings = try await ann.request(.get, "/settings")
            #expect(settings.body.contains("You closed 2 tips."))
            #expect(try await ann.request(.post, "/settings/tips/reset", form: [:]).status == .seeOther)
            #expect(try await ann.request(.get, "/reports").body.contains("data-tip=\"reports\""))
        }
    }

    @Test("the score's tip waits for the first item")
    func scoreTipNeedsItems() async throws {
        let app = try TestApp()
        try app.household("The Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            #expect(!(try await ann.request(.get, "/").body.contains("data-tip=")))
        }
    }
}
