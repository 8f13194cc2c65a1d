import Foundation
import NestoryDomain
import NestoryObjectStorage
import Testing
@testable import NestoryStore
@testable import NestoryReportsLive

/// A store on a new bucket of its own, with a household and an item to attach photos to.
struct Fixture: Sendable {
    let server: S3TestServer
    let bucket: String
    let store: S3TestStore
    let household: HouseholdID
    let item: ItemID

    static func make(secret: String? = nil, attempts: Int = 3, timeout: TimeInterval = 5) async throws -> Fixture {
        let server = try await S3TestServer.get()
        return try await offThePool {
            let bucket = try server.makeBucket()
            let store = try S3TestStore(backend: server.backend(bucket: bucket, secret: secret, attempts: attempts, timeout: timeout))
            let home = try store.database.createHousehold(name: "Home", currency: .usd, now: store.now)
            let item = try store.database.createItem(home.id, ItemDraft(name: "Vase", currency: .usd), now: store.now)
            return Fixture(server: server, bucket: bucket, store: store, household: home.id, item: item.id)
        }
    }

    var database: AppDatabase { store.database }

    func newItem(_ name: String) throws -> ItemID {
        try database.createItem(household, ItemDraft(name: name, currency: .usd), now: store.now).id
    }

    func addPhoto(_ bytes: Data, to item: ItemID? = nil) throws -> ItemPhoto {
        try database.addPhoto(household, to: item ?? self.item, data: bytes, contentType: "image/jpeg", now: store.now)
    }

    func requests() throws -> [String] { try server.requests(bucket) }
}

/// Photos and files in S3-compatible object storage, against a real local server (moto, signatures checked) and a
/// fault-injecting proxy in front of it: each test has a bucket of its own. The store's calls block, so they run
/// off Swift's cooperative threads (`offThePool`).
@Suite("Files in S3-compatible object storage")
struct S3BlobBackendTests {
    @Test("a photo is uploaded before its row commits and read back byte-exact; nothing is kept in the data folder")
    func storeAndReadBack() async throws {
        let f = try await Fixture.make()
        let bytes = fakeBytes(1, size: 300_000)
        let (photo, read, served, exists, log) = try await offThePool {
            let photo = try f.addPhoto(bytes)
            let sha = photo.attachment.sha256
            return (photo, try f.database.blobs.read(sha), try f.database.attachmentData(f.household, sha256: sha).0,
                    try f.database.blobs.exists(sha), try f.requests())
        }
        #expect(read == bytes && served == bytes && exists)
        #expect(!FileManager.default.fileExists(atPath: f.database.blobs.url(for: photo.attachment.sha256).path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.store.folder.tmpURL.path).isEmpty)
        #expect(log.contains("PUT /\(f.bucket)/blobs/\(photo.attachment.sha256)"))
        // A copy for a backup is a file in tmp/, removed after use.
        let copied = try await offThePool { try f.database.blobs.withLocalFile(photo.attachment.sha256) { url in try Data(contentsOf: url) } }
        #expect(copied == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.store.folder.tmpURL.path).isEmpty)
    }

    @Test("bytes already in the bucket are not sent again: HEAD, no second PUT")
    func existingObjectSkipped() async throws {
        let f = try await Fixture.make()
        let bytes = fakeBytes(2)
        let (first, second, staged, log) = try await offThePool {
            let first = try f.addPhoto(bytes)
            let second = try f.addPhoto(bytes, to: try f.newItem("B"))
            // An object whose blob row is not there yet (a file left by a failed write) is not sent twice either.
            let staged = try f.database.blobs.stage(fakeBytes(3))
            try f.database.blobs.upload(staged)
            try f.database.blobs.upload(staged)
            f.database.blobs.discard(staged)
            return (first, second, staged, try f.requests())
        }
        #expect(first.attachment.sha256 == second.attachment.sha256)
        let key = "/\(f.bucket)/blobs/\(first.attachment.sha256)"
        #expect(log.filter { $0 == "PUT \(key)" }.count == 1, "\(log)")
        // Before the first PUT, in its transaction (the blob row is new), before the second upload (its row exists: no HEAD in it).
        #expect(log.filter { $0 == "HEAD \(key)" }.count == 3, "\(log)")
        #expect(log.filter { $0 == "PUT /\(f.bucket)/blobs/\(staged.sha256)" }.count == 1)
    }

    @Test("an object missing from the bucket is the store's attachment-missing error")
    func missingIsAttachmentMissing() async throws {
        let f = try await Fixture.make()
        let (sha, result, exists) = try await offThePool {
            let photo = try f.addPhoto(fakeBytes(4))
            try f.database.blobs.backend.remove(photo.attachment.sha256)  // as if someone emptied the bucket
            let result = Result { try f.database.attachmentData(f.household, sha256: photo.attachment.sha256) }
            return (photo.attachment.sha256, result.map(\.0), try f.database.blobs.exists(photo.attachment.sha256))
        }
        #expect(throws: StoreError.attachmentMissing(sha256: sha)) { try result.get() }
        #expect(!exists)
    }

