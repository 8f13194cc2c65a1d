import Crypto
import Foundation
import HummingbirdBcrypt
import NestoryDomain

/// bcrypt over a SHA-256 pre-hash. bcrypt alone ignores everything after 72 bytes, so two long
/// passwords sharing a prefix would match; the pre-hash (base64, 44 bytes) removes that cap.
/// Stored as `bcrypt-sha256$<bcrypt hash>`, so the scheme can change later without guessing.
public struct BcryptPasswordHasher: PasswordHasher {
    /// bcrypt's work factor: 12 takes about a quarter of a second on this class of machine.
    public let cost: UInt8

    static let prefix = "bcrypt-sha256$"

    public init(cost: UInt8 = 12) {
        precondition((4...31).contains(cost), "bcrypt cost is 4...31")
        self.cost = cost
    }

    public func hash(_ password: String) throws -> String {
        Self.prefix + Bcrypt.hash(Self.preHash(password), cost: cost)
    }

    public func verify(_ password: String, against stored: String) -> Bool {
        guard stored.hasPrefix(Self.prefix) else { return false }
        return Bcrypt.verify(Self.preHash(password), hash: String(stored.dropFirst(Self.prefix.count)))
    }

    static func preHash(_ password: String) -> String {
        // Unicode normalisation (NFC) so the same password typed on two keyboards matches.
        let normalized = password.precomposedStringWithCanonicalMapping
        return Data(SHA256.hash(data: Data(normalized.utf8))).base64EncodedString()
    }
}
