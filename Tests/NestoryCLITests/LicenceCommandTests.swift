import Foundation
import NestoryChildProcess
import Testing

/// `nestory licence` and the vendor's `nestory-licence` tool, end to end: a key made with a fresh signing key,
/// trusted through licence.publicKeys, installed at the command line, lifting Free's limit on `import csv`.
@Suite("licence: Free at the command line, keys issued and installed")
struct LicenceCommandTests {
    static let tool = CLI.binary.deletingLastPathComponent().appendingPathComponent("nestory-licence")

    static func tool(_ arguments: [String]) throws -> CLI.Result {
        let finished = try ChildProcess.run(tool.path, arguments)
        return CLI.Result(status: finished.exitCode, stdout: finished.outputText, stderr: finished.errorText)
    }

    @Test("Free refuses an import past 100 items; a key issued for this server lifts it; a changed key is refused")
    func freeThenPro() throws {
        let folder = CLI.Folder()
        let free = ["NESTORY_LICENCE_INSTANCE_PRO": "false"]
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "99", "--seed", "5"]).status == 0)
        let csv = folder.path + ".csv"
        let keyFile = folder.path + ".key"
        defer { for file in [csv, keyFile] { try? FileManager.default.removeItem(atPath: file) } }
        try "Name,Price\nSofa,899.00\nLamp,45.00\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let refused = try CLI.run(["import", "csv", "--data", folder.path, csv], environment: free)
        #expect(refused.status != 0 && refused.stderr.contains("Nestory Free keeps up to 100"), "\(refused.stderr)")

        let show = try CLI.run(["licence", "show", "--data", folder.path], environment: free)
        let instance = try #require(show.stdout.split(separator: "\n").first?.split(separator: ": ").last.map(String.init))
        #expect(show.status == 0 && instance.count == 32 && show.stdout.contains("Free (99 of 100 items)"), "\(show.stdout)")

        let keygen = try Self.tool(["keygen", "--id", "self-1", "--out", keyFile])
        #expect(keygen.status == 0, "\(keygen.stderr)")
        let publicKey = keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let issued = try Self.tool(["issue", "--key", keyFile, "--licensee", "Self-hoster", "--instance", instance])
        #expect(issued.status == 0, "\(issued.stderr)")
        let key = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var trusted = free
        trusted["NESTORY_LICENCE_PUBLIC_KEYS"] = publicKey

        // Not trusted by the built-in keys alone; a changed character is refused; then installed.
        let unknown = try CLI.run(["licence", "install", "--data", folder.path, key], environment: free)
        #expect(unknown.status != 0 && unknown.stderr.contains("does not know"), "\(unknown.stderr)")
        var changed = Array(key)
        changed[20] = changed[20] == "A" ? "B" : "A"
        let tampered = try CLI.run(["licence", "install", "--data", folder.path, String(changed)], environment: trusted)
        #expect(tampered.status != 0 && (tampered.stderr.contains("signature") || tampered.stderr.contains("not a valid")), "\(tampered.stderr)")
        let installed = try CLI.run(["licence", "install", "--data", folder.path, "-"], stdin: key + "\n", environment: trusted)
        #expect(installed.status == 0 && installed.stdout.contains("every household on this server"), "\(installed.stderr)")

        let imported = try CLI.run(["import", "csv", "--data", folder.path, csv], environment: trusted)
        #expect(imported.status == 0, "\(imported.stderr)")
        let after = try CLI.run(["licence", "show", "--data", folder.path], environment: trusted)
        #expect(after.stdout.contains("Pro, licensed to Self-hoster") && after.stdout.contains("101 items"), "\(after.stdout)")
        // Without the trusted key the same server is Free again, and says why the key does not apply; nothing is lost.
        let untrusted = try CLI.run(["licence", "show", "--data", folder.path], environment: free)
        #expect(untrusted.stdout.contains("Free (101 of 100 items)") && untrusted.stdout.contains("not in force"), "\(untrusted.stdout)")
    }
}
