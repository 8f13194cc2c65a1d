import Crypto
import Foundation

/// Why a passkey's answer was refused. `message` is safe to show.
public enum WebAuthnError: Error, Equatable, Sendable {
    case malformed(String)
    case wrongType
    case challengeMismatch
    case originMismatch(String)
    case crossOrigin
    case rpIDMismatch
    case userNotPresent
    case userNotVerified
    case unsupportedAlgorithm
    case unsupportedAttestation(String)
    case badSignature
    case counterRegressed

    public var message: String {
        switch self {
        case .malformed(let detail): "The passkey’s answer could not be read (\(detail))."
        case .wrongType: "The passkey’s answer was for another kind of request."
        case .challengeMismatch: "The passkey answered an old or unknown request. Try again."
        case .originMismatch(let origin): "The passkey was used from \(origin), not from this server’s address."
        case .crossOrigin: "The passkey was used from inside another site."
        case .rpIDMismatch: "The passkey belongs to another site."
        case .userNotPresent: "The passkey did not confirm that someone was there."
        case .userNotVerified: "The passkey did not verify you (fingerprint, face or PIN). Nestory asks for that."
        case .unsupportedAlgorithm: "This passkey uses a kind of key Nestory does not take (it takes ES256, which every passkey offers)."
        case .unsupportedAttestation(let format):
            "This security key sent an attestation Nestory does not check (\(format)); Nestory asks for none."
        case .badSignature: "The passkey’s signature does not match."
        case .counterRegressed: "This passkey’s counter went backwards: it may have been copied. Remove it and register it again."
        }
    }
}

/// Base64url without padding (RFC 4648 §5), as WebAuthn's JSON uses it.
public enum Base64URL {
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}

/// Authenticator data (WebAuthn §6.1): the RP ID's hash, flags, the signature counter, and on registration the
/// new credential (its id and COSE public key).
public struct AuthenticatorData: Sendable {
    public let rpIDHash: [UInt8]
    public let flags: UInt8
    public let signCount: UInt32
    public let credential: (id: [UInt8], publicKey: CBOR)?

    public var userPresent: Bool { flags & 0x01 != 0 }
    public var userVerified: Bool { flags & 0x04 != 0 }
    /// Backup eligible and backed up: a synced passkey.
    public var backupEligible: Bool { flags & 0x08 != 0 }
    public var backedUp: Bool { flags & 0x10 != 0 }

    public init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw .malformed("authenticator data shorter than 37 bytes") }
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var position = 37
        let decoder = CBORDecoder()
        if flags & 0x40 != 0 {  // AT: attested credential data follows
            guard bytes.count >= position + 18 else { throw .malformed("attested credential data cut short") }
            position += 16  // AAGUID
            let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
            position += 2
            guard length >= 1, length <= 1023, bytes.count >= position + length else { throw .malformed("a credential id of a bad length") }
            let id = Array(bytes[position..<position + length])
            position += length
            do {
                let (key, end) = try decoder.decodePrefix(bytes, from: position)
                credential = (id, key)
                position = end
            } catch { throw .malformed("credential public key: \(error.description)") }
        } else {
            credential = nil
        }
        if flags & 0x80 != 0 {  // ED: an extensions map follows
            let extensions: CBOR
            do { (extensions, position) = try decoder.decodePrefix(bytes, from: position) } catch {
                throw .malformed("extensions: \(error.description)")
            }
            guard extensions.mapValue != nil else { throw .malformed("extensions that are not a map") }
        }
        guard position == bytes.count else { throw .malformed("\(bytes.count - position) bytes after the authenticator data") }
    }
}

/// An ES256 public key from its COSE form (RFC 9053: kty 2 EC2, alg -7, crv 1 P-256, x and y of 32 bytes).
public enum COSEKey {
    public static func es256(_ key: CBOR) throws(WebAuthnError) -> P256.Signing.PublicKey {
        guard key.mapValue != nil else { throw .malformed("a public key that is not a COSE map") }
        guard key[1]?.intValue == 2, key[3]?.intValue == -7, key[-1]?.intValue == 1 else { throw .unsupportedAlgorithm }
        guard let x = key[-2]?.bytesValue, let y = key[-3]?.bytesValue, x.count == 32, y.count == 32 else {
            throw .malformed("a P-256 key without 32-byte x and y")
        }
        do { return try P256.Signing.PublicKey(x963Representation: [0x04] + x + y) } catch { throw .malformed("a point that is not on P-256") }
    }
}

/// A passkey as registered: what to store.
public struct RegisteredCredential: Sendable, Equatable {
    public let id: [UInt8]
    /// The public key, uncompressed (X9.63: 0x04 || x || y).
    public let publicKey: [UInt8]
    public let signCount: UInt32
    /// The attestation format that came ("none", or "packed" self-attestation).
    public let attestationFormat: String
    public let backupEligible: Bool
}

/// The relying party's checks (WebAuthn Level 2, §7.1 registration and §7.2 authentication), for ES256 passkeys.
/// The caller issues the challenges (random, single-use, short-lived) and keeps the credentials.
///
/// Attestation: Nestory asks for none. Accepted are fmt "none" (an empty statement) and "packed" self-attestation
/// (no certificate; its signature is checked with the new credential's own key). Any other format (a certificate
/// chain from the maker) is refused, since Nestory does not check makers' certificates: such a key registers
/// once the browser is asked, as Nestory asks, for no attestation.
public struct RelyingParty: Sendable {
    /// The RP ID: the host the app is reached at (or the operator's setting).
    public let id: String
    /// The origins the browser may report (`https://host[:port]`).
    public let origins: Set<String>

