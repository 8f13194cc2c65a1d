import Foundation
import NestoryHTTP
import Testing

/// Which addresses households may send the server to (webhooks, their own valuation endpoint).
@Suite struct PublicAddressGuardTests {
    @Test("internal addresses: loopback, RFC 1918, link-local, CGNAT, unique local, mapped and NAT64 IPv4")
    func internalAddresses() {
        for address in ["127.0.0.1", "127.8.9.10", "10.0.0.5", "172.16.0.1", "172.31.255.255", "192.168.1.20", "169.254.169.254",
                        "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fd00::5", "fc12::1",
                        "::ffff:127.0.0.1", "::ffff:10.1.2.3", "64:ff9b::a00:1", "ff02::1", "2001:db8::1", "not an address"] {
            #expect(PublicAddressGuard.isInternal(address), "\(address)")
        }
        for address in ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"] {
            #expect(!PublicAddressGuard.isInternal(address), "\(address)")
        }
    }

    @Test("the guard refuses internal hosts, by literal or by what a name resolves to, unless allowed")
    func guardChecks() throws {
        let resolver: @Sendable (String) -> [String] = { host in
            switch host {
            case "hooks.example": return ["93.184.216.34"]
            case "sneaky.example": return ["93.184.216.34", "10.0.0.7"]  // one public, one private: refused
            case "rebind.example": return ["127.0.0.1"]
            default: return []
            }
        }
        let strict = PublicAddressGuard.webhooks(allowPrivate: false, resolve: resolver)
        let checked = try strict.check("https://hooks.example/nestory")
        #expect(checked.url.absoluteString == "https://hooks.example/nestory" && checked.addresses == ["93.184.216.34"] && checked.address == "93.184.216.34")
        for bad in ["http://127.0.0.1:8080/hook", "http://10.1.2.3/", "http://[::1]/", "http://[::ffff:192.168.0.1]/", "https://sneaky.example/",
                    "https://rebind.example/"] {
            #expect(throws: PublicAddressError.self, "\(bad)") { try strict.check(bad) }
        }
        #expect(throws: PublicAddressError.unresolvable("nowhere.example")) { try strict.check("https://nowhere.example/") }
        for invalid in ["ftp://hooks.example/", "hooks.example", "https://user:pw@hooks.example/", "javascript:alert(1)", ""] {
            #expect(throws: PublicAddressError.self, "\(invalid)") { try strict.check(invalid) }
        }
        let open = PublicAddressGuard.webhooks(allowPrivate: true, resolve: resolver)
        let allowed = try open.check("http://127.0.0.1:8080/hook")
        #expect(allowed.url.port == 8080 && allowed.address == nil)  // nothing looked up: sent as the name resolves
        // The refusal says which setting allows it, for the use the guard is made for.
        #expect(throws: PublicAddressError.internalAddress(host: "rebind.example", address: "127.0.0.1",
                                                           rule: "webhooks go only to public addresses unless whoever runs the server allows it (setting webhooks.allowPrivateAddresses)")) {
            try strict.check("https://rebind.example/")
        }
        let endpoints = PublicAddressGuard.valuationEndpoints(allowPrivate: false, resolve: resolver)
        #expect(throws: PublicAddressError.self) { try endpoints.checkHost("rebind.example") }
        #expect(throws: PublicAddressError.self) { try endpoints.checkHost("[::1]") }
        try endpoints.checkHost("hooks.example")
        let refusal = #expect(throws: PublicAddressError.self) { try endpoints.checkHost("rebind.example") }
        #expect(refusal?.message == "rebind.example points to 127.0.0.1, an address inside this server's network; a household’s own endpoint must be "
                + "a public address unless whoever runs the server allows private ones (setting valuation.allowPrivateEndpoints).")
        // The system resolver answers for localhost without a network.
        #expect(PublicAddressGuard.systemResolve("localhost").contains { $0 == "127.0.0.1" || $0 == "::1" })
    }

    /// A request goes to the address checked, not to what the name resolves to when it is sent (DNS rebinding): for
    /// http, by the address in the URL and the name in the Host header; https is left to its certificate check.
    @Test func aRequestIsPinnedToTheAddressChecked() {
        #expect(PublicAddressGuard.preferred(["2606:4700:4700::1111", "93.184.216.34"]) == "93.184.216.34")
        #expect(PublicAddressGuard.preferred(["2606:4700:4700::1111"]) == "2606:4700:4700::1111")
        #expect(PublicAddressGuard.preferred([]) == nil)
        let url = URL(string: "http://hooks.example:8080/nestory/hook?kind=test")!
        let v4 = AddressPin.apply("93.184.216.34", to: url)
        #expect(v4.url.absoluteString == "http://93.184.216.34:8080/nestory/hook?kind=test" && v4.host == "hooks.example:8080")
        let v6 = AddressPin.apply("2606:4700:4700::1111", to: URL(string: "http://hooks.example/v1")!)
        #expect(v6.url.absoluteString == "http://[2606:4700:4700::1111]/v1" && v6.host == "hooks.example")
        let tls = AddressPin.apply("93.184.216.34", to: URL(string: "https://hooks.example/hook")!)
        #expect(tls.url.absoluteString == "https://hooks.example/hook" && tls.host == nil)
        #expect(AddressPin.apply(nil, to: url) == (url, nil))
    }
}
