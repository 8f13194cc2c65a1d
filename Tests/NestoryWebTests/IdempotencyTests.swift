import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NestoryDomain
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces
import Synchronization
import Testing
@testable import NestoryWeb

/// Issue 16, the server's side of the offline queue: `Idempotency-Key` on the API's POSTs, so a replay after a
/// lost response never does the work twice.
@Suite struct IdempotencyTests {
    static let key = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotent-Replayed")!

    static func withKey(_ key: String) -> HTTPFields { [Self.key: key] }

    @Test func theSameKeyTwiceMakesOneItemAndAnswersTheSame() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let first = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp", "price": "20"}"#, headers: Self.withKey("k-1"))
            #expect(first.status == .created && first.headers[Self.replayed] == nil)
            let again = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp", "price": "20"}"#, headers: Self.withKey("k-1"))
            #expect(again.status == .created)
            #expect(again.body == first.body)
            #expect(again.location == first.location && again.location != nil)
            #expect(again.headers[.contentType] == first.headers[.contentType])
            #expect(again.headers[Self.replayed] == "true")
            #expect(try app.database.summary(household.id).itemCount == 1)
        }
    }

    /// The offline queue's case: the item was made, the answer never arrived, the page sends it again.
    @Test func aReplayAfterACutResponseMakesExactlyOneItem() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            // The first answer is dropped on the floor, as a lost connection would.
            _ = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Kettle"}"#, headers: Self.withKey("queued-7f3a"))
            let replay = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Kettle"}"#, headers: Self.withKey("queued-7f3a"))
            #expect(replay.status == .created && replay.headers[Self.replayed] == "true")
            let id = try #require((replay.json as? [String: Any])?["id"] as? String)
            let items = try app.database.items(household.id, ItemQuery(limit: 10)).elements
            #expect(items.count == 1 && items.first?.item.id.description == id)
        }
    }

    @Test func theSameKeyForADifferentRequestIsRefused() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            #expect(try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: Self.withKey("k")).status == .created)
            let otherBody = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Sofa"}"#, headers: Self.withKey("k"))
            #expect(otherBody.status == .unprocessableContent && otherBody.errorCode == "idempotency_key_reused")
            let otherPath = try await ann.request(.post, "/api/v1/jobs/\(UUID())/cancel", json: #"{"name": "Lamp"}"#, headers: Self.withKey("k"))
            #expect(otherPath.status == .unprocessableContent && otherPath.errorCode == "idempotency_key_reused")
            #expect(try app.database.summary(household.id).itemCount == 1)
        }
    }

    @Test func withoutAKeyNothingChanges() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let first = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#)
            let second = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#)
            #expect(first.status == .created && second.status == .created && second.headers[Self.replayed] == nil)
            #expect(try app.database.summary(household.id).itemCount == 2)
        }
    }

    @Test func aKeyMustBeOneToTwoHundredFiftyFivePrintableASCIICharacters() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            for bad in [String(repeating: "k", count: 256), "clé", "tab\there"] {
                let reply = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: Self.withKey(bad))
                #expect(reply.status == .badRequest && reply.errorCode == "invalid_idempotency_key", "\(bad.prefix(10))")
                #expect(reply.body.contains("Idempotency-Key"))
            }
            var twice: HTTPFields = [Self.key: "a"]
            twice.append(HTTPField(name: Self.key, value: "b"))
            #expect(try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: twice).status == .badRequest)
            #expect(try app.database.summary(household.id).itemCount == 0)
            let longest = String(repeating: "~", count: 255)
            #expect(try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: Self.withKey(longest)).status == .created)
        }
    }

    @Test func aKeyStillRunningIsAConflict() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let scope = IdempotencyService.Scope(household: household.id, key: "busy")
            #expect(try await app.dependencies.services.idempotency.begin(scope) == .claimed)  // as if its first request were still running
            let reply = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: Self.withKey("busy"))
            #expect(reply.status == .conflict && reply.errorCode == "idempotency_key_in_use")
            try await app.dependencies.services.idempotency.end(scope)
            #expect(try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: Self.withKey("busy")).status == .created)
            #expect(try app.database.summary(household.id).itemCount == 1)
        }
    }

    /// The claim is in the store: a key another server (another service on the same store) is running is refused here too.
    @Test func aKeyRunningOnAnotherServerIsAConflict() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let otherServer = IdempotencyService(store: SQLiteIdempotencyStore(app.database))
            let scope = IdempotencyService.Scope(household: household.id, key: "elsewhere")
            #expect(try await otherServer.begin(scope) == .claimed)
            let reply = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: Self.withKey("elsewhere"))
            #expect(reply.status == .conflict && reply.errorCode == "idempotency_key_in_use")
            try await otherServer.store(scope, fingerprint: String(repeating: "0", count: 64), status: 201, headers: [:], body: Data())
            // Its answer is this server's answer too (here to a different request, so refused as one).
            let after = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: Self.withKey("elsewhere"))
            #expect(after.status == .unprocessableContent && after.errorCode == "idempotency_key_reused")
            #expect(try app.database.summary(household.id).itemCount == 0)
        }
    }

    /// A request that failed (a thrown error changes nothing) gives its key back at once: the retry runs.
    @Test func aFailedRequestGivesItsKeyBack() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let failed = try await ann.request(.post, "/api/v1/items", json: #"{"name": ""}"#, headers: Self.withKey("retry-me"))
            #expect((400..<500).contains(failed.status.code) && failed.status != .conflict)
            let retry = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: Self.withKey("retry-me"))
            #expect(retry.status == .created && retry.headers[Self.replayed] == nil)
            #expect(try app.database.summary(household.id).itemCount == 1)
        }
    }

    /// On a real server too, where the photo streams in (and is hashed as it goes by).
    @Test(arguments: [TestingSetup.router, .live])
    func aPhotoUploadReplayedAddsOnePhoto(mode: TestingSetup) async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let item = try app.database.createItem(household.id, ItemDraft(name: "Lamp", currency: .usd), now: Date())
        try await app.run(mode) { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let path = "/api/v1/items/\(item.id)/photos"
            let first = try await ann.request(.post, path, body: tinyPNG, contentType: "image/png", headers: Self.withKey("photo-1"))
            #expect(first.status == .created)
            let again = try await ann.request(.post, path, body: tinyPNG, contentType: "image/png", headers: Self.withKey("photo-1"))
            #expect(again.status == .created && again.body == first.body && again.headers[Self.replayed] == "true")
            let otherPicture = try await ann.request(.post, path, body: tinyPNG + Data([1]), contentType: "image/png", headers: Self.withKey("photo-1"))
            #expect(otherPicture.status == .unprocessableContent && otherPicture.errorCode == "idempotency_key_reused")
            #expect(try app.database.item(household.id, item.id).photos.count == 1)
        }
    }

    @Test func keysBelongToTheirHousehold() async throws {
        let app = try TestApp()
        let (smiths, _) = try app.household("Smiths", email: "ann@example.com")
        let (joneses, _) = try app.household("Joneses", email: "bob@example.com")
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            var bob = Browser(client)
            _ = try await bob.signIn("bob@example.com")
            let annsItem = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: Self.withKey("same"))
            let bobsItem = try await bob.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: Self.withKey("same"))
            #expect(annsItem.status == .created && bobsItem.status == .created && bobsItem.headers[Self.replayed] == nil)
            #expect(annsItem.location != bobsItem.location)
            // A different body under the same key is Bob's own business, not a clash with Ann's.
            #expect(try await bob.request(.post, "/api/v1/items", json: #"{"name": "Sofa"}"#, headers: Self.withKey("other")).status == .created)
            #expect(try app.database.summary(smiths.id).itemCount == 1 && app.database.summary(joneses.id).itemCount == 2)
        }
    }

    @Test func anAnswerSurvivesARestart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-web-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let firstBody: String
        do {
            let app = try TestApp(path: path, keepsFolder: true)
            _ = try app.household("Smiths", email: "ann@example.com")
            firstBody = try await Self.post(app, key: "before-restart").body
        }
        let app = try TestApp(path: path)
        let household = try #require(try app.database.households(named: "Smiths").first)
        let replay = try await Self.post(app, key: "before-restart")
        #expect(replay.status == .created && replay.headers[Self.replayed] == "true" && replay.body == firstBody)
        #expect(try app.database.summary(household.id).itemCount == 1)
    }

    private static func post(_ app: TestApp, key: String) async throws -> Browser.Reply {
        let reply = Mutex<Browser.Reply?>(nil)
        try await app.run { client in
            var ann = Browser(client)
            _ = try await ann.signIn("ann@example.com")
            let answer = try await ann.request(.post, "/api/v1/items", json: #"{"name": "Lamp"}"#, headers: Self.withKey(key))
            reply.withLock { $0 = answer }
        }
        return try #require(reply.withLock { $0 })
    }

    @Test func theHousekeepingSweepsExpiredAnswers() async throws {
        let app = try TestApp()
        let (household, _) = try app.household("Smiths", email: "ann@example.com")
        let old = StoredResponse(fingerprint: String(repeating: "a", count: 64), status: 201, headers: [:], body: Data(),
                                 createdAt: Date().addingTimeInterval(-90_000))
        try app.database.storeResponse(household.id, key: "old", old)
        try app.database.storeResponse(household.id, key: "new", StoredResponse(fingerprint: old.fingerprint, status: 201, headers: [:],
                                                                                body: Data(), createdAt: Date()))
        #expect(try app.database.storedResponse(household.id, key: "old", notBefore: Date().addingTimeInterval(-86_400)) == nil)
        await Housekeeping(stores: .sqlite(app.database), pendingUploads: { [] }).sweep(atStart: false)
        #expect(try app.database.storedResponse(household.id, key: "old", notBefore: .distantPast) == nil)
        #expect(try app.database.storedResponse(household.id, key: "new", notBefore: .distantPast) != nil)
    }
}
