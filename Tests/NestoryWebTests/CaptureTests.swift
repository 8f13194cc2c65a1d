import Foundation
import HTTPTypes
import NestoryDemo
import NestoryDomain
import NestoryStore
import NestoryStoreInterfaces
import Testing
@testable import NestoryWeb

@Suite("Capture: barcodes")
struct CaptureTests {
    @Test("a photo of a barcode is decoded; the result page looks it up and its quick form saves the item with the code")
    func scanToItem() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        try app.database.importCatalog([ProductRecord(source: "catalog", code: "4006381333931", name: "Boss Highlighter", brand: "Stabilo",
                                                      category: "Office supplies")], now: Date())
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let page = try await ann.request(.get, "/capture")
            #expect(page.status == .ok && page.body.contains("data-scanner") && page.body.contains("capture=\"environment\""))

            let decoded = try await ann.request(.post, "/api/v1/barcodes/decode", body: DemoBarcodes.ean13PNG("4006381333931"), contentType: "image/png")
            #expect(decoded.status == .ok)
            let codes = try #require((decoded.json as? [String: Any])?["codes"] as? [[String: Any]])
            #expect(codes.count == 1)
            #expect(codes.first?["text"] as? String == "4006381333931" && codes.first?["gtin"] as? String == "04006381333931")
            // A clean code is read by both decoders: sure, nothing to check.
            #expect(codes.first?["uncertain"] as? Bool == false && codes.first?["confidence"] as? String == "high")

            let result = try await ann.request(.get, "/capture/barcode/4006381333931")
            #expect(result.status == .ok)
            #expect(result.body.contains("Boss Highlighter") && result.body.contains("Product catalogue"))
            #expect(result.body.contains("value=\"Stabilo Boss Highlighter\""))

