import Crypto
import Foundation
import Testing
@testable import NestoryAuth

/// The relying party's checks against answers built here as an authenticator builds them: a P-256 key made in the
/// test, authenticator data with its flags and counter, a COSE key and attestation object in CBOR, and a DER
/// signature over authenticator data || SHA-256(client data JSON).
@Suite struct WebAuthnTests {
    static let rpID = "nestory.example"
    static let origin = "https://nestory.example"
    let rp = RelyingParty(id: rpID, origins: [origin])
    let key = P256.Signing.PrivateKey()
    let credentialID: [UInt8] = Array(0..<20)
    let challenge: [UInt8] = (0..<32).map { UInt8($0 * 7 & 0xFF) }

    // MARK: Registration

    @Test func aNewPasskeyRegistersWithAttestationNone() throws {
        let registered = try rp.verifyRegistration(clientDataJSON: clientData("webauthn.create"), attestationObject: attestation(),
                                                   expectedChallenge: challenge)
        #expect(registered.id == credentialID)
        #expect(registered.publicKey == Array(key.publicKey.x963Representation))
        #expect(registered.signCount == 0 && registered.attestationFormat == "none")
    }

    @Test func packedSelfAttestationIsCheckedAndOtherFormatsRefused() throws {
        let authData = authenticatorData(flags: 0x45, credential: true)
        let clientJSON = clientData("webauthn.create")
        let signature = try key.signature(for: Data(authData + Array(SHA256.hash(data: Data(clientJSON))))).derRepresentation
        let packed = attestation(format: "packed", statement: [(.text("alg"), .int(-7)), (.text("sig"), .bytes(Array(signature)))], authData: authData)
        #expect(try rp.verifyRegistration(clientDataJSON: clientJSON, attestationObject: packed, expectedChallenge: challenge).attestationFormat == "packed")
        let forged = attestation(format: "packed", statement: [(.text("alg"), .int(-7)), (.text("sig"), .bytes(Array(signature.reversed())))],
                                 authData: authData)
        #expect(throws: WebAuthnError.badSignature) {
            try rp.verifyRegistration(clientDataJSON: clientJSON, attestationObject: forged, expectedChallenge: challenge)
        }
        let tpm = attestation(format: "tpm", statement: [(.text("ver"), .text("2.0"))], authData: authData)
        #expect(throws: WebAuthnError.unsupportedAttestation("tpm")) {
            try rp.verifyRegistration(clientDataJSON: clientJSON, attestationObject: tpm, expectedChallenge: challenge)
        }
        let noneWithStatement = attestation(format: "none", statement: [(.text("sig"), .bytes([1]))], authData: authData)
        #expect(throws: WebAuthnError.self) {
            try rp.verifyRegistration(clientDataJSON: clientJSON, attestationObject: noneWithStatement, expectedChallenge: challenge)
        }
    }

    @Test func registrationChecksTypeChallengeOriginRPIDAndFlags() {
        #expect(throws: WebAuthnError.wrongType) {
            try rp.verifyRegistration(clientDataJSON: clientData("webauthn.get"), attestationObject: attestation(), expectedChallenge: challenge)
        }
        #expect(throws: WebAuthnError.challengeMismatch) {
            try rp.verifyRegistration(clientDataJSON: clientData("webauthn.create"), attestationObject: attestation(),
                                      expectedChallenge: Array(challenge.reversed()))
        }
        #expect(throws: WebAuthnError.originMismatch("https://evil.example")) {
            try rp.verifyRegistration(clientDataJSON: clientData("webauthn.create", origin: "https://evil.example"),
                                      attestationObject: attestation(), expectedChallenge: challenge)
        }
        #expect(throws: WebAuthnError.rpIDMismatch) {
            try rp.verifyRegistration(clientDataJSON: clientData("webauthn.create"),
                                      attestationObject: attestation(authData: authenticatorData(rpID: "evil.example", credential: true)),
                                      expectedChallenge: challenge)
        }
        #expect(throws: WebAuthnError.userNotVerified) {
            try rp.verifyRegistration(clientDataJSON: clientData("webauthn.create"),
                                      attestationObject: attestation(authData: authenticatorData(flags: 0x41, credential: true)),
                                      expectedChallenge: challenge)
        }
        #expect(throws: WebAuthnError.userNotPresent) {
            try rp.verifyRegistration(clientDataJSON: clientData("webauthn.create"),
                                      attestationObject: attestation(authData: authenticatorData(flags: 0x44, credential: true)),
                                      expectedChallenge: challenge)
        }
    }

    @Test func onlyES256KeysAreTaken() {
        let rs256: CBOR = .map([.init(.int(1), .int(3)), .init(.int(3), .int(-257)), .init(.int(-1), .bytes(Array(repeating: 1, count: 256))),
                                .init(.int(-2), .bytes([1, 0, 1]))])
        #expect(throws: WebAuthnError.unsupportedAlgorithm) {
            try rp.verifyRegistration(clientDataJSON: clientData("webauthn.create"),
                                      attestationObject: attestation(authData: authenticatorData(credential: true, coseKey: rs256)),
                                      expectedChallenge: challenge)
        }
        // x and y that are not a point on the curve.
        let offCurve: CBOR = .map([.init(.int(1), .int(2)), .init(.int(3), .int(-7)), .init(.int(-1), .int(1)),
                                   .init(.int(-2), .bytes(Array(repeating: 1, count: 32))), .init(.int(-3), .bytes(Array(repeating: 2, count: 32)))])
        #expect(throws: WebAuthnError.malformed("a point that is not on P-256")) {
            try rp.verifyRegistration(clientDataJSON: clientData("webauthn.create"),
                                      attestationObject: attestation(authData: authenticatorData(credential: true, coseKey: offCurve)),
                                      expectedChallenge: challenge)
        }
    }

    // MARK: Authentication

    @Test func anAssertionVerifiesAndReturnsTheNewCounter() throws {
        let (authData, clientJSON, signature) = try assertion(signCount: 5)
        let count = try rp.verifyAssertion(clientDataJSON: clientJSON, authenticatorData: authData, signature: signature,
                                           expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 4)
        #expect(count == 5)
        // Synced passkeys always say 0: accepted again and again.
        let (syncedData, syncedJSON, syncedSignature) = try assertion(signCount: 0)
        #expect(try rp.verifyAssertion(clientDataJSON: syncedJSON, authenticatorData: syncedData, signature: syncedSignature,
                                       expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 0) == 0)
    }

    @Test func aCounterThatDoesNotGoUpIsRefused() throws {
        let (authData, clientJSON, signature) = try assertion(signCount: 7)
        for stored: UInt32 in [7, 8] {
            #expect(throws: WebAuthnError.counterRegressed) {
                try rp.verifyAssertion(clientDataJSON: clientJSON, authenticatorData: authData, signature: signature,
                                       expectedChallenge: challenge, publicKey: publicKey, storedSignCount: stored)
            }
        }
        // A stored count above zero and a new one of zero (a cloned key reset): refused too.
        let (zeroData, zeroJSON, zeroSignature) = try assertion(signCount: 0)
        #expect(throws: WebAuthnError.counterRegressed) {
            try rp.verifyAssertion(clientDataJSON: zeroJSON, authenticatorData: zeroData, signature: zeroSignature,
                                   expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 3)
        }
    }

    @Test func assertionsFromTheWrongOriginChallengeOrSiteAreRefused() throws {
        let (authData, _, _) = try assertion(signCount: 1)
        let wrongOrigin = try assertion(signCount: 1, origin: "http://nestory.example")
        #expect(throws: WebAuthnError.originMismatch("http://nestory.example")) {
            try rp.verifyAssertion(clientDataJSON: wrongOrigin.1, authenticatorData: wrongOrigin.0, signature: wrongOrigin.2,
                                   expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 0)
        }
        let (_, clientJSON, signature) = try assertion(signCount: 1)
        #expect(throws: WebAuthnError.challengeMismatch) {
            try rp.verifyAssertion(clientDataJSON: clientJSON, authenticatorData: authData, signature: signature,
                                   expectedChallenge: [UInt8](repeating: 9, count: 32), publicKey: publicKey, storedSignCount: 0)
        }
        let otherSite = try assertion(signCount: 1, rpID: "evil.example")
        #expect(throws: WebAuthnError.rpIDMismatch) {
            try rp.verifyAssertion(clientDataJSON: otherSite.1, authenticatorData: otherSite.0, signature: otherSite.2,
                                   expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 0)
        }
        let registration = try assertion(signCount: 1, type: "webauthn.create")
        #expect(throws: WebAuthnError.wrongType) {
            try rp.verifyAssertion(clientDataJSON: registration.1, authenticatorData: registration.0, signature: registration.2,
                                   expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 0)
        }
        let framed = try assertion(signCount: 1, crossOrigin: true)
        #expect(throws: WebAuthnError.crossOrigin) {
            try rp.verifyAssertion(clientDataJSON: framed.1, authenticatorData: framed.0, signature: framed.2,
                                   expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 0)
        }
    }

    @Test func userPresenceAndVerificationAreRequired() throws {
        let notVerified = try assertion(signCount: 1, flags: 0x01)
        #expect(throws: WebAuthnError.userNotVerified) {
            try rp.verifyAssertion(clientDataJSON: notVerified.1, authenticatorData: notVerified.0, signature: notVerified.2,
                                   expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 0)
        }
        let notPresent = try assertion(signCount: 1, flags: 0x04)
        #expect(throws: WebAuthnError.userNotPresent) {
            try rp.verifyAssertion(clientDataJSON: notPresent.1, authenticatorData: notPresent.0, signature: notPresent.2,
                                   expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 0)
        }
    }

    @Test func aTamperedSignatureOrSignedDataIsRefused() throws {
        let (authData, clientJSON, signature) = try assertion(signCount: 2)
        var flipped = signature
        flipped[flipped.count - 1] ^= 0x01
        #expect(throws: WebAuthnError.badSignature) {
            try rp.verifyAssertion(clientDataJSON: clientJSON, authenticatorData: authData, signature: flipped,
                                   expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 0)
        }
        var raisedCounter = authData
        raisedCounter[36] = 9  // the signature was over a count of 2
        #expect(throws: WebAuthnError.badSignature) {
            try rp.verifyAssertion(clientDataJSON: clientJSON, authenticatorData: raisedCounter, signature: signature,
                                   expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 0)
        }
        let otherKey = P256.Signing.PrivateKey().publicKey.x963Representation
        #expect(throws: WebAuthnError.badSignature) {
            try rp.verifyAssertion(clientDataJSON: clientJSON, authenticatorData: authData, signature: signature,
                                   expectedChallenge: challenge, publicKey: Array(otherKey), storedSignCount: 0)
        }
        #expect(throws: WebAuthnError.badSignature) {
            try rp.verifyAssertion(clientDataJSON: clientJSON, authenticatorData: authData, signature: [0x30, 0x02, 0x01],
                                   expectedChallenge: challenge, publicKey: publicKey, storedSignCount: 0)
        }
    }

    // MARK: CBOR

    @Test func cborDecodesWhatWebAuthnUses() throws {
        let decoded = try CBORDecoder().decode(encode(.map([
            .init(.text("a"), .array([.int(0), .int(23), .int(24), .int(1_000_000), .int(-1), .int(-500), .bool(true), .bool(false), .null])),
            .init(.int(-3), .bytes([1, 2, 3])),
        ])))
        #expect(decoded["a"] == .array([.int(0), .int(23), .int(24), .int(1_000_000), .int(-1), .int(-500), .bool(true), .bool(false), .null]))
        #expect(decoded[-3]?.bytesValue == [1, 2, 3])
        #expect(try CBORDecoder().decode([0x3B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == .int(Int64.min))
    }

    @Test func malformedCBORIsRefused() {
        let decoder = CBORDecoder()
        let hostile: [(String, [UInt8])] = [
            ("empty", []),
            ("trailing bytes", [0x01, 0x02]),
            ("indefinite-length bytes", [0x5F, 0x41, 0x00, 0xFF]),
            ("indefinite-length map", [0xBF, 0x01, 0x02, 0xFF]),
            ("a length past the end", [0x5A, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]),
            ("an array count past the end", [0x9B, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00]),
            ("a map count past the end", [0xBA, 0x7F, 0xFF, 0xFF, 0xFF, 0x01]),
            ("cut short", [0x19, 0x01]),
            ("a tag", [0xC0, 0x61, 0x61]),
            ("a float", [0xFA, 0x00, 0x00, 0x00, 0x00]),
            ("reserved information", [0x1C]),
            ("a lone break", [0xFF]),
            ("text that is not UTF-8", [0x62, 0xC3, 0x28]),
            ("a map with a repeated key", [0xA2, 0x01, 0x00, 0x01, 0x00]),
            ("a map key that is an array", [0xA1, 0x80, 0x00]),
            ("an integer too large", [0x1B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            ("nested too deep", Array(repeating: 0x81, count: 40) + [0x00]),
        ]
        for (label, bytes) in hostile {
            #expect(throws: CBORError.self, "\(label)") { try decoder.decode(bytes) }
        }
        var small = CBORDecoder()
        small.maxItems = 10
        #expect(throws: CBORError.self) { try small.decode([0x8F] + Array(repeating: 0x00, count: 15)) }
        // A malformed attestation object is a clear refusal, never a crash.
        #expect(throws: WebAuthnError.self) {
            try rp.verifyRegistration(clientDataJSON: clientData("webauthn.create"), attestationObject: [0xA3, 0x63, 0x66, 0x6D],
                                      expectedChallenge: challenge)
        }
        // Authenticator data with bytes after the COSE key.
        #expect(throws: WebAuthnError.self) {
            try rp.verifyRegistration(clientDataJSON: clientData("webauthn.create"),
                                      attestationObject: attestation(authData: authenticatorData(credential: true) + [0x00]),
                                      expectedChallenge: challenge)
        }
    }

    // MARK: - Building answers as an authenticator does

    var publicKey: [UInt8] { Array(key.publicKey.x963Representation) }

    var coseKey: CBOR {
        let raw = Array(key.publicKey.rawRepresentation)
        return .map([.init(.int(1), .int(2)), .init(.int(3), .int(-7)), .init(.int(-1), .int(1)),
                     .init(.int(-2), .bytes(Array(raw[0..<32]))), .init(.int(-3), .bytes(Array(raw[32..<64])))])
    }

    func clientData(_ type: String, origin: String = WebAuthnTests.origin, crossOrigin: Bool = false) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)","crossOrigin":\#(crossOrigin)}"#.utf8)
    }

    /// Flags: UP 0x01, UV 0x04, AT 0x40 (set with a credential).
    func authenticatorData(rpID: String = WebAuthnTests.rpID, flags: UInt8 = 0x45, signCount: UInt32 = 0, credential: Bool = false,
                           coseKey: CBOR? = nil) -> [UInt8] {
        var bytes = Array(SHA256.hash(data: Data(rpID.utf8)))
        bytes.append(credential ? flags | 0x40 : flags & ~0x40)
        bytes += withUnsafeBytes(of: signCount.bigEndian) { Array($0) }
        if credential {
            bytes += Array(repeating: 0, count: 16)
            bytes += [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)] + credentialID
            bytes += encode(coseKey ?? self.coseKey)
        }
        return bytes
    }

    func attestation(format: String = "none", statement: [(CBOR, CBOR)] = [], authData: [UInt8]? = nil) -> [UInt8] {
        encode(.map([.init(.text("fmt"), .text(format)), .init(.text("attStmt"), .map(statement.map { .init($0.0, $0.1) })),
                     .init(.text("authData"), .bytes(authData ?? authenticatorData(credential: true)))]))
    }

    /// (authenticator data, client data JSON, signature)
    func assertion(signCount: UInt32, flags: UInt8 = 0x05, origin: String = WebAuthnTests.origin, rpID: String = WebAuthnTests.rpID,
                   type: String = "webauthn.get", crossOrigin: Bool = false) throws -> ([UInt8], [UInt8], [UInt8]) {
        let authData = authenticatorData(rpID: rpID, flags: flags, signCount: signCount)
        let clientJSON = clientData(type, origin: origin, crossOrigin: crossOrigin)
        let signature = try key.signature(for: Data(authData + Array(SHA256.hash(data: Data(clientJSON)))))
        return (authData, clientJSON, Array(signature.derRepresentation))
    }

    /// A CBOR encoder for the test's values (definite lengths, shortest forms).
    func encode(_ value: CBOR) -> [UInt8] {
        func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
            switch argument {
            case 0..<24: return [major << 5 | UInt8(argument)]
            case 24..<256: return [major << 5 | 24, UInt8(argument)]
            case 256..<65_536: return [major << 5 | 25] + withUnsafeBytes(of: UInt16(argument).bigEndian) { Array($0) }
            case 65_536..<4_294_967_296: return [major << 5 | 26] + withUnsafeBytes(of: UInt32(argument).bigEndian) { Array($0) }
            default: return [major << 5 | 27] + withUnsafeBytes(of: argument.bigEndian) { Array($0) }
            }
        }
        switch value {
        case .int(let n): return n >= 0 ? head(0, UInt64(n)) : head(1, UInt64(-1 - n))
        case .bytes(let b): return head(2, UInt64(b.count)) + b
        case .text(let t): return head(3, UInt64(t.utf8.count)) + Array(t.utf8)
        case .array(let items): return head(4, UInt64(items.count)) + items.flatMap(encode)
        case .map(let pairs): return head(5, UInt64(pairs.count)) + pairs.flatMap { encode($0.key) + encode($0.value) }
        case .bool(let b): return [b ? 0xF5 : 0xF4]
        case .null: return [0xF6]
        case .undefined: return [0xF7]
        }
    }
}
