import Crypto
import Foundation
import NestoryDomain

/// What a licence key says: who it is for, what it unlocks, from when until when. Signed by the vendor; the
/// server only verifies (offline, with the public keys it was built with or that its operator trusts).
public struct LicencePayload: Codable, Hashable, Sendable {
    /// The format's version (1).
    public var version: Int
    /// Which signing key signed it (`LicenceKeys`).
    public var keyID: String
    public var licensee: String
    /// The household it is for (its id), or nil for an instance licence.
    public var household: String?
    /// The server it is for (`nestory licence show` prints its id), or nil for a household licence.
    public var instance: String?
    /// "pro" (the only tier so far).
    public var tier: String
    /// Feature names (`ProFeature`); empty means every Pro feature. Names this version does not know are ignored.
    public var features: [String]
    /// `YYYY-MM-DD`.
    public var issued: String
    /// `YYYY-MM-DD`, the last day it is valid; nil for a licence that does not expire.
    public var expires: String?

    public init(keyID: String, licensee: String, household: HouseholdID? = nil, instance: String? = nil, tier: String = "pro",
                features: [ProFeature] = [], issued: CalendarDate, expires: CalendarDate? = nil) {
        version = 1
        self.keyID = keyID
        self.licensee = licensee
        self.household = household?.description
        self.instance = instance
        self.tier = tier
        self.features = features.map(\.rawValue)
        self.issued = issued.iso
        self.expires = expires?.iso
    }

    enum CodingKeys: String, CodingKey {
        case version = "v", keyID = "kid", licensee, household, instance, tier, features, issued, expires
    }
}

/// Why a licence key was refused, in words for the person who pasted it.
public enum LicenceError: Error, Hashable, Sendable, CustomStringConvertible {
    case malformed(String)
    case unknownSigningKey(String)
    case badSignature
    case unsupported(String)
    case expired(CalendarDate)
    case otherInstance
    case otherHousehold

    public var description: String {
        switch self {
        case .malformed(let why): return "This is not a valid Nestory licence key: \(why)"
        case .unknownSigningKey(let id):
            return "This licence key was signed with a key this server does not know (key id “\(id)”). Check it was copied whole, or update Nestory."
        case .badSignature: return "This licence key’s signature does not match what it says: it was changed or mistyped. Paste it again exactly as issued."
        case .unsupported(let what): return "This licence key is for \(what), which this version of Nestory does not support."
        case .expired(let day): return "This licence expired on \(day.iso). Nothing was deleted; Nestory Free’s limits apply again."
        case .otherInstance: return "This licence is for another Nestory server. `nestory licence show` prints this server’s id to have one issued for it."
        case .otherHousehold: return "This licence is for another household. A household licence works only for the household it names."
        }
    }
}

/// The text form of a licence key: `nestory1.<payload>.<signature>`, both parts base64url without padding; the
/// Ed25519 signature is over the bytes `nestory1.<payload>`, so neither the format tag nor the payload can change.
public enum LicenceKey {
    public static let prefix = "nestory1."

    /// Signs a payload (the vendor's issuing tool and the tests; the server never holds a private key).
    public static func issue(_ payload: LicencePayload, with key: Curve25519.Signing.PrivateKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let signed = prefix + Base64URL.encode(try encoder.encode(payload))
        let signature = try key.signature(for: Data(signed.utf8))
        return signed + "." + Base64URL.encode(signature)
    }