            let saved = try await ann.request(.post, "/items", form: ["name": "Stabilo Boss Highlighter", "barcode": "4006381333931", "brand": "Stabilo"])
            #expect(saved.status == .seeOther)
            // The next scan, in another spelling of the same GTIN, finds the item.
            let again = try await ann.request(.get, "/api/v1/products/04006381333931")
            let json = try #require(again.json as? [String: Any])
            #expect((json["match"] as? [String: Any])?["source"] as? String == "household")
            #expect((json["existingItems"] as? [String])?.count == 1)
            #expect(try app.database.items(household.id, barcodes: ["4006381333931"]).first?.brand == "Stabilo")
            // A code too long is said to be too long (it was "Give a code.").
            let long = try await ann.request(.get, "/api/v1/products/" + String(repeating: "9", count: 201))
            #expect(long.status == .badRequest && long.body.contains("A code is at most 200 characters (this one has 201)."))
        }
    }

    @Test("no code, two codes, not an image, a mistyped code: clear answers and a way on")
    func badInput() async throws {
        let app = try TestApp()
        _ = try app.household("Home", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            let blank = try await ann.request(.post, "/api/v1/barcodes/decode", body: DemoImages.photo(variant: 1), contentType: "image/png")
            #expect(blank.status == .ok && blank.body.contains("\"codes\":[]"))
            let notImage = try await ann.request(.post, "/api/v1/barcodes/decode", body: Data("hello".utf8), contentType: "image/png")
            #expect(notImage.status == .unprocessableContent && notImage.body.contains("not an image"))
            let empty = try await ann.request(.post, "/api/v1/barcodes/decode", body: Data(), contentType: "image/png")
            #expect(empty.status == .unprocessableContent)
            let badRegion = try await ann.request(.post, "/api/v1/barcodes/decode?region=1,2", body: DemoBarcodes.ean13PNG("4006381333931"), contentType: "image/png")
            #expect(badRegion.status == .badRequest)

            // A typo comes back beside what was typed, not in a page address anyone could write.
            let typo = try await ann.request(.get, "/capture/barcode?code=4006-3813-3393-2")
            #expect(typo.status == .unprocessableContent)
            #expect(typo.body.contains("<p class=\"error\" id=\"f-code-error\">4006381333932 is not a valid product code"))
            #expect(typo.body.contains("value=\"4006-3813-3393-2\"") && typo.body.contains("aria-invalid=\"true\""))
            #expect(try await ann.request(.get, "/capture/barcode?code=%20").status == .unprocessableContent)
            let planted = try await ann.request(.get, "/capture?message=Your%20account%20is%20locked.%20Call%20555-0100")
            #expect(planted.status == .ok && !planted.body.contains("555-0100"))
            let typed = try await ann.request(.get, "/capture/barcode?code=4006-3813-3393-1")
            #expect(typed.location == "/capture/barcode/4006381333931")
            let unknown = try await ann.request(.get, "/capture/barcode/5000112548167")
            #expect(unknown.status == .ok && unknown.body.contains("No match") && unknown.body.contains("name=\"barcode\" value=\"5000112548167\""))
            // From an uncertain read: the digits to check first, and no form to save the item with until they match.
            let check = try await ann.request(.get, "/capture/barcode/5000112548167?check=1")
            #expect(check.status == .ok && check.body.contains("Check the digits") && check.body.contains("href=\"/capture/barcode/5000112548167\""))
            #expect(!check.body.contains("name=\"barcode\" value=\"5000112548167\""))
        }
    }

    @Test("scanning is on by default; the owner turns it off (a member may not), and then the page offers the other ways and the scan API refuses")
    func scanningSwitch() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        try app.member(of: household.id, email: "bob@example.com")
        #expect(try app.database.scanningEnabled(household.id))
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            var bob = Browser(client)
            try await bob.signIn("bob@example.com")
            #expect(try await ann.request(.get, "/capture").body.contains("data-scanner data-state=\"initializing\""))
            #expect(try await bob.request(.post, "/settings/scanning", form: [:]).status == .forbidden)
            #expect(try app.database.scanningEnabled(household.id))
            let off = try await ann.request(.post, "/settings/scanning", form: [:])
            #expect(try await ann.request(.get, try #require(off.location)).body.contains("Barcode scanning is off."))
            #expect(try app.database.scanningEnabled(household.id) == false)
            for (browser, isOwner) in [(ann, true), (bob, false)] {
                var browser = browser
                let page = try await browser.request(.get, "/capture")
                #expect(page.body.contains("Scanning is turned off") && !page.body.contains("<video"))
                #expect(page.body.contains("/settings/data") == isOwner)  // import is the owner's
                // Typing the code is the way left, and a typo is still explained.
                let typo = try await browser.request(.get, "/capture/barcode?code=4006381333932")
                #expect(typo.status == .unprocessableContent && typo.body.contains("is not a valid product code"))
                let refused = try await browser.request(.post, "/api/v1/barcodes/decode", body: Data("x".utf8), contentType: "image/png")
                #expect(refused.status == .forbidden && refused.body.contains("\"scanning_disabled\""))
            }
            #expect(try await ann.request(.get, "/settings").body.contains("name=\"scanning\">"))  // unchecked
            _ = try await ann.request(.post, "/settings/scanning", form: ["scanning": "on"])
            #expect(try app.database.scanningEnabled(household.id))
        }
    }

    @Test("the operator's switch turns scanning off for every household, and Settings says who did")
    func operatorSwitch() async throws {
        let app = try TestApp(scanning: false)
        _ = try app.household("Home", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            #expect(try await ann.request(.get, "/capture").body.contains("Scanning is turned off"))
            let settings = try await ann.request(.get, "/settings").body
            #expect(settings.contains("Turned off for everyone") && !settings.contains("name=\"scanning\""))
            #expect(try await ann.request(.post, "/api/v1/barcodes/decode", body: Data("x".utf8), contentType: "image/png").status == .forbidden)
        }
    }

    @Test("online lookups are the owner's choice, off by default")
    func onlineSetting() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Home", email: "ann@example.com")
        #expect(try app.database.onlineProductLookup(household.id) == false)
        try await app.run { client in
            var ann = Browser(client)
            try await ann.signIn("ann@example.com")
            #expect(try await ann.request(.post, "/settings/products", form: ["online": "on"]).status == .seeOther)
            #expect(try app.database.onlineProductLookup(household.id))
            #expect(try await ann.request(.get, "/settings").body.contains("name=\"online\" checked"))
            #expect(try await ann.request(.post, "/settings/products", form: [:]).status == .seeOther)
            #expect(try app.database.onlineProductLookup(household.id) == false)
        }
    }
}
