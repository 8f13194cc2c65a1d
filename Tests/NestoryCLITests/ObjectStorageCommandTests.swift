import Foundation
import Testing
@testable import NestoryCLI

/// The commands with photos and files in S3-compatible object storage (`storage.blobs` from the environment), against
/// the local moto server of S3TestServer.swift.
@Suite("commands with files in object storage")
struct ObjectStorageCommandTests {
    static func environment(_ server: S3TestServer, bucket: String, secret: String? = nil) -> [String: String] {
        ["NESTORY_STORAGE_BLOBS": "s3://\(bucket)/nestory", "NESTORY_STORAGE_S3_ENDPOINT": server.proxy.absoluteString,
         "NESTORY_STORAGE_S3_PATH_STYLE": "true", "NESTORY_STORAGE_S3_ACCESS_KEY": server.accessKey,
         "NESTORY_STORAGE_S3_SECRET_KEY": secret ?? server.secretKey, "NESTORY_STORAGE_S3_ATTEMPTS": "2"]
    }

    @Test("demo writes its photos to the bucket, backup reads them from it, restore puts them in another bucket")
    func demoBackupRestore() async throws {
        let server = try await S3TestServer.get()
        let (first, second) = try await offThePool { (try server.makeBucket(), try server.makeBucket()) }
        let source = CLI.Folder(), target = CLI.Folder()
        defer { withExtendedLifetime((source, target)) {} }
        let (sourcePath, targetPath) = (source.path, target.path)
        let demo = try await offThePool { try CLI.run(["demo", "--data", sourcePath, "--items", "40", "--seed", "5"], environment: Self.environment(server, bucket: first)) }
        #expect(demo.status == 0, "\(demo.stderr)")
        let puts = try await offThePool { try server.requests(first) }.filter { $0.hasPrefix("PUT /\(first)/nestory/") }
        #expect(!puts.isEmpty)
        // Nothing went to the data folder's blobs/.
        let local = FileManager.default.enumerator(atPath: sourcePath + "/blobs")?.allObjects.compactMap { $0 as? String } ?? []
        #expect(local.filter { $0.count > 60 }.isEmpty, "\(local)")

        let archive = sourcePath + ".zip"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        let backup = try await offThePool { try CLI.run(["backup", "--data", sourcePath, archive], environment: Self.environment(server, bucket: first)) }
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("40 items"))
        let restore = try await offThePool { try CLI.run(["restore", "--data", targetPath, archive], environment: Self.environment(server, bucket: second)) }
        #expect(restore.status == 0, "\(restore.stderr)")
        // Every file of the archive ("N files (… KB)") was put in the second bucket, once.
        let files = try #require(backup.stdout.split(separator: "\n").first { $0.contains(" files (") }?
            .trimmingCharacters(in: .whitespaces).split(separator: " ").first.flatMap { Int($0) })
        #expect(try await offThePool { try server.requests(second) }.filter { $0.hasPrefix("PUT /\(second)/nestory/") }.count == files)
        #expect(files > 0 && files <= puts.count)
        // A backup of the restored data (read from the second bucket) has the same figures.
        let again = targetPath + ".zip"
        defer { try? FileManager.default.removeItem(atPath: again) }
        let secondBackup = try await offThePool { try CLI.run(["backup", "--data", targetPath, again], environment: Self.environment(server, bucket: second)) }
        #expect(secondBackup.status == 0, "\(secondBackup.stderr)")
        // The same figures as the first backup (the lines after the first, which names the archive and the time).
        #expect(secondBackup.stdout.split(separator: "\n").dropFirst().dropLast() == backup.stdout.split(separator: "\n").dropFirst().dropLast())
    }

    @Test("a wrong secret stops a backup with a message naming the bucket and the settings to check, never the secret")
    func wrongSecret() async throws {
        let server = try await S3TestServer.get()
        let bucket = try await offThePool { try server.makeBucket() }
        let folder = CLI.Folder()
        defer { withExtendedLifetime(folder) {} }
        let folderPath = folder.path
        #expect(try await offThePool { try CLI.run(["demo", "--data", folderPath, "--items", "10", "--seed", "6"], environment: Self.environment(server, bucket: bucket)) }.status == 0)
        let archive = folderPath + ".zip"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        let secret = "wrong-secret-\(UUID().uuidString)"
        let backup = try await offThePool { try CLI.run(["backup", "--data", folderPath, archive], environment: Self.environment(server, bucket: bucket, secret: secret)) }
        #expect(backup.status != 0)
        #expect(backup.stderr.contains(bucket) && backup.stderr.contains("403") && backup.stderr.contains("storage.s3.secretKey"), "\(backup.stderr)")
        #expect(!backup.stderr.contains(secret))
    }

    @Test("/health/ready checks the bucket answers: ready with the right key, not ready with a wrong secret (saying why, not the secret)")
    func readiness() async throws {
        let server = try await S3TestServer.get()
        let bucket = try await offThePool { try server.makeBucket() }
        let (good, bad) = (CLI.Folder(), CLI.Folder())
        let secret = "wrong-secret-\(UUID().uuidString)"
        let right = try CLI.Server(folder: good, environment: Self.environment(server, bucket: bucket))
        let wrong = try CLI.Server(folder: bad, environment: Self.environment(server, bucket: bucket, secret: secret))
        let (upRight, upWrong) = (await right.health(), await wrong.health())
        #expect(upRight != nil && upWrong != nil)
        let ready = await right.get("/health/ready")
        #expect(ready?.status == 200, "\(String(describing: ready))")
        #expect(ready?.body.contains("blobs") == true)
        let notReady = await wrong.get("/health/ready")
        #expect(notReady?.status == 503)
        #expect(notReady?.body.contains("403") == true && notReady?.body.contains(bucket) == true, "\(String(describing: notReady))")
        #expect(notReady?.body.contains(secret) == false)
        // Stopping waits for the servers to exit: off the cooperative threads.
        try await offThePool { for server in [right, wrong] { server.stop() } }
        withExtendedLifetime((good, bad)) {}
    }

    @Test("a data folder whose files are in blobs/ served with an object store: the server says so at start")
    func filesLeftInTheDataFolder() async throws {
        let server = try await S3TestServer.get()
        let bucket = try await offThePool { try server.makeBucket() }
        let folder = CLI.Folder()
        defer { withExtendedLifetime(folder) {} }
        let path = folder.path
        #expect(try await offThePool { try CLI.run(["demo", "--data", path, "--items", "10", "--seed", "7"]) }.status == 0)  // files in blobs/
        let serving = try CLI.Server(folder: folder, environment: Self.environment(server, bucket: bucket))
        var log = ""
        for _ in 0..<100 where !log.contains("serving http") {
            try await Task.sleep(for: .milliseconds(100))
            log = serving.log
        }
        // Stopping waits for the server to exit: off the cooperative threads.
        try await offThePool { serving.stop() }
        #expect(log.contains("stored files are in \(path)/blobs, which is not read with storage.blobs = s3://\(bucket)/nestory"), "\(log)")
    }
}
