import Foundation

/// Why an address a household gave is refused.
public enum PublicAddressError: Error, Equatable, Sendable {
    case invalid(String)
    /// The host is (or resolves to) a private, loopback, link-local or otherwise internal address; `rule` says what
    /// is allowed and which setting allows more.
    case internalAddress(host: String, address: String, rule: String)
    case unresolvable(String)

    public var message: String {
        switch self {
        case .invalid(let why): return why
        case .internalAddress(let host, let address, let rule):
            return host == address
                ? "\(address) is an address inside this server's network; \(rule)."
                : "\(host) points to \(address), an address inside this server's network; \(rule)."
        case .unresolvable(let host): return "\(host) could not be found (DNS). Check the address."
        }
    }
}

/// Keeps the addresses households give (a webhook, their own valuation endpoint) from being used to reach the
/// server's own network (SSRF): the URL must be http(s) without credentials, and every address its host resolves to
/// must be public, unless the operator allows private ones. Checked when the owner saves the address and again before
/// every request (DNS can change).
public struct PublicAddressGuard: Sendable {
    public let allowPrivate: Bool
    /// What is allowed, and the operator's setting that allows private addresses too (the end of the refusal).
    let rule: String
    let resolve: @Sendable (String) -> [String]

    public init(allowPrivate: Bool, rule: String, resolve: @escaping @Sendable (String) -> [String] = PublicAddressGuard.systemResolve) {
        self.allowPrivate = allowPrivate
        self.rule = rule
        self.resolve = resolve
    }

    /// Where webhooks may go.
    public static func webhooks(allowPrivate: Bool, resolve: @escaping @Sendable (String) -> [String] = PublicAddressGuard.systemResolve) -> Self {
        PublicAddressGuard(allowPrivate: allowPrivate,
                           rule: "webhooks go only to public addresses unless whoever runs the server allows it (setting webhooks.allowPrivateAddresses)",
                           resolve: resolve)
    }

    /// Where a household's own valuation endpoint may be (the operator's own endpoint is not checked).
    public static func valuationEndpoints(allowPrivate: Bool, resolve: @escaping @Sendable (String) -> [String] = PublicAddressGuard.systemResolve) -> Self {
        PublicAddressGuard(allowPrivate: allowPrivate,
                           rule: "a household’s own endpoint must be a public address unless whoever runs the server allows private ones (setting valuation.allowPrivateEndpoints)",
                           resolve: resolve)
    }

    /// A URL that passed, and the addresses its host was found at when it did (empty when private ones are allowed:
    /// nothing was looked up). Sending to one of them, not to what the name resolves to later, is what keeps a name
    /// pointed inside afterwards (DNS rebinding) from reaching the server's network: see `AddressPin`.
    public struct Checked: Sendable {
        public let url: URL
        public let addresses: [String]

        /// The address to send to (see `preferred`).
        public var address: String? { PublicAddressGuard.preferred(addresses) }
    }

    /// Of the addresses a host was checked at, the one to send to: an IPv4 one where there is one (reachable from more
    /// networks), else the first.
    public static func preferred(_ addresses: [String]) -> String? { addresses.first { !$0.contains(":") } ?? addresses.first }

    /// The URL, parsed and checked.
    public func check(_ text: String) throws(PublicAddressError) -> Checked {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= 2048, let components = URLComponents(string: trimmed), let url = components.url,
              let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = components.host, !host.isEmpty else {
            throw .invalid("Enter a web address starting with https://.")
        }
        guard components.user == nil, components.password == nil else {
            throw .invalid("Leave the user name and password out of the address.")
        }
        return Checked(url: url, addresses: try checkHost(host))
    }

    /// A URL's host (a name, or an address, IPv6 in brackets or not): every address it resolves to must be public.
    /// Returns them (none when private addresses are allowed).
    @discardableResult
    public func checkHost(_ host: String) throws(PublicAddressError) -> [String] {
        if allowPrivate { return [] }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses = Self.literal(bare) != nil ? [bare] : resolve(bare)
        guard !addresses.isEmpty else { throw .unresolvable(host) }
        for address in addresses where Self.isInternal(address) {
            throw .internalAddress(host: bare, address: address, rule: rule)
        }
        return addresses
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

/// Sends a request to the address a URL's host was checked at, not to whatever the name resolves to when the
/// connection is made. For http: the URL with the address as its host, and a Host header naming the original. An
/// https URL is left as it is: its certificate is checked against the name, so a name pointed elsewhere at connect
/// time meets a server that cannot prove to be it, and nothing is sent.
public enum AddressPin {
    /// The URL to connect to and the Host header to send with it (nil: send the URL as it is).
    public static func apply(_ address: String?, to url: URL) -> (url: URL, host: String?) {
        guard let address, url.scheme?.lowercased() == "http", var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let host = components.host else { return (url, nil) }
        let original = components.port.map { "\(host):\($0)" } ?? host
        components.host = address.contains(":") ? "[\(address)]" : address
        guard let pinned = components.url else { return (url, nil) }
        return (pinned, original)
    }
}
