import Foundation
import NestoryDomain
import NestoryObjectStorage
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import Testing

/// Two servers on one PostgreSQL database and one object store (the local S3 server of S3TestServer.swift), each with
/// a data folder of its own: a report one of them made is the other's to download, and its file leaves the object store
/// once its row is gone and the hour has passed.
@Suite struct ReportFilesOnPostgresTests {
    @Test(.enabled(if: Engine.available.contains(.postgres)))
    func aReportMadeOnOneServerDownloadsOnTheOtherAndGoesWithGarbageCollection() async throws {
        let server = try await S3TestServer.get()
        let backend = server.backend(bucket: try server.makeBucket())
        let (firstFolder, secondFolder) = (try blobFolder(), try blobFolder())
        defer { for folder in [firstFolder, secondFolder] { try? FileManager.default.removeItem(at: folder.url) } }
        let (first, second) = (BlobStore(folder: firstFolder, backend: backend), BlobStore(folder: secondFolder, backend: backend))
        try await withTwoPostgresStores(blobs: first, secondBlobs: second) { one, other in
            let home = try await one.createHousehold(name: "Home", currency: .usd, now: Date())
            let bytes = Data("%PDF-1.7\n".utf8) + fakeBytes(19, size: 50_000) + Data("\n%%EOF\n".utf8)
            let rendered = firstFolder.tmpURL.appendingPathComponent("report-\(UUID().uuidString.lowercased()).pdf")
            try bytes.write(to: rendered)
            let made = try await one.recordReport(home.id, kind: "inventory", options: "{}", file: rendered, now: Date())

            // The first server's data folder keeps nothing of it: gone, the second still downloads it.
            try FileManager.default.removeItem(at: firstFolder.url)
            #expect(try await other.reports(home.id, limit: 10) == [made])
            let (read, file) = try await other.report(home.id, made.id)
            #expect(read == made)
            #expect(file.path.hasPrefix(secondFolder.url.path))
            #expect(try Data(contentsOf: file) == bytes)
            let stored = try await offThePool { try backend.storedHashes(writtenBefore: .distantFuture) }
            #expect(stored.count == 1)

            // Deleted while a backup holds the files: the row goes, the object stays.
            let pin = try second.backupPin()
            try await other.deleteReport(home.id, made.id)
            pin.release()
            await #expect(throws: DomainError.notFound("The report")) { try await other.report(home.id, made.id) }
            #expect(try await offThePool { try backend.storedHashes(writtenBefore: .distantFuture) } == stored)
            // Younger than an hour (it may be an upload whose row is being written): kept. Then an hour on: removed.
            _ = try await other.collectGarbage(now: Date())
            #expect(try await offThePool { try backend.storedHashes(writtenBefore: .distantFuture) } == stored)
            #expect(try await other.collectGarbage(now: Date().addingTimeInterval(7200)) == 1)
            #expect(try await offThePool { try backend.storedHashes(writtenBefore: .distantFuture) }.isEmpty)
        }
    }
}
