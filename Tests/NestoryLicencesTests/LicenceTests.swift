import Crypto
import Foundation
import NestoryDomain
import NestoryLicences
import Testing

@Suite("Licence keys: signed payloads verified offline")
struct LicenceTests {
    let vendor = Curve25519.Signing.PrivateKey()
    let household = HouseholdID()
    let instance = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
    let today = try! CalendarDate(iso: "2026-11-25")

    var verifier: LicenceVerifier { LicenceVerifier(trusted: ["test-1": vendor.publicKey.rawRepresentation]) }

    func key(household: HouseholdID? = nil, instance: String? = nil, keyID: String = "test-1", features: [ProFeature] = [],
             expires: String? = nil, signer: Curve25519.Signing.PrivateKey? = nil) throws -> String {
        let payload = LicencePayload(keyID: keyID, licensee: "Ada Smith", household: household, instance: instance, features: features,
                                     issued: try CalendarDate(iso: "2026-01-01"), expires: try expires.map { try CalendarDate(iso: $0) })
        return try LicenceKey.issue(payload, with: signer ?? vendor)
    }

    @Test("a household key verifies, names its licensee, dates and every Pro feature")
    func valid() throws {
        let text = try key(household: household, expires: "2027-12-31")
        #expect(text.hasPrefix("nestory1."))
        let licence = try verifier.check(text, instance: instance, household: household, today: today)
        #expect(licence.licensee == "Ada Smith" && licence.scope == .household(household))
        #expect(licence.issued.iso == "2026-01-01" && licence.expires?.iso == "2027-12-31")
        #expect(licence.features == Set(ProFeature.allCases))
        // Wrapped across lines or with spaces, as pasted from an email.
        let wrapped = stride(from: 0, to: text.count, by: 40).map { String(text.dropFirst($0).prefix(40)) }.joined(separator: "\n  ")
        #expect(try verifier.check(wrapped, instance: instance, household: household, today: today) == licence)
    }

    @Test("changing any byte of the payload or the signature is refused as tampered")
    func tampered() throws {
        let text = try key(household: household)
        let dot = text.lastIndex(of: ".")!
        let payloadPart = text[text.index(text.startIndex, offsetBy: 9)..<dot]
        // The licensee changed: a new payload with the old signature.
        let forged = LicencePayload(keyID: "test-1", licensee: "Mallory", household: household, issued: try CalendarDate(iso: "2026-01-01"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let forgedPart = try encoder.encode(forged).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(throws: LicenceError.badSignature) {
            try verifier.check("nestory1." + forgedPart + String(text[dot...]), instance: instance, household: household, today: today)
        }
        // One character of the signature changed.
        var signature = Array(text[text.index(after: dot)...])
        signature[5] = signature[5] == "A" ? "B" : "A"
        #expect(throws: LicenceError.badSignature) {
            try verifier.check("nestory1." + payloadPart + "." + String(signature), instance: instance, household: household, today: today)
        }
    }

    @Test("a key signed by a key this server does not know, or by another key under a known id, is refused")
    func signingKeys() throws {
        #expect(throws: LicenceError.unknownSigningKey("retired-0")) {
            try verifier.check(try key(household: household, keyID: "retired-0"), instance: instance, household: household, today: today)
        }
        #expect(throws: LicenceError.badSignature) {
            try verifier.check(try key(household: household, signer: Curve25519.Signing.PrivateKey()), instance: instance,
                               household: household, today: today)
        }
        // The built-in keys are not the test's: a test key is unknown to a server that trusts only them.
        #expect(throws: LicenceError.unknownSigningKey("test-1")) {
            try LicenceVerifier().check(try key(household: household), instance: instance, household: household, today: today)
        }
    }

    @Test("expired, another server's and another household's keys are refused with the reason")
    func scope() throws {
        #expect(throws: LicenceError.expired(try CalendarDate(iso: "2026-11-24"))) {
            try verifier.check(try key(household: household, expires: "2026-11-24"), instance: instance, household: household, today: today)
        }
        // The last day is still valid.
        _ = try verifier.check(try key(household: household, expires: "2026-11-25"), instance: instance, household: household, today: today)
        #expect(throws: LicenceError.otherInstance) {
            try verifier.check(try key(instance: "ffff"), instance: instance, household: household, today: today)
        }
        #expect(throws: LicenceError.otherHousehold) {
            try verifier.check(try key(household: HouseholdID()), instance: instance, household: household, today: today)
        }
        let whole = try verifier.check(try key(instance: instance), instance: instance, household: household, today: today)
        #expect(whole.scope == .instance(instance))
        // An expired key can still be read, to say so in Settings.
        #expect(try verifier.summary(try key(household: household, expires: "2020-01-01"), instance: instance, household: household)
            .isExpired(on: today))
    }

    @Test("features: a key may unlock some; unknown names are ignored")
    func features() throws {
        let licence = try verifier.check(try key(household: household, features: [.unlimitedItems, .csvExport]), instance: instance,
                                         household: household, today: today)
        #expect(licence.features == [.unlimitedItems, .csvExport])
    }

    @Test("malformed keys say what is wrong, whatever they contain")
    func malformed() throws {
        for text in ["", "hello", "nestory1.", "nestory1.abc", "nestory1.!!!.###", "nestory1.e30.AAAA", String(repeating: "nestory1.", count: 2000),
                     "nestory1.\u{0}\u{1}.x", "nestory2.abc.def"] {
            #expect(throws: LicenceError.self) { try verifier.check(text, instance: instance, household: household, today: today) }
        }
        // Both a household and a server named, or neither.
        let neither = try key()
        #expect(throws: LicenceError.self) { try verifier.check(neither, instance: instance, household: household, today: today) }
    }

    @Test("an operator's extra public keys are read as ID:BASE64, and refused when they are not keys")
    func publicKeys() throws {
        let parsed = try LicenceKeys.parse("mine:\(vendor.publicKey.rawRepresentation.base64EncodedString()), other:\(Curve25519.Signing.PrivateKey().publicKey.rawRepresentation.base64EncodedString())")
        #expect(parsed.count == 2 && parsed["mine"] == vendor.publicKey.rawRepresentation)
        #expect(throws: LicenceError.self) { try LicenceKeys.parse("mine:notbase64") }
        #expect(throws: LicenceError.self) { try LicenceKeys.parse("nokey") }
        #expect(throws: LicenceError.self) { try LicenceKeys.parse("short:AAAA") }
    }
}