    public init(id: String, origins: Set<String>) {
        self.id = id
        self.origins = origins
    }

    /// Checks a new credential (`navigator.credentials.create`'s answer). User verification is required.
    public func verifyRegistration(clientDataJSON: [UInt8], attestationObject: [UInt8], expectedChallenge: [UInt8],
                                   requireUserVerification: Bool = true) throws(WebAuthnError) -> RegisteredCredential {
        try checkClientData(clientDataJSON, type: "webauthn.create", challenge: expectedChallenge)
        let object: CBOR
        do { object = try CBORDecoder().decode(attestationObject) } catch { throw .malformed("attestation object: \(error.description)") }
        guard let format = object["fmt"]?.textValue, let statement = object["attStmt"], let statementPairs = statement.mapValue,
              let authDataBytes = object["authData"]?.bytesValue else {
            throw .malformed("an attestation object without fmt, attStmt and authData")
        }
        let authData = try AuthenticatorData(authDataBytes)
        try checkAuthenticatorData(authData, requireUserVerification: requireUserVerification)
        guard let credential = authData.credential else { throw .malformed("no credential in the authenticator data") }
        let key = try COSEKey.es256(credential.publicKey)
        switch format {
        case "none":
            guard statementPairs.isEmpty else { throw .malformed("an attestation statement with fmt none") }
        case "packed" where statement["x5c"] == nil:
            // Self-attestation: signed with the credential's own key over authData || SHA-256(clientDataJSON).
            guard statement["alg"]?.intValue == -7, let signature = statement["sig"]?.bytesValue else { throw .unsupportedAlgorithm }
            try Self.verify(signature, by: key, over: authDataBytes, clientDataJSON: clientDataJSON)
        default:
            throw .unsupportedAttestation(format)
        }
        return RegisteredCredential(id: credential.id, publicKey: Array(key.x963Representation), signCount: authData.signCount,
                                    attestationFormat: format, backupEligible: authData.backupEligible)
    }

    /// Checks an assertion (`navigator.credentials.get`'s answer) for a stored credential; returns the new
    /// signature counter to store. Counters: synced passkeys always say 0; otherwise the new count must be
    /// higher than the stored one (a lower or equal one suggests a cloned authenticator).
    public func verifyAssertion(clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], expectedChallenge: [UInt8],
                                publicKey: [UInt8], storedSignCount: UInt32,
                                requireUserVerification: Bool = true) throws(WebAuthnError) -> UInt32 {
        try checkClientData(clientDataJSON, type: "webauthn.get", challenge: expectedChallenge)
        let authData = try AuthenticatorData(authenticatorData)
        try checkAuthenticatorData(authData, requireUserVerification: requireUserVerification)
        let key: P256.Signing.PublicKey
        do { key = try P256.Signing.PublicKey(x963Representation: publicKey) } catch { throw .malformed("the stored key") }
        try Self.verify(signature, by: key, over: authenticatorData, clientDataJSON: clientDataJSON)
        if (storedSignCount > 0 || authData.signCount > 0), authData.signCount <= storedSignCount { throw .counterRegressed }
        return authData.signCount
    }

    /// The challenge a client data JSON answers (to find the issued challenge by), or nil when it is not one.
    public static func challenge(in clientDataJSON: [UInt8]) -> [UInt8]? {
        (try? JSONDecoder().decode(ClientData.self, from: Data(clientDataJSON))).flatMap { Base64URL.decode($0.challenge) }
    }

    struct ClientData: Decodable {
        let type: String
        let challenge: String
        let origin: String
        let crossOrigin: Bool?
    }

    private func checkClientData(_ json: [UInt8], type: String, challenge: [UInt8]) throws(WebAuthnError) {
        guard json.count <= 8192, let data = try? JSONDecoder().decode(ClientData.self, from: Data(json)) else {
            throw .malformed("client data that is not the expected JSON")
        }
        guard data.type == type else { throw .wrongType }
        guard let presented = Base64URL.decode(data.challenge), !challenge.isEmpty, presented == challenge else { throw .challengeMismatch }
        guard origins.contains(data.origin) else { throw .originMismatch(data.origin) }
        guard data.crossOrigin != true else { throw .crossOrigin }
    }

    private func checkAuthenticatorData(_ authData: AuthenticatorData, requireUserVerification: Bool) throws(WebAuthnError) {
        guard authData.rpIDHash == Array(SHA256.hash(data: Data(id.utf8))) else { throw .rpIDMismatch }
        guard authData.userPresent else { throw .userNotPresent }
        if requireUserVerification, !authData.userVerified { throw .userNotVerified }
    }

    /// A DER ECDSA signature over authenticator data || SHA-256(client data JSON).
    private static func verify(_ signature: [UInt8], by key: P256.Signing.PublicKey, over authData: [UInt8],
                               clientDataJSON: [UInt8]) throws(WebAuthnError) {
        guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { throw .badSignature }
        let signed = authData + Array(SHA256.hash(data: Data(clientDataJSON)))
        guard key.isValidSignature(parsed, for: Data(signed)) else { throw .badSignature }
    }
}
