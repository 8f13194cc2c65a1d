import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NestoryAuth
import NestoryBarcodesLive
import NestoryDomain
import NestoryReceipts
import NestoryServices
import NestoryImagingLive
import NestoryLicences
import NestoryStore
import NestoryBackup
import NestoryReportsLive
import Testing
@testable import NestoryWeb

/// A real router over a real database in a temporary folder, with a fast password hasher.
final class TestApp: @unchecked Sendable {
    let path: String
    let hasher: any PasswordHasher
    let database: AppDatabase
    let dependencies: WebDependencies
    /// Whether the data folder outlives this app (to open it again, as after a restart).
    let keepsFolder: Bool
    private var runnerTask: Task<Void, any Error>?

    /// `limit` failed sign-ins per account and `clientLimit` per client address, in 15 minutes. `path` opens an
    /// existing data folder (a new one by default).
    init(limit: Int = 10, clientLimit: Int = 50, hasher: any PasswordHasher = BcryptPasswordHasher(cost: 4),
         receiptReader: ReceiptReader? = nil, scanning: Bool = true, path: String? = nil, keepsFolder: Bool = false,
         webhooks: Services.Webhooks = .unavailable, instancePro: Bool = true, licenceKeys: [String: Data] = [:],
         tokenRequestsPerMinute: Int = 600, blobBackend: (any BlobBackend)? = nil, now: @escaping @Sendable () -> Date = Date.init) throws {
        self.hasher = hasher
        self.keepsFolder = keepsFolder
        self.path = path ?? FileManager.default.temporaryDirectory.appendingPathComponent("nestory-web-\(UUID())").path
        database = try AppDatabase.open(DataFolder(path: self.path), blobBackend: blobBackend)
        let imaging = try LibvipsImageProcessor()
        let services = Services(stores: .sqlite(database), folder: database.folder, passwordHasher: hasher, imaging: imaging, reportMaker: ReportGenerator.sqlite(database),
                                backupMaker: BackupWriter(database: database), receiptReader: receiptReader, maxPhotoBytes: 100_000,
                                // Pro unless a test is about Free's limits (LicenceWebTests).
                                plan: PlanService(licences: SQLiteLicenceStore(database), verifier: LicenceVerifier(trusted: licenceKeys), instancePro: instancePro, now: now),
                                webhooks: webhooks, tokenRequestsPerMinute: tokenRequestsPerMinute,
                                signInLimits: SignInLimits(perAccount: limit, perClient: clientLimit, window: 900), blocking: BlockingPool(width: 2),
                                now: now)
        dependencies = WebDependencies(services: services, imaging: imaging, limits: Limits(maxPhotoBytes: 100_000),
                                       barcodes: BarcodeReader(), productProviders: [], scanning: scanning, now: now)
        // The job runner, as the server runs it beside the router.
        let runner = services.runner
        runnerTask = Task { try await runner.run() }
    }

    deinit {
        // The cancelled runner may still be inside a read (it does not wait here), so the database is not closed
        // under it (that crashed the test process now and then): its connections close when the last reference
        // goes, and the removed files stay readable until then.
        runnerTask?.cancel()
        if !keepsFolder { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Drives the router directly, or (`.live`) a real server on a local port, where bodies stream.
    func run(_ mode: TestingSetup = .router, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = Application(router: buildRouter(dependencies))
        try await app.test(mode) { client in try await body(client) }
    }

    /// Waits until a job has finished, however it ended: at most 5 minutes, a bound against hanging rather than a
    /// timing (in a loaded full run a job's runner can wait long for a cooperative thread).
    func waitForJob(_ id: JobID) async throws -> Job {
        let deadline = Date().addingTimeInterval(300)
        while Date() < deadline {
            if let job = try database.job(id), job.state.isFinished { return job }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try #require(try database.job(id))
    }

    /// Creates a household with an owner directly in the store.
    /// A member (not the owner) of the household, with the test password.
    @discardableResult
    func member(of household: HouseholdID, email: String, name: String = "Bob") throws -> User {
        let user = try database.createUser(email: email, displayName: name, passwordHash: try hasher.hash("correct horse battery"), now: Date())
        try database.addMember(household, user: user.id, role: .member, now: Date())
        return user
    }

    func household(_ name: String, email: String, password: String = "correct horse battery") throws -> (Household, User) {
        let hash = try hasher.hash(password)
        let user = try database.createUser(email: email, displayName: name, passwordHash: hash, now: Date())
        let household = try database.createHousehold(name: name, currency: .usd, now: Date())
        try database.addMember(household.id, user: user.id, role: .owner, now: Date())
        return (household, user)
    }
}

/// A browser-like client: keeps cookies, knows its CSRF token.
struct Browser {
    let client: any TestClientProtocol
    var cookies: [String: String] = [:]
    var csrf: String?

    init(_ client: any TestClientProtocol) { self.client = client }

    var cookieHeader: String { cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }

    struct Reply {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: String
        var location: String? { headers[.location] }
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) }
        var errorCode: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String }
    }

