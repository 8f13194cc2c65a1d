import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import NestoryWeb

/// The stylesheet and script are the files in Sources/NestoryWeb/Assets/, byte for byte, at URLs that
/// carry a hash of their content.
@Suite struct AssetsTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/NestoryWeb/Assets")

    @Test(arguments: ["app.css", "app.js"])
    func servedBytesAreTheSourceFileAndTheURLFollowsTheContent(_ name: String) async throws {
        let source = try Data(contentsOf: Self.folder.appendingPathComponent(name))
        let file = try #require([Assets.css, Assets.js].first { $0.name == name })
        let app = try TestApp()
        try await app.run { client in
            var browser = Browser(client)
            let page = try await browser.request(.get, "/setup")
            #expect(page.body.contains(file.url))
            let current = try await browser.request(.get, file.url)
            #expect(current.status == .ok && Data(current.body.utf8) == source)
            #expect(current.headers[.cacheControl]?.contains("immutable") == true)
            // Another version's URL gets today's file, but nobody may keep it as that version.
            let stale = try await browser.request(.get, "/assets/\(name)?v=10")
            #expect(stale.headers[.cacheControl] == "no-cache")
        }
        // The hash is of the content: a different file would have another URL.
        #expect(file.hash.count == 16 && file.hash != "0000000000000000")
    }
}
