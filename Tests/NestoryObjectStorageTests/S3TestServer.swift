import Foundation
import NestoryChildProcess
import NestoryHTTP
import NestoryObjectStorage
import NestoryStore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The local S3-compatible server (moto in server mode behind a fault-injecting proxy, scripts/s3_test_server.py),
/// started once for the test process on 127.0.0.1 by scripts/s3-test-server.sh, which makes its venv when missing
/// (scripts/install-deps.sh --test makes it ahead). It stops when this process ends (its standard input closes).
/// If it cannot start, every test that needs it fails with the reason: nothing is skipped.
final class S3TestServer: Sendable {
    let proxy: URL
    let accessKey: String
    let secretKey: String
    /// Kept open until this process ends: the server stops when its standard input closes.
    private let process: ChildProcess

    static let shared: Result<S3TestServer, any Error> = Result { try S3TestServer() }

    /// The server, started on first use (on a thread of its own: starting takes seconds).
    static func get() async throws -> S3TestServer { try await offThePool { try shared.get() } }

    private init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-s3-test-server-\(getpid()).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = try ChildProcess(executable: root.appendingPathComponent("scripts/s3-test-server.sh").path, errors: .file(log.path))
        // Its first line says where it listens (or nothing, when it fails to start).
        var line: [UInt8] = []
        while !line.contains(UInt8(ascii: "\n")), let chunk = process.read(timeout: -1), !chunk.isEmpty { line += chunk }
        line = Array(line.prefix { $0 != UInt8(ascii: "\n") })
        struct Info: Decodable { let proxy: String; let accessKey: String; let secretKey: String }
        guard let info = try? JSONDecoder().decode(Info.self, from: Data(line)) else {
            let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw ServerError("scripts/s3-test-server.sh did not start (run scripts/install-deps.sh --test): \(errors.suffix(2000))")
        }
        proxy = URL(string: info.proxy)!
        accessKey = info.accessKey
        secretKey = info.secretKey
    }

    struct ServerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A new bucket of its own for one test (faults and the request log are per bucket).
    func makeBucket() throws -> String {
        let name = "t-" + UUID().uuidString.lowercased().prefix(18)
        _ = try control("POST", "/__bucket?name=\(name)")
        return String(name)
    }

    /// The next `count` requests for `bucket` are answered with `status` (or held `delay` seconds, then forwarded).
    func inject(_ bucket: String, status: Int? = nil, delay: Double? = nil, count: Int = 1) throws {
        let what = status.map { "status=\($0)" } ?? "delay=\(delay ?? 0)"
        _ = try control("POST", "/__faults?bucket=\(bucket)&\(what)&count=\(count)")
    }

    /// The requests made for `bucket` so far: "PUT /bucket/blobs/…".
    func requests(_ bucket: String) throws -> [String] {
        try JSONDecoder().decode([String].self, from: control("GET", "/__requests?bucket=\(bucket)"))
    }

    func location(_ bucket: String, secret: String? = nil) -> S3Location {
        S3Location(bucket: bucket, prefix: "blobs/", endpoint: proxy, region: "us-east-1", pathStyle: true,
                   accessKey: accessKey, secretKey: secret ?? secretKey)
    }

    /// A backend on a new bucket; retries wait 50 ms at most so the fault tests stay quick.
    func backend(bucket: String, secret: String? = nil, attempts: Int = 3, timeout: TimeInterval = 5) -> S3BlobBackend {
        S3BlobBackend(location: location(bucket, secret: secret), timeout: timeout,
                      retry: RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(20), maxDelay: .milliseconds(50)))
    }

    private func control(_ method: String, _ path: String) throws -> Data {
        var request = URLRequest(url: URL(string: proxy.absoluteString + path)!)
        request.httpMethod = method
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var data: Data?; var status = 0 }
        let box = Box()
        URLSession.shared.dataTask(with: request) { data, response, _ in
            box.data = data
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            done.signal()
        }.resume()
        done.wait()
        guard box.status == 200, let data = box.data else { throw ServerError("\(method) \(path) answered \(box.status)") }
        return data
    }
}

/// Runs blocking work (the store's synchronous calls to the object store, a child process) on a thread of its own
/// and waits for it without holding one of Swift's cooperative threads: the test process has as many of those as
/// cores, and tests that block them starve every other test's tasks (JobRunnerTests' jobs missed their deadlines).
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// A database in a fresh temporary data folder whose files are kept in `backend`.
final class S3TestStore: @unchecked Sendable {
    let folder: DataFolder
    let database: AppDatabase
    let now = Date()

    init(backend: S3BlobBackend) throws {
        folder = DataFolder(path: FileManager.default.temporaryDirectory.appendingPathComponent("nestory-s3-test-\(UUID().uuidString)").path)
        database = try AppDatabase.open(folder, blobBackend: backend)
    }

    deinit {
        try? database.close()
        try? FileManager.default.removeItem(at: folder.url)
    }
}

/// Bytes that look like a small JPEG (content does not matter to the store).
func fakeBytes(_ seed: Int, size: Int = 4096) -> Data {
    var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
    var x = UInt32(truncatingIfNeeded: seed &* 2_654_435_761 &+ 1)
    for _ in 0..<size {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5
        bytes.append(UInt8(truncatingIfNeeded: x))
    }
    return Data(bytes + [0xFF, 0xD9])
}