    @discardableResult
    mutating func request(_ method: HTTPRequest.Method, _ uri: String, form: [String: String]? = nil, json: String? = nil,
                          body: Data? = nil, contentType: String? = nil, csrf useCSRF: Bool = true,
                          headers extra: HTTPFields = [:]) async throws -> Reply {
        var headers = extra
        if !cookies.isEmpty { headers[.cookie] = cookieHeader }
        var buffer: ByteBuffer?
        if var form {
            if useCSRF, form["_csrf"] == nil { form["_csrf"] = csrf ?? cookies["nestory_csrf"] ?? "" }
            headers[.contentType] = "application/x-www-form-urlencoded"
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            buffer = ByteBuffer(string: form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&"))
        } else if let json {
            headers[.contentType] = "application/json"
            buffer = ByteBuffer(string: json)
        } else if let body {
            headers[.contentType] = contentType ?? "application/octet-stream"
            buffer = ByteBuffer(bytes: body)
        }
        if useCSRF, form == nil, method != .get, let csrf { headers[HTTPField.Name("X-CSRF-Token")!] = csrf }
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: buffer)
        for field in response.headers where field.name == .setCookie {
            let pair = field.value.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            let name = String(pair[0]), value = pair.count > 1 ? String(pair[1]) : ""
            if value.isEmpty || field.value.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        let reply = Reply(status: response.status, headers: response.headers, body: String(buffer: response.body))
        // Every answer under /api/v1 is checked against the OpenAPI document (the contract; OpenAPIContract).
        if uri.hasPrefix("/api/v1/"), uri != "/api/v1/openapi.json" {
            let path = String(uri.dropFirst("/api/v1".count).prefix { $0 != "?" })
            for problem in OpenAPIContract.shared.problems(method: method.rawValue, path: path, status: Int(response.status.code),
                                                           contentType: response.headers[.contentType], body: Data(buffer: response.body)) {
                Issue.record("Outside the OpenAPI document: \(problem)")
            }
        }
        if let token = Self.metaCSRF(reply.body) { csrf = token }
        return reply
    }

    /// Signs in through the form, as a person would.
    mutating func signIn(_ email: String, _ password: String = "correct horse battery") async throws -> Reply {
        try await request(.get, "/signin")
        let reply = try await request(.post, "/signin", form: ["email": email, "password": password])
        if reply.status == .seeOther { try await request(.get, "/") }  // picks up the session's CSRF token
        return reply
    }

    static func metaCSRF(_ html: String) -> String? {
        guard let range = html.range(of: "<meta name=\"csrf-token\" content=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// The chosen option of the page's first select named `name`, as a browser posts it.
    static func selectedValue(_ name: String, in page: String) throws -> String {
        let select = try #require(page.range(of: "name=\"\(name)\"")).upperBound
        let options = page[select...]
        let end = try #require(options.range(of: "</select>")).lowerBound
        let chosen = try #require(options[..<end].range(of: "\" selected>")).lowerBound
        let start = try #require(options[..<chosen].range(of: "value=\"", options: .backwards)).upperBound
        return String(options[start..<chosen])
    }

    /// The value of the page's first input named `name`, unescaped as a browser posts it.
    static func inputValue(_ name: String, in page: String) throws -> String {
        let marker = "name=\"\(name)\" value=\""
        let start = try #require(page.range(of: marker)).upperBound
        let raw = page[start...].prefix { $0 != "\"" }
        return raw.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// A clock a test moves by hand (the app lock's timeouts, without waiting).
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date()
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// bcrypt that counts how often a password is checked.
final class CountingHasher: PasswordHasher, @unchecked Sendable {
    private let inner = BcryptPasswordHasher(cost: 4)
    private let lock = NSLock()
    private var count = 0
    var verifications: Int { lock.withLock { count } }

    func hash(_ password: String) throws -> String { try inner.hash(password) }

    func verify(_ password: String, against hash: String) -> Bool {
        lock.withLock { count += 1 }
        return inner.verify(password, against: hash)
    }
}
