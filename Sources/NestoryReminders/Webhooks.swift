import Crypto
import Foundation
import NestoryDomain
import NestoryHTTP
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One event a household's webhook receives: a JSON body, signed so the receiver can check it came from
/// this server and was not replayed (`Nestory-Signature: t=UNIX,v1=HEX`, an HMAC-SHA256 with the household's
/// webhook secret over `t` + "." + the body, the scheme Stripe and others use).
public struct WebhookEvent: Codable, Hashable, Sendable {
    /// `warranty.expiring`, `documentation.nudge` or `webhook.test`.
    public let type: String
    /// Unique per event: receivers may drop repeats of an id (a delivery is retried after a failure).
    public let id: String
    public let createdAt: Date
    public let household: String
    /// What happened, as plain fields.
    public let data: [String: String]

    public init(type: String, id: String, createdAt: Date, household: String, data: [String: String]) {
        self.type = type
        self.id = id
        self.createdAt = createdAt
        self.household = household
        self.data = data
    }

    public static func warranty(_ reminder: WarrantyReminder, household: HouseholdID, now: Date) -> WebhookEvent {
        WebhookEvent(type: "warranty.expiring", id: "warranty-\(reminder.itemID)-\(reminder.expiry.iso)-\(reminder.stage)", createdAt: now,
                     household: household.description,
                     data: ["item_id": reminder.itemID.description, "item_name": reminder.itemName, "expires_on": reminder.expiry.iso,
                            "days_left": String(reminder.daysLeft), "message": "\(reminder.when): \(reminder.itemName)"])
    }

    public static func nudge(_ nudge: DocumentationNudge, week: String, household: HouseholdID, now: Date) -> WebhookEvent {
        WebhookEvent(type: "documentation.nudge", id: "nudge-\(household)-\(week)", createdAt: now, household: household.description,
                     data: ["items_needing_photo": String(nudge.needsPhoto), "week": week, "message": nudge.message])
    }

    /// The JSON body as sent (snake_case keys, ISO 8601 time, sorted keys: the same event, the same bytes).
    public func body() throws -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// Signs and checks webhook bodies.
public enum WebhookSignature {
    public static let header = "Nestory-Signature"

    /// `t=UNIX,v1=HEX` for a body sent at `time`.
    public static func sign(_ body: Data, secret: String, time: Date) -> String {
        let t = Int(time.timeIntervalSince1970)
        return "t=\(t),v1=\(mac(body, secret: secret, t: t))"
    }

    /// Whether `header` signs `body` with `secret`, made at most `tolerance` seconds from `now`
    /// (what a receiver does; the tests use it as one).
    public static func verify(_ header: String, body: Data, secret: String, now: Date, tolerance: TimeInterval = 300) -> Bool {
        var t: Int?
        var given: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { t = Int(pair[1]) } else if pair[0] == "v1" { given.append(pair[1]) }
        }
        guard let t, abs(now.timeIntervalSince1970 - TimeInterval(t)) <= tolerance else { return false }
        let expected = Array(mac(body, secret: secret, t: t).utf8)
        return given.contains { candidate in
            let bytes = Array(candidate.utf8)
            return bytes.count == expected.count && zip(bytes, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }

    static func mac(_ body: Data, secret: String, t: Int) -> String {
        var signed = Data("\(t).".utf8)
        signed.append(body)
        let code = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }
}

/// Delivers one webhook request. The live one uses URLSession; tests give a double or a local server.
public protocol WebhookSending: Sendable {
    /// POSTs `body` to `url` with `headers`, connecting to `address` (the one the URL's host was checked at; nil: as
    /// the name resolves); returns the HTTP status. Throws when nothing was answered.
    func post(_ url: URL, connectingTo address: String?, body: Data, headers: [String: String]) async throws -> Int
}

/// POSTs with a short timeout, to the address checked (`AddressPin`), and never follows a redirect (a redirect could
/// lead to an internal address).
public final class LiveWebhookSender: NSObject, WebhookSending, URLSessionTaskDelegate, @unchecked Sendable {
    private let timeout: TimeInterval
    private let lock = NSLock()
    private var started: URLSession?

    public init(timeout: TimeInterval = 10) {
        self.timeout = timeout
    }

    private var session: URLSession {
        lock.withLock {
            if let started { return started }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = timeout
            configuration.timeoutIntervalForResource = timeout
            configuration.httpAdditionalHeaders = ["User-Agent": "Nestory/\(NestoryVersion.current) (webhook)"]
            let made = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
            started = made
            return made
        }
    }

    public func post(_ url: URL, connectingTo address: String?, body: Data, headers: [String: String]) async throws -> Int {
        let (target, host) = AddressPin.apply(address, to: url)
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let host { request.setValue(host, forHTTPHeaderField: "Host") }
        let (_, response) = try await session.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
