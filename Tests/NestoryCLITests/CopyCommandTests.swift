import Foundation
import Testing

/// `nestory copy`: a SQLite data folder's households onto PostgreSQL (the test cluster of scripts/with-postgres.sh,
/// in a schema of the test's own), verified, and resumable.
@Suite("copy to PostgreSQL")
struct CopyCommandTests {
    static let postgresURL = ProcessInfo.processInfo.environment["NESTORY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let postgresRequired = ProcessInfo.processInfo.environment["NESTORY_REQUIRE_POSTGRES"] == "1"

    @Test("every household is copied and verified; a second run verifies and skips them; a change is copied again",
          .enabled(if: postgresURL != nil || postgresRequired))
    func copyResumeAndChange() throws {
        let url = try #require(Self.postgresURL, "run through scripts/with-postgres.sh")
        let folder = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "40", "--seed", "5", "--name", "Home"]).status == 0)
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "25", "--seed", "6", "--name", "Cottage",
                             "--owner", "cottage@example.com"]).status == 0)
        let schema = "t_" + String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20))
        let copy = ["copy", "--from", "sqlite:\(folder.path)", "--to", url, "--to-schema", schema]

        let first = try CLI.run(copy)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Home: copied, verified: 40 items"), "\(first.stdout)")
        #expect(first.stdout.contains("Cottage: copied, verified: 25 items"), "\(first.stdout)")
        #expect(first.stdout.contains("2 households: 2 copied, 0 copied again, 0 already there."), "\(first.stdout)")

        // Run again (as after an interruption): both are there and the same, so nothing is written.
        let second = try CLI.run(copy)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("Home: already copied, verified."), "\(second.stdout)")
        #expect(second.stdout.contains("2 households: 0 copied, 0 copied again, 2 already there."), "\(second.stdout)")

        // The source moves on: that household is copied again (and verified), the other is left.
        let csv = folder.path + ".csv"
        defer { try? FileManager.default.removeItem(atPath: csv) }
        try "Name,Price,Room\nNew sofa,899.00,Den\n".write(toFile: csv, atomically: true, encoding: .utf8)
        #expect(try CLI.run(["import", "csv", "--data", folder.path, "--household", "Cottage", csv]).status == 0)
        let third = try CLI.run(copy)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.contains("Cottage: copied again (it had changed), verified: 26 items"), "\(third.stdout)")
        #expect(third.stdout.contains("2 households: 0 copied, 1 copied again, 1 already there."), "\(third.stdout)")

        // The SQLite side is untouched by the copy: its own backup still has every file.
        let archive = folder.path + ".zip"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        #expect(try CLI.run(["backup", "--data", folder.path, "--household", "Home", archive]).status == 0)
    }

    @Test("a source that is not sqlite:PATH, or a folder without a database, is refused")
    func refusals() throws {
        let folder = CLI.Folder()
        let bad = try CLI.run(["copy", "--from", folder.path, "--to", "postgres://u:p@127.0.0.1:1/db"])
        #expect(bad.status != 0 && bad.stderr.contains("--from is sqlite:PATH"), "\(bad.stderr)")
        let empty = try CLI.run(["copy", "--from", "sqlite:\(folder.path)", "--to", "postgres://u:p@127.0.0.1:1/db"])
        #expect(empty.status != 0 && empty.stderr.contains("There is no Nestory database"), "\(empty.stderr)")
    }
}
