import Foundation
import NestoryDomain
import NestoryObjectStorage
import Testing
@testable import NestoryStore

/// Photos and files in S3-compatible object storage, against a real local server (moto, signatures checked) and a
/// fault-injecting proxy in front of it: each test has a bucket of its own.
@Suite("Files in S3-compatible object storage")
struct S3BlobBackendTests {
    @Test("a photo is uploaded before its row commits and read back byte-exact; nothing is kept in the data folder")
    func storeAndReadBack() throws {
        let server = try S3TestServer.get()
        let bucket = try server.makeBucket()
        let store = try S3TestStore(backend: server.backend(bucket: bucket))
        let home = try store.database.createHousehold(name: "Home", currency: .usd, now: store.now)
        let item = try store.database.createItem(home.id, ItemDraft(name: "Vase", currency: .usd), now: store.now)
        let bytes = fakeBytes(1, size: 300_000)
        let photo = try store.database.addPhoto(home.id, to: item.id, data: bytes, contentType: "image/jpeg", now: store.now)
        #expect(try store.database.blobs.read(photo.attachment.sha256) == bytes)
        #expect(try store.database.attachmentData(home.id, sha256: photo.attachment.sha256).0 == bytes)
        #expect(try store.database.blobs.exists(photo.attachment.sha256))
        #expect(!FileManager.default.fileExists(atPath: store.database.blobs.url(for: photo.attachment.sha256).path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.tmpURL.path).isEmpty)
        let log = try server.requests(bucket)
        #expect(log.contains("PUT /\(bucket)/blobs/\(photo.attachment.sha256)"))
        // A copy for a backup or a report is a file in tmp/, removed after use.
        let copied = try store.database.blobs.withLocalFile(photo.attachment.sha256) { url in try Data(contentsOf: url) }
        #expect(copied == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.tmpURL.path).isEmpty)
    }

    @Test("bytes already in the bucket are not sent again: HEAD, no second PUT")
    func existingObjectSkipped() throws {
        let server = try S3TestServer.get()
        let bucket = try server.makeBucket()
        let store = try S3TestStore(backend: server.backend(bucket: bucket))
        let home = try store.database.createHousehold(name: "Home", currency: .usd, now: store.now)
        let a = try store.database.createItem(home.id, ItemDraft(name: "A", currency: .usd), now: store.now)
        let b = try store.database.createItem(home.id, ItemDraft(name: "B", currency: .usd), now: store.now)
        let bytes = fakeBytes(2)
        let first = try store.database.addPhoto(home.id, to: a.id, data: bytes, contentType: "image/jpeg", now: store.now)
        let second = try store.database.addPhoto(home.id, to: b.id, data: bytes, contentType: "image/jpeg", now: store.now)
        #expect(first.attachment.sha256 == second.attachment.sha256)
        let key = "/\(bucket)/blobs/\(first.attachment.sha256)"
        let log = try server.requests(bucket)
        #expect(log.filter { $0 == "PUT \(key)" }.count == 1, "\(log)")
        #expect(log.filter { $0 == "HEAD \(key)" }.count >= 3, "\(log)")  // before the first PUT, in its transaction, before the second
        // An object whose blob row is new (a file left by a failed write) is also not sent twice.
        let staged = try store.database.blobs.stage(fakeBytes(3))
        try store.database.blobs.upload(staged)
        try store.database.blobs.upload(staged)
        store.database.blobs.discard(staged)
        #expect(try server.requests(bucket).filter { $0 == "PUT /\(bucket)/blobs/\(staged.sha256)" }.count == 1)
    }

