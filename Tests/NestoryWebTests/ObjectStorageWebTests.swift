import Foundation
import NestoryDomain
import NestoryObjectStorage
import NestoryStore
import Testing

/// The web app with photos kept in S3-compatible object storage (the local moto server of S3TestServer.swift).
@Suite struct ObjectStorageWebTests {
    @Test("a photo uploaded through the web app is kept in the bucket, not the data folder, and served back")
    func photoRoundTrip() async throws {
        let server = try await S3TestServer.get()
        let bucket = try await offThePool { try server.makeBucket() }
        let app = try TestApp(blobBackend: server.backend(bucket: bucket))
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let item = try app.database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let uploaded = try await ann.request(.post, "/api/v1/items/\(item.id)/photos", body: tinyPNG, contentType: "image/png")
            #expect(uploaded.status == .created)
            let url = try #require((uploaded.json as? [String: Any])?["url"] as? String)
            let sha = String(url.dropFirst("/files/".count).prefix(64))
            #expect(try await offThePool { try server.requests(bucket) }.contains("PUT /\(bucket)/blobs/\(sha)"))
            #expect(!FileManager.default.fileExists(atPath: app.database.blobs.url(for: sha).path))

            // The original comes back from the bucket byte-exact.
            let original = try await ann.request(.get, "/files/\(sha)?size=original")
            #expect(original.status == .ok && original.headers[.contentType] == "image/png")
            #expect(original.body == String(decoding: tinyPNG, as: UTF8.self))
            // Renditions stay a local cache: served without asking the bucket again.
            let before = try await offThePool { try server.requests(bucket) }.count
            let thumb = try await ann.request(.get, "/files/\(sha)?size=thumb")
            #expect(thumb.status == .ok && thumb.headers[.contentType] == "image/jpeg")
            #expect(try await offThePool { try server.requests(bucket) }.count == before)

            // A bucket that answers 503 on every try (three here): 503 with its own code, not a 500.
            try await offThePool { try server.inject(bucket, status: 503, count: 3) }
            let unavailable = try await ann.request(.get, "/files/\(sha)?size=original")
            #expect(unavailable.status == .serviceUnavailable)
            #expect(unavailable.body.contains("cannot be reached right now"))
        }
    }
}
