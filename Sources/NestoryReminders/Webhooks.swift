import Crypto
import Foundation
import NestoryDomain
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

/// Why a webhook address is refused.
public enum WebhookAddressError: Error, Equatable, Sendable {
    case invalid(String)
    /// The host is (or resolves to) a private, loopback, link-local or otherwise internal address.
    case internalAddress(host: String, address: String)
    case unresolvable(String)

    public var message: String {
        switch self {
        case .invalid(let why): return why
        case .internalAddress(let host, let address):
            return host == address
                ? "\(address) is an address inside this server's network; webhooks go only to public addresses unless whoever runs the server allows it (setting webhooks.allowPrivateAddresses)."
                : "\(host) points to \(address), an address inside this server's network; webhooks go only to public addresses unless whoever runs the server allows it (setting webhooks.allowPrivateAddresses)."
        case .unresolvable(let host): return "\(host) could not be found (DNS). Check the address."
        }
    }
}

/// Keeps webhooks from being used to reach the server's own network (SSRF): the URL must be http(s)
/// without credentials, and every address its host resolves to must be public, unless the operator allows
/// private ones. Checked when the owner saves the address and again before every delivery (DNS can change).
public struct WebhookAddressGuard: Sendable {
    public let allowPrivate: Bool
    let resolve: @Sendable (String) -> [String]

    public init(allowPrivate: Bool, resolve: @escaping @Sendable (String) -> [String] = WebhookAddressGuard.systemResolve) {
        self.allowPrivate = allowPrivate
        self.resolve = resolve
    }

    /// The URL, parsed and checked.
    public func check(_ text: String) throws(WebhookAddressError) -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= 2048, let components = URLComponents(string: trimmed), let url = components.url,
              let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = components.host, !host.isEmpty else {
            throw .invalid("Enter a web address starting with https://.")
        }
        guard components.user == nil, components.password == nil else {
            throw .invalid("Leave the user name and password out of the address; the body is signed instead.")
        }
        if allowPrivate { return url }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses = Self.literal(bare) != nil ? [bare] : resolve(bare)
        guard !addresses.isEmpty else { throw .unresolvable(host) }
        for address in addresses where Self.isInternal(address) {
            throw .internalAddress(host: bare, address: address)
        }
        return url
    }

    /// The address as bytes, if `text` is an IPv4 or IPv6 literal.
    static func literal(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// Loopback, private (RFC 1918, unique local), link-local, carrier-grade NAT, unspecified, multicast,
    /// reserved and documentation ranges; IPv4 inside IPv6 (mapped, NAT64) is judged as IPv4.
    public static func isInternal(_ address: String) -> Bool {
        guard let bytes = literal(address) else { return true }
        if bytes.count == 4 { return isInternalV4(bytes) }
        let prefix = Array(bytes[0..<12])
        if prefix == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] || prefix == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
            return isInternalV4(Array(bytes[12..<16]))
        }
        if bytes.allSatisfy({ $0 == 0 }) || bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }  // :: and ::1
        if bytes[0] & 0xFE == 0xFC { return true }  // fc00::/7 unique local
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return true }  // fe80::/10 link-local
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0 { return true }  // fec0::/10 site-local (deprecated)
        if bytes[0] == 0xFF { return true }  // multicast
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0x0D, bytes[3] == 0xB8 { return true }  // 2001:db8::/32
        if prefix.prefix(12).allSatisfy({ $0 == 0 }) { return true }  // ::a.b.c.d (deprecated compatible)
        return false
    }

    static func isInternalV4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return true
        case (100, 64...127): return true  // carrier-grade NAT
        case (169, 254): return true
        case (172, 16...31): return true
        case (192, 168): return true
        case (192, 0) where b[2] == 0 || b[2] == 2: return true  // IETF protocol assignments, TEST-NET-1
        case (198, 18...19): return true  // benchmarking
        case (198, 51) where b[2] == 100, (203, 0) where b[2] == 113: return true  // TEST-NET-2, -3
        case (224...255, _): return true  // multicast, reserved, broadcast
        default: return false
        }
    }

    /// Every address the system resolver gives for `host`.
    public static let systemResolve: @Sendable (String) -> [String] = { host in
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if info.pointee.ai_family == AF_INET, let sockaddr = info.pointee.ai_addr {
                var address = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                if inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil { addresses.append(String(cString: buffer)) }
            } else if info.pointee.ai_family == AF_INET6, let sockaddr = info.pointee.ai_addr {
                var address = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                if inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil { addresses.append(String(cString: buffer)) }
            }
            cursor = info.pointee.ai_next
        }
        return Array(Set(addresses)).sorted()
    }
}

/// Delivers one webhook request. The live one uses URLSession; tests give a double or a local server.
public protocol WebhookSending: Sendable {
    /// POSTs `body` to `url` with `headers`; returns the HTTP status. Throws when nothing was answered.
    func post(_ url: URL, body: Data, headers: [String: String]) async throws -> Int
}

/// POSTs with a short timeout and never follows a redirect (a redirect could lead to an internal address).
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

    public func post(_ url: URL, body: Data, headers: [String: String]) async throws -> Int {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (_, response) = try await session.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