    @Test("garbage collection deletes only objects no row uses, and orphans once they are an hour old")
    func garbageCollection() async throws {
        let f = try await Fixture.make()
        let checks = try await offThePool {
            let a = try f.newItem("A"), b = try f.newItem("B")
            let shared = try f.addPhoto(fakeBytes(5), to: a).attachment.sha256
            _ = try f.addPhoto(fakeBytes(5), to: b)
            let own = try f.addPhoto(fakeBytes(6), to: a).attachment.sha256
            let kept = try f.addPhoto(fakeBytes(7), to: b).attachment.sha256
            // An object no row names (a write that failed after its upload).
            let orphan = try f.database.blobs.stage(fakeBytes(8))
            try f.database.blobs.upload(orphan)
            f.database.blobs.discard(orphan)
            try f.database.deleteItem(f.household, a)
            var checks: [String: Bool] = [:]
            checks["shared after delete"] = try f.database.blobs.exists(shared)
            checks["own after delete"] = try f.database.blobs.exists(own)
            // Within the hour the orphan may be an upload whose row is being written: it stays.
            try f.database.collectGarbage(now: Date())
            checks["orphan within the hour"] = try f.database.blobs.exists(orphan.sha256)
            try f.database.collectGarbage(now: Date().addingTimeInterval(2 * 3600))
            checks["orphan later"] = try f.database.blobs.exists(orphan.sha256)
            checks["shared later"] = try f.database.blobs.exists(shared)
            checks["kept later"] = try f.database.attachmentData(f.household, sha256: kept).0 == fakeBytes(7)
            return checks
        }
        #expect(checks == ["shared after delete": true, "own after delete": false, "orphan within the hour": true, "orphan later": false,
                           "shared later": true, "kept later": true])
    }

    @Test("a wrong secret is refused (moto checks the signature: 403) with a message naming the bucket, never the secret")
    func wrongSecret() async throws {
        let secret = "not-the-secret-\(UUID().uuidString)"
        let f = try await Fixture.make(secret: secret)
        let (result, photos, blobs) = try await offThePool {
            let result = Result { try f.addPhoto(fakeBytes(9)) }
            return (result, try f.database.item(f.household, f.item).photos.count,
                    try f.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM blob") })
        }
        #expect(throws: StoreError.self) { try result.get() }
        if case .failure(let error as StoreError) = result {
            guard case .blobStorageRefused = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains(f.bucket) && error.description.contains("403") && error.description.contains("storage.s3.secretKey"))
            #expect(!error.description.contains(secret))
        }
        // Nothing was recorded: the row never commits without its file.
        #expect(photos == 0 && blobs == 0)
    }

    @Test("500 and 503, then success: the upload is tried again and kept; more 503s than tries: a clear error and no row")
    func serverErrorThenSuccess() async throws {
        let f = try await Fixture.make(attempts: 3)
        let (read, count, failed, photos) = try await offThePool {
            try f.server.inject(f.bucket, status: 500, count: 1)
            try f.server.inject(f.bucket, status: 503, count: 1)
            let photo = try f.addPhoto(fakeBytes(10))
            let read = try f.database.blobs.read(photo.attachment.sha256)
            let count = try f.requests().count
            try f.server.inject(f.bucket, status: 503, count: 3)
            let other = try f.newItem("Lamp")
            let failed = Result { try f.addPhoto(fakeBytes(11), to: other) }
            return (read, count, failed, try f.database.item(f.household, other).photos.count)
        }
        #expect(read == fakeBytes(10))
        #expect(count == 6)  // two refused HEADs, the HEAD that passed, the PUT, the HEAD in the transaction, the GET
        if case .failure(let error as StoreError) = failed, case .blobStorageUnavailable = error {
            #expect(error.description.contains("HTTP 503") && error.description.contains("after 3 tries"), "\(error)")
        } else {
            Issue.record("expected blobStorageUnavailable, got \(failed)")
        }
        #expect(photos == 0)
    }

    @Test("a slow answer past the timeout is tried again; one that is always slow ends in a clear error")
    func slowAnswer() async throws {
        let f = try await Fixture.make(attempts: 2, timeout: 1)
        let (read, quick, failed, slow) = try await offThePool {
            let photo = try f.addPhoto(fakeBytes(12))
            try f.server.inject(f.bucket, delay: 3, count: 1)
            var start = Date()
            let read = try f.database.blobs.read(photo.attachment.sha256)
            let quick = Date().timeIntervalSince(start)
            try f.server.inject(f.bucket, delay: 3, count: 2)
            start = Date()
            let failed = Result { try f.database.blobs.read(photo.attachment.sha256) }
            return (read, quick, failed, Date().timeIntervalSince(start))
        }
        #expect(read == fakeBytes(12))
        #expect(quick < 3, "the slow try was given up after the 1 s timeout")
        if case .failure(let error as StoreError) = failed, case .blobStorageUnavailable = error {
            #expect(error.description.contains("no answer within 1 second"), "\(error)")
        } else {
            Issue.record("expected blobStorageUnavailable, got \(failed)")
        }
        #expect(slow < 6)
    }
}

