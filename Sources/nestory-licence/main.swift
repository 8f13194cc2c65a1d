import ArgumentParser
import Crypto
import Foundation
import NestoryDomain
import NestoryLicences

/// The vendor's tool (not part of the server): makes a signing key pair and issues licence keys with it.
/// A signing key file is two lines: the key id, then the Ed25519 private key (32 bytes, base64). Keep it secret.
@main
struct LicenceTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nestory-licence", abstract: "Issue Nestory Pro licence keys (the vendor's tool; the server only verifies).",
        subcommands: [Keygen.self, Issue.self])

    struct Keygen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a signing key; prints its public half for the server (LicenceKeys.builtIn or licence.publicKeys).")

        @Option(help: "The key id written into every licence it signs.") var id: String
        @Option(help: "Where to write the private key (created with owner-only permissions; never overwritten).") var out: String

        func run() throws {
            guard !FileManager.default.fileExists(atPath: out) else { throw ValidationError("\(out) exists already; it is never overwritten.") }
            let key = Curve25519.Signing.PrivateKey()
            guard FileManager.default.createFile(atPath: out, contents: Data("\(id)\n\(key.rawRepresentation.base64EncodedString())\n".utf8),
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw ValidationError("Could not write \(out).")
            }
            print("\(id):\(key.publicKey.rawRepresentation.base64EncodedString())")
        }
    }

    struct Issue: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Issue a Pro licence key for a household or a whole server; prints it.")

        @Option(help: "The signing key file (from keygen).") var key: String
        @Option(help: "Who the licence is issued to.") var licensee: String
        @Option(help: "The household's id (Settings → Account & Pro shows it).") var household: String?
        @Option(help: "The server's id (`nestory licence show` prints it).") var instance: String?
        @Option(help: "The first day it is valid, YYYY-MM-DD (default today, UTC).") var issued: String?
        @Option(help: "The last day it is valid, YYYY-MM-DD (default: it does not expire).") var expires: String?
        @Option(name: .customLong("feature"), help: "A feature it unlocks (repeat; default all): \(ProFeature.allCases.map(\.rawValue).joined(separator: ", ")).")
        var features: [String] = []

        func run() throws {
            let lines = try String(contentsOfFile: key, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
            guard lines.count >= 2, let raw = Data(base64Encoded: lines[1]), let signing = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
                throw ValidationError("\(key) is not a signing key file (a key id line, then the private key in base64).")
            }
            guard (household == nil) != (instance == nil) else { throw ValidationError("Give --household or --instance (one of them).") }
            let householdID = try household.map { text in
                guard let id = HouseholdID(string: text) else { throw ValidationError("--household takes a household id.") }
                return id
            }
            let chosen = try features.map { name in
                guard let feature = ProFeature(rawValue: name) else { throw ValidationError("Unknown feature \(name).") }
                return feature
            }
            func day(_ text: String?, _ option: String) throws -> CalendarDate? {
                guard let text else { return nil }
                do { return try CalendarDate(iso: text) } catch { throw ValidationError("--\(option) takes a date as YYYY-MM-DD.") }
            }
            let payload = LicencePayload(keyID: lines[0], licensee: licensee, household: householdID, instance: instance, features: chosen,
                                         issued: try day(issued, "issued") ?? CalendarDate(Date(), in: TimeZone(identifier: "UTC")!),
                                         expires: try day(expires, "expires"))
            print(try LicenceKey.issue(payload, with: signing))
        }
    }
}
