import Foundation
import GRDB
import NestoryDomain
import NestoryStoreInterfaces
import Testing
@testable import NestoryStore

@Suite struct AttachmentTests {
    @Test func filesAreContentAddressedAndByteExact() throws {
        let store = try TestStore()
        let home = try store.household()
        let item = try store.item(home, "Vase")
        let bytes = fakeImage(42, size: 300_000)
        let photo = try store.database.addPhoto(home.id, to: item.id, data: bytes, contentType: "image/jpeg", now: store.now)
        #expect(photo.attachment.sha256.count == 64)
        #expect(photo.attachment.byteCount == Int64(bytes.count))
        let url = store.database.blobs.url(for: photo.attachment.sha256)
        #expect(url.path.hasPrefix(store.folder.blobsURL.path))
        #expect(url.pathComponents.suffix(3) == [String(photo.attachment.sha256.prefix(2)),
                                                 String(photo.attachment.sha256.dropFirst(2).prefix(2)), photo.attachment.sha256])
        #expect(try Data(contentsOf: url) == bytes)
        // The same bytes again are stored once.
        let again = try store.database.addPhoto(home.id, to: item.id, data: bytes, contentType: "image/jpeg", now: store.now)
        #expect(again.attachment.sha256 == photo.attachment.sha256)
        #expect(try store.database.blobs.allStoredHashes() == [photo.attachment.sha256])
        // Nothing is left in the staging folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.tmpURL.path).isEmpty)
    }

    @Test func largeFilesAreStagedInChunksFromDisk() throws {
        let store = try TestStore()
        let home = try store.household()
        let item = try store.item(home, "Painting")
        let source = store.folder.url.appendingPathComponent("upload.bin")
        let bytes = fakeImage(7, size: 3_000_000)
        try bytes.write(to: source)
        let staged = try store.database.blobs.stage(contentsOf: source)
        let photo = try store.database.addPhoto(home.id, to: item.id, staged: staged, contentType: "image/jpeg", now: store.now)
        #expect(try store.database.blobs.read(photo.attachment.sha256) == bytes)
        #expect(throws: StoreError.self) { try store.database.blobs.stage(contentsOf: source, maxBytes: 1_000_000) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.tmpURL.path).isEmpty)
    }

    @Test func deletingAnItemRemovesOnlyFilesNoOtherRowUses() throws {
        let store = try TestStore()
        let home = try store.household()
        let other = try store.household("Neighbours")
        let a = try store.item(home, "A")
        let b = try store.item(home, "B")
        let c = try store.item(other, "C")
        let shared = fakeImage(1)
        let own = fakeImage(2)
        let receiptBytes = fakeImage(3)
        let pa = try store.database.addPhoto(home.id, to: a.id, data: shared, contentType: "image/jpeg", now: store.now)
        let pa2 = try store.database.addPhoto(home.id, to: a.id, data: own, contentType: "image/jpeg", now: store.now)
        _ = try store.database.addPhoto(home.id, to: b.id, data: shared, contentType: "image/jpeg", now: store.now)
        _ = try store.database.addPhoto(other.id, to: c.id, data: own, contentType: "image/jpeg", now: store.now)
        let receipt = try store.database.addReceipt(home.id, itemID: a.id, data: receiptBytes, contentType: "image/jpeg", now: store.now)

        try store.database.deleteItem(home.id, a.id)
        // Still used by B, by the other household's C, and by the (now unlinked) receipt.
        #expect(try store.database.blobs.exists(pa.attachment.sha256))
        #expect(try store.database.blobs.exists(pa2.attachment.sha256))
        #expect(try store.database.blobs.exists(receipt.attachment.sha256))

        try store.database.deleteItem(home.id, b.id)
        #expect(try !store.database.blobs.exists(pa.attachment.sha256))  // nobody uses it now
        try store.database.deleteItem(other.id, c.id)
        #expect(try !store.database.blobs.exists(pa2.attachment.sha256))
        let rows = try store.database.unsafeRawRead { db in try String.fetchAll(db, sql: "SELECT sha256 FROM blob") }
        #expect(rows == [receipt.attachment.sha256])
    }

    @Test func aFailedWriteLeavesNoRowAndNoStrayFile() throws {
        let store = try TestStore()
        let home = try store.household()
        #expect(throws: DomainError.notFound("The item")) {
            try store.database.addPhoto(home.id, to: ItemID(), data: fakeImage(5), contentType: "image/jpeg", now: store.now)
        }
        #expect(try store.database.blobs.allStoredHashes().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.tmpURL.path).isEmpty)
    }

    /// A full disk (or quota) is told apart from other failed writes, so the server can say that trying again will not
    /// help until space is freed (OperationsTests has the database's own full disk, end to end).
    @Test func aFullDiskIsToldApartFromOtherFailedWrites() {
        #expect(StoreError.failed("cannot write a.jpg", code: ENOSPC) as? NoSpaceLeft == NoSpaceLeft("cannot write a.jpg: No space left on device"))
        #expect(StoreError.failed("cannot write a.jpg", code: EDQUOT) as? NoSpaceLeft == NoSpaceLeft("cannot write a.jpg: Disk quota exceeded"))
        #expect(StoreError.failed("cannot write a.jpg", code: EACCES) as? StoreError == .io("cannot write a.jpg: Permission denied"))
        #expect(StoreError.writing("up.zip", CocoaError(.fileWriteOutOfSpace)) as? NoSpaceLeft == NoSpaceLeft("up.zip: no space left on device"))
        #expect(StoreError.writing("up.zip", POSIXError(.ENOSPC)) as? NoSpaceLeft == NoSpaceLeft("up.zip: no space left on device"))
        #expect(StoreError.writing("up.zip", CocoaError(.fileWriteNoPermission)) is CocoaError)
    }

    @Test func theFileIsInPlaceBeforeTheRowCommits() throws {
        let store = try TestStore()
        let home = try store.household()
        let item = try store.item(home, "Clock")
        let staged = try store.database.blobs.stage(fakeImage(11))
        let finalPath = store.database.blobs.url(for: staged.sha256).path
        #expect(!FileManager.default.fileExists(atPath: finalPath))
        // Watch the commit: at that moment the file must already be in place and complete.
        let observer = CommitObserver(path: finalPath, expected: fakeImage(11))
        store.database.writer.add(transactionObserver: observer, extent: .observerLifetime)
        _ = try store.database.addPhoto(home.id, to: item.id, staged: staged, contentType: "image/jpeg", now: store.now)
        #expect(observer.checkedCommits > 0)
        #expect(observer.fileWasReadyAtEveryCommit)
    }

    @Test func concurrentAddsAndDeletesOfTheSameBytesNeverLoseAFile() async throws {
        let store = try TestStore()
        let home = try store.household()
        let bytes = fakeImage(99)
        let database = store.database
        let householdID = home.id
        let now = store.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<15 {
                        let item = try database.createItem(householdID, ItemDraft(name: "W\(worker) R\(round)", currency: .usd), now: now)
                        _ = try database.addPhoto(householdID, to: item.id, data: bytes, contentType: "image/jpeg", now: now)
                        if round % 2 == 0 { try database.deleteItem(householdID, item.id) }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Every photo row still has its file.
        let hashes = try database.unsafeRawRead { db in try String.fetchAll(db, sql: "SELECT DISTINCT sha256 FROM item_photo") }
        #expect(!hashes.isEmpty)
        for hash in hashes { #expect(try database.blobs.read(hash) == bytes) }
    }

    @Test func garbageCollectionRemovesLeftoversOfACrash() throws {
        let store = try TestStore()
        let home = try store.household()
        let item = try store.item(home, "Lamp")
        let kept = try store.database.addPhoto(home.id, to: item.id, data: fakeImage(1), contentType: "image/jpeg", now: store.now)
        // A crash after the rename but before the commit: a file with no row.
        let orphan = try store.database.blobs.stage(fakeImage(2))
        try store.database.writer.write { db in try store.database.blobs.ensurePresent(orphan) }
        // A crash while staging: a temporary file.
        let stale = try store.database.blobs.stage(fakeImage(3))
        #expect(try store.database.blobs.exists(orphan.sha256))
        let removed = try store.database.collectGarbage(now: store.now.addingTimeInterval(7200 + Date().timeIntervalSince(store.now)))
        #expect(removed == 1)
        #expect(try !store.database.blobs.exists(orphan.sha256))
        #expect(!FileManager.default.fileExists(atPath: stale.tmpURL.path))
        #expect(try store.database.blobs.read(kept.attachment.sha256) == fakeImage(1))
    }
}

/// Checks, at each commit, that a file is present with the expected bytes.
final class CommitObserver: TransactionObserver, @unchecked Sendable {
    let path: String
    let expected: Data
    private(set) var checkedCommits = 0
    private(set) var fileWasReadyAtEveryCommit = true

    init(path: String, expected: Data) {
        self.path = path
        self.expected = expected
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if case .insert(let table) = eventKind { return table == "item_photo" }
        return false
    }

    func databaseDidChange(with event: DatabaseEvent) {}

    func databaseWillCommit() throws {
        checkedCommits += 1
        if (try? Data(contentsOf: URL(fileURLWithPath: path))) != expected { fileWasReadyAtEveryCommit = false }
    }

    func databaseDidCommit(_ db: Database) {}
    func databaseDidRollback(_ db: Database) {}
}