/// An S3 backend whose upload is followed at once by the removal of what it uploaded: what a garbage sweep running
/// between an upload and its write transaction would do.
struct SweptAfterUpload: BlobBackend {
    let base: S3BlobBackend
    var location: String { base.location }
    func upload(_ staged: BlobStore.Staged) throws {
        try base.upload(staged)
        try base.remove(staged.sha256)
    }
    func ensurePresent(_ staged: BlobStore.Staged, recorded: Bool) throws { try base.ensurePresent(staged, recorded: recorded) }
    func exists(_ sha256: String) throws -> Bool { try base.exists(sha256) }
    func read(_ sha256: String) throws -> Data { try base.read(sha256) }
    func localFile(_ sha256: String, tmp: URL) throws -> (url: URL, temporary: Bool) { try base.localFile(sha256, tmp: tmp) }
    func remove(_ sha256: String) throws { try base.remove(sha256) }
    func storedHashes(writtenBefore cutoff: Date) throws -> [String] { try base.storedHashes(writtenBefore: cutoff) }
}

@Suite("Object storage keeps the store's guarantees")
struct S3GuaranteeTests {
    @Test("an object removed between its upload and the write transaction is put again inside the transaction")
    func sweptBetweenUploadAndCommit() async throws {
        let f = try await Fixture.make()
        let bytes = fakeBytes(20, size: 50_000)
        let (sha, read, log) = try await offThePool {
            let swept = try AppDatabase.open(f.store.folder, blobBackend: SweptAfterUpload(base: f.server.backend(bucket: f.bucket)))
            defer { try? swept.close() }
            let photo = try swept.addPhoto(f.household, to: f.item, data: bytes, contentType: "image/jpeg", now: f.store.now)
            return (photo.attachment.sha256, try f.database.blobs.read(photo.attachment.sha256), try f.requests())
        }
        #expect(read == bytes)
        #expect(log.filter { $0 == "PUT /\(f.bucket)/blobs/\(sha)" }.count == 2, "uploaded, swept, put again in the transaction")
    }

    @Test("a file for a backup or a report is streamed to tmp/ and removed after; a missing one is attachment-missing")
    func localCopies() async throws {
        let f = try await Fixture.make()
        let bytes = fakeBytes(21, size: 2_000_000)
        let (sha, url, copied, missing, gets) = try await offThePool {
            let attachment = try f.database.storeAttachment(bytes, contentType: "image/jpeg", now: f.store.now)
            let url = try f.database.blobs.localFile(attachment.sha256)
            let copied = try Data(contentsOf: url)
            // A report asking again gets the same copy, not a second download.
            guard try f.database.blobs.localFile(attachment.sha256) == url else { throw S3TestServer.ServerError("another copy") }
            let gets = try f.requests().filter { $0 == "GET /\(f.bucket)/blobs/\(attachment.sha256)" }.count
            try f.database.blobs.backend.remove(attachment.sha256)
            let missing = Result { try f.database.blobs.withLocalFile(attachment.sha256) { _ in } }
            return (attachment.sha256, url, copied, missing, gets)
        }
        #expect(gets == 1)
        #expect(url.path.hasPrefix(f.store.folder.tmpURL.path))
        #expect(copied == bytes)
        #expect(throws: StoreError.attachmentMissing(sha256: sha)) { try missing.get() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.store.folder.tmpURL.path) == [url.lastPathComponent])
        // The 404's body (which names the key) was read and not left in the system's temporary folder.
        let temporary = FileManager.default.temporaryDirectory
        let leftOver = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { name in
            name.hasSuffix(".tmp") && (try? String(contentsOf: temporary.appendingPathComponent(name), encoding: .utf8))?.contains(sha) == true
        }
        #expect(leftOver == [])
    }
}

@Suite("Reports with photos in object storage")
struct S3ReportPhotoTests {
    @Test("a report's photo is fetched to tmp/; one not in the bucket is drawn as missing; a store that does not answer fails the report")
    func reportPhotos() async throws {
        let f = try await Fixture.make(attempts: 2)
        let (fetched, bytes, missingURL, unavailable) = try await offThePool {
            let source = ReportGenerator.sqlite(f.database).source(f.household)
            let kept = try f.addPhoto(fakeBytes(30)).attachment
            let gone = try f.addPhoto(fakeBytes(31)).attachment
            try f.database.blobs.backend.remove(gone.sha256)
            let fetched = try source.photo(kept).url
            let missingURL = try source.photo(gone).url
            let other = try f.addPhoto(fakeBytes(32)).attachment
            try f.server.inject(f.bucket, status: 503, count: 2)
            let unavailable = Result { try source.photo(other) }.map(\.url)
            return (fetched, try Data(contentsOf: fetched), missingURL, unavailable)
        }
        #expect(fetched.path.hasPrefix(f.store.folder.tmpURL.path) && bytes == fakeBytes(30))
        #expect(!FileManager.default.fileExists(atPath: missingURL.path))
        if case .failure(let error as StoreError) = unavailable, case .blobStorageUnavailable = error {} else {
            Issue.record("expected blobStorageUnavailable, got \(unavailable)")
        }
    }
}
