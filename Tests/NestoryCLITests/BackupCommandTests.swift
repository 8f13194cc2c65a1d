import Foundation
import NestoryChildProcess
import Testing

@Suite("backup, restore and import csv")
struct BackupCommandTests {
    @Test("backup then restore into a fresh folder; the same figures come back")
    func roundTrip() throws {
        let source = CLI.Folder(), target = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", source.path, "--items", "120", "--seed", "3"]).status == 0)
        let archive = source.path + ".zip"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        let backup = try CLI.run(["backup", "--data", source.path, archive])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("120 items"))
        let check = try CLI.run(["restore", "--data", target.path, "--check", archive])
        #expect(check.status == 0 && check.stdout.contains("The archive is sound"), "\(check.stderr)")
        let restore = try CLI.run(["restore", "--data", target.path, archive])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.contains("120 added"))
        let before = try CLI.run(["stats", "--data", source.path, "--json"]).stdout
        let after = try CLI.run(["stats", "--data", target.path, "--json"]).stdout
        #expect(!before.isEmpty && before == after)
        // Again, without saying how: refused, and it says what to choose.
        let again = try CLI.run(["restore", "--data", target.path, archive])
        #expect(again.status != 0 && again.stderr.contains("--mode replace"))
    }

    @Test("backup --all writes every household into a folder and --keep deletes only each one's oldest archives there")
    func everyHouseholdIntoAFolder() throws {
        let data = CLI.Folder(), backups = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", data.path, "--items", "30", "--seed", "5", "--name", "Home"]).status == 0)
        #expect(try CLI.run(["user", "add", "bo@example.com", "--household", "Cottage", "--data", data.path], stdin: "correct horse battery\n").status == 0)
        // What else is in the folder stays: a note, an archive of a household no longer here, and one of ours named otherwise.
        try FileManager.default.createDirectory(atPath: backups.path, withIntermediateDirectories: true)
        let gone = "nestory-00000000-0000-0000-0000-000000000001-20200101T000000Z.zip"
        for name in ["README.txt", gone, "home-copy.zip"] { try Data("x".utf8).write(to: URL(fileURLWithPath: backups.path + "/" + name)) }

        for run in 1...3 {
            let result = try CLI.run(["backup", "--data", data.path, "--all", backups.path, "--keep", "2"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Backed up Home to ") && result.stdout.contains("Backed up Cottage to ") && result.stdout.contains("30 items"))
            let names = try FileManager.default.contentsOfDirectory(atPath: backups.path).sorted()
            let archives = names.filter { $0.hasPrefix("nestory-") && $0 != gone }
            #expect(archives.count == 2 * min(run, 2), "run \(run): \(names)")
            #expect(names.contains("README.txt") && names.contains(gone) && names.contains("home-copy.zip"))
            if run < 3 { Thread.sleep(forTimeInterval: 1.05) }  // the names are to the second
        }
        // Each archive is sound and is its household's, whose id it is named by.
        for name in try FileManager.default.contentsOfDirectory(atPath: backups.path) where name.hasPrefix("nestory-") && name != gone {
            let check = try CLI.run(["restore", "--data", CLI.Folder().path, "--check", backups.path + "/" + name])
            #expect(check.status == 0 && (check.stdout.contains("sound: Home, 30 items") || check.stdout.contains("sound: Cottage, 0 items")), "\(check.stdout)")
        }

        // A household that cannot be backed up (a stored photo gone from the disk) is named and fails the command; the
        // others are still backed up, and its own older archives are kept.
        let blobs = try #require(FileManager.default.enumerator(atPath: data.path + "/blobs")?.compactMap { $0 as? String }
            .first { $0.split(separator: "/").count == 3 })
        try FileManager.default.removeItem(atPath: data.path + "/blobs/" + blobs)
        let before = try FileManager.default.contentsOfDirectory(atPath: backups.path).count
        Thread.sleep(forTimeInterval: 1.05)
        let damaged = try CLI.run(["backup", "--data", data.path, "--all", backups.path, "--keep", "2"])
        #expect(damaged.status != 0 && damaged.stdout.contains("Backed up Cottage to "), "\(damaged.stdout)")
        #expect(damaged.stderr.contains("Could not back up Home (") && damaged.stderr.contains("1 of 2 households were not backed up: Home ("), "\(damaged.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: backups.path).count == before, "Cottage's oldest went, its newest came; Home's stayed")

        for (arguments, message) in [(["--keep", "2", backups.path + "/one.zip"], "--keep 2 is for --all"),
                                     (["--all", "--keep", "0", backups.path], "--keep must be at least 1"),
                                     (["--all", "--household", "Home", backups.path], "leave out --household"),
                                     (["--all", backups.path + "/README.txt"], "is not a folder")] {
            let refused = try CLI.run(["backup", "--data", data.path] + arguments)
            #expect(refused.status != 0 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
    }

    @Test("a restore killed in the middle leaves the old data exactly as it was")
    func killedRestore() throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "200", "--seed", "4"]).status == 0)
        let archive = folder.path + ".zip"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        #expect(try CLI.run(["backup", "--data", folder.path, archive]).status == 0)
        // The data moves on after the backup.
        let csv = folder.path + ".csv"
        defer { try? FileManager.default.removeItem(atPath: csv) }
        try "Name,Price,Room\nNew sofa,899.00,Den\nNew lamp,45.00,Den\n".write(toFile: csv, atomically: true, encoding: .utf8)
        #expect(try CLI.run(["import", "csv", "--data", folder.path, csv]).status == 0)
        let before = try CLI.run(["stats", "--data", folder.path, "--json"]).stdout
        #expect(before.contains("\"itemCount\" : 202,"), "\(before)")

        let marker = folder.path + ".paused"
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let process = try ChildProcess(executable: CLI.binary.path, arguments: ["restore", "--data", folder.path, "--mode", "replace", archive],
                                       environment: ["NESTORY_FAULT_PAUSE_BEFORE_COMMIT": marker, "PATH": "/usr/bin:/bin"], output: .discard)
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: marker), Date() < deadline, process.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(FileManager.default.fileExists(atPath: marker), "the restore reached its commit")
        process.signal(SIGKILL)
        #expect(process.waitUntilExit() & 0x7f == SIGKILL, "the restore was killed, not ended")

        let after = try CLI.run(["stats", "--data", folder.path, "--json"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout == before)
        // And the same restore, not interrupted, does take effect.
        let restore = try CLI.run(["restore", "--data", folder.path, "--mode", "replace", archive])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try CLI.run(["stats", "--data", folder.path, "--json"]).stdout != before)
    }

    @Test("import csv: rows in, rooms created; a bad file names its lines and imports nothing")
    func importCSV() throws {
        let folder = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", folder.path, "--items", "5", "--seed", "1"]).status == 0)
        let csv = folder.path + ".csv"
        defer { try? FileManager.default.removeItem(atPath: csv) }
        try "Title;Cost;Where\n\"Sofa \"\"Bella\"\"\";1.299,00;Wintergarten\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let ok = try CLI.run(["import", "csv", "--data", folder.path, "--map", "name=Title,price=Cost,room=Where", csv])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("Imported 1 item into") && ok.stdout.contains("New rooms: Wintergarten"))
        try "Name,Price\nGood,1\nBad,abc\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let bad = try CLI.run(["import", "csv", "--data", folder.path, csv])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("Line 3 (Price)") && bad.stderr.contains("nothing was imported"))
        let stats = try CLI.run(["stats", "--data", folder.path]).stdout
        #expect(stats.contains("6 across"))
    }

    /// Moving a household's items by CSV: what `export csv` writes, `import csv` reads back field for field (prices and
    /// condition notes were dropped), and the columns it leaves (ids, totals, counts) are named before it imports.
    @Test("export csv, import csv elsewhere: every field of every item comes back")
    func exportThenImport() throws {
        let from = CLI.Folder(), to = CLI.Folder()
        #expect(try CLI.run(["demo", "--data", from.path, "--items", "30", "--seed", "3"]).status == 0)
        #expect(try CLI.run(["user", "add", "bo@example.com", "--household", "Cottage", "--data", to.path], stdin: "correct horse battery\n").status == 0)
        let first = from.path + ".csv", second = to.path + ".csv"
        defer { for file in [first, second] { try? FileManager.default.removeItem(atPath: file) } }
        #expect(try CLI.run(["export", "csv", first, "--data", from.path]).status == 0)
        let imported = try CLI.run(["import", "csv", "--data", to.path, first])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("Not read: id, total_value,") && imported.stdout.contains("Imported 30 items into Cottage."), "\(imported.stdout)")
        #expect(try CLI.run(["export", "csv", second, "--data", to.path]).status == 0)
        let fields = ["name", "brand", "model_number", "serial_number", "barcode", "quantity", "unit_price", "total_value", "currency",
                      "purchase_date", "warranty_expiry", "condition", "condition_notes", "room", "category", "tags", "notes"]
        func rows(_ path: String) throws -> [[String]] {
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\r\n").map(String.init)
            let header = lines[0].dropFirst().split(separator: ",", omittingEmptySubsequences: false).map(String.init)  // after the BOM
            let columns = fields.map { header.firstIndex(of: $0)! }
            return try lines.dropFirst().map { line in
                // The demo's fields hold no quote or line break; a comma inside quotes is kept with its field.
                let cells = try #require(CSVCells.split(line))
                return columns.map { cells[$0] }
            }.sorted { $0.lexicographicallyPrecedes($1) }
        }
        let before = try rows(first), after = try rows(second)
        #expect(before.count == 30 && before.contains { !$0[6].isEmpty } && before.contains { !$0[12].isEmpty })
        for (a, b) in zip(before, after) where a != b { Issue.record("\(a) came back as \(b)") }
        #expect(before.count == after.count)
    }
}

/// Splits one CSV line whose quoted fields hold no line break.
enum CSVCells {
    static func split(_ line: String) -> [String]? {
        var cells: [String] = [], current = "", quoted = false, chars = Array(line), index = 0
        while index < chars.count {
            let c = chars[index]
            if quoted {
                if c == "\"" { if index + 1 < chars.count, chars[index + 1] == "\"" { current.append("\""); index += 1 } else { quoted = false } } else { current.append(c) }
            } else if c == "\"" { quoted = true } else if c == "," { cells.append(current); current = "" } else { current.append(c) }
            index += 1
        }
        cells.append(current)
        return quoted ? nil : cells
    }
}
