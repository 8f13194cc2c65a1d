import Crypto
import Foundation

/// AWS Signature Version 4 for S3 requests, in the Authorization header (AWS's "Signature Calculations for the
/// Authorization Header"): a canonical request, the string to sign over its SHA-256, and an HMAC-SHA256 key derived
/// from the secret, the day, the region and the service. The secret is used only here and never appears in output.
public struct SigV4Signer: Sendable {
    public let accessKey: String
    let secretKey: String
    public let region: String
    public let service: String

    public init(accessKey: String, secretKey: String, region: String, service: String = "s3") {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.region = region
        self.service = service
    }

    /// SHA-256 of an empty body, the payload hash of GET, HEAD and DELETE.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers to send with a request: `x-amz-date`, `x-amz-content-sha256` and `Authorization`, signed over
    /// `host` (with its port when the URL names one), those two and every header in `headers`.
    public func sign(method: String, url: URL, headers: [String: String] = [:], payloadHash: String, date: Date) -> [String: String] {
        let amzDate = Self.amzDate(date)
        let day = String(amzDate.prefix(8))
        var signed: [String: String] = [:]
        for (name, value) in headers { signed[name.lowercased()] = value.trimmingCharacters(in: .whitespaces) }
        signed["host"] = Self.hostHeader(url)
        signed["x-amz-date"] = amzDate
        signed["x-amz-content-sha256"] = payloadHash
        let names = signed.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(signed[$0]!)\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let canonicalRequest = [method, Self.canonicalURI(url), Self.canonicalQuery(url), canonicalHeaders, signedHeaders, payloadHash]
            .joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secretKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        return [
            "x-amz-date": amzDate,
            "x-amz-content-sha256": payloadHash,
            "Authorization": "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope),SignedHeaders=\(signedHeaders),Signature=\(signature)",
        ]
    }

    static func amzDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    static func hostHeader(_ url: URL) -> String {
        let host = url.host ?? ""
        if let port = url.port { return "\(host):\(port)" }
        return host
    }

    /// The path, each segment URI-encoded once (S3 does not encode twice); "/" for none.
    static func canonicalURI(_ url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        guard !path.isEmpty else { return "/" }
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { encode(String($0).removingPercentEncoding ?? String($0)) }
            .joined(separator: "/")
    }

    /// The query's names and values URI-encoded and sorted by name (then value).
    static func canonicalQuery(_ url: URL) -> String {
        guard let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems else { return "" }
        let pairs: [(name: String, value: String)] = items.map { item in (encode(item.name), encode(item.value ?? "")) }
        let sorted = pairs.sorted { a, b in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { pair in pair.name + "=" + pair.value }.joined(separator: "&")
    }

    /// RFC 3986 percent-encoding: everything but A–Z, a–z, 0–9, "-", ".", "_" and "~".
    static func encode(_ text: String) -> String {
        let hexDigits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
