import Foundation
import NestoryHTTP
import NestoryStore
#if canImport(Glibc)
import Glibc
#endif

/// Photos and files in an S3-compatible bucket, one object per SHA-256 (`PREFIX` + hash). Uploads are idempotent
/// PUTs by hash made before the row's write transaction (HEAD first: bytes already kept are not sent again); inside
/// the transaction a file whose `blob` row is new is checked with HEAD (and PUT again if a garbage sweep took it
/// meanwhile), so a row never commits before its object. Objects are deleted only by the store's garbage removal,
/// inside the write transaction that saw no row uses them. Thumbnails stay in the data folder's rendition cache.
public struct S3BlobBackend: BlobBackend {
    let client: S3Client

    /// - Parameters:
    ///   - timeout: the longest one try may take (whole seconds).
    ///   - retry: how often and after what wait a server error or a missing answer is tried again.
    public init(location: S3Location, timeout: TimeInterval = 30, retry: RetryPolicy = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(200),
                                                                                                   maxDelay: .seconds(5))) {
        client = S3Client(location: location, timeout: timeout, retry: retry)
    }

    public var location: String { client.location.description }

    func key(_ sha256: String) -> String { client.location.prefix + sha256 }

    /// Throws the store's errors for an answer that is not one of `expected`.
    func check(_ answer: S3Client.Answer, _ what: String, sha256: String?, expected: Set<Int> = [200]) throws {
        if expected.contains(answer.status) { return }
        let code = S3Client.errorCode(answer.body)
        let detail = "\(what): HTTP \(answer.status)\(code.map { " \($0)" } ?? "")"
        switch answer.status {
        case 404 where code == "NoSuchBucket":
            throw StoreError.blobStorageRefused(location: location, detail: "there is no bucket \(client.location.bucket) (\(detail))")
        case 404:
            if let sha256 { throw StoreError.attachmentMissing(sha256: sha256) }
            throw StoreError.blobStorageRefused(location: location, detail: detail)
        case 301, 307, 400, 401, 403:
            throw StoreError.blobStorageRefused(location: location, detail: "bucket \(client.location.bucket), access key \(client.location.accessKey.prefix(4))…: \(detail)")
        default:
            throw StoreError.blobStorageUnavailable(location: location, detail: detail)
        }
    }

    public func exists(_ sha256: String) throws -> Bool {
        // HEAD has no body, so a missing bucket looks like a missing object here; the PUT that follows says which.
        let answer = try client.send("HEAD", key: key(sha256))
        if answer.status == 404 { return false }
        try check(answer, "HEAD \(sha256.prefix(12))…", sha256: nil)
        return true
    }

    public func upload(_ staged: BlobStore.Staged) throws {
        if try exists(staged.sha256) { return }
        try put(staged)
    }

    func put(_ staged: BlobStore.Staged) throws {
        // The payload hash S3 checks is the SHA-256 of the bytes: the object's name.
        let answer = try client.send("PUT", key: key(staged.sha256), body: staged.tmpURL, payloadHash: staged.sha256,
                                     headers: ["Content-Type": "application/octet-stream"])
        try check(answer, "PUT \(staged.sha256.prefix(12))…", sha256: nil)
    }

    public func ensurePresent(_ staged: BlobStore.Staged, recorded: Bool) throws {
        if recorded { return }
        if try exists(staged.sha256) { return }
        try put(staged)
    }

    public func read(_ sha256: String) throws -> Data {
        let answer = try client.send("GET", key: key(sha256))
        try check(answer, "GET \(sha256.prefix(12))…", sha256: sha256)
        return answer.body
    }

    /// The object streamed to a file in `tmp` (not held in memory): for backups and reports.
    public func localFile(_ sha256: String, tmp: URL) throws -> (url: URL, temporary: Bool) {
        let url = tmp.appendingPathComponent("fetched-\(UUID().uuidString.lowercased())")
        let answer = try client.send("GET", key: key(sha256), downloadTo: url)
        do {
            try check(answer, "GET \(sha256.prefix(12))…", sha256: sha256)
        } catch {
            unlink(url.path)
            throw error
        }
        return (url, true)
    }

    public func remove(_ sha256: String) throws {
        let answer = try client.send("DELETE", key: key(sha256))
        try check(answer, "DELETE \(sha256.prefix(12))…", sha256: nil, expected: [200, 204, 404])
    }

    public func storedHashes(writtenBefore cutoff: Date) throws -> [String] {
        var out: [String] = []
        var token: String?
        repeat {
            var query = [URLQueryItem(name: "list-type", value: "2"), URLQueryItem(name: "prefix", value: client.location.prefix)]
            if let token { query.append(URLQueryItem(name: "continuation-token", value: token)) }
            let answer = try client.send("GET", key: nil, query: query)
            try check(answer, "list the bucket", sha256: nil)
            let xml = String(decoding: answer.body, as: UTF8.self)
            for object in xml.components(separatedBy: "<Contents>").dropFirst() {
                guard let key = S3Client.element("Key", in: object) else { continue }
                let name = String(key.dropFirst(client.location.prefix.count))
                guard name.count == 64, name.allSatisfy(\.isHexDigit) else { continue }
                let modified = S3Client.element("LastModified", in: object).flatMap(Self.date) ?? .distantFuture
                if modified < cutoff { out.append(name) }
            }
            token = S3Client.element("IsTruncated", in: xml) == "true" ? S3Client.element("NextContinuationToken", in: xml) : nil
        } while token != nil
        return out
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