    /// Reads a key and checks its signature against the trusted keys; says nothing yet about dates or scope.
    public static func open(_ text: String, trusted: [String: Data]) throws(LicenceError) -> LicencePayload {
        // Pasted keys may be wrapped across lines or carry spaces.
        let compact = String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
        guard compact.count <= 8192 else { throw .malformed("it is far too long.") }
        guard compact.hasPrefix(prefix) else { throw .malformed("a key starts with “\(prefix)”.") }
        let parts = compact.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let body = Base64URL.decode(parts[0]), let signature = Base64URL.decode(parts[1]) else {
            throw .malformed("it should have two parts after “\(prefix)”, separated by a dot.")
        }
        let payload: LicencePayload
        do { payload = try JSONDecoder().decode(LicencePayload.self, from: body) } catch {
            throw .malformed("its contents cannot be read.")
        }
        guard let raw = trusted[payload.keyID], let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
            throw .unknownSigningKey(payload.keyID)
        }
        guard key.isValidSignature(signature, for: Data((prefix + parts[0]).utf8)) else { throw .badSignature }
        guard payload.version == 1 else { throw .unsupported("format version \(payload.version)") }
        guard payload.tier == "pro" else { throw .unsupported("the “\(payload.tier)” tier") }
        guard (payload.household == nil) != (payload.instance == nil) else {
            throw .malformed("it must name either a household or a server.")
        }
        return payload
    }
}

/// Verifies licence keys for this server: signature, scope (this instance, or the household asked about) and
/// dates. One per process, built by the bootstrap with the built-in keys and any the operator adds.
public struct LicenceVerifier: Sendable {
    /// Raw Ed25519 public keys (32 bytes) by key id.
    public let trusted: [String: Data]

    public init(trusted: [String: Data] = LicenceKeys.builtIn) {
        self.trusted = trusted
    }

    /// The licence as the settings show it, if the key is genuine and for this server or this household (dates
    /// are not checked here: an expired licence is still shown, as expired).
    public func summary(_ text: String, instance: String, household: HouseholdID?) throws(LicenceError) -> LicenceSummary {
        let payload = try LicenceKey.open(text, trusted: trusted)
        let scope: LicenceSummary.Scope
        if let id = payload.household {
            guard let householdID = HouseholdID(string: id) else { throw .malformed("the household it names is not an id.") }
            if let household, household != householdID { throw .otherHousehold }
            scope = .household(householdID)
        } else {
            guard payload.instance == instance else { throw .otherInstance }
            scope = .instance(instance)
        }
        guard let issued = try? CalendarDate(iso: payload.issued) else { throw .malformed("its issue date is not a date.") }
        var expires: CalendarDate?
        if let text = payload.expires {
            guard let day = try? CalendarDate(iso: text) else { throw .malformed("its expiry date is not a date.") }
            expires = day
        }
        let named = Set(payload.features.compactMap(ProFeature.init(rawValue:)))
        return LicenceSummary(keyID: payload.keyID, licensee: payload.licensee, scope: scope, issued: issued, expires: expires,
                              features: payload.features.isEmpty ? Set(ProFeature.allCases) : named)
    }

    /// A key to install: genuine, for here, and not expired on `today`.
    public func check(_ text: String, instance: String, household: HouseholdID?, today: CalendarDate) throws(LicenceError) -> LicenceSummary {
        let summary = try summary(text, instance: instance, household: household)
        if let expires = summary.expires, expires < today { throw .expired(expires) }
        return summary
    }
}

/// The public halves of the vendor's signing keys, built into the binary by key id. A new key is added here
/// (never replaced), so licences signed by an older key keep working.
public enum LicenceKeys {
    public static let builtIn: [String: Data] = [
        "nestory-2026-a": Data(base64Encoded: "ZKVuLH0K/IQ3ua74vW3ys4VCvv9FBNwo950hYoPn0Hk=")!,
    ]

    /// Parses an operator's extra trusted keys, `ID:BASE64` separated by commas (`licence.publicKeys`).
    public static func parse(_ text: String) throws(LicenceError) -> [String: Data] {
        var keys: [String: Data] = [:]
        for entry in text.split(separator: ",") {
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, let raw = Data(base64Encoded: parts[1]),
                  (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil else {
                throw .malformed("a public key is written ID:BASE64 (32 bytes), e.g. mykey:\(String(repeating: "A", count: 43))=.")
            }
            keys[parts[0]] = raw
        }
        return keys
    }
}

/// base64url without padding (RFC 4648 §5).
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: some StringProtocol) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
