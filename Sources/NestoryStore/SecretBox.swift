import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Seals secrets kept in the database (providers' API keys) with AES-GCM under a 256-bit key that lives apart from
/// the database: in the data folder's `secrets.key` (created with owner-only permissions on first use), or given by
/// the operator. Each secret is bound to where it belongs (household and field) as authenticated data, so a sealed
/// key copied to another row does not open. A database or backup alone never reveals a key.
public struct SecretBox: Sendable {
    /// The key's 32 bytes (SymmetricKey is not Sendable here).
    let keyData: Data
    var key: SymmetricKey { SymmetricKey(data: keyData) }

    public enum Failure: Error, CustomStringConvertible {
        case unreadableKeyFile(String)
        case unreadableKey
        case cannotOpen
        public var description: String {
            switch self {
            case .unreadableKeyFile(let path): return "The secrets key \(path) is not a 32-byte key: restore it from where it was kept, or remove it and enter the providers' keys again."
            case .unreadableKey: return "The secrets key given in the settings is not the base64 of 32 bytes (make one with: head -c 32 /dev/urandom | base64)."
            case .cannotOpen: return "A stored key could not be decrypted (was secrets.key replaced?). Enter it again in Settings."
            }
        }
    }

    public init(key: SymmetricKey) { keyData = key.withUnsafeBytes { Data($0) } }

    /// The data folder's key, made on first use (0600); a damaged file is an error, never silently replaced.
    public static func forFolder(_ folder: DataFolder) throws -> SecretBox {
        let path = folder.secretsKeyURL.path
        if let data = FileManager.default.contents(atPath: path) {
            guard data.count == 32 else { throw Failure.unreadableKeyFile(path) }
            return SecretBox(key: SymmetricKey(data: data))
        }
        let key = SymmetricKey(size: .bits256)
        let bytes = key.withUnsafeBytes { Data($0) }
        // Created exclusively with owner-only permissions: two processes starting at once keep the first one's key.
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if descriptor < 0 {
            guard errno == EEXIST, let data = FileManager.default.contents(atPath: path), data.count == 32 else { throw Failure.unreadableKeyFile(path) }
            return SecretBox(key: SymmetricKey(data: data))
        }
        defer { Glibc.close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, 32) }
        guard written == 32, fsync(descriptor) == 0 else { throw Failure.unreadableKeyFile(path) }
        return SecretBox(key: key)
    }

    /// A key the operator gives as the base64 of 32 bytes (several servers on one database must seal with one key).
    public init(base64Key text: String) throws {
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == 32 else {
            throw Failure.unreadableKey
        }
        keyData = data
    }

    /// `v1:` and the base64 of nonce, ciphertext and tag.
    public func seal(_ secret: String, context: String) throws -> String {
        let box = try AES.GCM.seal(Data(secret.utf8), using: key, authenticating: Data(context.utf8))
        return "v1:" + box.combined!.base64EncodedString()
    }

    public func open(_ sealed: String, context: String) throws -> String {
        guard sealed.hasPrefix("v1:"), let data = Data(base64Encoded: String(sealed.dropFirst(3))),
              let box = try? AES.GCM.SealedBox(combined: data),
              let plain = try? AES.GCM.open(box, using: key, authenticating: Data(context.utf8)) else { throw Failure.cannotOpen }
        return String(decoding: plain, as: UTF8.self)
    }
}

/// Where the secret box's key comes from, read when a secret is first sealed or opened: the data folder's
/// `secrets.key` (made on first use; the default with SQLite in the data folder), or a key given by the operator
/// (several servers on one PostgreSQL database share it). Services are given one; none reads a folder of its own.
public struct SecretKeys: Sendable {
    private let make: @Sendable () throws -> SecretBox

    public init(_ make: @escaping @Sendable () throws -> SecretBox) { self.make = make }

    /// The data folder's `secrets.key`, made on first use.
    public static func folder(_ folder: DataFolder) -> SecretKeys { SecretKeys { try SecretBox.forFolder(folder) } }

    /// A key given whole.
    public static func key(_ box: SecretBox) -> SecretKeys { SecretKeys { box } }

    public func box() throws -> SecretBox { try make() }
}