    @Test("an object missing from the bucket is the store's attachment-missing error")
    func missingIsAttachmentMissing() throws {
        let server = try S3TestServer.get()
        let bucket = try server.makeBucket()
        let store = try S3TestStore(backend: server.backend(bucket: bucket))
        let home = try store.database.createHousehold(name: "Home", currency: .usd, now: store.now)
        let item = try store.database.createItem(home.id, ItemDraft(name: "Vase", currency: .usd), now: store.now)
        let photo = try store.database.addPhoto(home.id, to: item.id, data: fakeBytes(4), contentType: "image/jpeg", now: store.now)
        try store.database.blobs.backend.remove(photo.attachment.sha256)  // as if someone emptied the bucket
        #expect(throws: StoreError.attachmentMissing(sha256: photo.attachment.sha256)) {
            try store.database.attachmentData(home.id, sha256: photo.attachment.sha256)
        }
        #expect(try !store.database.blobs.exists(photo.attachment.sha256))
    }

    @Test("garbage collection deletes only objects no row uses, and orphans once they are an hour old")
    func garbageCollection() throws {
        let server = try S3TestServer.get()
        let bucket = try server.makeBucket()
        let store = try S3TestStore(backend: server.backend(bucket: bucket))
        let home = try store.database.createHousehold(name: "Home", currency: .usd, now: store.now)
        let a = try store.database.createItem(home.id, ItemDraft(name: "A", currency: .usd), now: store.now)
        let b = try store.database.createItem(home.id, ItemDraft(name: "B", currency: .usd), now: store.now)
        let shared = try store.database.addPhoto(home.id, to: a.id, data: fakeBytes(5), contentType: "image/jpeg", now: store.now)
        _ = try store.database.addPhoto(home.id, to: b.id, data: fakeBytes(5), contentType: "image/jpeg", now: store.now)
        let own = try store.database.addPhoto(home.id, to: a.id, data: fakeBytes(6), contentType: "image/jpeg", now: store.now)
        let kept = try store.database.addPhoto(home.id, to: b.id, data: fakeBytes(7), contentType: "image/jpeg", now: store.now)
        // An object no row names (a write that failed after its upload).
        let orphan = try store.database.blobs.stage(fakeBytes(8))
        try store.database.blobs.upload(orphan)
        store.database.blobs.discard(orphan)

        try store.database.deleteItem(home.id, a.id)
        #expect(try store.database.blobs.exists(shared.attachment.sha256), "B still uses it")
        #expect(try !store.database.blobs.exists(own.attachment.sha256), "nobody uses it now")
        #expect(try store.database.blobs.exists(kept.attachment.sha256))

        // Within the hour the orphan may be an upload whose row is being written: it stays.
        try store.database.collectGarbage(now: Date())
        #expect(try store.database.blobs.exists(orphan.sha256))
        try store.database.collectGarbage(now: Date().addingTimeInterval(2 * 3600))
        #expect(try !store.database.blobs.exists(orphan.sha256))
        #expect(try store.database.blobs.exists(shared.attachment.sha256))
        #expect(try store.database.blobs.exists(kept.attachment.sha256))
        #expect(try store.database.attachmentData(home.id, sha256: kept.attachment.sha256).0 == fakeBytes(7))
    }

    @Test("a wrong secret is refused (moto checks the signature: 403) with a message naming the bucket, never the secret")
    func wrongSecret() throws {
        let server = try S3TestServer.get()
        let bucket = try server.makeBucket()
        let secret = "not-the-secret-\(UUID().uuidString)"
        let store = try S3TestStore(backend: server.backend(bucket: bucket, secret: secret))
        let home = try store.database.createHousehold(name: "Home", currency: .usd, now: store.now)
        let item = try store.database.createItem(home.id, ItemDraft(name: "Vase", currency: .usd), now: store.now)
        do {
            _ = try store.database.addPhoto(home.id, to: item.id, data: fakeBytes(9), contentType: "image/jpeg", now: store.now)
            Issue.record("the upload should have been refused")
        } catch let error as StoreError {
            guard case .blobStorageRefused = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains(bucket))
            #expect(error.description.contains("403"))
            #expect(error.description.contains("storage.s3.secretKey"))
            #expect(!error.description.contains(secret))
        }
        // Nothing was recorded: the row never commits without its file.
        #expect(try store.database.item(home.id, item.id).photos.isEmpty)
        #expect(try store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM blob") } == 0)
    }

    @Test("503 then success: the upload is tried again and kept")
    func serverErrorThenSuccess() throws {
        let server = try S3TestServer.get()
        let bucket = try server.makeBucket()
        let store = try S3TestStore(backend: server.backend(bucket: bucket, attempts: 3))
        let home = try store.database.createHousehold(name: "Home", currency: .usd, now: store.now)
        let item = try store.database.createItem(home.id, ItemDraft(name: "Vase", currency: .usd), now: store.now)
        try server.inject(bucket, status: 503, count: 2)
        let photo = try store.database.addPhoto(home.id, to: item.id, data: fakeBytes(10), contentType: "image/jpeg", now: store.now)
        #expect(try store.database.blobs.read(photo.attachment.sha256) == fakeBytes(10))
        #expect(try server.requests(bucket).count >= 5)  // two refused HEADs, the HEAD that passed, the PUT, the HEAD in the transaction

        // More 503s than tries: a clear error, and no row.
        try server.inject(bucket, status: 503, count: 3)
        let other = try store.database.createItem(home.id, ItemDraft(name: "Lamp", currency: .usd), now: store.now)
        do {
            _ = try store.database.addPhoto(home.id, to: other.id, data: fakeBytes(11), contentType: "image/jpeg", now: store.now)
            Issue.record("the upload should have failed")
        } catch let error as StoreError {
            guard case .blobStorageUnavailable = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains("HTTP 503"))
            #expect(error.description.contains("after 3 tries"))
        }
        #expect(try store.database.item(home.id, other.id).photos.isEmpty)
    }

    @Test("a slow answer past the timeout is tried again; one that is always slow ends in a clear error")
    func slowAnswer() throws {
        let server = try S3TestServer.get()
        let bucket = try server.makeBucket()
        let store = try S3TestStore(backend: server.backend(bucket: bucket, attempts: 2, timeout: 1))
        let home = try store.database.createHousehold(name: "Home", currency: .usd, now: store.now)
        let item = try store.database.createItem(home.id, ItemDraft(name: "Vase", currency: .usd), now: store.now)
        let photo = try store.database.addPhoto(home.id, to: item.id, data: fakeBytes(12), contentType: "image/jpeg", now: store.now)

        try server.inject(bucket, delay: 3, count: 1)
        let start = Date()
        #expect(try store.database.blobs.read(photo.attachment.sha256) == fakeBytes(12))
        #expect(Date().timeIntervalSince(start) < 3, "the slow try was given up after the 1 s timeout")

        try server.inject(bucket, delay: 3, count: 2)
        let again = Date()
        do {
            _ = try store.database.blobs.read(photo.attachment.sha256)
            Issue.record("the read should have timed out")
        } catch let error as StoreError {
            guard case .blobStorageUnavailable = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains("no answer within 1 second"))
        }
        #expect(Date().timeIntervalSince(again) < 6)
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
    func sweptBetweenUploadAndCommit() throws {
        let server = try S3TestServer.get()
        let bucket = try server.makeBucket()
        let base = server.backend(bucket: bucket)
        let store = try S3TestStore(backend: base)
        let home = try store.database.createHousehold(name: "Home", currency: .usd, now: store.now)
        let item = try store.database.createItem(home.id, ItemDraft(name: "Vase", currency: .usd), now: store.now)
        let swept = try AppDatabase.open(store.folder, blobBackend: SweptAfterUpload(base: base))
        defer { try? swept.close() }
        let bytes = fakeBytes(20, size: 50_000)
        let photo = try swept.addPhoto(home.id, to: item.id, data: bytes, contentType: "image/jpeg", now: store.now)
        #expect(try store.database.blobs.read(photo.attachment.sha256) == bytes)
        let key = "/\(bucket)/blobs/\(photo.attachment.sha256)"
        #expect(try server.requests(bucket).filter { $0 == "PUT \(key)" }.count == 2, "uploaded, swept, put again in the transaction")
    }

    @Test("a file for a backup or a report is streamed to tmp/ and removed after; a missing one is attachment-missing")
    func localCopies() throws {
        let server = try S3TestServer.get()
        let bucket = try server.makeBucket()
        let store = try S3TestStore(backend: server.backend(bucket: bucket))
        let bytes = fakeBytes(21, size: 2_000_000)
        let attachment = try store.database.storeAttachment(bytes, contentType: "image/jpeg", now: store.now)
        let url = try store.database.blobs.localFile(attachment.sha256)
        #expect(url.path.hasPrefix(store.folder.tmpURL.path))
        #expect(try Data(contentsOf: url) == bytes)
        try store.database.blobs.backend.remove(attachment.sha256)
        #expect(throws: StoreError.attachmentMissing(sha256: attachment.sha256)) {
            try store.database.blobs.withLocalFile(attachment.sha256) { _ in }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.tmpURL.path) == [url.lastPathComponent])
    }
}
