import Crypto
import Foundation

/// Random bearer tokens for sessions and CSRF, and the hash under which a session is stored.
public enum SessionToken {
    /// 32 random bytes from the system's cryptographic generator, base64url without padding.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// SHA-256 hex: what the database keeps, so a stolen database copy holds no usable tokens.
    public static func hash(_ token: String) -> String {
        let digest = SHA256.hash(data: Array(token.utf8))
        var hex = [UInt8]()
        hex.reserveCapacity(SHA256.byteCount * 2)
        for byte in digest {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Compares two secrets in time that does not depend on where they first differ.
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
